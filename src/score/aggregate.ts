/**
 * Run-level aggregation with NeMo's rules: each of the six metrics is the mean,
 * over the samples that expect at least one call, of the sample's own value; `no_call_accuracy` covers the samples
 * that expect none. Errored samples stay in the denominators as samples with no prediction (a failure never raises
 * a rate); samples skipped by policy leave the means and are counted by reason.
 *
 * Everything is kept as counts and exact sums in an accumulator, so records from sharded runs concatenate (or
 * accumulators merge) and give the same numbers as one run, bit for bit, whatever the order: sums are exact
 * (Shewchuk's algorithm, as Python's `math.fsum`) and rounded once at the end.
 */
import {
  FAILURE_CATEGORIES,
  NEMO_METRICS,
  REPORT_METRICS,
  type Aggregate,
  type FailureCategory,
  type NemoMetric,
  type ReportMetric,
  type SampleRecord,
  type ToolBreakdown,
} from './types.js'

// ---- exact summation ----

/** Add `x` to a list of non-overlapping partial sums, keeping their total exact. */
export function addExact(partials: number[], x: number): void {
  let n = 0
  for (let y of partials) {
    if (Math.abs(x) < Math.abs(y)) [x, y] = [y, x]
    const hi = x + y
    const lo = y - (hi - x)
    if (lo !== 0) partials[n++] = lo
    x = hi
  }
  partials.length = n
  partials.push(x)
}

/** The exact total of the partials, correctly rounded to a double. */
export function exactTotal(partials: readonly number[]): number {
  let n = partials.length
  if (n === 0) return 0
  let hi = partials[--n]!
  let lo = 0
  while (n > 0) {
    const x = hi
    const y = partials[--n]!
    hi = x + y
    lo = y - (hi - x)
    if (lo !== 0) break
  }
  // Round half to even across the remaining partials.
  if (n > 0 && ((lo < 0 && partials[n - 1]! < 0) || (lo > 0 && partials[n - 1]! > 0))) {
    const y = lo * 2
    const x = hi + y
    if (y === x - hi) hi = x
  }
  return hi
}

// ---- accumulator ----

interface ToolCounts {
  positions: number
  nameCorrect: number
  argsExactMatch: number
}

/** Counts and exact sums behind an Aggregate. Build with `createAccumulator`, feed with `addRecord`. */
export interface Accumulator {
  samples: number
  scored: number
  errored: Map<string, number>
  skipped: Map<string, number>
  withExpectedCalls: number
  noCallExpected: number
  noCallCorrect: number
  /** Exact partial sums of each metric's per-sample values over `withExpectedCalls`. */
  sums: Record<NemoMetric, number[]>
  failures: Record<FailureCategory, number>
  tools: Map<string, ToolCounts>
}

export function createAccumulator(): Accumulator {
  const sums = {} as Record<NemoMetric, number[]>
  for (const k of NEMO_METRICS) sums[k] = []
  const failures = {} as Record<FailureCategory, number>
  for (const f of FAILURE_CATEGORIES) failures[f] = 0
  return {
    samples: 0,
    scored: 0,
    errored: new Map(),
    skipped: new Map(),
    withExpectedCalls: 0,
    noCallExpected: 0,
    noCallCorrect: 0,
    sums,
    failures,
    tools: new Map(),
  }
}

/** Count `by` more under `key`. */
export function bump(map: Map<string, number>, key: string, by = 1): void {
  map.set(key, (map.get(key) ?? 0) + by)
}

/** Fold one exact sum's partials into another's. */
export function mergeExact(into: number[], from: readonly number[]): void {
  for (const x of from) addExact(into, x)
}

function toolCounts(acc: Accumulator, name: string): ToolCounts {
  let t = acc.tools.get(name)
  if (!t) {
    t = { positions: 0, nameCorrect: 0, argsExactMatch: 0 }
    acc.tools.set(name, t)
  }
  return t
}

/** A per-sample value as a finite number (a corrupt record must not turn a mean into NaN). */
export function finite(x: unknown): number {
  return typeof x === 'number' && Number.isFinite(x) ? x : 0
}

/**
 * Add one record. Precedence: an `error` makes the record errored (even if it also says skipped: a failure must
 * not be able to leave the denominators); else `skipped` skips it; else its `score` is counted; a record with none
 * of the three is errored with the reason `no score`.
 */
