/**
 * Dataset loaders. Every loader returns entries in data order, each a sample or an error naming where it is and the
 * field at fault: one bad line never hides the others, and the caller decides how loudly to fail (`describeEval`
 * turns each error into its own failing test case).
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { decodeJsonLine, forEachJsonlLine } from '../calls/jsonl.js'
import { samplesFromObject } from './sample.js'
import { isHfSource, loadHfDataset, type HubConfig } from './hf.js'
import type { DataEntry, DataOptions, DataSource, Sample, SampleError } from './types.js'

/** A readable name for a data source: the path as given, or `data` for in-memory arrays. */
export function sourceName(source: DataSource): string {
  if (typeof source === 'string') return source
  if (source instanceof URL) return source.protocol === 'file:' ? fileURLToPath(source) : source.href
  return 'data'
}

/** Entries of a JSONL text; `file` names it in errors. Blank lines are not samples. */
export function parseJsonlSamples(text: string, file: string, options: DataOptions = {}): DataEntry[] {
  const entries: DataEntry[] = []
  const wheres: string[] = []
  pushJsonlEntries(entries, wheres, text, file, options.limit ?? Infinity)
  return capSamples(checkUniqueIds(entries, wheres), options.maxSamples)
}

/**
 * Appends the entries of a JSONL text's first `maxLines` data lines (blank lines do not count) and returns how many
 * data lines it read: loaders reading several files share one `limit` this way.
 */
export function pushJsonlEntries(entries: DataEntry[], wheres: string[], text: string, file: string, maxLines: number): number {
  let read = 0
  forEachJsonlLine(text, (content, line) => {
    if (read >= maxLines) return false
    read++
    const source = { file, line }
    const where = `${file}:${line}`
    const decoded = decodeJsonLine(content)
    if (!decoded.ok) {
      entries.push({ error: { where, source, field: '', message: `not valid JSON (${decoded.error} at column ${decoded.at + 1})` } })
      wheres.push(where)
      return true
    }
    pushObjectEntries(entries, wheres, decoded.value, where, source)
    return true
  })
  return read
}

/** Entries of a JSONL file. A file that cannot be read is one error entry (the run goes on). */
export function loadJsonl(path: string | URL, options: DataOptions = {}): DataEntry[] {
  const file = sourceName(path)
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    return [{ error: { where: file, field: '', message: `cannot read the data file: ${(err as Error).message}` } }]
  }
  return parseJsonlSamples(text, file, options)
}

/** Entries of an in-memory array of sample objects (the JSONL line shapes, dialogues included). */
export function loadArray(items: readonly unknown[], options: DataOptions = {}): DataEntry[] {
  const entries: DataEntry[] = []
  const wheres: string[] = []
  const n = Math.min(items.length, options.limit ?? Infinity)
  for (let i = 0; i < n; i++) pushObjectEntries(entries, wheres, items[i], `data[${i}]`, undefined)
  return capSamples(checkUniqueIds(entries, wheres), options.maxSamples)
}

/** Entries of a local data source (a JSONL file or an array); `hf://` sources load with `loadDataAsync`. */
export function loadData(source: DataSource, options: DataOptions = {}): DataEntry[] {
  checkDataOptions(options)
  return typeof source === 'string' || source instanceof URL ? loadJsonl(source, options) : loadArray(source, options)
}

/** `limit` and `maxSamples` must be whole numbers >= 0 when given: a typo must not silently read everything. */
export function checkDataOptions(options: DataOptions): void {
  for (const key of ['limit', 'maxSamples'] as const) {
    const v = options[key]
    if (v !== undefined && !(Number.isInteger(v) && v >= 0)) throw new Error(`describeEval: \`${key}\` must be a whole number >= 0 (got ${String(v)})`)
  }
}

/** The first `max` entries (samples and errored ones alike: each is one test case). */
export function capSamples(entries: DataEntry[], max: number | undefined): DataEntry[] {
  return max === undefined || entries.length <= max ? entries : entries.slice(0, max)
}

/**
 * The samples of a data source, throwing on the first invalid entry (for scripts; eval suites use `loadData` and
 * keep going).
 */
export function loadSamples(source: DataSource): Sample[] {
  const samples: Sample[] = []
  for (const e of loadData(source)) {
    if (e.error) throw new Error(formatSampleError(e.error))
    samples.push(e.sample)
  }
  return samples
}

/** `fixtures/x.jsonl:3: field expected[0].name: must be a non-empty string` */
export function formatSampleError(e: SampleError): string {
  return e.field ? `${e.where}: field \`${e.field}\`: ${e.message}` : `${e.where}: ${e.message}`
}

/** Appends the entries of one data object, and for each the place it came from (`wheres`, parallel). */
export function pushObjectEntries(
  entries: DataEntry[],
  wheres: string[],
  value: unknown,
  where: string,
  source: Sample['source'],
): void {
  const r = samplesFromObject(value, source)
  if (r.samples) {
    for (const sample of r.samples) {
      entries.push({ sample })
      wheres.push(where)
    }
    return
  }
  const error: SampleError = { where, field: r.invalid.field, message: r.invalid.message }
  if (source) error.source = source
  if (r.id !== undefined) error.id = r.id
  if (r.expected !== undefined) error.expected = r.expected
  entries.push({ error })
  wheres.push(where)
}

/** A repeated id would make two test cases and two records indistinguishable: the later one is an error. */
export function checkUniqueIds(entries: DataEntry[], wheres: readonly string[]): DataEntry[] {
  const seen = new Map<string, string>()
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i] as DataEntry
    if (!e.sample) continue
    const where = wheres[i] as string
    const first = seen.get(e.sample.id)
    if (first === undefined) {
      seen.set(e.sample.id, where)
      continue
    }
    const error: SampleError = {
      where,
      id: e.sample.id,
      field: 'id',
      message: `duplicate id "${e.sample.id}" (first at ${first})`,
      expected: e.sample.expected,
    }
    if (e.sample.source) error.source = e.sample.source
    entries[i] = { error }
  }
  return entries
}

/**
 * Entries of any data source, Hub datasets (`hf://datasets/<owner>/<name>`) included. The Hub options (`split`,
 * `revision`, `config`) on a local source are an error: they would be silently ignored otherwise.
 */
export async function loadDataAsync(source: DataSource, options: DataOptions = {}, hub?: HubConfig): Promise<DataEntry[]> {
  checkDataOptions(options)
  if (isHfSource(source)) return loadHfDataset(String(source), options, hub)
  const hfOnly = (['split', 'revision', 'config'] as const).filter((k) => options[k] !== undefined)
  if (hfOnly.length > 0) {
    const message = `\`${hfOnly.join('`, `')}\` apply to Hub datasets (\`data: 'hf://datasets/<owner>/<name>'\`) only`
    return [{ error: { where: sourceName(source), field: hfOnly[0] as string, message } }]
  }
  return loadData(source, options)
}
