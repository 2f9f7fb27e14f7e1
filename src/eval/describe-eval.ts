/**
 * `describeEval`: a dataset as a Vitest suite. Each sample is one test case named after its id, inside a describe
 * block named after the eval; each test records its sample's scores in task meta for the reporter.
 *
 * By default a test fails only when its sample could not be evaluated (an invalid data line, a provider error, a
 * missing recorded output): a wrong call is recorded and shown, and the gate is the reporter's thresholds.
 * `strict: true` or an `assert` callback makes per-sample expectations fail their test.
 */
import { thrownMessage } from '../calls/thrown.js'
import type { TaskMeta } from '@vitest/runner'
import { afterAll, describe, expect, test } from 'vitest'
import { adoptInputRoot } from './input-root.js'
import { INVALID_OPTIONS_TEST, planMatrix, planSuite, type MatrixTag, type SuitePlan } from './suite-plan.js'
import type { ToolCall } from '../calls/types.js'
import type { EvalOptions, EvalResult } from './options.js'
import { formatSampleError, loadDataAsync } from '../data/load.js'
import type { Sample, SampleError } from '../data/types.js'
import { registerMatchers } from '../matchers/register.js'
import type { ModelOutput } from '../models/types.js'
import { scoreSample } from '../score/nemo.js'
import type { MatchMode, SampleRecord, ScoreOptions } from '../score/types.js'
import { annotateSample, definitionStack, sampleAnnotation } from './annotate.js'
import { Generations } from './generations.js'
import type { Scorer, StrictVerdict } from '../score/scorer.js'
import { activeScorers, applyErroredScorers, applyScorers, outputCalls, withPreparation, type ScorerOptions } from './scorers.js'
import { inputFiles, writeInputs } from './inputs.js'
import { recordUsage } from './usage.js'
import { expandTrials, generateAndEvaluate, keepSnapshot, snapshotVerdict } from './sample-run.js'
import { SuiteSnapshot } from './snapshot.js'
import { journaled, journalFor } from '../models/journal.js'
import { configuredTestTimeout, defaultSampleTimeout } from './timeout.js'

import { callsHash } from './calls-hash.js'
import { RUN_INFO_KEY, suiteRunInfo } from './run-info.js'
import * as vitestApi from 'vitest'
import { lastUserPrompt, META_LIMITS, rightCallsLine, storedCalls, storedExpected, truncate, writeEvalMeta as writeMeta, type EvalMeta } from './meta.js'
import { agentProvider } from './agent.js'
import { checkSchemaSnapshot, requireServerTools, schemaTestName, withServerTools } from './mcp/suite.js'
import { storedTrajectory } from '../score/trajectory.js'

export type { EvalOptions, EvalResult } from './options.js'

const DEFAULT_CONCURRENCY = 4
/** How far generation may run ahead of the tests, in multiples of the concurrency. */
const LOOKAHEAD_FACTOR = 4


/** Suites per provider that have not finished yet: the provider is closed when the last one ends. */
const openSuites = new WeakMap<object, number>()

/**
 * One describe block named `name`, one test per sample named after its id (an invalid data line is its own failing
 * test, named after its location). Run with `vitest run`; `-t` selects samples by name.
 */
export function describeEval(name: string, options: EvalOptions): void {
  // `assert` callbacks use the tool-call matchers: make them available even without the setup entry.
  registerMatchers()
  const stack = definitionStack() // locates the per-sample annotations at this call in the eval file
  let plans: { key?: string; plan: SuitePlan }[]
  let reference: string | undefined
  try {
    const matrix = planMatrix(name, options)
    reference = matrix?.reference
    plans = matrix ? matrix.models.map(({ key, model }) => ({ key, plan: planSuite(name, { ...options, models: undefined, reference: undefined, model }) })) : [{ plan: planSuite(name, options) }]
  } catch (err) {
    // A mistake in the options fails this suite with its message, not the file's collection or the run.
    describe(name, () => {
      test(INVALID_OPTIONS_TEST, () => {
        throw err
      })
    })
    return
  }
  if (reference === undefined) return defineSuite(name, name, options, plans[0]!.plan, stack)
  // One describe block per model inside the eval's: records name the model (`EvalMeta.model`), and their suite is
  // `<eval> > <model>`, so every per-suite view and the baseline gate keep each model's samples apart.
  const ref = reference
  describe(name, () => {
    for (const { key, plan } of plans) defineSuite(key as string, `${name} > ${key}`, options, plan, stack, { model: key as string, reference: ref })
  })
}

