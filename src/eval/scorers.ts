/**
 * The scorers of one eval, run by one loop: the built-in ones its options turn on (each option is named after its
 * scorer, see score/scorers/index.ts), then the user's own (`scorers: [...]`, see `defineScorer`):
 *
 *   describeEval('live_parallel', {
 *     data: loadBfclCategory(dir, 'live_parallel').lines,
 *     model,
 *     bfcl: true,                                   // the BFCL checker on samples carrying a BFCL answer
 *     schema: { weights: { tool_selection: 0.5 } }, // DeepFabric-style schema metrics (or `true`)
 *     judge: { model: judgeModel, cache: true },    // tool-selection and tool-invocation judges
 *     scorers: [myScorer],                          // your own
 *   })
 *
 * Each writes its per-sample value into the sample's record (task meta, `record.scores[name]`), where the reporter
 * sums it. A sample that errored gets every scorer's `errored` value (it never raises a rate); a skipped one none.
 */
import { parseToolCalls } from '../calls/index.js'
import type { ToolCall } from '../calls/types.js'
import type { Sample } from '../data/types.js'
import { cached } from '../models/cache.js'
import { completeCalls, type ModelOutput, type ModelProvider } from '../models/types.js'
import type { Scorer, ScorerContext, ScorerInput, StrictVerdict } from '../score/scorer.js'
import { BUILTIN_SCORERS, type BuiltinScorerOptions, type BuiltinScorerResults } from '../score/scorers/index.js'
import type { SampleRecord } from '../score/types.js'

export type { SchemaScorerOptions } from '../score/scorers/index.js'
export type { JudgeScorerOptions } from '../score/scorers/judge.js'

/** The scorer options of describeEval (see EvalOptions): one per built-in scorer, and your own scorers. */
export interface ScorerOptions extends BuiltinScorerOptions {
  /** Scorers of your own (see `defineScorer`): their metrics are reported as `<name>.<metric>`. */
  scorers?: readonly Scorer[]
}

/**
 * What the scorers found for one sample, in full, by scorer name (handed to `assert`; the record keeps the small
 * part): `bfcl` the checker's verdict, `schema` the metrics with their `problems`, `judge` each judge's result, and
 * each user scorer's values.
 */
export interface ScorerResults extends BuiltinScorerResults {
  [scorer: string]: unknown
}

/** The scorers an eval's options turn on: built-in ones in registry order, then the user's. */
export function activeScorers(options: ScorerOptions & { format?: string }): Scorer[] {
  const context: ScorerContext = {
    cached: (provider, cacheOptions) => cached(provider, cacheOptions === true ? {} : cacheOptions),
  }
  if (options.format !== undefined) context.format = options.format
  const out: Scorer[] = []
  for (const builtin of BUILTIN_SCORERS) {
    const option = (options as Record<string, unknown>)[builtin.name]
    const scorer = (builtin.configure as (o: unknown, c: ScorerContext) => Scorer | undefined)(option, context)
    if (scorer) out.push(scorer)
  }
  const names = new Set(out.map((s) => s.name))
  for (const s of options.scorers ?? []) {
    if (names.has(s.name)) throw new Error(`describeEval: two scorers are named "${s.name}"`)
    names.add(s.name)
    out.push(s)
  }
  return out
}

/** A generation with what the scorers' `prepare` made of it, and its calls parsed once. */
export interface PreparedOutput extends ModelOutput {
  /** The calls parsed from the output, so scoring does not parse again. */
  parsedCalls?: ToolCall[]
  /** `prepare` results by scorer name. */
  prepared?: Record<string, unknown>
}

/** The calls in a model output, as describeEval scores them (parsed once: see `withPreparation`). */
export function outputCalls(output: ModelOutput, sample: Sample, format: string | undefined): ToolCall[] {
  if (output.calls) return completeCalls(output.calls, output.format)
  const parsed = (output as PreparedOutput).parsedCalls
  if (parsed) return parsed
  const hint = output.format ?? format
  const parseOptions: { format?: string; tools?: Sample['tools'] } = {}
  if (hint !== undefined) parseOptions.format = hint
  if (sample.tools !== undefined) parseOptions.tools = sample.tools
  return parseToolCalls(output.text ?? '', parseOptions)
}

function scorerInput(sample: Sample, calls: readonly ToolCall[], output: ModelOutput, prepared?: unknown) {
  const input: ScorerInput = { sample, calls }
  if (output.text !== undefined) input.text = output.text
  if (output.trajectory !== undefined) input.trajectory = output.trajectory
  if (prepared !== undefined) input.prepared = prepared
  return input
}

/**
 * `model` followed by the scorers' `prepare` steps (e.g. the judges): each generation is prepared as soon as it is
 * made, so that work shares the suite's generation concurrency and lookahead instead of running test by test. The
 * output is parsed here once and the calls travel with it. `model` itself when no scorer prepares anything.
 */
export function withPreparation(model: ModelProvider, scorers: readonly Scorer[], format: string | undefined): ModelProvider {
  const preparing = scorers.filter((s) => s.prepare !== undefined)
  if (preparing.length === 0) return model
  const wrapped: ModelProvider = {
    id: model.id,
    async generate(sample, opts): Promise<PreparedOutput> {
      const output = await model.generate(sample, opts)
      if (output.skipped !== undefined) return output
      const calls = outputCalls(output, sample, format)
      const prepared: Record<string, unknown> = {}
      for (const s of preparing) prepared[s.name] = await s.prepare!(scorerInput(sample, calls, output), opts?.signal)
      const out: PreparedOutput = { ...output, parsedCalls: calls, prepared }
      return out
    },
  }
  if (model.settings !== undefined) Object.assign(wrapped, { settings: model.settings })
  if (model.concurrency !== undefined) Object.assign(wrapped, { concurrency: model.concurrency })
  return wrapped
}

/** Every scorer's value for a scored sample into `record.scores`; the full results by scorer name. */
export async function applyScorers(
  record: SampleRecord,
  sample: Sample,
  calls: readonly ToolCall[],
  output: ModelOutput,
  scorers: readonly Scorer[],
): Promise<{ results: ScorerResults; strict: StrictVerdict }> {
  const results: ScorerResults = {}
  let strict: StrictVerdict
  const prepared = (output as PreparedOutput).prepared ?? {}
  for (const scorer of scorers) {
    const outcome = await scorer.score(scorerInput(sample, calls, output, prepared[scorer.name]))
    if (outcome === undefined) continue
    ;(record.scores ??= {})[scorer.name] = outcome.value
    if (outcome.result !== undefined) results[scorer.name] = outcome.result
    const verdict = scorer.strict?.(outcome, sample)
    // The first scorer with a say decides; a failing one wins over a passing one.
    if (verdict !== undefined && (strict === undefined || (strict.pass && !verdict.pass))) strict = verdict
  }
  return { results, strict }
}

/** The value every scorer records for a sample that could not be evaluated (`sample` undefined: unreadable line). */
export function applyErroredScorers(record: SampleRecord, sample: Sample | undefined, scorers: readonly Scorer[]): void {
  for (const scorer of scorers) {
    const value = scorer.errored(sample)
    if (value !== undefined) (record.scores ??= {})[scorer.name] = value
  }
}
