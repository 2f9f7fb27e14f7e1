/**
 * Reading BFCL's files: the category data (`BFCL_v4_<category>.json`), the possible answers
 * (`possible_answer/BFCL_v4_<category>.json`) and a model's recorded results (`BFCL_v4_<category>_result.json`),
 * each one JSON object a line. Every problem is reported with the file, the line and the field; nothing throws on
 * bad content (a missing directory or unreadable file is reported the same way).
 */
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { isPlainObject } from '../../calls/call-object.js'
import { parseJson } from '../../calls/json.js'
import type { JsonValue } from '../../calls/types.js'
import { forEachJsonlLine } from '../../calls/jsonl.js'
import type { BfclFunction } from './checker.js'
import { fromJson, type PyValue } from '../../python/operations.js'
import type { BfclResultLine, BfclTestEntry } from './score.js'

export interface JsonLine {
  /** 1-based line number. */
  line: number
  json: JsonValue
  /** The same value with float kinds kept (see `fromJson`). */
  py: PyValue
}

export interface JsonLinesFile {
  lines: JsonLine[]
  /** `file:line: what` for every line that is not valid JSON. */
  errors: { line: number; message: string }[]
}

/** Parse a JSON-lines text; blank lines are skipped. */
export function parseJsonLines(text: string, file: string): JsonLinesFile {
  const out: JsonLinesFile = { lines: [], errors: [] }
  forEachJsonlLine(text, (s, line) => {
    const r = parseJson(s)
    if (!r.ok) {
      out.errors.push({ line, message: `${file}:${line}: invalid JSON (${r.error} at column ${r.at + 1})` })
      return
    }
    const py = fromJson(r.value, r.floatPaths)
    if (py === undefined) out.errors.push({ line, message: `${file}:${line}: value nested too deeply` })
    else out.lines.push({ line, json: r.value, py })
  })
  return out
}

async function readText(path: string): Promise<{ text: string } | { error: string }> {
  try {
    return { text: await readFile(path, 'utf8') }
  } catch (e) {
    return { error: `${path}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})` }
  }
}

async function listDir(dir: string): Promise<string[]> {
  try {
    return await readdir(dir)
  } catch {
    return []
  }
}

/** Matches `BFCL_v4_<category>.json` (any version); the category is group 2. */
const DATA_FILE = /^(BFCL_v\d+)_(.+)\.json$/
const RESULT_FILE = /^(BFCL_v\d+)_(.+)_result\.json$/

/**
 * The file for `category` in `dir` (or one level below it, where the leaderboard groups files in `live/`,
 * `non_live/`): the highest version wins when several are present.
 */
async function findFile(dir: string, category: string, pattern: RegExp): Promise<string | undefined> {
  const candidates: { path: string; version: string }[] = []
  const scan = async (d: string, depth: number): Promise<void> => {
    for (const name of await listDir(d)) {
      const m = pattern.exec(name)
      if (m && m[2] === category && !(pattern === DATA_FILE && name.endsWith('_result.json'))) {
        candidates.push({ path: join(d, name), version: m[1]! })
      } else if (depth === 0 && !name.includes('.')) await scan(join(d, name), 1)
    }
  }
  await scan(dir, 0)
  candidates.sort((a, b) => b.version.localeCompare(a.version, 'en', { numeric: true }))
  return candidates[0]?.path
}

/** Categories with a results file in `dir` (or one level below). */
export async function resultCategories(dir: string): Promise<string[]> {
  const found = new Set<string>()
  const scan = async (d: string, depth: number): Promise<void> => {
    for (const name of await listDir(d)) {
      const m = RESULT_FILE.exec(name)
      if (m) found.add(m[2]!)
      else if (depth === 0 && !name.includes('.')) await scan(join(d, name), 1)
    }
  }
  await scan(dir, 0)
  return [...found]
}

export interface BfclCategoryData {
  entries: Map<string, BfclTestEntry>
  /** Possible answers by id; undefined when the category has no answers file. */
  answers?: Map<string, PyValue[]>
  /** `file:line: what` messages. */
  errors: string[]
  dataFile?: string
  answerFile?: string
}

function field(file: string, line: number, name: string, what: string): string {
  return `${file}:${line}: field ${JSON.stringify(name)}: ${what}`
}

/** A `function` list as the checker needs it, or a message saying what is wrong. */
export function functionsFromJson(v: unknown): BfclFunction[] | string {
  if (!Array.isArray(v)) return 'expected a list of function descriptions'
  for (let i = 0; i < v.length; i++) {
    const f = v[i]
    if (!isPlainObject(f) || typeof f['name'] !== 'string') return `item ${i}: expected an object with a string "name"`
    const p = f['parameters']
    if (p !== undefined && (!isPlainObject(p) || (p['properties'] !== undefined && !isPlainObject(p['properties'])))) {
      return `item ${i}: "parameters" must be an object with an object "properties"`
    }
  }
  return v as unknown as BfclFunction[]
}

