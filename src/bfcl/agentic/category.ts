/**
 * `tool-evals bfcl` for the agentic categories (web_search_base, web_search_no_snippet, memory_kv, memory_vector,
 * memory_rec_sum): recorded function-calling results scored with BFCL's agentic checker (`agentic/checker.ts`).
 * Answers are read from `<data>/agentic/possible_answer/` (or `<data>/possible_answer/`), paired with results by id.
 * Score files: the accuracy line, then each failing entry with its id, error (type, message, details), the raw
 * result, the last non-call message and the possible answer (BFCL's `prompt` and `inference_log` are left out).
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { agenticDataId, scoreAgenticEntry } from './checker.js'
import { compareIds } from '../checker/categories.js'
import { loadCategoryResults, parseJsonLines } from '../checker/files.js'
import { PyFloat, pyJsonDumps, type PyDict, type PyValue } from '../../python/operations.js'

export interface AgenticCategoryScore {
  accuracy: number
  correct_count: number
  total_count: number
  errors: string[]
  scoreFile: string
}

function answersFile(dataDir: string, category: string): string | undefined {
  const name = `BFCL_v4_${category.startsWith('memory_') ? 'memory' : 'web_search'}.json`
  return [join(dataDir, 'agentic', 'possible_answer', name), join(dataDir, 'possible_answer', name)].find((f) => existsSync(f))
}

export async function scoreAgenticCategory(dataDir: string, resultsDir: string, category: string, modelName: string): Promise<AgenticCategoryScore> {
  const errors: string[] = []
  const file = answersFile(dataDir, category)
  const answers = new Map<string, string[]>()
  if (file === undefined) errors.push(`${dataDir}: no possible answers for ${category} (agentic/possible_answer/)`)
  else {
    for (const l of parseJsonLines(readFileSync(file, 'utf8'), file).lines) {
      const j = l.json as { id?: unknown; ground_truth?: unknown }
      if (typeof j.id === 'string' && Array.isArray(j.ground_truth)) answers.set(j.id, j.ground_truth.map(String))
    }
  }
  const results = await loadCategoryResults(resultsDir, category)
  errors.push(...results.errors)
  const lines = results.results.slice().sort((a, b) => compareIds(a.id ?? '', b.id ?? ''))
  const failing: string[] = []
  let correct = 0
  for (const line of lines) {
    if (!('result' in line)) {
      errors.push(line.error)
      failing.push(pyJsonDumps(new Map<string, PyValue>([['id', line.id ?? null], ['valid', false], ['error', new Map<string, PyValue>([['error_type', 'input_error'], ['error_message', [line.error]]])]])))
      continue
    }
    const truth = answers.get(agenticDataId(line.id, category))
    if (truth === undefined) errors.push(`${line.id}: no possible answer with id ${agenticDataId(line.id, category)}`)
    const v = scoreAgenticEntry(line.result, truth ?? [])
    if (v.valid && truth !== undefined) {
      correct++
      continue
    }
    const entry: PyDict = new Map<string, PyValue>([['id', line.id], ['model_name', modelName], ['test_category', category], ['valid', false]])
    entry.set('error', v.error ?? new Map<string, PyValue>([['error_type', 'input_error']]))
    entry.set(v.lastMessage === undefined ? 'model_result' : 'model_result_raw', line.result)
    if (v.lastMessage !== undefined) entry.set('last_non_fc_message', v.lastMessage)
    entry.set('possible_answer', truth ?? [])
    failing.push(pyJsonDumps(entry))
  }
  const total = lines.length
  const accuracy = total === 0 ? 0 : correct / total
  const header: PyDict = new Map<string, PyValue>([['accuracy', Number.isInteger(accuracy) ? new PyFloat(accuracy) : accuracy], ['correct_count', correct], ['total_count', total]])
  return { accuracy, correct_count: correct, total_count: total, errors, scoreFile: [pyJsonDumps(header), ...failing].join('\n') + '\n' }
}
