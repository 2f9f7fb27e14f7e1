/**
 * The tool-call snapshot format: each sample's calls normalised so that only a change in what the model called
 * shows as a change, one JSON line per sample, lines in id order, one file per suite.
 *
 * Normalised: only `name` and `arguments` are kept (call ids, raw text and formats dropped); object keys sorted at
 * every depth; numbers rounded to 12 significant digits (float noise such as 0.1 + 0.2) with -0 as 0; parallel
 * calls compared as an unordered set (sorted by name, then by their JSON); arguments that were not a well-formed object are
 * marked `"malformed": true`; values at the paths marked volatile (`ignore: ['arguments.request_id']`, `*` matching
 * any one key or index) replaced by `"<volatile>"`.
 *
 *   {"id":"w1","calls":[{"arguments":{"city":"Paris"},"name":"get_weather"}]}
 *   {"id":"w2","calls":[],"frequency":"3/5"}            with trials: the most frequent calls and how often
 *
 * Pure functions: no Vitest here (the reporter and the matcher share them).
 */
import type { ToolCall } from '../calls/types.js'

/** A call as a snapshot keeps it. */
export interface SnapshotCall {
  name: string
  arguments: unknown
  malformed?: true
}

/** What a value at a volatile path becomes. */
export const VOLATILE = '<volatile>'

/** A number without float noise: 12 significant digits, -0 as 0. */
function normaliseNumber(x: number): number {
  if (!Number.isFinite(x)) return x
  const y = Number(x.toPrecision(12))
  return Object.is(y, -0) ? 0 : y
}

/** A JSON value with keys sorted at every depth and numbers normalised (iterative: deep arguments cannot overflow). */
export function normaliseValue(value: unknown): unknown {
  const root: { v: unknown } = { v: undefined }
  const stack: { src: unknown; set: (v: unknown) => void }[] = [{ src: value, set: (v) => (root.v = v) }]
  while (stack.length > 0) {
    const { src, set } = stack.pop() as (typeof stack)[number]
    if (typeof src === 'number') set(normaliseNumber(src))
    else if (Array.isArray(src)) {
      const arr: unknown[] = new Array(src.length)
      set(arr)
      src.forEach((x, i) => stack.push({ src: x, set: (v) => (arr[i] = v) }))
    } else if (typeof src === 'object' && src !== null) {
      const obj: Record<string, unknown> = {}
      set(obj)
      const keys = Object.keys(src).sort()
      // Own data properties only, in sorted order (defineProperty keeps a `__proto__` key a plain key).
      for (const k of keys) Object.defineProperty(obj, k, { value: undefined, enumerable: true, writable: true, configurable: true })
      for (const k of keys) stack.push({ src: (src as Record<string, unknown>)[k], set: (v) => (obj[k] = v) })
    } else set(src)
  }
  return root.v
}

/** Replace the value at `path` (dot-separated, `*` any one key or index) in place, where it exists. */
function mask(target: unknown, path: readonly string[]): void {
  if (path.length === 0 || typeof target !== 'object' || target === null) return
  const [head, ...rest] = path as [string, ...string[]]
  const obj = target as Record<string, unknown>
  const keys = head === '*' ? Object.keys(obj) : Object.prototype.hasOwnProperty.call(obj, head) ? [head] : []
  for (const k of keys) {
    if (rest.length === 0) obj[k] = VOLATILE
    else mask(obj[k], rest)
  }
}

/** Calls as a snapshot keeps them (see the module comment): sorted, so parallel calls in any order compare equal. */
export function normaliseCalls(calls: readonly Pick<ToolCall, 'name' | 'arguments' | 'argumentsValid'>[], ignore: readonly string[] = []): SnapshotCall[] {
  const paths = ignore.map((p) => p.split('.'))
  const out = calls.map((c) => {
    const call = { name: c.name, arguments: normaliseValue(c.arguments ?? {}) } as SnapshotCall
    for (const p of paths) mask(call, p)
    if (c.argumentsValid === false) call.malformed = true
    return normaliseValue(call) as SnapshotCall
  })
  // By name, then by the whole call: the set's order says nothing, a stable one keeps diffs small.
  const keyed = out.map((c) => [`${c.name}\u0000${JSON.stringify(c)}`, c] as const)
  keyed.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
  return keyed.map(([, c]) => c)
}

/** The calls' key: equal normalised calls, equal key. */
export function callsKey(calls: readonly SnapshotCall[]): string {
  return JSON.stringify(calls)
}

/** One snapshot line (no newline). */
export function snapshotLine(id: string, calls: readonly SnapshotCall[], frequency?: string): string {
  const entry: Record<string, unknown> = { id, calls }
  if (frequency !== undefined) entry['frequency'] = frequency
  return JSON.stringify(entry)
}

/** A snapshot file's entries: by id, the line as written and the key of its calls. */
export interface SnapshotEntry {
  line: string
  calls: string
}

/** Parse a snapshot file; a line that is not one is an error naming the file and line (a hand edit gone wrong). */
export function parseSnapshotFile(text: string, file: string): Map<string, SnapshotEntry> {
  return readSnapshotText(text, file).entries
}

/**
 * A snapshot file's entries. A line that is not a snapshot line (a hand edit gone wrong, a truncated write) throws an
 * error naming the file and line, or with `lenient` (`-u`, which rewrites the file) is dropped and listed in `errors`.
 */
export function readSnapshotText(text: string, file: string, options: { lenient?: boolean } = {}): { entries: Map<string, SnapshotEntry>; errors: string[] } {
  const entries = new Map<string, SnapshotEntry>()
  const errors: string[] = []
  const bad = (n: number, why: string): void => {
    const message = `${file}:${n}: not a snapshot line (${why}); fix it, or rerun with -u to rewrite the file`
    if (!options.lenient) throw new Error(message)
    errors.push(message)
  }
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim()
    if (line === '') return
    let obj: unknown
    try {
      obj = JSON.parse(line)
    } catch {
      return bad(i + 1, 'not valid JSON')
    }
    const entry = obj as { id?: unknown; calls?: unknown }
    if (typeof entry !== 'object' || entry === null || typeof entry.id !== 'string' || !Array.isArray(entry.calls)) {
      return bad(i + 1, 'needs `id` and `calls`')
    }
    entries.set(entry.id, { line, calls: callsKey(entry.calls as SnapshotCall[]) })
  })
  return { entries, errors }
}

const ID_ORDER = new Intl.Collator('en', { numeric: true })

/** The file's text: one line per id, ids in natural order (`w2` before `w10`). */
export function composeSnapshotFile(lines: ReadonlyMap<string, string>): string {
  const ids = [...lines.keys()].sort((a, b) => ID_ORDER.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0))
  return ids.length === 0 ? '' : `${ids.map((id) => lines.get(id)).join('\n')}\n`
}

/** A short diff of a changed sample's calls: the stored line and the new one. */
export function lineDiff(before: string, after: string): string {
  return `- ${before}\n+ ${after}`
}

/** What a sample's test records about its snapshot (task meta). */
export interface SampleSnapshotMeta {
  status: 'unchanged' | 'changed' | 'added'
  /** The snapshot file, relative to the project root. */
  file: string
  /** For a changed sample: the stored line and the new one. */
  before?: string
  after?: string
}

/** What the last sample of a suite records about the suite's snapshot file (task meta). */
export interface SuiteSnapshotMeta {
  file: string
  /** Ids in the file that are no longer in the suite's data. */
  obsolete: string[]
  /** Whether this run wrote the file (`-u`, or `--update=new` with new samples). */
  written: boolean
}
