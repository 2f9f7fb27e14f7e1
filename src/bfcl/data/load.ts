/**
 * BFCL categories as eval samples: each test entry (question + functions) with its possible answer becomes a Sample
 * whose `bfcl` carries what the BFCL checker needs (category, ground truth with its float kinds, functions), so
 * an eval can score it with the leaderboard's rules (`checkBfclAnswer`, `toMatchBfclAnswer`).
 *
 * `expected` holds one canonical call per answer (each parameter the answer requires, with its first acceptable
 * value; optional parameters, those with `""` among their values, left out), so the NeMo-style metrics still mean
 * something; the BFCL verdict is the checker's, which accepts every listed value.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ToolDefinition } from '../../calls/types.js'
import type { BfclAnswer } from '../checker/answer.js'
import { categoryInfo, dataFileName, unsupportedReason } from '../checker/categories.js'
import type { BfclFunction } from '../checker/checker.js'
import { categoryDataFromText } from '../checker/files.js'
import { isPyDict, toJsonWithFloatPaths, toPlain, type PyValue } from '../../python/operations.js'
import type { ExpectedCall } from '../../score/types.js'
import type { ChatMessage, Sample } from '../../data/types.js'
import { decodeJsonLine, forEachJsonlLine } from '../../calls/jsonl.js'
import type { JsonValue } from '../../calls/types.js'
import { fromJson } from '../../python/operations.js'
import { bfclOpenAITools, hintedFunctions } from './request.js'

/** What `sample.answers.bfcl` (and `sample.bfcl`) holds: a BfclAnswer (plain JSON) plus the entry's id. */
export interface BfclSampleInfo extends BfclAnswer {
  category: string
  id: string
  kind: 'ast' | 'irrelevance' | 'relevance'
  functions: BfclFunction[]
}

/** A sample line in the JSONL shape `describeEval({ data })` accepts (`bfcl` ends up in `sample.answers.bfcl` and `sample.bfcl`). */
export interface BfclSampleLine {
  id: string
  messages: ChatMessage[]
  tools: ToolDefinition[]
  expected: ExpectedCall[]
  bfcl: BfclSampleInfo
}

export interface BfclLoadResult {
  /** The samples, in data order. */
  samples: Sample[]
  /** The same samples as data lines, for `describeEval('bfcl', { data: lines, ... })`. */
  lines: BfclSampleLine[]
  /** `file:line: field "...": what` for every entry that could not be used (it is left out). */
  errors: string[]
}

export interface BfclLoadOptions {
  /** Only these ids (in data order). */
  ids?: readonly string[]
  /** At most this many samples (after `ids`). */
  limit?: number
}

/**
 * BFCL function descriptions as the tools BFCL's OpenAI-compatible handler sends (`convert_to_tool`: its type
 * mapping, `dict` → `object`, `float` → `number` with a note, dots in names as underscores).
 */
export function bfclTools(functions: readonly BfclFunction[]): ToolDefinition[] {
  return bfclOpenAITools(functions.map((f) => fromJson(f as unknown as JsonValue) ?? null))
}

/** Whether BFCL's handler renames any of these functions (a dot in the name): answers are then compared mapped back. */
export function hasDottedName(functions: readonly { name: string }[]): boolean {
  return functions.some((f) => f.name.includes('.'))
}

/** BFCL's `question`: a list of turns, each a list of messages; single-turn entries have one. */
function messagesOf(question: unknown): ChatMessage[] | string {
  if (!Array.isArray(question)) return 'expected a list of turns'
  const out: ChatMessage[] = []
  for (const turn of question) {
    const messages = Array.isArray(turn) ? turn : [turn]
    for (const m of messages) {
      if (m === null || typeof m !== 'object' || typeof (m as ChatMessage).role !== 'string') {
        return 'expected messages with a string "role"'
      }
      out.push(m as ChatMessage)
    }
  }
  return out
}

/** One canonical call per answer: each required parameter with its first acceptable value. */
function canonicalCalls(groundTruth: readonly PyValue[]): ExpectedCall[] {
  const out: ExpectedCall[] = []
  for (const answer of groundTruth) {
    if (!isPyDict(answer)) continue
    for (const [name, params] of answer) {
      const args: Record<string, unknown> = {}
      if (isPyDict(params)) {
        for (const [param, acceptable] of params) {
          // Optional parameters (`""` acceptable) are left out: the minimal call the checker accepts.
          if (!Array.isArray(acceptable) || acceptable.includes('')) continue
          const first = acceptable[0]
          if (first !== undefined) args[String(param)] = toPlain(first)
        }
      }
      out.push({ name: String(name), arguments: args })
    }
  }
  return out
}

