/**
 * The JSON report (`outputFile`): DESIGN.md's shape `{samples, metrics, suites: {name: {samples, metrics}},
 * thresholds: [{metric, min, actual, pass}], pass}`, extended with counts, failure categories, the per-tool
 * breakdown, the errored samples by name and the worst samples.
 */
import { REPORT_METRICS, SCORER_METRICS } from '../score/types.js'
import type {
  Aggregate,
  BfclAggregate,
  FailureCategory,
  JudgeAggregate,
  RunMetric,
  RunMetrics,
  SchemaAggregate,
  ToolBreakdown,
} from '../score/types.js'
import { sortErrored, type ErroredSample, type RunCollector, type WorstSample } from './collect.js'
import type { ThresholdResult } from './thresholds.js'
import type { PartialRun } from './run-scope.js'

export interface CountByReason {
  count: number
  byReason: Record<string, number>
}

/** Counts behind the opted-in scorers' metrics; each present only when some sample in scope had that scorer. */
export interface ScorerDetails {
  /** BFCL verdicts: `{total, correct, categories: {<category>: {total, correct, accuracy}}, errorTypes}`. */
  bfcl?: BfclAggregate
  /** Schema metrics: samples and how many scored 1 on each of the three. */
  schema?: SchemaAggregate
  /** Judgements per kind: `{judged, correct, errors}` (errors: no label, left out of the rate). */
  judge?: JudgeAggregate
}

export interface SuiteReport extends ScorerDetails {
  samples: number
  /** NeMo's rates, then the opted-in scorers' (`bfcl_accuracy`, `schema_*`, `judge_*`) when measured. */
  metrics: RunMetrics
  scored: number
  withExpectedCalls: number
  noCallExpected: number
  errored: CountByReason
  skipped: CountByReason
  failures: Record<FailureCategory, number>
  tools: Record<string, ToolBreakdown>
}

export interface ToolEvalsReport extends ScorerDetails {
  /** Every sample the run evaluated (errored and skipped included). */
  samples: number
  /**
   * Run-level rates (NeMo's aggregation), then the opted-in scorers' (`bfcl_accuracy`, `schema_*`, `judge_*`) when
   * some sample had them; `null` when no sample is in a metric's denominator.
   */
  metrics: RunMetrics
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
  /**
   * The run did not finish (a signal, Ctrl-C, the process killed): the report holds what finished and never passes.
   * A report reading `interrupted` with `partial.ran: 0` was written at run start and the run never reached its end.
   */
  interrupted?: true
  /** Present when the run covered less than the whole suite: a selection, a `--bail` stop, an interruption. */
  partial?: PartialRun
}

/** The metrics a report carries, in table order: NeMo's, then the scorers' that were measured in the run. */
export function reportedMetrics(report: Pick<ToolEvalsReport, 'metrics'>): RunMetric[] {
  const out: RunMetric[] = [...REPORT_METRICS]
  for (const m of SCORER_METRICS) if (m in report.metrics) out.push(m)
  return out
}

/** The scorer details of an aggregate, only those present (the JSON report leaves the others out). */
function scorerDetails(agg: Aggregate): ScorerDetails {
  const out: ScorerDetails = {}
  if (agg.bfcl) out.bfcl = agg.bfcl
  if (agg.schema) out.schema = agg.schema
  if (agg.judge) out.judge = agg.judge
  return out
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
    ...scorerDetails(agg),
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
    ...scorerDetails(overall),
    worst: collector.worst,
  }
}
