/**
 * The scorers an eval can opt into beside NeMo's metrics, each with its own describeEval option:
 *
 *   describeEval('live_parallel', {
 *     data: loadBfclCategory(dir, 'live_parallel').lines,
 *     model,
 *     bfcl: true,                                   // the BFCL checker on samples carrying a BFCL answer
 *     schema: { weights: { tool_selection: 0.5 } }, // DeepFabric-style schema metrics (or `true`)
 *     judge: { model: judgeModel, cache: true },    // tool-selection and tool-invocation judges
 *   })
 *
 * Each writes its per-sample values into the sample's record (task meta), where the reporter sums them. A sample
 * that errored gets zeros from every scorer that is on (it never raises a rate); a skipped one gets none.
 */
import { isPlainObject } from '../calls/call-object.js'
import { parseToolCalls } from '../calls/index.js'
import type { ToolCall } from '../calls/types.js'
import type { Sample } from '../data/types.js'
import { cached, type CacheOptions } from '../models/cache.js'
import type { ModelOutput, ModelProvider } from '../models/types.js'
import { bfclErrorLines } from '../matchers/bfcl.js'
import { checkBfclAnswer, type BfclAnswer } from '../score/bfcl/answer.js'
import type { BfclScoreOptions, BfclVerdict } from '../score/bfcl/score.js'
import { JUDGE_KINDS, judgeSample, type JudgeKind, type JudgeResult } from '../score/judge.js'
import { schemaMetrics, type SchemaSampleMetrics, type SchemaSemantics, type SchemaWeights } from '../score/schema.js'
import type { BfclRecord, JudgeRecord, SampleRecord, SchemaRecord } from '../score/types.js'
import { META_LIMITS, truncate } from './meta.js'

/** `schema` option: DeepFabric-style metrics of the first call against the first expected one. */
export interface SchemaScorerOptions {
  /**
   * Weights of the overall score; default 0.40 / 0.35 / 0.25 (tool_selection / parameter_accuracy / execution_success).
   * Given weights replace the defaults: one left out counts as 0 (DeepFabric's rule); they must sum to at most 1.
   */
  weights?: Partial<SchemaWeights>
  /** 'deepfabric' (default): DeepFabric's own numbers; 'jsonschema': our corrections (README: deliberate differences). */
  semantics?: SchemaSemantics
}

/** `judge` option: a model that judges each sample's calls (off unless given). */
export interface JudgeScorerOptions {
  /** The judge: any ModelProvider (an endpoint, a local model, a `replay` of judgements keyed by `judgeSampleId`). */
  model: ModelProvider
  /** Which judges run (default both: 'tool_selection' and 'tool_invocation'). */
  kinds?: readonly JudgeKind[]
  /**
   * Keep the judge's answers in the on-disk generation cache (`cached(model, ...)`), so a re-run over the same
   * outputs asks the judge nothing: `true` for the default folder `.tool-evals-cache`, or the cache's options.
   * Default false (wrap the model with `cached` yourself to share one cache between evals).
   */
  cache?: boolean | CacheOptions
}

/** The scorer options of describeEval (see EvalOptions). */
export interface ScorerOptions {
  /**
   * Check samples that carry a BFCL answer (`sample.extra.bfcl`, as `loadBfclCategory` makes them) with the BFCL
   * checker: every acceptable value, BFCL's type rules, order-free parallel calls. `true`, or the checker's options.
   * Samples without an answer get no verdict. Reported as `bfcl_accuracy` (overall, per suite, per BFCL category).
   */
  bfcl?: boolean | BfclScoreOptions
  /** DeepFabric-style schema metrics (`true` or their options): `schema_tool_selection`, ..., `schema_overall`. */
  schema?: boolean | SchemaScorerOptions
  /** Judged metrics (`judge_tool_selection`, `judge_tool_invocation`): off unless a judge model is given. */
  judge?: JudgeScorerOptions
}

/** What the scorers found for one sample, in full (handed to `assert`; the record keeps the small part). */
export interface ScorerResults {
  /** The BFCL checker's verdict (`valid`, `error_type`, `error` messages, the decoded calls). */
  bfcl?: BfclVerdict
  /** The schema metrics with the `problems` found (`missing required parameter 'city'`, ...). */
  schema?: SchemaSampleMetrics
  /** Each judge's result: label, score, full explanation, raw answer or error. */
  judge?: JudgeResult[]
}

/** The BFCL answer a sample carries, `null` when it carries something unreadable, `undefined` when none. */
function bfclAnswerOf(sample: Pick<Sample, 'extra'>): BfclAnswer | null | undefined {
  const answer = sample.extra?.['bfcl']
  if (answer === undefined) return undefined
  return isPlainObject(answer) && Array.isArray(answer['functions']) ? (answer as unknown as BfclAnswer) : null
}

function categoryOf(answer: BfclAnswer | null | undefined): string | undefined {
  return answer && typeof answer.category === 'string' ? answer.category : undefined
}

function bfclRecord(verdict: BfclVerdict, category: string | undefined): BfclRecord {
  const r: BfclRecord = { valid: verdict.valid }
  if (category !== undefined) r.category = category
  if (!verdict.valid && verdict.error_type !== undefined) r.error_type = verdict.error_type
  return r
}

function schemaRecord(m: SchemaSampleMetrics): SchemaRecord {
  return {
    tool_selection: m.tool_selection ? 1 : 0,
    parameter_accuracy: m.parameter_accuracy ? 1 : 0,
    execution_success: m.execution_success ? 1 : 0,
    overall: m.overall,
    ...(m.deepfabric ? { deepfabric: m.deepfabric } : {}),
  }
}

