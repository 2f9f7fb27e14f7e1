/**
 * BFCL's multi-turn protocol through any provider, inside `vitest run`:
 *
 *   describeEval('multi_turn_base', { model, ...bfclMultiTurn({ dataDir: '../shared/bfcl/multi_turn', category: 'multi_turn_base', resultsDir: 'bfcl-results' }) })
 *
 * Each entry is one agent sample: its turns run in one conversation against the entry's simulated APIs (loaded from
 * `initial_config`), each turn up to BFCL's step limit (a turn may run 21 model steps that call tools: BFCL quits
 * once its step count passes MAXIMUM_STEP_LIMIT = 20, and then runs no further turn). In `multi_turn_miss_func`
 * the held-out functions are left out of the tools until their turn, which asks BFCL's own "I have updated some
 * more functions you can choose from. What about now?". Each entry's result goes to BFCL's result file (the
 * function-calling layout: per turn, per step, `[{name: "json args"}]` or the model's text), which BFCL's own
 * `evaluate` reads, and is scored in the run by the multi-turn checker: its verdict is recorded as the `bfcl`
 * scorer's, so `bfcl_accuracy`, the per-category counts and the error types are in the report.
 */
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseToolCalls } from '../../calls/index.js'
import type { ToolCall, ToolDefinition } from '../../calls/types.js'
import type { Sample } from '../../data/types.js'
import { dataFileName, resultFileName } from '../checker/categories.js'
import { parseJsonLines } from '../checker/files.js'
import { ApiSession } from '../multi-turn/api.js'
import { isMultiTurnCategory } from '../multi-turn/category.js'
import { scoreMultiTurnEntry, type MultiTurnVerdict } from '../multi-turn/checker.js'
import { fromJson, isPyDict, pyJsonDumps, toJsonWithFloatPaths, type PyDict, type PyValue } from '../../python/operations.js'
import type { Scorer } from '../../score/scorer.js'
import { bfclScorer, type BfclRecord } from '../scorer/scorer.js'
import type { AgentEnvironment, AgentOptions } from '../../eval/agent.js'
import { FUNC_DOC_FILES, bfclEnvironment, type BfclEnvironmentName } from './environment.js'
import { bfclOpenAITools, hintedFunctions } from '../data/request.js'
import type { Trajectory } from '../../score/trajectory.js'
import type { JsonValue } from '../../calls/types.js'

/** BFCL's user message for the turn that brings back held-out functions (function-calling models). */
export const ADDITIONAL_FUNCTION_PROMPT = 'I have updated some more functions you can choose from. What about now?'
/** Model steps a turn may run while calling tools: BFCL quits once its count passes MAXIMUM_STEP_LIMIT (20). */
export const BFCL_MAX_STEPS = 21

export interface BfclMultiTurnOptions {
  /** BFCL's multi-turn data folder: the question files, `possible_answer/` and `multi_turn_func_doc/`. */
  dataDir: string
  category: string
  /** Where the result file goes (`<resultsDir>/BFCL_v4_<category>_result.json`, rewritten by each run). */
  resultsDir?: string
  /** The model name the checker builds instance names from (default `vitest-tool-evals`). */
  modelName?: string
  /** Entries read, at most. */
  limit?: number
}

/** What an entry's sample carries for the environment and the checker (in `sample.extra.bfclMultiTurn`). */
interface EntryInfo {
  category: string
  involvedClasses: string[]
  /** Tools brought back at a turn (miss_func), by turn index. */
  addedTools: Record<string, ToolDefinition[]>
  groundTruth: string[][]
  /** BFCL's `initial_config`, and the JSON Pointers of its floats. */
  initialConfig: unknown
  floatPaths: string[]
  /** Why BFCL's inference fails on this entry (after running the turns before): its result is this error. */
  inferenceError?: string
}

function readLines(path: string): { json: Record<string, unknown>; py: PyValue }[] {
  const parsed = parseJsonLines(readFileSync(path, 'utf8'), path)
  if (parsed.errors.length > 0) throw new Error(parsed.errors.map((e) => e.message).join('\n'))
  return parsed.lines.map((l) => ({ json: l.json as Record<string, unknown>, py: l.py }))
}

/**
 * A class's function docs as Python values, in file order (a new array). `cache` keeps each file's docs once read:
 * its values are then shared between calls, which copy them before changing them (`hintedFunctions`, `bfclOpenAITools`).
 */