/** Samples from a category's data and answer texts (what `loadBfclCategory` reads from disk). */
export function bfclSamplesFromText(
  category: string,
  dataText: string,
  dataFile: string,
  answersText?: string,
  answerFile?: string,
  options: BfclLoadOptions = {},
): BfclLoadResult {
  const result: BfclLoadResult = { samples: [], lines: [], errors: [] }
  const unsupported = unsupportedReason(category)
  if (unsupported !== undefined) {
    result.errors.push(unsupported)
    return result
  }
  const info = categoryInfo(category)
  const data = categoryDataFromText(dataText, dataFile, answersText, answerFile)
  result.errors.push(...data.errors)
  if (info.kind === 'ast' && data.answers === undefined) {
    result.errors.push(`${dataFile}: category ${category} needs its possible answers (possible_answer/${dataFileName(category)})`)
    return result
  }
  const wanted = options.ids ? new Set(options.ids) : undefined
  for (const entry of data.entries.values()) {
    if (wanted && !wanted.has(entry.id)) continue
    if (options.limit !== undefined && result.samples.length >= options.limit) break
    const where = `${dataFile}:${entry.line ?? '?'}`
    const json = entry.json as Record<string, unknown> | undefined
    const messages = messagesOf(json?.['question'])
    if (typeof messages === 'string') {
      result.errors.push(`${where}: field "question": ${messages}`)
      continue
    }
    const bfcl: BfclSampleInfo = { category, id: entry.id, kind: info.kind, functions: entry.functions }
    // The tools name `math.factorial` `math_factorial`, as BFCL's handler sends it: the checker maps names back.
    if (hasDottedName(entry.functions)) bfcl.underscoreToDot = true
    let expected: ExpectedCall[] = []
    if (info.kind === 'ast') {
      const gt = data.answers!.get(entry.id)
      if (gt === undefined) {
        result.errors.push(`${where}: no possible answer with id ${JSON.stringify(entry.id)} in ${answerFile}`)
        continue
      }
      const { json: plain, floatPaths } = toJsonWithFloatPaths(gt)
      bfcl.ground_truth = plain as unknown[]
      if (floatPaths.length > 0) bfcl.floatPaths = floatPaths
      expected = canonicalCalls(gt)
    }
    // BFCL's request: the data loader's language hint on each function, then the handler's tool conversion.
    const pyFunctions = isPyDict(entry.prompt) ? entry.prompt.get('function') : undefined
    const tools = Array.isArray(pyFunctions) ? bfclOpenAITools(hintedFunctions(pyFunctions, category)) : bfclTools(entry.functions)
    const source = entry.line === undefined ? undefined : { file: dataFile, line: entry.line }
    const sample: Sample = { id: entry.id, messages, tools, expected, answers: { bfcl }, bfcl }
    if (source) sample.source = source
    result.samples.push(sample)
    result.lines.push({ id: entry.id, messages, tools, expected, bfcl })
  }
  return result
}

/**
 * Load a BFCL category from a data directory (`BFCL_v4_<category>.json` and
 * `possible_answer/BFCL_v4_<category>.json`) as eval samples. Synchronous, so an eval file can call it while Vitest
 * collects tests. Never throws: unreadable files and bad entries are listed in `errors`.
 *
 * Relevance categories (`live_relevance`) have no answers: their samples expect `[]`, which is only right for the
 * BFCL verdict (`checkBfclAnswer` wants some call there); their NeMo-style metrics are not meaningful.
 */
export function loadBfclCategory(dataDir: string, category: string, options: BfclLoadOptions = {}): BfclLoadResult {
  const dataFile = join(dataDir, dataFileName(category))
  const answerFile = join(dataDir, 'possible_answer', dataFileName(category))
  let dataText: string
  try {
    dataText = readFileSync(dataFile, 'utf8')
  } catch (e) {
    return { samples: [], lines: [], errors: [`${dataFile}: cannot read (${(e as NodeJS.ErrnoException).code ?? String(e)})`] }
  }
  let answersText: string | undefined
  if (categoryInfo(category).kind === 'ast') {
    try {
      answersText = readFileSync(answerFile, 'utf8')
    } catch (e) {
      return { samples: [], lines: [], errors: [`${answerFile}: cannot read (${(e as NodeJS.ErrnoException).code ?? String(e)})`] }
    }
  }
  return bfclSamplesFromText(category, dataText, dataFile, answersText, answerFile, options)
}

/**
 * A category's recorded results as replay lines (`{"id", "tool_calls"}` for function-calling results,
 * `{"id", "output"}` for prompting ones), so `replay(...)` can stand in for the model.
 */
export function bfclReplayLines(resultsText: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = []
  forEachJsonlLine(resultsText, (content) => {
    const decoded = decodeJsonLine(content)
    if (!decoded.ok || decoded.value === null || typeof decoded.value !== 'object') return
    const { id, result } = decoded.value as { id?: unknown; result?: unknown }
    if (typeof id !== 'string') return
    if (typeof result === 'string') out.push({ id, output: result })
    else if (Array.isArray(result)) {
      const toolCalls = result.flatMap((item: unknown) => {
        if (item === null || typeof item !== 'object' || Array.isArray(item)) return []
        const [name, args] = Object.entries(item as Record<string, unknown>)[0] ?? []
        if (name === undefined) return []
        return [{ type: 'function', function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) } }]
      })
      out.push({ id, tool_calls: toolCalls })
    }
  })
  return out
}