function judgeRecord(r: JudgeResult): JudgeRecord {
  const out: JudgeRecord = {}
  if (r.label !== undefined) out.label = r.label
  if (r.score !== undefined) out.score = r.score
  if (r.explanation) out.explanation = truncate(r.explanation, META_LIMITS.judgeChars)
  if (r.error !== undefined) out.error = truncate(r.error, META_LIMITS.judgeChars)
  return out
}

function schemaOptions(option: ScorerOptions['schema']): SchemaScorerOptions | undefined {
  if (!option) return undefined
  return option === true ? {} : option
}

/**
 * Run the synchronous scorers (BFCL, schema) on a scored sample and the judge results its generation brought, and
 * record them on `record`.
 */
export function applyScorers(
  record: SampleRecord,
  sample: Sample,
  calls: readonly ToolCall[],
  options: ScorerOptions,
  judgements: readonly JudgeResult[] | undefined,
): ScorerResults {
  const results: ScorerResults = {}
  if (options.bfcl) {
    const answer = bfclAnswerOf(sample)
    if (answer === null) {
      const verdict: BfclVerdict = { id: sample.id, valid: false, error: ['sample.extra.bfcl is not a BFCL answer (no `functions` list)'], error_type: 'bfcl_answer_unreadable', format: 'function-calling' }
      results.bfcl = verdict
      record.bfcl = bfclRecord(verdict, undefined)
    } else if (answer !== undefined) {
      const verdict = checkBfclAnswer(calls, answer, options.bfcl === true ? {} : options.bfcl)
      verdict.id = sample.id
      results.bfcl = verdict
      record.bfcl = bfclRecord(verdict, categoryOf(answer))
    }
  }
  const schema = schemaOptions(options.schema)
  if (schema) {
    const m = schemaMetrics(calls, sample.expected, sample.tools ?? [], schema)
    results.schema = m
    record.schema = schemaRecord(m)
  }
  if (options.judge && judgements) {
    results.judge = [...judgements]
    const judge: SampleRecord['judge'] = {}
    for (const r of judgements) judge[r.kind] = judgeRecord(r)
    record.judge = judge
  }
  return results
}

const NOT_JUDGED = 'not judged: the sample could not be evaluated'

/** The zeros every enabled scorer records for a sample that could not be evaluated. */
export function applyErroredScorers(record: SampleRecord, sample: Pick<Sample, 'extra'> | undefined, options: ScorerOptions): void {
  if (options.bfcl) {
    const answer = sample ? bfclAnswerOf(sample) : undefined
    // An invalid data line (no sample) still counts when BFCL is on: the leaderboard counts every entry.
    if (answer !== undefined || sample === undefined) {
      const r: BfclRecord = { valid: false, error_type: 'sample_errored' }
      const category = categoryOf(answer)
      if (category !== undefined) r.category = category
      record.bfcl = r
    }
  }
  if (options.schema) record.schema = { tool_selection: 0, parameter_accuracy: 0, execution_success: 0, overall: 0 }
  if (options.judge) {
    const judge: SampleRecord['judge'] = {}
    for (const kind of options.judge.kinds ?? JUDGE_KINDS) judge[kind] = { label: 'incorrect', score: 0, explanation: NOT_JUDGED }
    record.judge = judge
  }
}

/** A generation with the judges' verdicts on its calls (judging runs in the generation pipeline, concurrently). */
export interface JudgedOutput extends ModelOutput {
  judgements?: JudgeResult[]
}

/** The calls in a model output, as describeEval scores them. */
export function callsOf(output: ModelOutput, sample: Sample, format: string | undefined): ToolCall[] {
  if (output.calls) return output.calls
  const hint = output.format ?? format
  const parseOptions: { format?: string; tools?: Sample['tools'] } = {}
  if (hint !== undefined) parseOptions.format = hint
  if (sample.tools !== undefined) parseOptions.tools = sample.tools
  return parseToolCalls(output.text ?? '', parseOptions)
}

/**
 * `model` followed by the judges: each generation is judged as soon as it is made, so judging shares the suite's
 * generation concurrency and lookahead instead of running test by test. The judge provider is wrapped with the
 * generation cache when `cache` asks for it.
 */
export function withJudges(model: ModelProvider, options: JudgeScorerOptions, format: string | undefined): ModelProvider {
  const judge = options.cache ? cached(options.model, options.cache === true ? {} : options.cache) : options.model
  const kinds = options.kinds ?? JUDGE_KINDS
  const judged: ModelProvider = {
    id: model.id,
    async generate(sample, opts): Promise<JudgedOutput> {
      const output = await model.generate(sample, opts)
      if (output.skipped !== undefined) return output
      const calls = callsOf(output, sample, format)
      const input = { messages: sample.messages, calls, sampleId: sample.id, ...(sample.tools ? { tools: sample.tools } : {}) }
      const judgements = await judgeSample(judge, input, kinds, opts?.signal ? { signal: opts.signal } : {})
      return { ...output, judgements }
    },
  }
  if (model.settings !== undefined) Object.assign(judged, { settings: model.settings })
  if (model.concurrency !== undefined) Object.assign(judged, { concurrency: model.concurrency })
  return judged
}

/** The judge results a generation carries (see `withJudges`). */
export function judgementsOf(output: ModelOutput): JudgeResult[] | undefined {
  const j = (output as JudgedOutput).judgements
  return Array.isArray(j) ? j : undefined
}

/** Human-readable lines of a failed BFCL verdict (for strict mode's failure message). */
export function describeBfclVerdict(v: BfclVerdict): string {
  return [`BFCL checker: ${v.error_type ?? 'invalid'}`, ...bfclErrorLines(v)].join('\n')
}
