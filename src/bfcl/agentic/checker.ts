/**
 * BFCL v4's agentic checker (gorilla 8db0b7ca, `eval_checker/agentic_eval/agentic_checker.py` and
 * `eval_runner.py`'s `_evaluate_single_agentic_entry`) for function-calling results of the web-search and memory
 * categories: the last step that is not a function call must contain one of the possible answers, compared after
 * BFCL's string standardisation and at word boundaries.
 */
import { pyRepr, type PyDict, type PyValue } from '../../python/operations.js'

export const AGENTIC_CATEGORIES = ['web_search_base', 'web_search_no_snippet', 'memory_kv', 'memory_vector', 'memory_rec_sum'] as const

export function isAgenticCategory(name: string): boolean {
  return (AGENTIC_CATEGORIES as readonly string[]).includes(name)
}

/** The data and answer files' own id of a result id (`memory_kv_3-student-3` → `memory_3-student-3`). */
export function agenticDataId(id: string, category: string): string {
  const base = category.startsWith('memory_') ? 'memory' : 'web_search'
  return id.startsWith(`${category}_`) ? base + id.slice(category.length) : id
}

/** `standardize_string`: `,./-_*^()` removed, lower case, `'` as `"`. */
export function standardizeAgentic(s: string): string {
  return s.replace(/[,./\-_*^()]/g, '').toLowerCase().replace(/'/g, '"')
}

/** Python's `\w` on one character of a `str` pattern (Unicode letters, digits, underscore). */
const WORD = /[\p{L}\p{N}_]/u
function isWord(s: string, i: number): boolean {
  return i >= 0 && i < s.length && WORD.test(s[i]!)
}

/** `re.search(rf"\b{re.escape(needle)}\b", haystack)`, without a regular expression built from data. */
export function containsAtWordBoundaries(haystack: string, needle: string): boolean {
  const boundary = (i: number) => isWord(haystack, i - 1) !== isWord(haystack, i)
  for (let i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + 1)) {
    if (boundary(i) && boundary(i + needle.length)) return true
    if (needle.length === 0 && i >= haystack.length) break
  }
  return false
}

/** Python's `str()` of a value (a str is itself). */
function pyStr(v: PyValue): string {
  return typeof v === 'string' ? v : pyRepr(v)
}

export interface AgenticVerdict {
  valid: boolean
  /** The reference's error object (its keys in the reference's order), for failing entries. */
  error?: PyDict
  /** The last step that is not a function call, when there is one. */
  lastMessage?: PyValue
}

/** `agentic_checker(model_response, possible_answer_list)`. */
export function agenticChecker(response: PyValue, answers: readonly string[]): AgenticVerdict {
  const standardized = answers.map(standardizeAgentic)
  // "Sometimes the model response is a list of one string."
  let text = Array.isArray(response) ? (response[0] ?? null) : response
  text = pyStr(text)
  const s = standardizeAgentic(text)
  if (standardized.some((a) => containsAtWordBoundaries(s, a))) return { valid: true }
  const details: PyDict = new Map<string, PyValue>([
    ['model_response', text],
    ['possible_answers', [...answers]],
    ['standardized_model_response', s],
    ['standardized_possible_answers', standardized],
  ])
  const error: PyDict = new Map<string, PyValue>([
    ['error_message', 'None of the expected answers were found in the model response.'],
    ['error_type', 'agentic:answer_not_found'],
    ['details', details],
  ])
  return { valid: false, error }
}

/** The function-calling handler's `decode_execute`: a step that is a list of `{name: "json args"}` decodes. */
function decodesAsCalls(step: PyValue): 'calls' | 'empty' | 'fails' {
  const items = step instanceof Map ? [step] : Array.isArray(step) ? step : undefined
  if (items === undefined) return 'fails'
  let count = 0
  for (const item of items) {
    if (!(item instanceof Map)) return 'fails'
    for (const value of item.values()) {
      if (typeof value === 'string') {
        try {
          const parsed: unknown = JSON.parse(value)
          if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return 'fails'
        } catch {
          return 'fails'
        }
      } else if (!(value instanceof Map)) return 'fails'
      count++
    }
  }
  // `is_empty_execute_response`: no call at all.
  return count === 0 ? 'empty' : 'calls'
}

const errorDict = (message: string, type: string): PyDict =>
  new Map<string, PyValue>([
    ['error_message', [message]],
    ['error_type', type],
  ])

/** One entry's verdict, as `_evaluate_single_agentic_entry` gives it for a function-calling model. */
export function scoreAgenticEntry(result: PyValue, answers: readonly string[]): AgenticVerdict {
  if (!Array.isArray(result) || result.length !== 1) {
    return { valid: false, error: errorDict('Error during inference phase. Model did not output a list of model responses.', 'agentic:inference_error') }
  }
  // Python iterates whatever the one element is: a list's steps, a string's characters, a dict's keys.
  const first = result[0]!
  const steps: PyValue[] = Array.isArray(first) ? first : typeof first === 'string' ? [...first] : first instanceof Map ? [...first.keys()] : []
  let last: PyValue | undefined
  for (const step of steps) if (decodesAsCalls(step) !== 'calls') last = step
  // Python's truthiness: None, '' and [] are no message.
  if (last === undefined || last === null || last === '' || (Array.isArray(last) && last.length === 0)) {
    return { valid: false, error: errorDict('Cannot find the last chat message that is not a function call.', 'agentic:no_last_message') }
  }
  return { ...agenticChecker(last, answers), lastMessage: last }
}