/** One eval suite: a describe block `blockName`, whose records name `name` as their suite. */
function defineSuite(blockName: string, name: string, options: EvalOptions, plan: SuitePlan, stack: ReturnType<typeof definitionStack>, matrix?: MatrixTag): void {
  const { model, mcp, agent, scorers, trials, snapshot } = plan
  // The scorers' providers (a judge) are closed with the model, when the last suite using them ends.
  const providers = [...new Set([model, ...scorers.flatMap((s) => s.providers ?? [])])]
  for (const p of providers) openSuites.set(p, (openSuites.get(p) ?? 0) + 1)
  if (mcp) openSuites.set(mcp, (openSuites.get(mcp) ?? 0) + 1)
  // Default: what the provider says it can use (an endpoint's concurrency, a local model's batch size).
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? model.concurrency ?? DEFAULT_CONCURRENCY))
  const abort = new AbortController()
  // The run journal wraps the model itself: each agent step is one journaled generation.
  const journal = journalFor(model, options.resume)
  const generatingModel = journal ? journaled(model, journal) : model
  const generating = agent ? agentProvider(generatingModel, agent, options.format) : mcp ? requireServerTools(generatingModel, mcp) : generatingModel
  const generator = withPreparation(generating, scorers, options.format)
  const generations = new Generations(generator, concurrency, concurrency * LOOKAHEAD_FACTOR, abort.signal)
  const scoreOptions: ScoreOptions = {}
  if (options.match !== undefined) scoreOptions.match = options.match
  if (options.strictTypes !== undefined) scoreOptions.strictTypes = options.strictTypes
  adoptInputRoot()

  // Every meta this suite writes names its model in a matrix.
  const writeEvalMeta = (taskMeta: TaskMeta, meta: EvalMeta) => writeMeta(taskMeta, matrix ? { ...meta, ...matrix } : meta)

  // Async: a Hub dataset is fetched (or read from its cache) while Vitest collects the suite.
  describe(blockName, async () => {
    // The describe block's own task meta (taken before any await: the current suite is only known synchronously).
    const suiteMeta = currentSuiteMeta()
    const loaded = await loadDataAsync(options.data, options)
    const entries = mcp ? await withServerTools(loaded, mcp) : loaded
    const inputs = inputFiles(options.data, providers)
    if (suiteMeta) suiteMeta[RUN_INFO_KEY] = suiteRunInfo(model, inputs, entries.flatMap((e) => (e.sample ? [e.sample] : [])))
    const samplesByName = new Map<string, Sample>()
    const timeoutPlan = { trials: trials?.count, concurrency, maxSteps: agent?.maxSteps }
    // A judge asked per sample (a scorer's provider) adds its own bound to the model's.
    const judges = providers.filter((p) => p !== model)
    const timedModel = model.generationTimeoutMs === undefined ? model : { generationTimeoutMs: judges.reduce((t, p) => t + ((p as { generationTimeoutMs?: number }).generationTimeoutMs ?? 0), model.generationTimeoutMs) }
    const testOptions = (sample: Sample): { timeout?: number } => {
      const timeout = options.timeout ?? configuredTestTimeout() ?? defaultSampleTimeout(timedModel, sample, timeoutPlan)
      return timeout === undefined ? {} : { timeout }
    }
    let planned = false
    // The tool-call snapshot of this collection (a watch rerun collects anew); the last planned sample writes it.
    const suiteSnapshot = snapshot ? new SuiteSnapshot(snapshot) : undefined
    let lastPlanned: string | undefined

    // The server's tool list against its snapshot file: a changed tool fails this test with the diff.
    if (mcp && mcp.schemaSnapshot !== false) test(schemaTestName(mcp), (ctx) => checkSchemaSnapshot(mcp, ctx.task.file.filepath, ctx.expect))

    for (const entry of entries) {
      if (entry.error) {
        const error = entry.error
        test(invalidSampleTestName(error), (ctx) => {
          writeInputs(ctx.task.meta, inputs)
          failInvalidSample(error, name, ctx.task.meta, scorers, matrix)
        })
        continue
      }
      const sample = entry.sample
      samplesByName.set(sample.id, sample)
      test(sample.id, testOptions(sample), async (ctx) => {
        // The first sample to run plans the suite: only the samples that will run (after `-t`, `.only`), in order,
        // so generation starts ahead of the tests.
        if (!planned && ctx.task.suite) {
          planned = true
          const runnable = runnableSamples(ctx.task.suite.tasks, samplesByName)
          lastPlanned = runnable[runnable.length - 1]?.id
          generations.plan(expandTrials(runnable, trials), ctx.task.timeout)
        }
        writeInputs(ctx.task.meta, inputs)
        // Provisional record: if the test times out (or anything below throws) the sample still counts, as errored.
        writeEvalMeta(ctx.task.meta, unfinishedMeta(sample, name, scoreOptions, scorers, ctx.task.timeout))
        const run = await generateAndEvaluate(
          sample,
          trials,
          snapshot?.ignore ?? [],
          (s) => generations.get(s),
          async (g) => {
            const evaluated = await evaluateWith(sample, g.output, g.error, name, scorers, options, scoreOptions)
            recordUsage(evaluated.stored.record, model.id, g.output, g.error)
            return evaluated
          },
          // Timed out (or cancelled) meanwhile: the provisional record stands, not the abort that ended the generation.
          () => ctx.signal.aborted,
        )
        if (!run) return
        const meta = run.evaluated
        if (suiteSnapshot) {
          try {
            await keepSnapshot(suiteSnapshot, ctx.task, name, sample.id, run, sample.id === lastPlanned, samplesByName)
          } catch (err) {
            // The sample fails for its snapshot file (damaged, unwritable): its record says so, not "timed out".
            const reason = `tool-call snapshot: ${thrownMessage(err)}`
            writeEvalMeta(ctx.task.meta, unfinishedMeta(sample, name, scoreOptions, scorers, ctx.task.timeout, reason))
            throw err
          }
        }
        writeEvalMeta(ctx.task.meta, meta.stored)
        let failed = true
        try {
          if (meta.stored.record.error !== undefined) {
            if (options.failOnError ?? true) {
              throw new Error(`sample "${sample.id}" could not be evaluated: ${meta.stored.detail ?? meta.stored.record.error}`)
            }
          } else {
            if (meta.stored.record.skipped !== undefined) ctx.skip(meta.stored.record.skipped)
            if (options.strict) expectSampleRight(meta.result, meta.strict, options.match ?? 'positional')
            if (options.assert) await options.assert(meta.result, sample)
            const snapshotFailure = suiteSnapshot && snapshotVerdict(suiteSnapshot, sample.id, meta.stored.snapshot)
            if (snapshotFailure) throw new Error(snapshotFailure)
          }
          failed = false
        } finally {
          // A sample that is not fully right shows in Vitest's UI, JUnit and GitHub: a warning, or an error if it failed.
          const annotation = sampleAnnotation(meta.stored, failed)
          if (annotation) await annotateSample(ctx, annotation, stack)
        }
      })
    }

    afterAll(async () => {
      abort.abort()
      for (const p of providers) {
        const left = (openSuites.get(p) ?? 1) - 1
        openSuites.set(p, left)
        if (left === 0) await p.close?.()
      }
      if (mcp) {
        const left = (openSuites.get(mcp) ?? 1) - 1
        openSuites.set(mcp, left)
        if (left === 0) await mcp.close()
      }
    })
  })
}

