import type { ChatMessage, ExpectedCall, ToolDefinition } from '../calls/types.js'
import type { UsageRecord } from './usage.js'

export type { ExpectedCall } from '../calls/types.js'

/** The six per-sample metrics of NeMo's `compute_sample_metrics`. */
export const NEMO_METRICS = [
  'has_call',
  'name_correct',
  'args_json_valid',
  'args_field_precision',
  'args_field_recall',
  'args_exact_match',
] as const
export type NemoMetric = (typeof NEMO_METRICS)[number]


/** One eval sample: the conversation so far, the tools on offer, and the calls expected (`[]`: no call). */
export interface Sample {
  id: string
  messages: ChatMessage[]
  tools?: ToolDefinition[]
  expected: ExpectedCall[]
  /** Where the sample came from, for error messages: file and 1-based line. */
  source?: { file: string; line: number }
  /**
   * What scorers check this sample against beyond `expected`, by scorer name: `answers.bfcl` is the BFCL answer
   * (describeEval's `bfcl` option), `answers[name]` is yours for a scorer of your own (`defineScorer({ name })`).
   */
  answers?: Record<string, unknown>
  /** Agent samples: the user turns after `messages` (each a list of messages), run in the same conversation. */
  turns?: ChatMessage[][]
  /** Agent samples: the calls expected at each step that makes calls (parallel calls share a step), all turns. */
  expectedTrajectory?: ExpectedCall[][]
  /** Anything else the data line carried (kept for custom assertions and scorers). */
  extra?: Record<string, unknown>
  /**
   * Which of the sample's repeated generations this is (0-based), when describeEval's `trials` repeats it: the
   * generation cache keys on it (from trial 1 on) and replay picks the recorded line of that trial.
   */
  trial?: number
  /** `"mustPass": true` on the data line: a baseline comparison fails the run if this sample goes from right to wrong. */
  mustPass?: boolean
}

/** Records with no suite (not written by describeEval) are grouped under this name. */
export const NO_SUITE = '(no suite)'

/** Why a sample is not fully right; a sample may have several. */
export type FailureCategory =
  | 'no_call' // calls were expected and the model made none at all
  | 'missing_call' // some expected calls were made, but fewer than expected (e.g. 1 of 2 parallel calls)
  | 'malformed_call' // a prediction whose arguments were not a well-formed object
  | 'wrong_name' // a prediction with another tool's name
  | 'wrong_arguments' // right name, arguments not exactly the expected ones
  | 'extra_call' // more predictions than expected calls
  | 'unexpected_call' // a call where none was expected

export type MatchMode = 'positional' | 'unordered'

export interface ScoreOptions {
  /**
   * 'positional' (default, NeMo): prediction i is scored against expected call i. 'unordered': predictions are
   * assigned to expected calls by an optimal one-to-one matching (maximising the summed per-position score).
   */
  match?: MatchMode
  /**
   * Exact match without Python's type conflation. Off by default for NeMo parity, where `true == 1 == 1.0` (also
   * nested), so a boolean argument equals the number 1. `true` keeps booleans and numbers apart (`1` and `1.0` stay
   * equal: JSON has one number type); the better choice when parity with NeMo's numbers is not the point.
   */
  strictTypes?: boolean
}

/** One expected position's outcome. Kept small: it travels in Vitest task meta for every sample. */
export interface PositionScore {
  expected: string
  /** Name of the prediction aligned with this position; absent when there is none. */
  predicted?: string
  metrics: Record<NemoMetric, number>
}

/** Per-sample scores: what a test case records in its task meta and the reporter sums. */
export interface SampleScore {
  /** Number of expected calls. */
  expected: number
  /** Number of predicted calls. */
  predicted: number
  /** NeMo's per-sample values: means over expected positions; all 0 when nothing is expected (NeMo's own rule). */
  metrics: Record<NemoMetric, number>
  /** Only for samples that expect no call: whether the model rightly made none. */
  noCallCorrect?: boolean
  /** Repeated trials (`trials` with `mean`): the share of trials that rightly made no call (overrides noCallCorrect). */
  noCallShare?: number
  /** One entry per expected position, in expected order. */
  positions: PositionScore[]
  failures: FailureCategory[]
}

/**
 * What the run knows of one sample: the unit the reporter collects from task meta and `aggregate` sums. An errored
 * sample carries the score of "no prediction" (so failures never raise a rate) and its reason; a skipped sample
 * (policy, e.g. prompt over `maxPromptTokens`) carries no score and is left out of the means.
 */
export interface SampleRecord {
  id: string
  /** The describe block (suite) the sample ran in. */
  suite?: string
  score?: SampleScore
  /** Why the sample could not be evaluated (bad sample line, provider failure, missing recorded output). */
  error?: string
  /** Why the sample was skipped by policy. */
  skipped?: string
  /**
   * The scorers' values by scorer name (`bfcl`, `schema`, `judge`, and user scorers': see score/scorer.ts). An
   * errored sample carries each enabled scorer's `errored` value; a skipped one none.
   */
  scores?: RecordScores
  /** The model's usage for this sample (tokens, latency, cache hit: see score/usage.ts), when it reported any. */
  usage?: UsageRecord
  /** The judge's usage for this sample, apart from the model's (both judge kinds summed). */
  judgeUsage?: UsageRecord
  /**
   * Failed requests the model's provider retried for this sample (every trial), whether it then answered or not;
   * absent: none. Kept apart from `usage`: an errored sample has no usage, but its retries happened.
   */
  retries?: number
  /** Repeated trials (describeEval's `trials`): how the sample's trials went (its scores are their reduction). */
  trials?: TrialSummary
  /** The sample must stay right: a baseline comparison fails the run when it flips from right to wrong. */
  mustPass?: true
}

