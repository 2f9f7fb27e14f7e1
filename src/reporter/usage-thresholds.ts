/**
 * Upper bounds on usage (`maxThresholds`), overall and per suite:
 *
 *   maxThresholds: { latency_p95_ms: 2000, cost_usd: 5, suites: { weather: { latency_p50_ms: 800 } } }
 *
 * Latency is the model's, over fresh (uncached) samples; `cost_usd` is the model's and the judge's together (the
 * samples' reported costs, and `pricing`), `judge_cost_usd` the judge's alone; token bounds are the model's fresh
 * totals. Names are checked up front (a typo must not disable a gate). A bound with nothing to measure fails, as a
 * minimum does, except that latency or cost of a scope whose every sample was cached is "not run" (a cached re-run
 * runs no model), and in a partial run an unmeasured scope is "not run". A cost that is partial (some sample's cost
 * unknown: none reported, no price) or absent (no reported cost, no `pricing`) fails: it would undercount; so does a
 * token total some fresh sample has no count for (its provider or task reported none).
 */
import { closest } from '../calls/options.js'
import { formatUsd } from './usage-render.js'
import { unknownCostNote, unknownTokensNote, type UsageReport } from './usage.js'

export const MAX_METRICS = [
  'latency_p50_ms',
  'latency_p95_ms',
  'latency_mean_ms',
  'first_token_p95_ms',
  'cost_usd',
  'judge_cost_usd',
  'prompt_tokens',
  'completion_tokens',
] as const
export type MaxMetric = (typeof MAX_METRICS)[number]
export type MaxMetricThresholds = Partial<Record<MaxMetric, number>>
export type MaxThresholds = MaxMetricThresholds & { suites?: Record<string, MaxMetricThresholds> }

export interface MaxThresholdResult {
  metric: MaxMetric
  max: number
  actual: number | null
  pass: boolean
  suite?: string
  /** Not checked: its scope did not run (partial run), or every sample in it was cached (latency). */
  notRun?: true
  /** Why there is no value (`every sample was cached`, `no price for <provider>`). */
  note?: string
}

const COST_METRICS: readonly string[] = ['cost_usd', 'judge_cost_usd']

export function validateMaxThresholds(value: unknown): MaxThresholds {
  if (value === undefined) return {}
  if (!isObject(value)) throw new Error('tool-evals reporter: `maxThresholds` must be an object')
  const checkScope = (scope: Record<string, unknown>, path: string) => {
    for (const [metric, max] of Object.entries(scope)) {
      if (!(MAX_METRICS as readonly string[]).includes(metric)) {
        const near = closest(metric, path === 'maxThresholds' ? [...MAX_METRICS, 'suites'] : MAX_METRICS)
        const hint = near !== undefined ? `; did you mean \`${near}\`?` : ''
        throw new Error(`tool-evals reporter: unknown metric in \`${path}.${metric}\`; known: ${MAX_METRICS.join(', ')}${hint}`)
      }
      if (typeof max !== 'number' || !Number.isFinite(max) || max < 0) {
        throw new Error(`tool-evals reporter: \`${path}.${metric}\` must be a number >= 0`)
      }
    }
  }
  for (const [key, v] of Object.entries(value)) {
    if (key !== 'suites') continue
    if (!isObject(v)) throw new Error('tool-evals reporter: `maxThresholds.suites` must be an object')
    for (const [suite, scope] of Object.entries(v)) {
      if (!isObject(scope)) throw new Error(`tool-evals reporter: \`maxThresholds.suites.${suite}\` must be an object`)
      checkScope(scope, `maxThresholds.suites.${suite}`)
    }
  }
  const { suites: _suites, ...overall } = value
  checkScope(overall, 'maxThresholds')
  return value as MaxThresholds
}

