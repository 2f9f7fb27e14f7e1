/**
 * describeEval's `snapshot` option: each sample's normalised calls (snapshot-format.ts) kept in one file per suite
 * beside the eval file, `<eval file>.<suite>.calls.jsonl` (`weather.eval.ts` → `weather.eval.weather.calls.jsonl`),
 * so a change in what the model calls shows as an ordinary diff in a pull request.
 *
 * Vitest's snapshot machinery decides what may be written: the test file's snapshot state gives the update mode
 * (`-u` / `--update`: `all`; the local default `new`; `none` in CI or with `--update=none`), and the file is read and
 * written through its snapshot environment, counted in Vitest's own "Snapshots written / updated" summary.
 *
 * - `all` (`-u`): the file becomes this run's calls (samples that did not run keep their lines; ids no longer in the
 *   data are removed);
 * - `new`: lines are added for new samples, changed ones keep their stored line;
 * - `none` (CI): nothing is written; a sample with no line is reported as added.
 *
 * Each sample's test compares its calls with its stored line when it runs; the suite's last planned sample writes
 * the file once (tests in a suite run in order) and lists the obsolete ids.
 */
import { createHash } from 'node:crypto'
import { rename, unlink } from 'node:fs/promises'
import { basename, dirname, join, relative } from 'node:path'
import { expect } from 'vitest'
import {
  composeSnapshotFile,
  lineDiff,
  readSnapshotText,
  snapshotLine,
  type SampleSnapshotMeta,
  type SnapshotCall,
  type SnapshotEntry,
  type SuiteSnapshotMeta,
} from '../score/snapshot-format.js'

export type SnapshotMode = 'report' | 'fail'
/** describeEval's `snapshot`: a mode, or a mode with volatile paths masked (`ignore: ['arguments.request_id']`). */
export type SnapshotOption = SnapshotMode | { mode?: SnapshotMode; ignore?: readonly string[] }

export interface SnapshotPlan {
  mode: SnapshotMode
  ignore: readonly string[]
}

export function snapshotPlan(option: SnapshotOption | undefined, where: string): SnapshotPlan | undefined {
  if (option === undefined) return undefined
  if (option === 'report' || option === 'fail') return { mode: option, ignore: [] }
  if (typeof option !== 'object' || option === null || Array.isArray(option)) {
    throw new Error(`${where}: option \`snapshot\` must be 'report', 'fail' or { mode, ignore }`)
  }
  const mode = option.mode ?? 'report'
  if (mode !== 'report' && mode !== 'fail') throw new Error(`${where}: option \`snapshot.mode\` must be 'report' or 'fail'`)
  const ignore = option.ignore ?? []
  if (!Array.isArray(ignore) || !ignore.every((p) => typeof p === 'string' && p !== '')) {
    throw new Error(`${where}: option \`snapshot.ignore\` must be an array of paths such as 'arguments.request_id'`)
  }
  return { mode, ignore }
}

/** Longest slug kept in a file name: with the base, the hash and the suffix, far below the 255-byte limit. */
const MAX_SLUG = 60

function evalBase(evalFile: string): string {
  return basename(evalFile).replace(/\.(c|m)?[jt]sx?$/, '')
}

function slugOf(suite: string): string {
  return suite.toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '') || 'suite'
}

/**
 * The suite's snapshot file, beside the eval file: `weather.eval.ts` and suite `weather` → `weather.eval.weather.calls.jsonl`.
 * A name the slug does not keep exactly (`Weather tools`, `天気`, one over 60 characters) gets a short hash of the
 * exact name after the slug (`weather.eval.weather-tools.1a2b3c4d5e.calls.jsonl`): distinct suites, distinct files
 * (a slug has no dot, so the two forms never meet), and the name stays short.
 */
export function snapshotPath(evalFile: string, suite: string): string {
  const slug = slugOf(suite)
  const name = slug === suite && suite.length <= MAX_SLUG ? slug : `${slug.slice(0, MAX_SLUG).replace(/-+$/, '')}.${suiteHash(suite)}`
  return join(dirname(evalFile), `${evalBase(evalFile)}.${name}.calls.jsonl`)
}

function suiteHash(suite: string): string {
  return createHash('sha256').update(suite, 'utf8').digest('hex').slice(0, 10)
}

/** The name before hashed names: the slug alone, which several suites could share. Still read where unambiguous. */
export function legacySnapshotPath(evalFile: string, suite: string): string {
  return join(dirname(evalFile), `${evalBase(evalFile)}.${slugOf(suite)}.calls.jsonl`)
}

/** The old file is this suite's alone when no other suite name in the eval file has the same slug. */
function legacyIsUnambiguous(suite: string, suitesInFile: readonly string[]): boolean {
  const slug = slugOf(suite)
  return suitesInFile.every((other) => other === suite || slugOf(other) !== slug)
}

type UpdateMode = 'all' | 'new' | 'none'

/** The bits of Vitest's SnapshotState this uses (public getters of @vitest/snapshot). */
interface VitestSnapshotState {
  snapshotUpdateState?: UpdateMode
  environment?: { readSnapshotFile(path: string): Promise<string | null>; saveSnapshotFile(path: string, content: string): Promise<void> }
  added?: { increment(key: string): void }
  updated?: { increment(key: string): void }
}

/**
 * Save through Vitest's snapshot environment beside the file, then rename it over the file: a run killed mid-write
 * leaves the old snapshot or the new one, never half of one (the rule of every file a run writes, as the reporter's).
 */
