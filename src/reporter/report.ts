/**
 * The JSON report (`outputFile`): DESIGN.md's shape `{samples, metrics, suites: {name: {samples, metrics}},
 * thresholds: [{metric, min, actual, pass}], pass}`, extended with counts, failure categories, the per-tool
 * breakdown, the errored samples by name and the worst samples.
 */
import type { Aggregate, FailureCategory, ReportMetric, ToolBreakdown } from '../score/types.js'
import { sortErrored, type ErroredSample, type RunCollector, type WorstSample } from './collect.js'
import type { ThresholdResult } from './thresholds.js'

export interface CountByReason {
  count: number
  byReason: Record<string, number>
}

export interface SuiteReport {
  samples: number
  metrics: Record<ReportMetric, number | null>
  scored: number
  withExpectedCalls: number
  noCallExpected: number
  errored: CountByReason
  skipped: CountByReason
  failures: Record<FailureCategory, number>
  tools: Record<string, ToolBreakdown>
}

export interface ToolEvalsReport {
  /** Every sample the run evaluated (errored and skipped included). */
  samples: number
  /** Run-level rates (NeMo's aggregation); `null` when no sample is in a metric's denominator. */
  metrics: Record<ReportMetric, number | null>
  suites: Record<string, SuiteReport>
  thresholds: ThresholdResult[]
  /** The run passes its gate: every threshold passes and no test failed (the process exit status agrees). */
  pass: boolean
  thresholdsPass: boolean
  testsPass: boolean
  scored: number
  withExpectedCalls: number
  noCallExpected: number
  errored: CountByReason & { samples: ErroredSample[]; unlisted?: number }
  skipped: CountByReason
  failures: Record<FailureCategory, number>
  tools: Record<string, ToolBreakdown>
  worst: WorstSample[]
}

export function suiteReport(agg: Aggregate): SuiteReport {
  return {
    samples: agg.samples,
    metrics: agg.metrics,
    scored: agg.scored,
    withExpectedCalls: agg.withExpectedCalls,
    noCallExpected: agg.noCallExpected,
    errored: agg.errored,
    skipped: agg.skipped,
    failures: agg.failures,
    tools: agg.tools,
  }
}

export function buildReport(
  collector: RunCollector,
  overall: Aggregate,
  suites: ReadonlyMap<string, Aggregate>,
  thresholds: ThresholdResult[],
  testsPass: boolean,
): ToolEvalsReport {
  const thresholdsPass = thresholds.every((t) => t.pass)
  const errored: ToolEvalsReport['errored'] = { ...overall.errored, samples: sortErrored([...collector.errored]) }
  if (collector.erroredUnlisted > 0) errored.unlisted = collector.erroredUnlisted
  return {
    samples: overall.samples,
    metrics: overall.metrics,
    suites: Object.fromEntries([...suites].map(([name, agg]) => [name, suiteReport(agg)])),
    thresholds,
    pass: thresholdsPass && testsPass,
    thresholdsPass,
    testsPass,
    scored: overall.scored,
    withExpectedCalls: overall.withExpectedCalls,
    noCallExpected: overall.noCallExpected,
    errored,
    skipped: overall.skipped,
    failures: overall.failures,
    tools: overall.tools,
    worst: collector.worst,
  }
}