/**
 * The task meta of the describe block being collected (Vitest 4.1+: `TestRunner.getCurrentSuite()`); undefined where
 * the runner does not offer it (the run then carries no per-suite metadata, nothing else changes).
 */
function currentSuiteMeta(): Record<string, unknown> | undefined {
  const runner = (vitestApi as { TestRunner?: { getCurrentSuite?: () => { suite?: { meta?: object } } } }).TestRunner
  return runner?.getCurrentSuite?.()?.suite?.meta as Record<string, unknown> | undefined
}

function runnableSamples(tasks: readonly { type: string; mode: string; name: string }[], byName: Map<string, Sample>): Sample[] {
  const runnable: Sample[] = []
  for (const task of tasks) {
    if (task.type !== 'test' || (task.mode !== 'run' && task.mode !== 'only')) continue
    const sample = byName.get(task.name)
    if (sample) runnable.push(sample)
  }
  return runnable
}

/** `w3 [invalid sample at data.jsonl:3]`, or `[invalid sample at data.jsonl:3]` when the id is unreadable. */
export function invalidSampleTestName(error: SampleError): string {
  if (error.unreadable) return `[data file ${error.where} could not be read]`
  return `${error.id ? `${error.id} ` : ''}[invalid sample at ${error.where}]`
}

