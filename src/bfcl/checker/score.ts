/**
 * Scoring recorded BFCL results: one entry (decode, format check, checker) and one category (accuracy, counts, and
 * the failing entries the leaderboard writes to its score files).
 */
import type { JsonValue } from '../../calls/types.js'
import { categoryInfo, compareIds } from './categories.js'
import {
  checkMultiple,
  checkParallel,
  checkSimple,
  type BfclFunction,
  type CheckError,
  type CheckOptions,
  type CheckResult,
} from './checker.js'
import {
  decodeResult,
  isEmptyOutput,
  isFunctionCallingFormat,
  type BfclResultFormat,
  type DecodeOptions,
  type DecodeResult,
} from './decode.js'
import { PyCrash, PyFloat, pyJsonDumps, pyRepr, type PyDict, type PyValue } from '../../python/operations.js'

export type BfclScoreOptions = CheckOptions & DecodeOptions

/** What one entry needs: the category, the offered functions, the possible answers (AST categories), the result. */
export interface BfclEntryInput {
  category: string
  id: string
  functions: readonly BfclFunction[]
  /** `ground_truth`: a list of `{name: {param: [acceptable values]}}`; absent for (ir)relevance categories. */
  groundTruth?: readonly PyValue[]
  /** The recorded `result` (a list for function-calling models, a string for prompting ones). */
  result: PyValue
}

export interface BfclVerdict {
  id: string
  valid: boolean
  /** The leaderboard's error type; absent when valid. */
  error_type?: string
  error: CheckError[]
  /** The format the result was decoded as. */
  format: BfclResultFormat
  /** The decoded output, when decoding succeeded. */
  decoded?: PyValue[]
  /** Why decoding failed, when it did. */
  decodeError?: string
}

/** Error type for cases where the reference checker itself would crash (it stops the run; we fail the entry). */
export const REFERENCE_CRASH = 'ast_checker:reference_crash'

/** Score one entry with the leaderboard's rules for its category. Never throws. */
export function scoreEntry(input: BfclEntryInput, options: BfclScoreOptions = {}): BfclVerdict {
  return scoreDecoded(input, decodeResult(input.result, options), options)
}

/** Score an entry whose result is already decoded (or failed to decode). Never throws. */
export function scoreDecoded(
  input: Omit<BfclEntryInput, 'result'>,
  d: DecodeResult,
  options: BfclScoreOptions = {},
): BfclVerdict {
  const info = categoryInfo(input.category)
  const base = { id: input.id, format: d.format }

  if (info.kind !== 'ast') {
    const hasCall = d.ok && !isEmptyOutput(d.decoded)
    const verdict: BfclVerdict = { ...base, valid: info.kind === 'irrelevance' ? !hasCall : hasCall, error: [] }
    if (d.ok) verdict.decoded = d.decoded
    else verdict.decodeError = d.error
    if (!verdict.valid) {
      if (info.kind === 'irrelevance') {
        verdict.error = ['Valid syntax. Successfully decode AST when it should not.']
        verdict.error_type = 'irrelevance_error:decoder_success'
      } else {
        verdict.error = [`Invalid syntax. Failed to decode AST when it should have. ${d.ok ? 'None' : d.error}`]
        verdict.error_type = 'relevance_error:decoder_failed'
      }
    }
    return verdict
  }

  if (!d.ok) {
    return {
      ...base,
      valid: false,
      error: [`Invalid syntax. Failed to decode AST. ${d.error}`],
      error_type: 'ast_decoder:decoder_failed',
      decodeError: d.error,
    }
  }
  if (!isFunctionCallingFormat(d.decoded)) {
    return {
      ...base,
      valid: false,
      decoded: d.decoded,
      error: ['Did not output in the specified format. Note: the model_result is wrapped in a string to ensure json serializability.'],
      error_type: 'ast_decoder:decoder_wrong_output_format',
    }
  }
  let r: CheckResult
  try {
    const answers = input.groundTruth ?? []
    options = { ...options, language: info.language }
    if (info.checker === 'parallel') r = checkParallel(input.functions, d.decoded, answers, options)
    else if (info.checker === 'multiple') r = checkMultiple(input.functions, d.decoded, answers, options)
    else r = checkSimple(input.functions, d.decoded, answers, options)
  } catch (e) {
    if (!(e instanceof PyCrash)) throw e
    r = { valid: false, error: [`The reference checker would crash here (${e.message}).`], error_type: REFERENCE_CRASH }
  }
  const verdict: BfclVerdict = { ...base, valid: r.valid, error: r.error, decoded: d.decoded }
  if (!r.valid) verdict.error_type = r.error_type
  return verdict
}

// ---------------------------------------------------------------------------------------------------------------
// Categories

/** One test entry of a category's data file. */
export interface BfclTestEntry {
  id: string
  functions: BfclFunction[]
  /** The data line itself, which the leaderboard copies into score files as `prompt`. */
  prompt?: PyValue
  /** The data line as plain JSON, and its 1-based line number, when read from a file. */
  json?: JsonValue
  line?: number
}

/** One line of a results file: a result, or why the line could not be read. */
export type BfclResultLine =
  | { id: string; result: PyValue; line?: number }
  | { id?: string; error: string; line?: number }

export interface BfclCategoryInput {
  category: string
  /** The category's test entries, by id. */
  entries: ReadonlyMap<string, BfclTestEntry>
  /** Possible answers by id (AST categories). */
  answers?: ReadonlyMap<string, readonly PyValue[]>
  results: readonly BfclResultLine[]
}

