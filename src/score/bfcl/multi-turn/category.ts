/** Scoring a whole multi-turn category from BFCL's files, and its score file in the leaderboard's layout. */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { isPlainObject } from '../../../calls/call-object.js'
import { dataFileName, resultFileName } from '../categories.js'
import { parseJsonLines } from '../files.js'
import { PyFloat, fromJson, pyJsonDumps, type PyDict, type PyValue } from '../pyvalue.js'
import type { JsonValue } from '../../../calls/types.js'
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
  /** `file:line: what` problems in the input. */
  errors: string[]
}

async function lines(path: string, errors: string[]): Promise<{ line: number; json: unknown; py: PyValue }[]> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (e) {
    errors.push(`${path}: cannot read (${(e as NodeJS.ErrnoException).code ?? String(e)})`)
    return []
  }
  const parsed = parseJsonLines(text, path)
  errors.push(...parsed.errors.map((e) => e.message))
  return parsed.lines
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
  for (const l of await lines(dataFile, errors)) {
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
  for (const l of await lines(answerFile, errors)) {
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
  for (const l of await lines(resultFile, errors)) {
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
        error: { error_message: e.error_message, error_type: e.error_type, details: e.details ?? {} },
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
