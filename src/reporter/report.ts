/**
 * The JSON report (`outputFile`): the README's documented shape `{samples, metrics, suites: {name: {samples, metrics}},
 * thresholds: [{metric, min, actual, pass}], pass}`, extended with counts, failure categories, the per-tool
 * breakdown, the errored samples by name and the worst samples.
 */
import { BUILTIN_SCORER_METRICS, type BuiltinScorerDetails } from '../score/scorers/index.js'
import { REPORT_METRICS } from '../score/types.js'
import type { Aggregate, FailureCategory, RunMetric, RunMetrics, ToolBreakdown } from '../score/types.js'
import { sortErrored, type ErroredSample, type RunCollector, type WorstSample } from './collect.js'
import type { ThresholdResult } from './thresholds.js'
import type { PartialRun } from './run-scope.js'
import type { UsageReport } from './usage.js'
import type { MaxThresholdResult } from './usage-thresholds.js'

import { toolIntervals, type MetricIntervals, type ToolIntervals } from './intervals.js'
import type { SnapshotReport } from './snapshots.js'
import type { TrialsReport } from './trials.js'

import type { Comparison } from './compare/compare.js'
import type { RunMeta } from './compare/run-meta.js'
import type { ModelMatrixReport } from './matrix.js'

/** Why a run fails, by kind (a report lists each reason with its kind and one line of text). */
export type GateReasonKind =
  | 'threshold'
  | 'usage_bound'
  | 'tests_failed'
  | 'run_error'
  | 'file_unfinished'
  | 'interrupted'
  | 'bail'
  | 'regression'
  | 'must_pass'
  | 'baseline'
  | 'model_worse'

export interface GateReason {
  kind: GateReasonKind
  message: string
}

/** The run's verdict and every reason for it (`reasons` is empty exactly when `pass` is true). */
export interface Gate {
  pass: boolean
  reasons: GateReason[]
  /** Shown but not gated, and why (a filtered run's thresholds and regression verdicts). */
  notGated?: string
}

export interface CountByReason {
  count: number
  byReason: Record<string, number>
}

/**
 * Counts behind the scorers' metrics, under each scorer's name; each present only when some sample in scope had that
 * scorer: `bfcl` `{total, correct, categories: {<category>: {total, correct, accuracy}}, errorTypes}`, `schema`
 * samples and how many scored 1 on each of the three, `judge` `{judged, correct, errors}` per kind.
 */
export type ScorerDetails = BuiltinScorerDetails

export interface SuiteReport extends ScorerDetails {
  samples: number
  /** NeMo's rates, then the scorers' (`bfcl_accuracy`, `schema_*`, `judge_*`, `<user scorer>.<metric>`) when measured. */
  metrics: RunMetrics
  /** Per rate in `metrics`: how many samples (judgements, for `judge_*`) it is a share of (see Aggregate.metricCounts). */
  metricCounts: Record<string, number>
  scored: number
  withExpectedCalls: number
  noCallExpected: number
  errored: CountByReason
  skipped: CountByReason
  failures: Record<FailureCategory, number>
  tools: Record<string, ToolBreakdown>
  /** Tokens, latency and cost of this suite's samples (present when some reported usage: see reporter/usage.ts). */
  usage?: UsageReport

  /** 95% interval of each rate in `metrics` (Wilson, clustered by dialogue; null where the rate is). */
  metricIntervals?: MetricIntervals
  /** 95% Wilson intervals of the per-tool rates in `tools`. */
  toolIntervals?: ToolIntervals
}

export interface ToolEvalsReport extends ScorerDetails {
  /** Every sample the run evaluated (errored and skipped included). */
  samples: number
  /**
   * Run-level rates (NeMo's aggregation), then the scorers' (`bfcl_accuracy`, `schema_*`, `judge_*`,
   * `<user scorer>.<metric>`) when some sample had them; `null` when no sample is in a metric's denominator.
   */
  metrics: RunMetrics
  /**
   * Per rate in `metrics`: its denominator, how many samples (judgements, for `judge_*`) stand behind it, as each
   * scorer declares it (NeMo's six: `withExpectedCalls`; `no_call_accuracy`: `noCallExpected`; user scorers: the
   * samples that gave the metric a value). Views read `n` here and never work it out per scorer.
   */
  metricCounts: Record<string, number>
  suites: Record<string, SuiteReport>
  thresholds: ThresholdResult[]
  /**
   * The run passes its gate (`gate.reasons` is empty; the process exit status agrees). Written by the gate alone
   * (gate.ts): every reason it can be false is listed in `gate.reasons` and in the README ("The verdict").
   */
  pass: boolean
  /** Every threshold and usage bound passes (in a filtered run they are shown, not gated). */
  thresholdsPass: boolean
  /** Vitest's own verdict on the tests: no test failed. */
  testsPass: boolean
  /** The verdict with every reason the run fails (empty when it passes), and what a filtered run shows but does not gate. */
  gate: Gate
  /** Test cases that failed (errored samples, `strict`, `assert`, other tests), when some did. */
  failedTests?: number
  /** Errors Vitest reported beside the tests (a worker that died, an unhandled error, a bad `--shard`). */
  runErrors?: string[]
  /** Test files that did not finish (a worker killed, a file that failed to load): their samples are missing. */
  unfinishedFiles?: string[]
  /** A baseline was set but no comparison could be made with it (unreadable, inconsistent, not comparable). */
  baselineError?: { file: string; message: string }
  scored: number
  withExpectedCalls: number
  noCallExpected: number
  errored: CountByReason & { samples: ErroredSample[]; unlisted?: number }
  skipped: CountByReason
  failures: Record<FailureCategory, number>
  tools: Record<string, ToolBreakdown>
  worst: WorstSample[]
  /** Tokens, latency and cost, the model's and the judge's apart (present when some sample reported usage). */
  usage?: UsageReport
  /** The `maxThresholds` bounds' outcomes (in the gate with `thresholds`); absent when none were set. */
  maxThresholds?: MaxThresholdResult[]
  /** Samples whose cache entry was unusable (corrupt, unreadable) and was regenerated; absent when none. */
  cacheRegenerated?: number
  /**
   * Generations answered from the run journal of the interrupted run before this one (the rerun resumed there
   * instead of asking the model again); absent when none.
   */
  resumed?: number
  /**
   * The run did not finish (a signal, Ctrl-C, the process killed): the report holds what finished and never passes.
   * A report reading `interrupted` with `partial.ran: 0` was written at run start and the run never reached its end.
   */
  interrupted?: true
  /** Present when the run covered less than the whole suite: a selection, a `--bail` stop, an interruption. */
  partial?: PartialRun
  /** 95% interval of each rate in `metrics` (Wilson, clustered by dialogue: see README, "Intervals"). */
  metricIntervals?: MetricIntervals
  /** 95% Wilson intervals of the per-tool rates in `tools`. */
  toolIntervals?: ToolIntervals
  /** Repeated trials (`trials` on describeEval): unstable samples and their flip rates; absent without trials. */
  trials?: TrialsReport
  /** Snapshot regression of tool calls (`snapshot` on describeEval); absent when no suite keeps snapshots. */
  snapshots?: SnapshotReport

