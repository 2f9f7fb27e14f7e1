/** Scoring a whole multi-turn category from BFCL's files, and its score file in the leaderboard's layout. */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { isPlainObject } from '../../calls/call-object.js'
import { dataFileName, resultFileName } from '../checker/categories.js'
import { parseJsonLines } from '../checker/files.js'
import { forEachJsonlLine } from '../../calls/jsonl.js'
import { PyFloat, fromJson, pyJsonDumps, type PyDict, type PyValue } from '../../python/operations.js'
import type { JsonValue } from '../../calls/types.js'
import { ApiSession } from './api.js'
import { scoreMultiTurnEntry, type MultiTurnEntry, type MultiTurnVerdict } from './checker.js'

export const MULTI_TURN_CATEGORIES = ['multi_turn_base', 'multi_turn_miss_func', 'multi_turn_miss_param', 'multi_turn_long_context'] as const

export function isMultiTurnCategory(name: string): boolean {
  return (MULTI_TURN_CATEGORIES as readonly string[]).includes(name)
}

export interface MultiTurnCategoryScore {
  category: string
  accuracy: number
  correct_count: number
  total_count: number
  /** Every entry's verdict, in the results file's order. */
  entries: MultiTurnVerdict[]
  /** The ids of the category's data, in its order (what a complete results file holds). */
  dataIds?: string[]
  /** `file:line: what` problems in the input. */
  errors: string[]
}

/**
 * What of a line the checker needs as Python values: the whole line ('all'), only its `result` ('result'), or nothing
 * ('none': the plain JSON is enough).
 */
type PyNeed = 'all' | 'result' | 'none'

// A number written with a fraction or an exponent: where it is integral (`3.0`), only the exact parser keeps it a float.
const FLOAT_TOKEN = /[0-9][.eE]/

function hasNumber(v: unknown): boolean {
  if (typeof v === 'number') return true
  if (Array.isArray(v)) return v.some(hasNumber)
  if (v !== null && typeof v === 'object') return Object.values(v).some(hasNumber)
  return false
}

/**
 * The file's lines. The engine's JSON.parse reads each line (the project's exact parser costs several times more on
 * these megabyte files); the exact parser, which keeps integral floats (`3.0`) apart from ints, is used only where a
 * part the checker reads could hold one, and for lines JSON.parse refuses (its error wording).
 */
async function lines(path: string, errors: string[], need: PyNeed): Promise<{ line: number; json: unknown; py: PyValue }[]> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (e) {
    errors.push(`${path}: cannot read (${(e as NodeJS.ErrnoException).code ?? String(e)})`)
    return []
  }
  const out: { line: number; json: unknown; py: PyValue }[] = []
  forEachJsonlLine(text, (content, line) => {
    let json: unknown
    try {
      json = JSON.parse(content)
    } catch {
      const exact = parseJsonLines(content, path)
      // Report with the file's own line number.
      errors.push(...exact.errors.map((e) => e.message.replace(`${path}:1:`, `${path}:${line}:`)))
      for (const l of exact.lines) out.push({ ...l, line })
      return
    }
    let py: PyValue | undefined = null
    if (need === 'result' && isPlainObject(json) && !hasNumber(json['result'])) {
      const result = fromJson((json['result'] ?? null) as JsonValue)
      py = result === undefined ? undefined : new Map<string, PyValue>([['id', String(json['id'])], ['result', result]])
    } else if (need === 'all' && !FLOAT_TOKEN.test(content)) {
      py = fromJson(json as JsonValue)
    } else if (need !== 'none') {
      const exact = parseJsonLines(content, path)
      errors.push(...exact.errors.map((e) => e.message.replace(`${path}:1:`, `${path}:${line}:`)))
      for (const l of exact.lines) out.push({ ...l, line })
      return
    }
    if (py === undefined) errors.push(`${path}:${line}: value nested too deeply`)
    else out.push({ line, json, py })
  })
  return out
}

/** Find `BFCL_v4_<category>_result.json` in `dir` or one folder below (`multi_turn/`). */
async function resultPath(dir: string, category: string): Promise<string> {
  const name = resultFileName(category)
  for (const p of [join(dir, name), join(dir, 'multi_turn', name)]) {
    try {
      await readFile(p, { flag: 'r' }).then(() => undefined)
      return p
    } catch {
      // try the next place
    }
  }
  return join(dir, name)
}

