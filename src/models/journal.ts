/**
 * The run journal: how the rerun of an interrupted eval run resumes from the generations it already received,
 * without ever replaying the outputs of a run that finished.
 *
 * Why a journal and not a default cache: a cache answers any later run with the same model name, so a model changed
 * behind that name (a new checkpoint on the same endpoint) would be scored on its predecessor's outputs. The
 * journal only lives as long as the run is unfinished: the reporter retires it when a run ends (passed or failed),
 * and only the next run after an interruption (Ctrl-C, SIGKILL, a crash, a cancelled watch run) picks it up.
 *
 * Layout, under `<Vitest root>/.tool-evals/journal/<run | shard-i-of-n>/` (one folder per shard, so shards sharing a
 * folder never retire each other's journal):
 * - `current/`: what the run in progress receives. Each worker (process or thread) appends to a file of its own,
 *   one line per generation, written synchronously as the generation arrives (so it survives SIGKILL of the process;
 *   not a power cut: there is no fsync). A line is `{"k": <key>, "o": <output>, "nf"?: <non-finite numbers>}`, where
 *   the key is the generation cache's (`generationKey`: sha256 over provider id, settings, messages, tools, trial):
 *   no request, header or API key is ever written, only the hash and the output.
 * - `resume/`: the files of unfinished runs, moved there by the next run's start (`openRunJournal`); workers read
 *   them once per run. A line cut by a kill (no newline at its end) or unreadable is dropped: its sample is asked
 *   again. A filtered run that finishes leaves them there (see `retireRunJournal`).
 * - `run`: the id of the run in progress, so a worker reused across watch reruns reloads `resume/`.
 */
import { randomBytes } from 'node:crypto'
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { threadId } from 'node:worker_threads'
import type { Sample } from '../data/types.js'
import { generationKey, nonFiniteNumbers, restoreNonFinite } from './cache.js'
import type { ModelOutput, ModelProvider } from './types.js'

/** Set by the reporter for the workers: the journal folder of this run. Absent: no journal (no reporter). */
export const JOURNAL_ENV = 'TOOL_EVALS_JOURNAL'
/** `0`, `false`, `off` or `no` turns resuming off for a whole run (nothing journaled, nothing resumed). */
export const RESUME_ENV = 'TOOL_EVALS_RESUME'

/** Where the journals live under the Vitest root (a `.gitignore` there keeps them out of git). */
export const JOURNAL_ROOT = join('.tool-evals', 'journal')

export function resumeDisabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env[RESUME_ENV]?.trim().toLowerCase()
  return v === '0' || v === 'false' || v === 'off' || v === 'no'
}

/** The journal folder of a run: one per shard. */
export function journalFolder(root: string, shard?: { index: number; count: number }): string {
  return join(root, JOURNAL_ROOT, shard ? `shard-${shard.index}-of-${shard.count}` : 'run')
}

// ---------------------------------------------------------------------------------------------------------------
// The main process: a run opens its journal at its start and retires it when it ends.

/**
 * Start a run's journal: the files an unfinished run left in `current/` join `resume/`, and the run gets a fresh
 * id. Returns how many generations are there to resume, and how many lines were cut short or unreadable (their
 * samples are asked again).
 */
export function openRunJournal(folder: string): { resumable: number; dropped: number } {
  // Nothing journaled yet (a first run, or the last one finished): nothing to create until a worker writes.
  if (!existsSync(folder)) return { resumable: 0, dropped: 0 }
  const current = join(folder, 'current')
  const resume = join(folder, 'resume')
  mkdirSync(resume, { recursive: true })
  if (existsSync(current)) for (const name of readdirSync(current)) renameSync(join(current, name), join(resume, name))
  const tmp = join(folder, `run.${process.pid}.tmp`)
  writeFileSync(tmp, randomBytes(8).toString('hex'))
  renameSync(tmp, join(folder, 'run'))
  const keys = new Set<string>()
  let dropped = 0
  const cut = forEachLine(resume, (line) => {
    const entry = readLine(line)
    if (entry) keys.add(entry.key)
    else if (line.trim() !== '') dropped++
  })
  return { resumable: keys.size, dropped: dropped + cut }
}

/**
 * Every whole line of the `.jsonl` files in `dir`, in file name order; returns how many lines were cut short (the
 * text after a file's last newline).
 */
function forEachLine(dir: string, each: (line: string) => void): number {
  let cut = 0
  let names: string[] = []
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.jsonl')).sort()
  } catch {
    return 0 // nothing to resume
  }
  for (const name of names) {
    let text: string
    try {
      text = readFileSync(join(dir, name), 'utf8')
    } catch {
      continue
    }
    const lines = text.split('\n')
    if ((lines.pop() as string) !== '') cut++
    for (const line of lines) each(line)
  }
  return cut
}

/**
 * A run that ended (passed or failed, not interrupted) leaves nothing to resume: its journal goes. A filtered run
 * (`-t`, a file path) retires only its own generations: what an unfinished whole run left stays for the run that
 * runs everything.
 */
export function retireRunJournal(folder: string, options: { keepResume?: boolean } = {}): void {
  if (!options.keepResume) {
    rmSync(folder, { recursive: true, force: true })
    return
  }
  rmSync(join(folder, 'current'), { recursive: true, force: true })
  rmSync(join(folder, 'run'), { force: true })
}

// ---------------------------------------------------------------------------------------------------------------
// The workers: journal each generation, answer from an unfinished run's journal.