  /** When, what and against what it ran: time, version, git commit, per suite the provider and input hashes. */
  run?: RunMeta
  /** The per-sample outcomes' JSONL file, relative to this report (see README, "Pull-request gates"). */
  samplesFile?: string
  /** This run's id, also in the samples file's header: the two must match for the report to be compared. */
  runId?: string
  /** `sha256:<hex>` of the samples file as written: an edited or swapped file is refused. */
  samplesHash?: string
  /** The comparison with the baseline report, when one was set and found. */
  comparison?: Comparison
  /** A model matrix (describeEval's `models`): per model, and each against the reference; absent without one. */
  models?: ModelMatrixReport
}

/** The metrics a report carries, in table order: NeMo's, then the scorers' that were measured in the run. */
export function reportedMetrics(report: Pick<ToolEvalsReport, 'metrics'>): RunMetric[] {
  const out: RunMetric[] = [...REPORT_METRICS]
  for (const m of BUILTIN_SCORER_METRICS) if (m in report.metrics) out.push(m)
  const listed = new Set<string>(out)
  for (const m of Object.keys(report.metrics)) if (!listed.has(m)) out.push(m as RunMetric)
  return out
}

/** The Aggregate fields that are not scorer counts. */
const CORE_FIELDS = new Set(['samples', 'scored', 'errored', 'skipped', 'withExpectedCalls', 'noCallExpected', 'metrics', 'metricCounts', 'failures', 'tools'])

/** The scorers' counts of an aggregate, only those present (the JSON report leaves the others out). */
function scorerDetails(agg: Aggregate): ScorerDetails {
  return Object.fromEntries(Object.entries(agg).filter(([k, v]) => !CORE_FIELDS.has(k) && v !== undefined))
}

export function suiteReport(agg: Aggregate): SuiteReport {
  return {
    samples: agg.samples,
    metrics: agg.metrics,
    metricCounts: agg.metricCounts,
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

/** A report before the gate has decided it (gate.ts adds `pass`, `thresholdsPass` and `gate`). */
export type UndecidedReport = Omit<ToolEvalsReport, 'pass' | 'thresholdsPass' | 'gate'>

export function buildReport(
  collector: RunCollector,
  overall: Aggregate,
  suites: ReadonlyMap<string, Aggregate>,
  thresholds: ThresholdResult[],
  testsPass: boolean,
): UndecidedReport {
  const errored: ToolEvalsReport['errored'] = { ...overall.errored, samples: sortErrored([...collector.errored]) }
  if (collector.erroredUnlisted > 0) errored.unlisted = collector.erroredUnlisted
  const report: UndecidedReport = {
    samples: overall.samples,
    metrics: overall.metrics,
    metricCounts: overall.metricCounts,
    suites: Object.fromEntries([...suites].map(([name, agg]) => [name, suiteReport(agg)])),
    thresholds,
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
  if (collector.cacheRegenerated > 0) report.cacheRegenerated = collector.cacheRegenerated
  if (collector.resumed > 0) report.resumed = collector.resumed
  report.metricIntervals = collector.intervals.overallIntervals(report.metrics)
  report.toolIntervals = toolIntervals(report.tools)
  for (const [name, suite] of Object.entries(report.suites)) {
    suite.metricIntervals = collector.intervals.suiteIntervals(name, suite.metrics)
    suite.toolIntervals = toolIntervals(suite.tools)
  }
  const trials = collector.trials.finish()
  if (trials) report.trials = trials
  const snapshots = collector.snapshots.finish()
  if (snapshots) report.snapshots = snapshots
  return report
}