/** The short reason an errored record is counted under (no sample id or line: those are in `detail`). */
function invalidReason(error: SampleError): string {
  if (error.unreadable) return error.message
  return error.field ? `invalid sample: field \`${error.field}\`: ${error.message}` : `invalid sample: ${error.message}`
}

function failInvalidSample(error: SampleError, suite: string, taskMeta: TaskMeta, scorers: readonly Scorer[], matrix?: MatrixTag): never {
  const detail = formatSampleError(error)
  const record: SampleRecord = { id: error.id ?? error.where, suite, error: invalidReason(error) }
  if (error.expected) record.score = scoreSample([], error.expected)
  applyErroredScorers(record, undefined, scorers)
  const meta: EvalMeta = { v: 1, record, detail, ...matrix }
  if (error.expected) meta.expected = storedExpected(error.expected)
  writeMeta(taskMeta, meta)
  throw new Error(error.unreadable ? detail : `Invalid sample: ${detail}`)
}

/** A provider error's reason, grouped without per-sample detail when the provider supplies one. */
function errorReason(error: unknown): { reason: string; detail: string } {
  if (error instanceof Error) {
    const own = (error as Error & { reason?: unknown }).reason
    const reason = typeof own === 'string' ? own : error.message
    return { reason: truncate(reason, 300), detail: truncate(error.message, META_LIMITS.detailChars) }
  }
  const text = String(error)
  return { reason: truncate(text, 300), detail: truncate(text, META_LIMITS.detailChars) }
}

/** What a sample's test stores until it has a result: errored, scored as no prediction. */
/** An errored record: by default the provisional one a test leaves if it times out; `error` names another cause. */
function unfinishedMeta(sample: Sample, suite: string, scoreOptions: ScoreOptions, scorers: readonly Scorer[], timeoutMs: number, error?: string): EvalMeta {
  error ??= `timed out after ${timeoutMs} ms (the sample's test timeout), or the run was interrupted`
  const record: SampleRecord = { id: sample.id, suite, error }
  if (sample.mustPass) record.mustPass = true
  record.score = scoreSample([], sample.expected, scoreOptions)
  applyErroredScorers(record, sample, scorers)
  return { v: 1, record, expected: storedExpected(sample.expected) }
}

type EvaluateOptions = Pick<EvalOptions, 'format' | 'maxOutputChars'>

/** Score one sample's generation with the scorers `options` turn on, and build what its test stores. */
export async function evaluate(
  sample: Sample,
  output: ModelOutput | undefined,
  error: unknown,
  suite: string,
  options: EvaluateOptions & ScorerOptions,
  scoreOptions: ScoreOptions = {},
): Promise<Evaluated> {
  return evaluateWith(sample, output, error, suite, activeScorers(options), options, scoreOptions)
}

export interface Evaluated {
  stored: EvalMeta
  result: EvalResult
  /** The scorers' strict-mode verdict, when one has a say (see Scorer.strict). */
  strict?: StrictVerdict
}

