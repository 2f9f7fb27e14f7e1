/**
 * User scorers: `defineScorer({ name, metrics, score })` makes a Scorer whose per-sample values are numbers in
 * [0, 1] per metric and whose run-level metric is their mean (an exact sum over a count), reported as
 * `<name>.<metric>`.
 *
 * The reporter runs in Vitest's main process, where the user's eval files (and so their scorers) are never loaded:
 * it sums any scorer it does not know with the same mean accumulator (`meanScorer`), from the values in the
 * records alone. That is why a user scorer's run-level metric is always a mean, and why its metric names carry the
 * scorer's name: the reporter can tell a user metric (`units.celsius`) from a misspelt built-in one up front.
 */
import { addExact, exactTotal, finite, mergeExact, rate } from './aggregate.js'
import type { Scorer, ScorerAccumulator, ScorerInput } from './scorer.js'

/** One sample's values by metric: a number in [0, 1] (or a boolean); null or absent leaves it out of that mean. */
export type MetricValues = Record<string, number | boolean | null | undefined>

export interface ScorerDefinition<M extends string> {
  /** Names the scorer's values in records and prefixes its metrics: lowercase letters, digits, `_` and `-`. */
  name: string
  /** Its metrics (reported as `<name>.<metric>`). */
  metrics: readonly M[]
  /**
   * Score one sample: a value per metric (`1`/`true` right, `0`/`false` wrong, fractions allowed); a metric left
   * out or `null` does not count this sample. Return `undefined` to leave the sample out altogether. May be async.
   */
  score(input: ScorerInput): Partial<Record<M, number | boolean | null>> | undefined | Promise<Partial<Record<M, number | boolean | null>> | undefined>
}

/** Per metric: how many samples gave a value, and the exact sum of those values. */
export type MeanAccumulator = Map<string, { count: number; sum: number[] }>

/** Names a user scorer may not take: the built-in scorers' and EvalResult's own fields. */
const RESERVED = new Set(['nemo', 'bfcl', 'schema', 'judge', 'trajectory', 'sample', 'output', 'calls', 'score', 'scores', 'record'])
const NAME = /^[a-z][a-z0-9_-]*$/

function meanAccumulator(name: string, metrics: readonly string[]): ScorerAccumulator<Record<string, number>, MeanAccumulator> {
  const slot = (acc: MeanAccumulator, metric: string) => {
    let s = acc.get(metric)
    if (!s) {
      s = { count: 0, sum: [] }
      acc.set(metric, s)
    }
    return s
  }
  return {
    create: () => new Map(),
    add(acc, value, errored) {
      if (typeof value !== 'object' || value === null) return
      for (const [metric, v] of Object.entries(value)) {
        if (v === null || v === undefined) continue
        const s = slot(acc, metric)
        s.count++
        // An errored sample never raises a rate, whatever its record says.
        addExact(s.sum, errored ? 0 : finite(typeof v === 'boolean' ? Number(v) : v))
      }
    },
    merge(into, from) {
      for (const [metric, f] of from) {
        const s = slot(into, metric)
        s.count += f.count
        mergeExact(s.sum, f.sum)
      }
      return into
    },
    finish(acc) {
      // Declared metrics first (in their order), then any others the records carried, by name.
      const names = [...metrics.filter((m) => acc.has(m)), ...[...acc.keys()].filter((m) => !metrics.includes(m)).sort()]
      const out: Record<string, number | null> = {}
      const counts: Record<string, number> = {}
      for (const m of names) {
        const s = acc.get(m)!
        out[`${name}.${m}`] = rate(exactTotal(s.sum), s.count)
        // The samples that gave this metric a value (a null or absent value leaves the sample out).
        counts[`${name}.${m}`] = s.count
      }
      return { metrics: out, counts }
    },
  }
}

/** The scorer the reporter sums an unknown name with: a mean per metric, metric names learnt from the records. */
export function meanScorer(name: string): Pick<Scorer, 'name' | 'metrics' | 'accumulator'> {
  return { name, metrics: [], accumulator: meanAccumulator(name, []) as ScorerAccumulator<unknown, unknown> }
}

/** A number in [0, 1] from a metric value, null to leave it out; anything else is the scorer's bug, said clearly. */
function metricValue(scorer: string, metric: string, v: unknown): number | null {
  if (v === null || v === undefined) return null
  const n = typeof v === 'boolean' ? Number(v) : v
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0 || n > 1) {
    throw new Error(`scorer "${scorer}": metric "${metric}" must be a number in [0, 1], a boolean or null (got ${JSON.stringify(v)})`)
  }
  return n
}

/**
 * A scorer of your own for `describeEval(name, { ..., scorers: [myScorer] })`:
 *
 *   const celsius = defineScorer({
 *     name: 'units',
 *     metrics: ['celsius'],
 *     score: ({ calls }) => ({ celsius: calls.every((c) => c.arguments['unit'] !== 'fahrenheit') }),
 *   })
 *
 * Its metrics are reported as `units.celsius` (the mean over the samples that gave a value), overall and per suite,
 * in the JSON report, the terminal table and the thresholds. A sample that could not be evaluated scores 0 on each.
 */
export function defineScorer<M extends string>(definition: ScorerDefinition<M>): Scorer<Record<string, number>, MeanAccumulator> {
  const { name, metrics } = definition
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw new Error(`defineScorer: name ${JSON.stringify(name)} must be lowercase letters, digits, \`_\` or \`-\`, starting with a letter`)
  }
  if (RESERVED.has(name)) throw new Error(`defineScorer: the name "${name}" is taken (built-in scorer or result field)`)
  if (!Array.isArray(metrics) || metrics.length === 0 || !metrics.every((m) => typeof m === 'string' && NAME.test(m))) {
    throw new Error(`defineScorer "${name}": \`metrics\` must be a non-empty list of names (lowercase letters, digits, \`_\`, \`-\`)`)
  }
  const zeros = Object.fromEntries(metrics.map((m) => [m, 0]))
  return {
    name,
    metrics: metrics.map((m) => `${name}.${m}`),
    async score(input) {
      const values = await definition.score(input)
      if (values === undefined) return undefined
      const value: Record<string, number> = {}
      for (const m of metrics) {
        const v = metricValue(name, m, (values as Record<string, unknown>)[m])
        if (v !== null) value[m] = v
      }
      return { value, result: values }
    },
    errored: () => ({ ...zeros }),
    accumulator: meanAccumulator(name, metrics),
  }
}