export function funcDocs(classes: readonly BfclEnvironmentName[], dir: string, cache?: Map<string, PyValue[]>): PyValue[] {
  return classes.flatMap((c) => {
    const file = join(dir, FUNC_DOC_FILES[c])
    let docs = cache?.get(file)
    if (docs === undefined) {
      docs = readLines(file).map((l) => l.py)
      cache?.set(file, docs)
    }
    return docs
  })
}

/** Ground-truth call strings as expected calls (for the NeMo metrics; the checker compares executions). */
function expectedCalls(groundTruth: string[][]) {
  const all = groundTruth.flat()
  if (all.length === 0) return []
  return parseToolCalls(`[${all.join(', ')}]`, { format: 'pythonic' }).map((c) => ({ name: c.name, arguments: c.arguments }))
}

/** The entries of a multi-turn category as agent sample objects (tools by BFCL's loader: held out, excluded). */
export function loadBfclMultiTurn(dataDir: string, category: string, limit?: number): Record<string, unknown>[] {
  if (!isMultiTurnCategory(category)) throw new Error(`bfclMultiTurn: "${category}" is not a multi-turn category`)
  let entries = readLines(join(dataDir, dataFileName(category)))
  if (limit !== undefined) entries = entries.slice(0, limit)
  const answers = new Map(readLines(join(dataDir, 'possible_answer', dataFileName(category))).map(({ json: a }) => [a['id'], a['ground_truth']]))
  const funcDocDir = join(dataDir, 'multi_turn_func_doc')
  // Each class's docs file is read once for the whole category, not once per entry that involves it.
  const docFiles = new Map<string, PyValue[]>()
  return entries.map(({ json: entry, py }) => {
    const id = String(entry['id'])
    const classes = (entry['involved_classes'] as string[]).map(String)
    // As BFCL's loader (gorilla 8db0b7ca): every class's docs, the held-out ones moved to their turn (without the
    // language hint, which the loader adds only to the docs left in place); `excluded_function` is not read there.
    const docs = funcDocs(classes as BfclEnvironmentName[], funcDocDir, docFiles)
    const named = (name: string) => docs.findIndex((d) => isPyDict(d) && d.get('name') === name)
    const addedTools: Record<string, ToolDefinition[]> = {}
    for (const [turn, names] of Object.entries((entry['missed_function'] ?? {}) as Record<string, string[]>)) {
      const held: PyValue[] = []
      for (const name of names) {
        const i = named(name)
        if (i >= 0) held.push(...docs.splice(i, 1))
      }
      addedTools[turn] = bfclOpenAITools(held)
    }
    const tools = bfclOpenAITools(hintedFunctions(docs, category))
    const question = entry['question'] as { role: string; content: string }[][]
    // BFCL asserts that a held-out turn has no message of its own: such an entry fails inference at that turn, and
    // its result is that error whatever the turns before it did (so they are run only up to the first odd turn).
    const heldOut = (i: number) => Object.hasOwn(addedTools, String(i))
    const inferenceError = question.some((m, i) => heldOut(i) && m.length > 0) ? 'Holdout turn should not have user message.' : undefined
    const turns: { role: string; content: string }[][] = []
    for (const [i, messages] of question.entries()) {
      if (heldOut(i) && messages.length === 0) turns.push([{ role: 'user', content: ADDITIONAL_FUNCTION_PROMPT }])
      else if (messages.length > 0 && !heldOut(i)) turns.push(messages)
      else if (inferenceError !== undefined) break
      else throw new Error(`bfclMultiTurn: ${id}: turn ${i} has no message and is not a held-out turn`)
    }
    const truth = answers.get(id)
    if (!Array.isArray(truth)) throw new Error(`bfclMultiTurn: ${id} has no ground truth in ${join(dataDir, 'possible_answer')}`)
    const groundTruth = (truth as unknown[]).map((t) => (Array.isArray(t) ? t.map(String) : []))
    // The config keeps its floats' kind through JSON (`10.0` is a float to the simulated APIs and in their output).
    const config = py instanceof Map ? py.get('initial_config') : undefined
    const { json: initialConfig, floatPaths } = toJsonWithFloatPaths(config instanceof Map ? config : new Map())
    const info: EntryInfo = { category, involvedClasses: classes, addedTools, groundTruth, initialConfig, floatPaths }
    if (inferenceError !== undefined) info.inferenceError = inferenceError
    return { id, messages: turns[0], turns: turns.slice(1), tools, expected: expectedCalls(groundTruth), bfclMultiTurn: info }
  })
}