export async function scoreMultiTurnCategory(
  dataDir: string,
  resultsDir: string,
  category: string,
  options: { modelName: string; session?: ApiSession },
): Promise<MultiTurnCategoryScore> {
  const errors: string[] = []
  const dataFile = join(dataDir, dataFileName(category))
  const answerFile = join(dataDir, 'possible_answer', dataFileName(category))
  const entries = new Map<string, MultiTurnEntry>()
  for (const l of await lines(dataFile, errors, 'all')) {
    const j = l.json
    if (!isPlainObject(j) || typeof j['id'] !== 'string' || !(l.py instanceof Map)) {
      errors.push(`${dataFile}:${l.line}: expected an object with a string "id"`)
      continue
    }
    const config = l.py.get('initial_config')
    const classes = j['involved_classes']
    if (!(config instanceof Map) || !Array.isArray(classes)) {
      errors.push(`${dataFile}:${l.line}: field "initial_config" or "involved_classes" missing or malformed`)
      continue
    }
    entries.set(j['id'], { id: j['id'], initialConfig: config as PyDict, involvedClasses: classes.map(String), json: j })
  }
  const answers = new Map<string, string[][]>()
  for (const l of await lines(answerFile, errors, 'none')) {
    const j = l.json
    if (!isPlainObject(j) || typeof j['id'] !== 'string' || !Array.isArray(j['ground_truth'])) {
      errors.push(`${answerFile}:${l.line}: expected an object with "id" and a list "ground_truth"`)
      continue
    }
    answers.set(j['id'], (j['ground_truth'] as unknown[]).map((t) => (Array.isArray(t) ? t.map(String) : [])))
  }
  const resultFile = await resultPath(resultsDir, category)
  const session = options.session ?? new ApiSession()
  const verdicts: MultiTurnVerdict[] = []
  for (const l of await lines(resultFile, errors, 'result')) {
    const j = l.json
    if (!isPlainObject(j) || typeof j['id'] !== 'string' || !(l.py instanceof Map)) {
      errors.push(`${resultFile}:${l.line}: expected an object with a string "id"`)
      verdicts.push({ id: `${resultFile}:${l.line}`, valid: false, error_type: 'input_error', error_message: 'unreadable result line' })
      continue
    }
    const id = j['id']
    const entry = entries.get(id)
    const truth = answers.get(id)
    if (entry === undefined || truth === undefined) {
      errors.push(`${resultFile}:${l.line}: id ${id} has no test entry or possible answer in ${dataDir}`)
      verdicts.push({ id, valid: false, error_type: 'input_error', error_message: `unknown id ${id}` })
      continue
    }
    verdicts.push(scoreMultiTurnEntry(entry, l.py.get('result') ?? null, truth, { modelName: options.modelName, session }))
  }
  const correct = verdicts.filter((v) => v.valid).length
  return {
    category,
    accuracy: verdicts.length === 0 ? 0 : correct / verdicts.length,
    correct_count: correct,
    total_count: verdicts.length,
    entries: verdicts,
    dataIds: [...entries.keys()],
    errors,
  }
}

/** The score file: the accuracy line, then one line per failing entry (`error` holds the type and details). */
export function multiTurnScoreFileText(score: MultiTurnCategoryScore, modelName: string): string {
  // Python's json.dumps layout (`, ` and `: `; an integral accuracy as `1.0`), as the leaderboard writes it.
  const header: PyDict = new Map<string, PyValue>([
    ['accuracy', Number.isInteger(score.accuracy) ? new PyFloat(score.accuracy) : score.accuracy],
    ['correct_count', score.correct_count],
    ['total_count', score.total_count],
  ])
  const out = [pyJsonDumps(header)]
  for (const e of score.entries) {
    if (e.valid) continue
    out.push(
      pyLine({
        id: e.id,
        model_name: modelName,
        test_category: score.category,
        valid: false,
        error: errorDict(e),
        model_result_decoded: e.model_result_decoded,
      }),
    )
  }
  return out.join('\n') + '\n'
}

/** One entry as Python's json.dumps lays it out (plain JSON values: integral floats print as ints). */
function pyLine(entry: Record<string, unknown>): string {
  const plain = JSON.parse(JSON.stringify(entry)) as JsonValue
  const v = fromJson(plain)
  return v === undefined ? JSON.stringify(entry) : pyJsonDumps(v)
}

/**
 * The `error` of a failing entry as the reference writes it: an inference error or a forced termination carries its
 * message in a list and no details; a checker failure carries the message, the type and its details.
 */
function errorDict(e: MultiTurnVerdict): Record<string, unknown> {
  if (e.error_type === 'multi_turn:inference_error' || e.error_type === 'multi_turn:force_terminated') {
    return { error_message: [e.error_message], error_type: e.error_type }
  }
  return { error_message: e.error_message, error_type: e.error_type, details: e.details ?? {} }
}
