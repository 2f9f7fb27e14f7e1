/** The six per-sample metrics of NeMo's `compute_sample_metrics` (REFERENCE.md section 2). */
export const NEMO_METRICS = [
  'has_call',
  'name_correct',
  'args_json_valid',
  'args_field_precision',
  'args_field_recall',
  'args_exact_match',
] as const
export type NemoMetric = (typeof NEMO_METRICS)[number]

/** A ground-truth call; arguments may be an object or a JSON string (as in NeMo's data). */
export interface ExpectedCall {
  name: string
  arguments?: Record<string, unknown> | string
}

/** Why a sample is not fully right; a sample may have several. */
export type FailureCategory =
  | 'no_call' // a call was expected and none was made (at a position: missing prediction)
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
  /** The BFCL checker's verdict (describeEval's `bfcl` option, samples that carry a BFCL answer). */
  bfcl?: BfclRecord
  /** DeepFabric-style schema metrics (describeEval's `schema` option). */
  schema?: SchemaRecord
  /** Judged metrics by judge kind (describeEval's `judge` option). */
  judge?: Partial<Record<JudgeKindName, JudgeRecord>>
}

/** One sample's BFCL verdict as recorded. An errored sample is invalid with `error_type` `sample_errored`. */
export interface BfclRecord {
  valid: boolean
  /** The BFCL category the answer belongs to (`simple_python`, `live_parallel`, ...). */
  category?: string
  /** The leaderboard's error type when invalid (`ast_checker:...`, `irrelevance_error:...`, `sample_errored`). */
  error_type?: string
}

/** One sample's schema metrics as recorded: 1 or 0 each, and their weighted sum. Errored samples score 0. */
export interface SchemaRecord {
  tool_selection: 0 | 1
  parameter_accuracy: 0 | 1
  execution_success: 0 | 1
  overall: number
  /** With the default DeepFabric semantics: DeepFabric would reject this sample (error score) or crash on it. */
  deepfabric?: 'rejected' | 'crashed'
}

/** The judges describeEval's `judge` option can run (see score/judge.ts). */
export type JudgeKindName = 'tool_selection' | 'tool_invocation'

/**
 * One judgement as recorded: the label and score, or the error that left the judgement without one (left out of
 * the rate). The explanation is cut short so task meta stays small. An errored sample is recorded as `incorrect`
 * without asking the judge (a failure never raises a rate).
 */
export interface JudgeRecord {
  label?: 'correct' | 'incorrect'
  score?: 0 | 1
  explanation?: string
  error?: string
}

/** The run-level metrics a report carries: NeMo's six, then the share of right abstentions. */
export const REPORT_METRICS = [...NEMO_METRICS, 'no_call_accuracy'] as const
export type ReportMetric = (typeof REPORT_METRICS)[number]

/**
 * Run-level metrics of the scorers an eval opts into (describeEval's `bfcl`, `schema`, `judge` options). A report
 * carries one only when some sample of the run had it; thresholds accept them like the NeMo metrics.
 * - `bfcl_accuracy`: share of samples with a BFCL answer that pass the BFCL checker;
 * - `schema_tool_selection`, `schema_parameter_accuracy`, `schema_execution_success`: shares of samples (DeepFabric);
 *   `schema_overall`: mean of the per-sample weighted sums (default weights 0.40 / 0.35 / 0.25);
 * - `judge_tool_selection`, `judge_tool_invocation`: share judged correct among the judgements that have a label.
 */
export const SCORER_METRICS = [
  'bfcl_accuracy',
  'schema_tool_selection',
  'schema_parameter_accuracy',
  'schema_execution_success',
  'schema_overall',
  'judge_tool_selection',
  'judge_tool_invocation',
] as const
export type ScorerMetric = (typeof SCORER_METRICS)[number]

/** Every metric a report can carry and a threshold can name. */
export const RUN_METRICS = [...REPORT_METRICS, ...SCORER_METRICS] as const
export type RunMetric = (typeof RUN_METRICS)[number]

/** The rates of a run or suite: NeMo's always, the scorers' when some sample had them. */
export type RunMetrics = Record<ReportMetric, number | null> & Partial<Record<ScorerMetric, number | null>>

/** BFCL verdicts of a run or suite: counts, overall and per BFCL category. */
export interface BfclAggregate {
  /** Samples with a verdict (errored ones included, as invalid). */
  total: number
  correct: number
  /** Per BFCL category (as in the leaderboard's score files: accuracy = correct / total). */
  categories: Record<string, { total: number; correct: number; accuracy: number | null }>
  /** Invalid samples by the leaderboard's error type. */
  errorTypes: Record<string, number>
}

/** Schema metric counts of a run or suite (samples scoring 1 on each). */
export interface SchemaAggregate {
  samples: number
  tool_selection: number
  parameter_accuracy: number
  execution_success: number
}

/** Judgement counts per judge kind: asked, judged correct, and left without a label (not in the rate). */
export type JudgeAggregate = Partial<Record<JudgeKindName, { judged: number; correct: number; errors: number }>>

/** The failure categories in their stable order (the order `SampleScore.failures` lists them in). */
export const FAILURE_CATEGORIES = [
  'no_call',
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
export interface Aggregate {
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
   * `no_call_accuracy` (share of `noCallExpected` that rightly made no call; errored records count as wrong). Full
   * precision; `null` when the denominator is empty.
   */
  metrics: RunMetrics
  /** Number of scored records showing each failure category. */
  failures: Record<FailureCategory, number>
  /** Keyed by expected tool name. */
  tools: Record<string, ToolBreakdown>
  /** Present when some record carried a BFCL verdict. */
  bfcl?: BfclAggregate
  /** Present when some record carried schema metrics. */
  schema?: SchemaAggregate
  /** Present when some record carried judgements. */
  judge?: JudgeAggregate
}