/** A metric's value in a usage section: null with a note when it cannot be measured. */
function measure(usage: UsageReport | undefined, metric: MaxMetric): { actual: number | null; note?: string; allCached?: boolean; unknown?: boolean } {
  if (!usage) return { actual: null, note: 'no sample reported usage' }
  const m = usage.model
  const allCached = m.samples === 0 && m.cached > 0
  switch (metric) {
    case 'latency_p50_ms':
    case 'latency_p95_ms':
    case 'latency_mean_ms': {
      const key = metric === 'latency_p50_ms' ? 'p50' : metric === 'latency_p95_ms' ? 'p95' : 'mean'
      if (m.latencyMs) return { actual: m.latencyMs[key] }
      return allCached ? { actual: null, note: 'every sample was cached', allCached } : { actual: null, note: 'no sample measured latency' }
    }
    case 'first_token_p95_ms':
      if (m.firstTokenMs) return { actual: m.firstTokenMs.p95 }
      return allCached ? { actual: null, note: 'every sample was cached', allCached } : { actual: null, note: 'no provider gave a first-token time' }
    case 'prompt_tokens':
    case 'completion_tokens': {
      // A total short of some samples' counts would pass a bound it may break: no value, and the bound fails.
      const unknown = unknownTokensNote(m, [metric === 'prompt_tokens' ? 'prompt' : 'completion'])
      if (unknown !== undefined) return { actual: null, note: unknown, unknown: true }
      return { actual: metric === 'prompt_tokens' ? m.promptTokens : m.completionTokens }
    }
    case 'cost_usd':
    case 'judge_cost_usd': {
      const parts = metric === 'cost_usd' ? [usage.model, usage.judge] : [usage.judge]
      const unknown = parts.map(unknownCostNote).filter((n) => n !== undefined)
      if (unknown.length > 0) return { actual: null, note: unknown.join('; '), unknown: true }
      const cost = metric === 'cost_usd' ? usage.costUsd : usage.judge === undefined ? 0 : usage.judge.costUsd
      if (cost !== undefined) return { actual: cost }
      const fresh = parts.some((p) => p !== undefined && p.samples > 0)
      if (!fresh) return { actual: null, note: 'every sample was cached', allCached: true }
      return { actual: null, note: 'no sample reported a cost and there is no `pricing`', unknown: true }
    }
  }
}

export function checkMaxThresholds(
  thresholds: MaxThresholds,
  overall: UsageReport | undefined,
  suites: ReadonlyMap<string, UsageReport | undefined>,
  options: { partial?: boolean } = {},
): MaxThresholdResult[] {
  const results: MaxThresholdResult[] = []
  const check = (metric: MaxMetric, max: number, usage: UsageReport | undefined, suite?: string) => {
    const { actual, note, allCached, unknown } = measure(usage, metric)
    const r: MaxThresholdResult = { metric, max, actual, pass: actual !== null && actual <= max }
    if (suite !== undefined) r.suite = suite
    if (note !== undefined) r.note = note
    if (actual === null && !unknown && (allCached || (options.partial && usage === undefined))) {
      r.pass = true
      r.notRun = true
    }
    results.push(r)
  }
  for (const [metric, max] of Object.entries(thresholds)) {
    if (metric !== 'suites' && typeof max === 'number') check(metric as MaxMetric, max, overall)
  }
  for (const [suite, scope] of Object.entries(thresholds.suites ?? {})) {
    for (const [metric, max] of Object.entries(scope)) {
      if (typeof max === 'number') check(metric as MaxMetric, max, suites.get(suite), suite)
    }
  }
  return results
}

/** `latency_p95_ms: 2140 > max 2000 (suite weather)`: one line naming a bound's outcome. */
export function describeMaxThreshold(r: MaxThresholdResult): string {
  const scope = r.suite !== undefined ? ` (suite ${r.suite})` : ''
  const fmt = (x: number) => (COST_METRICS.includes(r.metric) ? formatUsd(x) : String(Math.round(x * 10) / 10))
  if (r.notRun) return `${r.metric}${scope}: not run (${r.note ?? 'not in this partial run'}; max ${fmt(r.max)})`
  if (r.actual === null) return `${r.metric}${scope}: not measured: ${r.note ?? 'no value'} (max ${fmt(r.max)})`
  return `${r.metric}${scope}: ${fmt(r.actual)} ${r.pass ? '<=' : '>'} max ${fmt(r.max)}`
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