/** A scored entry, with what the score file needs. */
export interface BfclScoredEntry extends BfclVerdict {
  /** The recorded result as read. */
  result?: PyValue
  prompt?: PyValue
  groundTruth?: readonly PyValue[]
}

export interface BfclCategoryScore {
  category: string
  accuracy: number
  correct_count: number
  total_count: number
  /** Every entry, in the leaderboard's order (by id number). */
  entries: BfclScoredEntry[]
}

/** Error type of an entry whose results line or data could not be used (our addition: the leaderboard crashes). */
export const INPUT_ERROR = 'input_error'

/**
 * Score a category: every results line is one entry of the total (a line that cannot be used counts as incorrect,
 * so bad input never raises the accuracy). Entries are matched to data and answers by id.
 */
export function scoreCategory(input: BfclCategoryInput, options: BfclScoreOptions = {}): BfclCategoryScore {
  const info = categoryInfo(input.category)
  const entries: BfclScoredEntry[] = []
  for (const line of input.results) {
    if ('error' in line) {
      entries.push(inputError(line.id ?? `line ${line.line ?? '?'}`, line.error))
      continue
    }
    const test = input.entries.get(line.id)
    if (test === undefined) {
      entries.push({ ...inputError(line.id, `no test entry with id ${JSON.stringify(line.id)} in the category's data`), result: line.result })
      continue
    }
    const groundTruth = input.answers?.get(line.id)
    if (info.kind === 'ast' && groundTruth === undefined) {
      entries.push({ ...inputError(line.id, `no possible answer with id ${JSON.stringify(line.id)}`), result: line.result, prompt: test.prompt })
      continue
    }
    const verdict = scoreEntry(
      { category: input.category, id: line.id, functions: test.functions, groundTruth, result: line.result },
      options,
    )
    const scored: BfclScoredEntry = { ...verdict, result: line.result }
    if (test.prompt !== undefined) scored.prompt = test.prompt
    if (groundTruth !== undefined) scored.groundTruth = groundTruth
    entries.push(scored)
  }
  entries.sort((a, b) => compareIds(a.id, b.id))
  const correct = entries.filter((e) => e.valid).length
  const total = entries.length
  return {
    category: input.category,
    accuracy: total === 0 ? 0 : correct / total,
    correct_count: correct,
    total_count: total,
    entries,
  }
}

function inputError(id: string, message: string): BfclScoredEntry {
  return { id, valid: false, error: [message], error_type: INPUT_ERROR, format: 'function-calling' }
}

// ---------------------------------------------------------------------------------------------------------------
// Score files

function parallelSubErrorDict(e: CheckError): PyValue {
  if (typeof e === 'string') return e
  const inner: PyDict = new Map<string, PyValue>([
    ['sub_error', e.sub_error.map(parallelSubErrorDict)],
    ['sub_error_type', e.sub_error_type],
    ['model_output_item', e.model_output_item],
    ['possible_answer_item', e.possible_answer_item],
  ])
  return new Map([[`Model Result Index ${e.index}`, inner]])
}

/**
 * The score file entry the leaderboard writes for a failing entry, with its keys in the leaderboard's order. `prompt`,
 * the raw and decoded results and the possible answer are included when known.
 */
export function scoreFileEntry(category: string, modelName: string, e: BfclScoredEntry): PyDict {
  const info = categoryInfo(category)
  const out: PyDict = new Map<string, PyValue>([
    ['id', e.id],
    ['model_name', modelName],
    ['test_category', category],
    ['valid', e.valid],
  ])
  const error = e.error.map(parallelSubErrorDict)
  if (e.error_type === INPUT_ERROR || e.error_type === REFERENCE_CRASH) {
    out.set('error', error)
    out.set('error_type', e.error_type)
    if (e.prompt !== undefined) out.set('prompt', e.prompt)
    if (e.result !== undefined) out.set('model_result_raw', e.result)
    return out
  }
  if (info.kind !== 'ast') {
    if (e.prompt !== undefined) out.set('prompt', e.prompt)
    out.set('model_result', e.result ?? null)
    out.set('decoded_result', e.decoded ?? null)
    out.set('error', error)
    out.set('error_type', e.error_type ?? '')
    return out
  }
  out.set('error', error)
  out.set('error_type', e.error_type ?? '')
  if (e.prompt !== undefined) out.set('prompt', e.prompt)
  if (e.error_type === 'ast_decoder:decoder_wrong_output_format') {
    out.set('model_result_raw', pyRepr(e.result ?? null))
    out.set('model_result_decoded', pyRepr(e.decoded ?? null))
  } else {
    out.set('model_result_raw', e.result ?? null)
    if (e.decoded !== undefined) out.set('model_result_decoded', e.decoded)
  }
  out.set('possible_answer', e.groundTruth ? [...e.groundTruth] : null)
  return out
}

/** The score file's text: the summary line, then one line per failing entry; every line ends with a newline. */
export function scoreFileText(score: BfclCategoryScore, modelName: string): string {
  const header: PyDict = new Map<string, PyValue>([
    ['accuracy', accuracyValue(score.accuracy)],
    ['correct_count', score.correct_count],
    ['total_count', score.total_count],
  ])
  const lines = [pyJsonDumps(header)]
  for (const e of score.entries) if (!e.valid) lines.push(pyJsonDumps(scoreFileEntry(score.category, modelName, e)))
  return lines.join('\n') + '\n'
}

/** Accuracy is a Python float: `1.0`, not `1`. */
function accuracyValue(x: number): PyValue {
  return Number.isInteger(x) ? new PyFloat(x) : x
}
