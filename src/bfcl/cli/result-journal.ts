/**
 * A category's result file as `tool-evals bfcl run` keeps it while it generates: every answered entry appended as
 * one line and handed to the operating system at once (a synchronous write: it survives SIGINT and SIGKILL of the
 * process, not a power cut), as BFCL's generator appends each entry; at the end the file is rewritten sorted as BFCL
 * sorts it (`sort_file_content_by_id`), through a temporary file and a rename, so a kill leaves the old or the new
 * file, never a cut one. Opening an existing file keeps its entries for reuse: a cut last line (a kill during a
 * write) or any other unreadable line is dropped, to be asked again; of two lines with one id the later wins.
 *
 * Beside it, `BFCL_v4_<category>_result.run.json` records what the entries were generated with (model, mode,
 * temperature, the data's digest): a rerun reuses them only when that matches, so an answer of another model, mode
 * or prompt is never reused silently.
 */
import { closeSync, existsSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { createHash } from 'node:crypto'
import { compareIds } from '../checker/categories.js'
import { isPlainObject } from '../../calls/call-object.js'
import { parseJson } from '../../calls/json.js'
import { isAtomicTempOf, writeFileAtomic } from '../../data/write-atomic.js'

/** What a result file's entries depend on besides the entry itself; a rerun reuses them only when all are equal. */
export interface RunIdentity {
  model: string
  mode: string
  temperature: number
  /** sha256 of the data files the category's requests are made from. */
  data: string
}

const IDENTITY_KEYS = ['model', 'mode', 'temperature', 'data'] as const

/** The file beside a result file that records its `RunIdentity`. */
export function identityFile(resultFile: string): string {
  return resultFile.replace(/\.json$/, '.run.json')
}

/** sha256 over the named files' bytes (each path and length in the hash too); a missing file counts as empty. */
export function filesDigest(files: readonly string[]): string {
  const h = createHash('sha256')
  for (const f of files) {
    const bytes = existsSync(f) ? readFileSync(f) : Buffer.alloc(0)
    h.update(`${bytes.length}\n`)
    h.update(bytes)
  }
  return h.digest('hex')
}

/** An existing result file's usable lines by id (text as written), and what was dropped from it. */
export interface ExistingResults {
  lines: Map<string, string>
  /** Ids whose result is BFCL's `Error during inference: ...` (asked again by a rerun). */
  failed: Set<string>
  /** `file:line: why` of each dropped line. */
  dropped: string[]
}

/** Whether a result is BFCL's record of a failed generation. */
export function isInferenceError(result: unknown): boolean {
  return typeof result === 'string' && result.startsWith('Error during inference')
}

/** Read a result file's lines; a line that is cut, not JSON, or without a string `id` is dropped with the reason. */
export function readExistingResults(file: string): ExistingResults {
  const out: ExistingResults = { lines: new Map(), failed: new Set(), dropped: [] }
  if (!existsSync(file)) return out
  const text = readFileSync(file, 'utf8')
  const parts = text.split('\n')
  // The text after the last newline: empty for a whole file, else a line whose write was cut short.
  const tail = parts.pop()!
  parts.forEach((line, i) => {
    if (line.trim() === '') return
    const r = parseJson(line)
    const value = r.ok && isPlainObject(r.value) ? r.value : undefined
    const id = value?.['id']
    if (typeof id !== 'string') out.dropped.push(`${file}:${i + 1}: ${r.ok ? 'no string "id"' : 'not JSON'}; dropped, to be asked again`)
    else {
      out.lines.set(id, line)
      if (isInferenceError(value!['result'])) out.failed.add(id)
      else out.failed.delete(id)
    }
  })
  if (tail.trim() !== '') out.dropped.push(`${file}:${parts.length + 1}: cut short (no line end: the write was interrupted); dropped, to be asked again`)
  return out
}

/** Why the recorded identity forbids reuse, or undefined when it allows it. */
export function identityMismatch(recorded: unknown, current: RunIdentity): string | undefined {
  if (!isPlainObject(recorded)) return 'its options file is unreadable'
  const diffs = IDENTITY_KEYS.filter((k) => recorded[k] !== current[k]).map((k) =>
    k === 'data' ? 'the data files differ' : `${k} ${JSON.stringify(recorded[k])} there, ${JSON.stringify(current[k])} now`,
  )
  return diffs.length === 0 ? undefined : diffs.join('; ')
}

/**
 * Whether `file`'s entries may be reused by a run with `identity`: undefined when they may (or there are none), else
 * the reason they may not (written with other options, or with no record of them).
 */
export function reuseRefusal(file: string, identity: RunIdentity): string | undefined {
  if (!existsSync(file)) return undefined
  const idFile = identityFile(file)
  if (!existsSync(idFile)) return `${file} holds results written without a record of their model, mode and data (by another tool or an earlier version): remove it, or use another --output-dir`
  let recorded: unknown
  try {
    recorded = JSON.parse(readFileSync(idFile, 'utf8'))
  } catch {
    recorded = undefined
  }
  const why = identityMismatch(recorded, identity)
  return why === undefined ? undefined : `${file} holds results written with other options (${why}): they are not reused; remove it, or use another --output-dir`
}

/** Sort result lines as BFCL sorts a result file: by id (`sort_key`). */
function sortedText(lines: Map<string, string>): string {
  const ids = [...lines.keys()].sort(compareIds)
  return ids.map((id) => lines.get(id)! + '\n').join('')
}


/** An open result file: the entries kept from before, and each new one appended as soon as it is answered. */
export class ResultJournal {
  readonly file: string
  /** Every entry's line by id: those kept from before, then each appended one (a later line for an id wins). */
  readonly lines: Map<string, string>
  /** Ids whose latest line records a failed generation. */
  readonly failed: Set<string>
  readonly dropped: string[]
  private fd: number | undefined

  /** Open (or start) `file` for `identity`; `reuseRefusal` must have allowed it. */
  constructor(file: string, identity: RunIdentity) {
    this.file = file
    // A temporary file of a rewrite that a kill cut short: the result file beside it is whole (old or new).
    for (const name of readdirSync(dirname(file))) if (isAtomicTempOf(name, basename(file))) rmSync(join(dirname(file), name), { force: true })
    const existing = readExistingResults(file)
    this.lines = existing.lines
    this.failed = existing.failed
    this.dropped = existing.dropped
    // A dropped line would glue itself to the next append: write the kept lines back first.
    if (existing.dropped.length > 0) writeFileAtomic(file, sortedText(this.lines))
    writeFileSync(identityFile(file), JSON.stringify(identity) + '\n', 'utf8')
  }

  /** Append one answered entry's line (its text as BFCL writes it, no line end) and hand it to the OS at once. */
  append(id: string, line: string, failed = false): void {
    this.fd ??= openSync(this.file, 'a')
    writeSync(this.fd, line + '\n')
    this.lines.set(id, line)
    if (failed) this.failed.add(id)
    else this.failed.delete(id)
  }

  /** Close the file and rewrite it sorted by id (all entries, kept and new: a run never shrinks its file). */
  finish(): void {
    if (this.fd !== undefined) closeSync(this.fd)
    this.fd = undefined
    writeFileAtomic(this.file, sortedText(this.lines))
  }

  /** Close without sorting (an interrupted run: what was appended stays). */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd)
    this.fd = undefined
  }
}