/** Read a category's test entries and possible answers from a BFCL data directory. */
export async function loadCategoryData(dataDir: string, category: string): Promise<BfclCategoryData> {
  const dataFile = await findFile(dataDir, category, DATA_FILE)
  if (dataFile === undefined) {
    return { entries: new Map(), errors: [`${dataDir}: no data file for category ${category} (expected BFCL_v4_${category}.json)`] }
  }
  const data = await readText(dataFile)
  if ('error' in data) return { entries: new Map(), errors: [data.error], dataFile }
  const answerFile = await findFile(join(dataDir, 'possible_answer'), category, DATA_FILE)
  const answers = answerFile === undefined ? undefined : await readText(answerFile)
  if (answers !== undefined && 'error' in answers) {
    const out = categoryDataFromText(data.text, dataFile)
    out.errors.push(answers.error)
    return out
  }
  return categoryDataFromText(data.text, dataFile, answers?.text, answerFile)
}

/** A category's entries and answers from the files' texts (`answersText` absent: a category without answers). */
export function categoryDataFromText(
  dataText: string,
  dataFile: string,
  answersText?: string,
  answerFile = 'possible_answer',
): BfclCategoryData {
  const out: BfclCategoryData = { entries: new Map(), errors: [], dataFile }
  const parsed = parseJsonLines(dataText, dataFile)
  out.errors.push(...parsed.errors.map((e) => e.message))
  for (const l of parsed.lines) {
    if (!isPlainObject(l.json)) {
      out.errors.push(`${dataFile}:${l.line}: expected a JSON object`)
      continue
    }
    const id = l.json['id']
    if (typeof id !== 'string') {
      out.errors.push(field(dataFile, l.line, 'id', 'expected a string'))
      continue
    }
    const functions = functionsFromJson(l.json['function'])
    if (typeof functions === 'string') {
      out.errors.push(field(dataFile, l.line, 'function', functions))
      continue
    }
    out.entries.set(id, { id, functions, prompt: l.py, json: l.json, line: l.line })
  }
  if (answersText === undefined) return out

  out.answerFile = answerFile
  out.answers = new Map()
  const parsedAnswers = parseJsonLines(answersText, answerFile)
  out.errors.push(...parsedAnswers.errors.map((e) => e.message))
  for (const l of parsedAnswers.lines) {
    if (!isPlainObject(l.json) || !(l.py instanceof Map)) {
      out.errors.push(`${answerFile}:${l.line}: expected a JSON object`)
      continue
    }
    const id = l.json['id']
    const gt = l.py.get('ground_truth')
    if (typeof id !== 'string') out.errors.push(field(answerFile, l.line, 'id', 'expected a string'))
    else if (!Array.isArray(gt)) out.errors.push(field(answerFile, l.line, 'ground_truth', 'expected a list'))
    else out.answers.set(id, gt)
  }
  return out
}

export interface BfclResultsFile {
  file?: string
  results: BfclResultLine[]
  /** Problems that are not tied to one entry (missing file). */
  errors: string[]
}

/** The category's results file in `resultsDir` (or one folder below), the highest version where several are. */
export function findResultsFile(resultsDir: string, category: string): Promise<string | undefined> {
  return findFile(resultsDir, category, RESULT_FILE)
}

/** Read a category's recorded results; every unusable line becomes an error line (it still counts in the total). */
export async function loadCategoryResults(resultsDir: string, category: string): Promise<BfclResultsFile> {
  const file = await findFile(resultsDir, category, RESULT_FILE)
  if (file === undefined) {
    return { results: [], errors: [`${resultsDir}: no results file for category ${category} (expected BFCL_v4_${category}_result.json)`] }
  }
  const read = await readText(file)
  if ('error' in read) return { file, results: [], errors: [read.error] }
  return { file, results: resultLinesFromText(read.text, file), errors: [] }
}

/** The result lines of a results file's text. */
export function resultLinesFromText(text: string, file: string): BfclResultLine[] {
  const parsed = parseJsonLines(text, file)
  const out: BfclResultLine[] = parsed.errors.map((e) => ({ error: e.message, line: e.line }))
  for (const l of parsed.lines) {
    if (!isPlainObject(l.json) || !(l.py instanceof Map)) {
      out.push({ error: `${file}:${l.line}: expected a JSON object`, line: l.line })
      continue
    }
    const id = l.json['id']
    if (typeof id !== 'string') {
      out.push({ error: field(file, l.line, 'id', 'expected a string'), line: l.line })
      continue
    }
    if (!l.py.has('result')) {
      out.push({ id, error: field(file, l.line, 'result', 'missing'), line: l.line })
      continue
    }
    out.push({ id, result: l.py.get('result')!, line: l.line })
  }
  return out
}