/** A sample's trials: how many ran, how many were fully right, and its flip rate (see eval/trials.ts). */
export interface TrialSummary {
  count: number
  right: number
  /** Share of trials whose outcome (fully right or not) differs from the sample's majority outcome: 0 to 0.5. */
  flipRate: number
}

/**
 * The built-in scorers' types by name. Each scorer's own file adds its entry by module augmentation
 * (`ScorerTypesOf`, score/scorer.ts): the core's in scorers/, BFCL's in bfcl/scorer/scorer.ts. So this file
 * names no scorer, and everything typed per scorer (describeEval's options, a record's values, a report's counts,
 * the metric names, what `assert` gets) follows from the scorers' own declarations.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface BuiltinScorerTypes {}
type BuiltinName = keyof BuiltinScorerTypes
type Field<K extends BuiltinName, F extends string> = BuiltinScorerTypes[K] extends Record<F, infer T> ? T : never

/** describeEval's options that turn the built-in scorers on, one per scorer, named after it. */
export type BuiltinScorerOptions = { [K in BuiltinName]?: Field<K, 'option'> }
/** What the built-in scorers record per sample, by scorer name. */
export type BuiltinScorerValues = { [K in BuiltinName]?: Field<K, 'value'> }
/** The built-in scorers' counts in a report, by scorer name (present when some sample in scope had them). */
export type BuiltinScorerDetails = { [K in BuiltinName]?: Field<K, 'details'> }
/** What the built-in scorers hand `assert` in full, by scorer name (a scorer that gives no full result needs none). */
export type BuiltinScorerResults = { [K in BuiltinName]?: Field<K, 'result'> }
/** A metric the built-in scorers can report. */
export type BuiltinScorerMetric = { [K in BuiltinName]: Field<K, 'metric'> }[BuiltinName]

/** Scorer values of a record: the built-in scorers' typed, user scorers' by their names. */
export type RecordScores = BuiltinScorerValues & Record<string, unknown>

/** The run-level metrics a report carries: NeMo's six, then the share of right abstentions. */
export const REPORT_METRICS = [...NEMO_METRICS, 'no_call_accuracy'] as const
export type ReportMetric = (typeof REPORT_METRICS)[number]

/**
 * A run-level metric by name: NeMo's six, `no_call_accuracy`, the built-in scorers' (`bfcl_accuracy`, `schema_*`,
 * `judge_*`: see scorers/index.ts) and user scorers' (`<scorer>.<metric>`). A report carries a scorer's metrics only
 * when some sample of the run had that scorer; thresholds accept them like the NeMo metrics.
 */
export type RunMetric = ReportMetric | BuiltinScorerMetric | `${string}.${string}`

/** The rates of a run or suite: NeMo's always, the scorers' when some sample had them. */
export type RunMetrics = Record<ReportMetric, number | null> & Partial<Record<string, number | null>>

/** The failure categories in their stable order (the order `SampleScore.failures` lists them in). */
export const FAILURE_CATEGORIES = [
  'no_call',
  'missing_call',
  'malformed_call',
  'wrong_name',
  'wrong_arguments',
  'extra_call',
  'unexpected_call',
] as const satisfies readonly FailureCategory[]

/** Per expected tool: how its positions fared (scored and errored records; skipped ones are left out). */
export interface ToolBreakdown {
  /** Expected positions naming this tool. */
  positions: number
  /** Positions whose aligned prediction had the right name. */
  nameCorrect: number
  /** Positions whose aligned prediction had exactly the expected arguments. */
  argsExactMatch: number
  /** nameCorrect / positions (null when there are no positions). */
  name_correct: number | null
  /** argsExactMatch / positions (null when there are no positions). */
  args_exact_match: number | null
}

/**
 * Run-level numbers from a list of SampleRecords (see `aggregate`). Every mean is built from sums and counts, so
 * the records of sharded runs concatenate: aggregating their union gives exactly the numbers of one run.
 */
export interface Aggregate extends BuiltinScorerDetails {
  /** Every record, whatever became of it. */
  samples: number
  /** Records with a score and neither error nor skip. */
  scored: number
  errored: { count: number; byReason: Record<string, number> }
  skipped: { count: number; byReason: Record<string, number> }
  /** Scored or errored records that expect at least one call: the denominator of NeMo's six means. */
  withExpectedCalls: number
  /** Scored or errored records that expect no call: the denominator of `no_call_accuracy`. */
  noCallExpected: number
  /**
   * NeMo's six (mean over `withExpectedCalls` of each record's per-sample value; errored records count 0) and
   * `no_call_accuracy` (share of `noCallExpected` that rightly made no call; errored records count as wrong), then
   * the scorers' metrics. Full precision; `null` when the denominator is empty.
   */
  metrics: RunMetrics
  /**
   * Per metric in `metrics`, how many samples (judgements, for `judge_*`) stand behind its rate: its denominator,
   * 0 where the rate is null. NeMo's six: `withExpectedCalls`; `no_call_accuracy`: `noCallExpected`; each scorer's
   * from its own accumulator (`ScorerSummary.counts`). With trials a sample counts once (its rate is over samples).
   */
  metricCounts: Record<string, number>
  /** Number of scored records showing each failure category. */
  failures: Record<FailureCategory, number>
  /** Keyed by expected tool name. */
  tools: Record<string, ToolBreakdown>
}
