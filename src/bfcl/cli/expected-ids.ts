/**
 * The ids a complete result file of a category holds, from BFCL's data, in BFCL's order; and the data files a
 * category's requests are made from (their digest tells a rerun whether earlier answers were asked the same question).
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { dataFileName } from '../checker/categories.js'
import { isPlainObject } from '../../calls/call-object.js'
import { parseJson } from '../../calls/json.js'
import { forEachJsonlLine } from '../../calls/jsonl.js'
import { isAgenticCategory } from '../agentic/checker.js'
import { agenticDir } from '../protocol/agentic-generate.js'
import { formatSensitivityEntries, formatSensitivityIdsFile } from '../protocol/format-sensitivity.js'

/** The data file whose lines are the category's entries (`dir`: the folder holding `BFCL_v4_<category>.json`). */
export function entriesFile(category: string, dir: string): string {
  if (category.startsWith('web_search')) return join(agenticDir(dir), 'BFCL_v4_web_search.json')
  if (category.startsWith('memory_')) return join(agenticDir(dir), 'BFCL_v4_memory.json')
  if (category === 'format_sensitivity') return formatSensitivityIdsFile(dir)
  return join(dir, dataFileName(category))
}

/**
 * The string `id` of each line of a JSON-lines file, in order (lines without one are left out: the scorer names
 * them). Only ids are wanted, so the native parser reads each line: this runs on every data and results file a run
 * scores, and the project's own reader (float kinds, positions) costs several times as much.
 */
export function lineIds(file: string): string[] {
  const ids: string[] = []
  forEachJsonlLine(readFileSync(file, 'utf8'), (s) => {
    let v: unknown
    try {
      v = JSON.parse(s)
    } catch {
      // Python's json writes NaN and Infinity, which the native parser refuses: the project's reader takes them.
      const r = parseJson(s)
      if (!r.ok) return
      v = r.value
    }
    if (isPlainObject(v) && typeof v['id'] === 'string') ids.push(v['id'])
  })
  return ids
}

/**
 * The ids of the category's entries (the first `limit`, as `bfcl run --limit` asks them; format sensitivity: the
 * first `limit` original entries, each under every prompt format), or undefined when its data cannot be read.
 * `dir` is the folder holding the category's data file (the multi-turn folder for multi-turn categories).
 */
export function expectedIds(category: string, dir: string, limit?: number): string[] | undefined {
  try {
    if (category === 'format_sensitivity') return formatSensitivityEntries(dir, limit).map((e) => e.id)
    const file = entriesFile(category, dir)
    if (!existsSync(file)) return undefined
    let ids = lineIds(file)
    if (isAgenticCategory(category)) ids = ids.map((id) => id.replaceAll(category.startsWith('memory_') ? 'memory' : 'web_search', category))
    return limit === undefined ? ids : ids.slice(0, limit)
  } catch {
    return undefined
  }
}