function infoOf(sample: Sample): EntryInfo {
  const info = sample.extra?.['bfclMultiTurn'] as EntryInfo | undefined
  if (info === undefined) throw new Error(`sample "${sample.id}" is not a BFCL multi-turn entry (no bfclMultiTurn field)`)
  return info
}

/**
 * A call's arguments as the JSON text BFCL's result files hold: Python's `json.dumps`, floats kept as floats (`3.0`
 * stays a float, which the simulated APIs print differently). Malformed arguments are written as text that does not
 * decode, so BFCL drops the step as it drops an undecodable response.
 */
function argumentsText(call: ToolCall): string {
  if (!call.argumentsValid) return '<malformed arguments>'
  const v = fromJson(call.arguments as JsonValue, call.floatPaths)
  return v === undefined ? JSON.stringify(call.arguments) : pyJsonDumps(v)
}

/** An entry's result in BFCL's function-calling layout: per turn, per step, the calls or the model's text. */
export function bfclResult(trajectory: Trajectory): unknown[][] {
  const turns: unknown[][] = Array.from({ length: trajectory.turns }, () => [])
  for (const step of trajectory.steps) {
    const response = step.calls.length > 0 ? step.calls.map((c) => ({ [c.name]: argumentsText(c) })) : (step.text ?? '')
    turns[step.turn]?.push(response)
  }
  return turns
}

/** The multi-turn checker as the `bfcl` scorer: its record feeds `bfcl_accuracy` and BFCL's per-category counts. */
function multiTurnScorer(modelName: string, resultFile: string | undefined): Scorer<BfclRecord> {
  const base = bfclScorer.configure(true, { cached: (p) => p }) as unknown as Scorer<BfclRecord>
  // One session for the category, as BFCL's checker process shares Python's mutable default arguments between the
  // entries it scores in file order (the tests run in data order).
  const session = new ApiSession()
  return {
    ...base,
    score({ sample, trajectory }) {
      const info = infoOf(sample)
      if (trajectory === undefined) return undefined
      const result = info.inferenceError !== undefined ? `Error during inference: ${info.inferenceError}` : bfclResult(trajectory)
      if (resultFile !== undefined) appendFileSync(resultFile, JSON.stringify({ id: sample.id, result }) + '\n')
      const config = fromJson(info.initialConfig as JsonValue, info.floatPaths) as PyValue
      const entry = { id: sample.id, initialConfig: (config instanceof Map ? config : new Map()) as PyDict, involvedClasses: info.involvedClasses, json: {} }
      const verdict: MultiTurnVerdict = scoreMultiTurnEntry(entry, fromJson(result as JsonValue) ?? null, info.groundTruth, { modelName, session })
      const value: BfclRecord = { valid: verdict.valid, category: info.category }
      if (!verdict.valid && verdict.error_type !== undefined) value.error_type = verdict.error_type
      return { value, result: verdict }
    },
    errored(sample) {
      return { valid: false, error_type: 'sample_errored', category: sample ? infoOf(sample).category : '(unknown)' }
    },
    strict(outcome) {
      const v = outcome.result as MultiTurnVerdict
      return v.valid ? { pass: true } : { pass: false, message: `BFCL multi-turn checker: ${v.error_type ?? 'invalid'}: ${v.error_message ?? ''}` }
    },
  }
}

/** describeEval options that run a BFCL multi-turn category (see the module comment). */
export function bfclMultiTurn(options: BfclMultiTurnOptions): { data: Record<string, unknown>[]; scorers: Scorer[] } & Required<Pick<AgentOptions, 'environment' | 'maxSteps'>> {
  const { dataDir, category } = options
  const data = loadBfclMultiTurn(dataDir, category, options.limit)
  let resultFile: string | undefined
  if (options.resultsDir !== undefined) {
    mkdirSync(options.resultsDir, { recursive: true })
    resultFile = join(options.resultsDir, resultFileName(category))
    writeFileSync(resultFile, '')
  }
  const longContext = category === 'multi_turn_long_context'
  const environment = (sample: Sample) => {
    const info = infoOf(sample)
    const make = bfclEnvironment(info.involvedClasses as BfclEnvironmentName[], info.initialConfig as Record<string, unknown>, { longContext, floatPaths: info.floatPaths })
    const env = make(sample) as AgentEnvironment
    env.addedTools = (turn: number) => info.addedTools[String(turn)]
    return env
  }
  return { data, environment, maxSteps: BFCL_MAX_STEPS, scorers: [multiTurnScorer(options.modelName ?? 'vitest-tool-evals', resultFile)] }
}
