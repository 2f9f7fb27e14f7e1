/**
 * The 95% intervals the JSON report carries beside its rates: `metricIntervals: { <metric>: [lo, hi] }` on the run
 * and on each suite (clustered by dialogue, see score/intervals.ts), and `toolIntervals: { <tool>: { name_correct,
 * args_exact_match } }` (plain Wilson over the tool's expected positions). `metrics` stays as it was: plain numbers.
 *
 * The per-sample value of every metric is read from the record the same way the run's rate sums it: NeMo's from
 * `record.score`, each scorer's by finishing its own accumulator over that one record, so user scorers get intervals too.
 */
import { builtinScorer } from '../score/scorers/index.js'
import type { ScorerAccumulator } from '../score/scorer.js'
import { addCluster, clusterOf, clusteredWilson, emptyClusterTotals, wilson, type ClusterTotals, type Interval } from '../score/intervals.js'
import { finite } from '../score/aggregate.js'
import { NEMO_METRICS, NO_SUITE, type SampleRecord, type ToolBreakdown } from '../score/types.js'
import type { ThresholdIntervals } from './thresholds.js'
import type { Aggregate } from '../score/types.js'

export type MetricIntervals = Record<string, Interval | null>
export type ToolIntervals = Record<string, { name_correct: Interval | null; args_exact_match: Interval | null }>

/** One sample's value of each metric whose denominator it is in (errored samples count 0, as in the rates). */
export function sampleMetricValues(record: SampleRecord): Map<string, number> {
  const out = new Map<string, number>()
  const errored = record.error !== undefined
  if (record.skipped !== undefined && !errored) return out
  const score = record.score
  if (score) {
    if (score.expected > 0) {
      for (const k of NEMO_METRICS) out.set(k, errored ? 0 : finite(score.metrics[k]))
    } else {
      const right = score.noCallShare ?? (score.noCallCorrect ?? score.predicted === 0 ? 1 : 0)
      out.set('no_call_accuracy', errored ? 0 : right)
    }
  }
  for (const [name, value] of Object.entries(record.scores ?? {})) {
    if (value === undefined || value === null) continue
    const builtin = builtinScorer(name)
    if (!builtin) {
      // A user scorer's value is its metrics' values (the mean accumulator's rule, without building one per sample).
      if (typeof value !== 'object') continue
      for (const [metric, v] of Object.entries(value)) {
        if (v === null || v === undefined) continue
        out.set(`${name}.${metric}`, errored ? 0 : finite(typeof v === 'boolean' ? Number(v) : v))
      }
      continue
    }
    const accumulator = builtin.accumulator as ScorerAccumulator<unknown, unknown>
    const acc = accumulator.create()
    accumulator.add(acc, value, errored)
    for (const [metric, v] of Object.entries(accumulator.finish(acc).metrics)) if (typeof v === 'number') out.set(metric, v)
  }
  return out
}

/**
 * One scope's clusters: per metric, the finished clusters as running totals; the open (dialogue) clusters by key,
 * each one array of sizes and one of sums indexed by metric (one map lookup per sample, not one per metric).
 */
class ScopeClusters {
  private readonly index = new Map<string, number>()
  private readonly totals: ClusterTotals[] = []
  private readonly open = new Map<string, { n: number[]; sum: number[] }>()

  private slot(metric: string): number {
    let i = this.index.get(metric)
    if (i === undefined) {
      i = this.totals.length
      this.index.set(metric, i)
      this.totals.push(emptyClusterTotals())
    }
    return i
  }

  add(cluster: string | undefined, values: Map<string, number>): void {
    if (cluster === undefined) {
      for (const [metric, x] of values) addCluster(this.totals[this.slot(metric)] as ClusterTotals, 1, x)
      return
    }
    let c = this.open.get(cluster)
    if (!c) this.open.set(cluster, (c = { n: [], sum: [] }))
    for (const [metric, x] of values) {
      const i = this.slot(metric)
      c.n[i] = (c.n[i] ?? 0) + 1
      c.sum[i] = (c.sum[i] ?? 0) + x
    }
  }

  intervals(metrics: Readonly<Record<string, number | null | undefined>>): MetricIntervals {
    for (const c of this.open.values()) {
      c.n.forEach((n, i) => addCluster(this.totals[i] as ClusterTotals, n, c.sum[i] ?? 0))
    }
    this.open.clear()
    const out: MetricIntervals = {}
    for (const [metric, p] of Object.entries(metrics)) {
      const i = this.index.get(metric)
      out[metric] = typeof p === 'number' && i !== undefined ? clusteredWilson(this.totals[i] as ClusterTotals, p) : null
    }
    return out
  }
}

/** Collects what the intervals need, sample by sample (constant work per sample and metric). */
export class IntervalCollector {
  private readonly overall = new ScopeClusters()
  private readonly suites = new Map<string, ScopeClusters>()

  add(record: SampleRecord): void {
    const values = sampleMetricValues(record)
    if (values.size === 0) return
    const suite = record.suite ?? NO_SUITE
    const base = clusterOf(record.id)
    // Only dialogue samples share a cluster; any other sample is its own and is folded in at once.
    const cluster = base === record.id ? undefined : base
    this.overall.add(cluster === undefined ? undefined : `${suite}\u0000${cluster}`, values)
    let scope = this.suites.get(suite)
    if (!scope) this.suites.set(suite, (scope = new ScopeClusters()))
    scope.add(cluster, values)
  }

  overallIntervals(metrics: Readonly<Record<string, number | null | undefined>>): MetricIntervals {
    return this.overall.intervals(metrics)
  }

  suiteIntervals(suite: string, metrics: Readonly<Record<string, number | null | undefined>>): MetricIntervals {
    return (this.suites.get(suite) ?? new ScopeClusters()).intervals(metrics)
  }
}

/** Wilson intervals of the per-tool rates (positions are counted, not clustered: see README, "Intervals"). */
export function toolIntervals(tools: Readonly<Record<string, ToolBreakdown>>): ToolIntervals {
  const out: ToolIntervals = {}
  for (const [name, t] of Object.entries(tools)) {
    out[name] = {
      name_correct: t.name_correct === null ? null : wilson(t.name_correct, t.positions),
      args_exact_match: t.args_exact_match === null ? null : wilson(t.args_exact_match, t.positions),
    }
  }
  return out
}

/** The intervals thresholds on `on: 'lower'` read, before the report is built. */
export function thresholdIntervals(collector: { readonly intervals: IntervalCollector }, overall: Aggregate, suites: ReadonlyMap<string, Aggregate>): ThresholdIntervals {
  const bySuite = new Map<string, MetricIntervals>()
  for (const [name, agg] of suites) bySuite.set(name, collector.intervals.suiteIntervals(name, agg.metrics))
  return { overall: collector.intervals.overallIntervals(overall.metrics), suites: bySuite, tools: toolIntervals(overall.tools) }
}
