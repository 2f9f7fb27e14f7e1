/**
 * The entry-building helpers every loader shares (local files, arrays, the Hub): data objects into samples or errors,
 * ids checked unique, `maxSamples` applied. Their own module, so `load.ts` (which dispatches to the Hub) and `hf.ts`
 * (which builds entries the same way) both import it and data flows one way.
 */
import { decodeJsonLine, forEachJsonlLine } from '../calls/jsonl.js'
import { samplesFromObject } from './sample.js'
import type { DataEntry, Sample, SampleError } from './types.js'

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

/** The first `max` entries (samples and errored ones alike: each is one test case). */
export function capSamples(entries: DataEntry[], max: number | undefined): DataEntry[] {
  return max === undefined || entries.length <= max ? entries : entries.slice(0, max)
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