/** `evaluate` with the eval's scorers already set up (describeEval sets them up once per suite). */
export async function evaluateWith(
  sample: Sample,
  output: ModelOutput | undefined,
  error: unknown,
  suite: string,
  scorers: readonly Scorer[],
  options: EvaluateOptions,
  scoreOptions: ScoreOptions = {},
): Promise<Evaluated> {
  const record: SampleRecord = { id: sample.id, suite }
  if (sample.mustPass) record.mustPass = true
  const stored: EvalMeta = { v: 1, record, expected: storedExpected(sample.expected) }
  if (output === undefined) {
    // A failed generation scores as no prediction, so a failure can never raise a rate.
    const { reason, detail } = errorReason(error)
    record.error = reason
    record.score = scoreSample([], sample.expected, scoreOptions)
    applyErroredScorers(record, sample, scorers)
    stored.detail = detail
    keepPrompt(stored, sample)
    return { stored, result: { sample, calls: [], score: record.score, record } }
  }
  if (output.cacheRegenerated !== undefined) stored.cacheRegenerated = output.cacheRegenerated
  if (output.trajectory !== undefined) stored.trajectory = storedTrajectory(output.trajectory)

  if (output.cached) stored.cacheHit = true
  if (output.resumed) stored.resumed = output.resumed
  if (output.skipped !== undefined) {
    record.skipped = output.skipped
    return { stored, result: { sample, output, calls: [], score: scoreSample([], sample.expected, scoreOptions), record } }
  }
  const calls = outputCalls(output, sample, options.format)
  record.score = scoreSample(calls, sample.expected, scoreOptions)
  let scored: Awaited<ReturnType<typeof applyScorers>>
  try {
    scored = await applyScorers(record, sample, calls, output, scorers)
  } catch (err) {
    // A scorer that throws (a user scorer's bug, a bad value) errors this sample only, never the run.
    const { reason, detail } = errorReason(err)
    record.error = `a scorer failed: ${reason}`
    delete record.scores
    applyErroredScorers(record, sample, scorers)
    stored.detail = detail
    keepPrompt(stored, sample)
    return { stored, result: { sample, output, calls, score: record.score, record } }
  }
  const { results, strict } = scored
  stored.callsHash = callsHash(calls)
  if (record.score.failures.length > 0) {
    // Only a sample that is not fully right is shown (the reporter's worst samples): a right one keeps its record only.
    stored.calls = storedCalls(calls)
    if (output.text !== undefined) stored.output = truncate(output.text, options.maxOutputChars ?? META_LIMITS.outputChars)
    keepPrompt(stored, sample)
  } else {
    // Fully right: one capped line of its calls (they are the expected ones) instead of both lists.
    delete stored.expected
    if (calls.length > 0) stored.rightCalls = rightCallsLine(calls)
  }
  const result: EvalResult = { ...results, sample, output, calls, score: record.score, record }
  if (output.trajectory !== undefined && result.trajectory === undefined) result.trajectory = output.trajectory
  return { stored, result, strict }
}

/** Keep the prompt of a sample that is not fully right (fully right ones leave meta small). */
function keepPrompt(stored: EvalMeta, sample: Sample): void {
  const prompt = lastUserPrompt(sample.messages)
  if (prompt !== undefined) stored.prompt = prompt
}

/** strict mode: the sample must be fully right; the failure shows expected against actual calls as a diff. */
function expectSampleRight(result: EvalResult, verdict: StrictVerdict, match: MatchMode): void {
  const { score, calls, sample } = result
  // A scorer with its own verdict (the BFCL checker: `expected` is one acceptable answer of several) decides.
  if (verdict !== undefined) {
    if (!verdict.pass) throw new Error(`sample "${sample.id}": ${verdict.message}`)
    return
  }
  if (score.failures.length === 0) return
  const message = `sample "${sample.id}": ${score.failures.join(', ')}`
  // The matcher's message carries the diff in its text (reporters that show only messages still show it).
  expect(calls, message).toMatchToolCalls(sample.expected, { order: match === 'unordered' ? 'any' : 'strict' })
  // Same calls by the matcher's comparison but not by the scorer's (a malformed call, Python's `true == 1`): say why.
  throw new Error(message)
}