export function addRecord(acc: Accumulator, record: SampleRecord): void {
  acc.samples++
  const score = record.score
  if (record.error !== undefined || (record.skipped === undefined && score === undefined)) {
    bump(acc.errored, record.error ?? 'no score')
    // Errored: a sample with no prediction, if we know what it expected.
    if (!score) return
    if (score.expected > 0) {
      acc.withExpectedCalls++
      for (const p of score.positions) toolCounts(acc, p.expected).positions++
    } else acc.noCallExpected++
    return
  }
  if (record.skipped !== undefined) {
    bump(acc.skipped, record.skipped)
    return
  }
  if (!score) return // unreachable: handled above
  acc.scored++
  for (const f of score.failures) if (f in acc.failures) acc.failures[f]++
  if (score.expected > 0) {
    acc.withExpectedCalls++
    for (const k of NEMO_METRICS) addExact(acc.sums[k], finite(score.metrics[k]))
    for (const p of score.positions) {
      const t = toolCounts(acc, p.expected)
      t.positions++
      if (p.metrics.name_correct === 1) t.nameCorrect++
      if (p.metrics.args_exact_match === 1) t.argsExactMatch++
    }
  } else {
    acc.noCallExpected++
    if (score.noCallShare !== undefined) acc.noCallCorrect += finite(score.noCallShare)
    else if (score.noCallCorrect ?? score.predicted === 0) acc.noCallCorrect++
  }
}

/** Fold `from` into `into` (e.g. the accumulators of two shards). */
export function mergeAccumulators(into: Accumulator, from: Accumulator): Accumulator {
  into.samples += from.samples
  into.scored += from.scored
  for (const [k, n] of from.errored) bump(into.errored, k, n)
  for (const [k, n] of from.skipped) bump(into.skipped, k, n)
  into.withExpectedCalls += from.withExpectedCalls
  into.noCallExpected += from.noCallExpected
  into.noCallCorrect += from.noCallCorrect
  for (const k of NEMO_METRICS) mergeExact(into.sums[k], from.sums[k])
  for (const f of FAILURE_CATEGORIES) into.failures[f] += from.failures[f]
  for (const [name, t] of from.tools) {
    const u = toolCounts(into, name)
    u.positions += t.positions
    u.nameCorrect += t.nameCorrect
    u.argsExactMatch += t.argsExactMatch
  }
  return into
}

/** A share, or null when nothing was counted (never NaN). */
export function rate(num: number, den: number): number | null {
  return den === 0 ? null : num / den
}

/** Map to a plain object with keys in sorted order (stable output whatever order records came in). */
export function sortedObject<V, W>(map: Map<string, V>, f: (v: V) => W): Record<string, W> {
  const keys = [...map.keys()].sort()
  return Object.fromEntries(keys.map((k) => [k, f(map.get(k)!)]))
}

/** The Aggregate an accumulator stands for. */
export function finishAggregate(acc: Accumulator): Aggregate {
  const metrics = {} as Record<ReportMetric, number | null>
  for (const k of NEMO_METRICS) metrics[k] = rate(exactTotal(acc.sums[k]), acc.withExpectedCalls)
  metrics.no_call_accuracy = rate(acc.noCallCorrect, acc.noCallExpected)
  const metricCounts: Record<string, number> = {}
  for (const k of NEMO_METRICS) metricCounts[k] = acc.withExpectedCalls
  metricCounts['no_call_accuracy'] = acc.noCallExpected
  const count = (m: Map<string, number>): number => {
    let n = 0
    for (const v of m.values()) n += v
    return n
  }
  return {
    samples: acc.samples,
    scored: acc.scored,
    errored: { count: count(acc.errored), byReason: sortedObject(acc.errored, (n) => n) },
    skipped: { count: count(acc.skipped), byReason: sortedObject(acc.skipped, (n) => n) },
    withExpectedCalls: acc.withExpectedCalls,
    noCallExpected: acc.noCallExpected,
    metrics,
    metricCounts,
    failures: { ...acc.failures },
    tools: sortedObject(
      acc.tools,
      (t): ToolBreakdown => ({
        positions: t.positions,
        nameCorrect: t.nameCorrect,
        argsExactMatch: t.argsExactMatch,
        name_correct: rate(t.nameCorrect, t.positions),
        args_exact_match: rate(t.argsExactMatch, t.positions),
      }),
    ),
  }
}

/** Run-level numbers of a list of sample records (see the module comment for the rules). */
export function aggregate(records: Iterable<SampleRecord>): Aggregate {
  const acc = createAccumulator()
  for (const r of records) addRecord(acc, r)
  return finishAggregate(acc)
}

/** Whether `name` is a metric a report carries (usable in thresholds). */
export function isReportMetric(name: string): name is ReportMetric {
  return (REPORT_METRICS as readonly string[]).includes(name)
}

/**
 * A run-level metric by name, for thresholds: its value, `null` when its denominator is empty, `undefined` when
 * the name is not a metric.
 */
export function metricValue(agg: Aggregate, name: string): number | null | undefined {
  return isReportMetric(name) ? agg.metrics[name] : undefined
}