interface Loaded {
  runId: string
  outputs: Map<string, ModelOutput>
  /** Lines dropped (cut by a kill, unreadable). */
  dropped: number
}

/** What a worker has read of a folder's `resume/`, for the run it was read in. */
const loaded = new Map<string, Loaded>()
/** This worker's own `current/` file per folder. */
const ownFiles = new Map<string, string>()
let warned = false

function runIdOf(folder: string): string {
  try {
    return readFileSync(join(folder, 'run'), 'utf8')
  } catch {
    return ''
  }
}

/** The generations an unfinished run left, by key (read once per run and worker). */
export function resumeEntries(folder: string, runId = runIdOf(folder)): Loaded {
  const had = loaded.get(folder)
  if (had && had.runId === runId) return had
  const found: Loaded = { runId, outputs: new Map(), dropped: 0 }
  const cut = forEachLine(join(folder, 'resume'), (line) => {
    const entry = readLine(line)
    if (entry) found.outputs.set(entry.key, entry.output)
    else if (line.trim() !== '') found.dropped++
  })
  found.dropped += cut
  loaded.set(folder, found)
  return found
}

function readLine(line: string): { key: string; output: ModelOutput } | undefined {
  let v: unknown
  try {
    v = JSON.parse(line)
  } catch {
    return undefined
  }
  if (typeof v !== 'object' || v === null) return undefined
  const { k, o, nf } = v as { k?: unknown; o?: unknown; nf?: unknown }
  if (typeof k !== 'string' || !/^[0-9a-f]{64}$/.test(k)) return undefined
  if (typeof o !== 'object' || o === null || Array.isArray(o)) return undefined
  if (!restoreNonFinite(o, nf)) return undefined
  return { key: k, output: o as ModelOutput }
}

/** The line of one generation (markers of where an output came from are not part of it). */
export function journalLine(key: string, output: ModelOutput): string {
  const { cached: _c, cacheRegenerated: _r, resumed: _s, ...stored } = output
  const line: Record<string, unknown> = { k: key, o: stored }
  const nonFinite = nonFiniteNumbers(stored)
  if (nonFinite.length > 0) line['nf'] = nonFinite
  return `${JSON.stringify(line)}\n`
}

/**
 * Append one generation's line to this worker's file, synchronously (durable once the call returns, whatever kills
 * the process next). A journal that cannot be written costs the resume, never the sample: one warning, no error.
 */
function append(folder: string, key: string, output: ModelOutput): void {
  let file = ownFiles.get(folder)
  if (!file) {
    file = join(folder, 'current', `${process.pid}-${threadId}-${randomBytes(4).toString('hex')}.jsonl`)
    ownFiles.set(folder, file)
  }
  try {
    const line = journalLine(key, output)
    try {
      appendFileSync(file, line)
    } catch (err) {
      if ((err as { code?: unknown }).code !== 'ENOENT') throw err
      // This run's first line (or the folder went: a finished run retired it, in watch mode).
      createFolder(folder)
      appendFileSync(file, line)
    }
  } catch (err) {
    if (warned) return
    warned = true
    const code = (err as { code?: unknown }).code
    process.stderr.write(`tool-evals: the run journal in ${folder} could not be written (${typeof code === 'string' ? code : String(err)}): an interrupted run will not resume from this worker's generations\n`)
  }
}

/** The journal's `current/`, and a `.gitignore` that keeps `.tool-evals/` out of git. */
function createFolder(folder: string): void {
  mkdirSync(join(folder, 'current'), { recursive: true })
  const top = join(folder, '..', '..')
  if (!existsSync(join(top, '.gitignore'))) writeFileSync(join(top, '.gitignore'), '# run journals of vitest-tool-evals\n*\n')
}

/**
 * `provider` with the run journal of `folder`: a generation the unfinished run before this one received is answered
 * from its journal (marked `resumed`), every other is journaled as it arrives. Failed and skipped generations are
 * not journaled: they are asked again.
 */
export function journaled(provider: ModelProvider, folder: string): ModelProvider {
  // Read at collection (the run's id is written before any worker starts): a worker reused by a watch rerun reloads.
  const runId = runIdOf(folder)
  const wrapper: ModelProvider = {
    id: provider.id,
    async generate(sample: Sample, opts) {
      let key: string
      try {
        key = generationKey(provider, sample)
      } catch {
        return provider.generate(sample, opts) // a sample no key can be made of (cyclic): generated, not journaled
      }
      const found = resumeEntries(folder, runId).outputs.get(key)
      // A copy: scoring must not change what a second sample with the same key would get.
      if (found) return { ...structuredClone(found), resumed: 1 }
      const output = await provider.generate(sample, opts)
      if (output.skipped === undefined) append(folder, key, output)
      return output
    },
  }
  for (const k of ['settings', 'concurrency', 'inputFiles', 'resumable', 'generationTimeoutMs'] as const) {
    if (provider[k] !== undefined) Object.assign(wrapper, { [k]: provider[k] })
  }
  if (provider.close) Object.assign(wrapper, { close: () => provider.close?.() })
  return wrapper
}

/**
 * The journal folder describeEval uses for `model`, or undefined: `resume: false`, `TOOL_EVALS_RESUME=0`, no
 * reporter (nobody would retire the journal), or a provider whose generations are not worth keeping (a replay)
 * unless `resume: true`.
 */
export function journalFor(model: ModelProvider, resume: boolean | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (resume === false || resumeDisabled(env)) return undefined
  const folder = env[JOURNAL_ENV]
  if (!folder) return undefined
  return resume === true || model.resumable === true ? folder : undefined
}