async function saveWhole(env: NonNullable<VitestSnapshotState['environment']>, path: string, content: string): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`
  await env.saveSnapshotFile(tmp, content)
  await rename(tmp, path)
}

function snapshotState(): VitestSnapshotState | undefined {
  return (expect.getState() as { snapshotState?: VitestSnapshotState }).snapshotState
}

/** Where a suite's snapshot lives: its eval file, its name, and every suite name in that file (for the old names). */
export interface SnapshotSite {
  evalFile: string
  suite: string
  suitesInFile: readonly string[]
}

/** What was read: the entries, where from, and whether the file held lines that are not snapshot lines. */
interface Loaded {
  entries: Map<string, SnapshotEntry>
  /** The old-named file the entries came from, when the current name has none yet. */
  legacy?: string
  corrupt: boolean
}

/** One suite's snapshot file during a run. */
export class SuiteSnapshot {
  private stored: Promise<Loaded> | undefined
  /** This run's lines, by id. */
  private readonly current = new Map<string, string>()
  private readonly status = new Map<string, SampleSnapshotMeta['status']>()
  private file: string | undefined

  constructor(readonly plan: SnapshotPlan) {}

  private path(site: SnapshotSite): string {
    this.file ??= snapshotPath(site.evalFile, site.suite)
    return this.file
  }

  private load(site: SnapshotSite): Promise<Loaded> {
    this.stored ??= (async () => {
      const env = snapshotState()?.environment
      const path = this.path(site)
      let text = env ? await env.readSnapshotFile(path) : null
      let legacy: string | undefined
      if (text === null && env) {
        const old = legacySnapshotPath(site.evalFile, site.suite)
        if (old !== path && legacyIsUnambiguous(site.suite, site.suitesInFile)) {
          text = await env.readSnapshotFile(old)
          if (text !== null) legacy = old
        }
      }
      // `-u` rewrites the file, so a damaged one is no obstacle then: its good lines are kept, the rest dropped.
      const lenient = this.updateMode() === 'all'
      const parsed = readSnapshotText(text ?? '', legacy ?? path, { lenient })
      return { entries: parsed.entries, legacy, corrupt: parsed.errors.length > 0 }
    })()
    return this.stored
  }

  /** Compare one sample's calls with its stored line. `root`: the project root (paths in the report are relative). */
  async check(site: SnapshotSite, root: string, id: string, calls: readonly SnapshotCall[], frequency?: string): Promise<SampleSnapshotMeta> {
    const { entries: stored, legacy } = await this.load(site)
    const line = snapshotLine(id, calls, frequency)
    this.current.set(id, line)
    const before = stored.get(id)
    const file = relative(root, legacy ?? this.path(site))
    let status: SampleSnapshotMeta['status']
    if (!before) status = 'added'
    else status = before.calls === JSON.stringify(calls) ? 'unchanged' : 'changed'
    this.status.set(id, status)
    return status === 'changed' ? { status, file, before: (before as SnapshotEntry).line, after: line } : { status, file }
  }

  /** The update mode Vitest resolved for this run (`new` when no snapshot state is available). */
  updateMode(): UpdateMode {
    return snapshotState()?.snapshotUpdateState ?? 'new'
  }

  /**
   * Write the file as the update mode allows and list the obsolete ids (`ids`: every id in the suite's data).
   * `testId` is the writing test's id (Vitest counts the written and updated snapshots under it).
   */
  async finish(ids: ReadonlySet<string>, root: string, testId: string, site: SnapshotSite): Promise<SuiteSnapshotMeta> {
    const path = this.path(site)
    const { entries: stored, legacy, corrupt } = await this.load(site)
    const obsolete = [...stored.keys()].filter((id) => !ids.has(id)).sort()
    const mode = this.updateMode()
    const lines = new Map<string, string>()
    if (mode === 'all') {
      for (const [id, e] of stored) if (ids.has(id)) lines.set(id, e.line)
      for (const [id, line] of this.current) lines.set(id, line)
    } else {
      for (const [id, e] of stored) lines.set(id, e.line)
      if (mode === 'new') for (const [id, line] of this.current) if (!stored.has(id)) lines.set(id, line)
    }
    const content = composeSnapshotFile(lines)
    const before = composeSnapshotFile(new Map([...stored].map(([id, e]) => [id, e.line])))
    let written = false
    const state = snapshotState()
    // A damaged file or one under its old name is rewritten even when its entries did not change.
    if (mode !== 'none' && (content !== before || corrupt || legacy !== undefined) && state?.environment) {
      await saveWhole(state.environment, path, content)
      if (legacy !== undefined) await unlink(legacy).catch(() => undefined) // moved: the new name holds it now
      written = true
      // Vitest's summary counts what was written: new lines as added, changed or removed ones as updated.
      for (const [id, s] of this.status) {
        if (s === 'added' && lines.has(id)) state.added?.increment(testId)
        if (s === 'changed' && mode === 'all') state.updated?.increment(testId)
      }
      if (mode === 'all' && (obsolete.length > 0 || corrupt)) state.updated?.increment(testId)
    }
    return { file: relative(root, written ? path : (legacy ?? path)), obsolete, written }
  }
}

/** The failure message of a changed sample in 'fail' mode. */
export function changedMessage(id: string, meta: SampleSnapshotMeta): string {
  return `sample "${id}": tool calls changed from the snapshot in ${meta.file} (run with -u to accept):\n${lineDiff(meta.before ?? '', meta.after ?? '')}`
}
