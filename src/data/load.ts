/**
 * Dataset loaders. Every loader returns entries in data order, each a sample or an error naming where it is and the
 * field at fault: one bad line never hides the others, and the caller decides how loudly to fail (`describeEval`
 * turns each error into its own failing test case).
 */
import { readFileSync } from 'node:fs'
import { isAbsolute } from 'node:path'
import { fileURLToPath } from 'node:url'
import { inputRoot, resolveInput } from './input-root.js'
import { capSamples, checkUniqueIds, pushJsonlEntries, pushObjectEntries } from './entries.js'
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

/** Entries of a JSONL file. A file that cannot be read is one error entry (the run goes on). */
export function loadJsonl(path: string | URL, options: DataOptions = {}): DataEntry[] {
  const file = sourceName(path)
  const at = typeof path === 'string' ? resolveInput(path) : path
  let text: string
  try {
    text = readFileSync(at, 'utf8')
  } catch (err) {
    return [{ error: { where: file, field: '', message: unreadableFile(path, at, err), unreadable: true } }]
  }
  return parseJsonlSamples(text, file, options)
}

/** Why a data file could not be read; a missing one names where it was looked for, and the folder a relative path starts at. */
function unreadableFile(path: string | URL, at: string | URL, err: unknown): string {
  if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return `cannot read the data file: ${(err as Error).message}`
  const looked = typeof at === 'string' ? at : fileURLToPath(at)
  const relative = typeof path === 'string' && !isAbsolute(path) ? `; a relative path is resolved from ${inputRoot()} (Vitest's root)` : ''
  return `data file not found: looked for ${looked}${relative}`
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

/**
 * Entries of any data source, Hub datasets (`hf://datasets/<owner>/<name>`) included. The Hub options (`split`,
 * `revision`, `config`, `hub`) on a local source are an error: they would be silently ignored otherwise.
 */
export async function loadDataAsync(source: DataSource, options: DataOptions = {}, hub?: HubConfig): Promise<DataEntry[]> {
  checkDataOptions(options)
  if (isHfSource(source)) return loadHfDataset(String(source), options, hub)
  const hfOnly = (['split', 'revision', 'config', 'hub'] as const).filter((k) => options[k] !== undefined)
  if (hfOnly.length > 0) {
    const message = `\`${hfOnly.join('`, `')}\` apply to Hub datasets (\`data: 'hf://datasets/<owner>/<name>'\`) only`
    return [{ error: { where: sourceName(source), field: hfOnly[0] as string, message } }]
  }
  return loadData(source, options)
}
