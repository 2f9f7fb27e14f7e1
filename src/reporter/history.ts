/**
 * The run history: a folder of finished runs, one JSON report per run with its samples file beside it, each labelled
 * (time, git commit, a training step, a free label). Plain files because they are what outlives every tool: they work
 * offline, copy into and out of CI artifacts, merge across shards and machines by copying the folder, and read with
 * any JSON parser in ten years. A file's name starts with the run's time, so names sort by time, and ends with the
 * shard, the process and random bytes, so two writers never pick the same name.
 *
 * An entry is an ordinary report (`tool-evals compare` reads it as is) with one field more, `history`. Its samples
 * file is written first and the report last, each atomically: whoever lists the folder never sees a report whose
 * samples file is not there yet, nor half a file.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { SampleOutcome } from './compare/outcomes.js'
import { samplesHash, serialiseOutcomes } from './compare/samples-file.js'
import { writeFileAtomic } from '../data/write-atomic.js'
import type { ToolEvalsReport } from './report.js'

export const HISTORY_FORMAT = 'tool-evals-history'
export const HISTORY_VERSION = 1
export const HISTORY_STEP_ENV = 'TOOL_EVALS_STEP'
export const HISTORY_LABEL_ENV = 'TOOL_EVALS_LABEL'
/** Where CI systems name the commit under test, read when the work tree has no git. */
const COMMIT_ENVS = ['GITHUB_SHA', 'CI_COMMIT_SHA', 'BUILDKITE_COMMIT', 'CIRCLE_SHA1', 'GIT_COMMIT']

/** What labels a run in the history. */
export interface HistoryLabel {
  format: typeof HISTORY_FORMAT
  v: typeof HISTORY_VERSION
  /** ISO time of the run (the report's `run.time`). */
  time: string
  commit?: string
  branch?: string
  /** Training step of the checkpoint evaluated (`historyStep` / `TOOL_EVALS_STEP`). */
  step?: number
  /** A name for the run or the training run it belongs to (`historyLabel` / `TOOL_EVALS_LABEL`). */
  label?: string
}

/** A report as the history keeps it. */
export type HistoryEntry = ToolEvalsReport & { history: HistoryLabel }

export interface HistoryOptions {
  /** Append each finished run's report to this folder (relative to Vitest's root). */
  historyDir?: string
  /** The checkpoint's training step; `TOOL_EVALS_STEP` overrides. */
  historyStep?: number
  /** A label for the run; `TOOL_EVALS_LABEL` overrides. */
  historyLabel?: string
}

const MAX_LABEL = 200

/** A step: a finite number ≥ 0 (steps are counts; an epoch may be fractional). */
function checkStep(value: unknown, where: string): number {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0) throw new Error(`${where} must be a number ≥ 0 (a training step), got ${JSON.stringify(String(value)).slice(0, 60)}`)
  return n
}

function checkLabel(value: unknown, where: string): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > MAX_LABEL) throw new Error(`${where} must be a non-empty string of at most ${MAX_LABEL} characters`)
  return value
}

/** The history options' values, checked when the reporter is made (the environment's are checked again at each run's end). */
export function checkHistoryOptions(options: HistoryOptions, env: NodeJS.ProcessEnv = process.env): void {
  const dir = options.historyDir
  if (dir !== undefined && (typeof dir !== 'string' || dir.trim() === '')) throw new Error(`option \`historyDir\` must be a folder path (a non-empty string), got ${JSON.stringify(dir)}`)
  historyTags(options, env)
}

/** The step and label of this run: the environment's, else the options'. Throws on a bad value, naming where it came from. */
export function historyTags(options: HistoryOptions, env: NodeJS.ProcessEnv = process.env): { step?: number; label?: string } {
  const out: { step?: number; label?: string } = {}
  const envStep = env[HISTORY_STEP_ENV]
  if (envStep !== undefined && envStep !== '') out.step = checkStep(envStep, HISTORY_STEP_ENV)
  else if (options.historyStep !== undefined) out.step = checkStep(options.historyStep, 'option `historyStep`')
  const envLabel = env[HISTORY_LABEL_ENV]
  if (envLabel !== undefined && envLabel !== '') out.label = checkLabel(envLabel, HISTORY_LABEL_ENV)
  else if (options.historyLabel !== undefined) out.label = checkLabel(options.historyLabel, 'option `historyLabel`')
  return out
}

export function historyLabel(report: ToolEvalsReport, tags: { step?: number; label?: string }, env: NodeJS.ProcessEnv = process.env, now = new Date()): HistoryLabel {
  const label: HistoryLabel = { format: HISTORY_FORMAT, v: HISTORY_VERSION, time: report.run?.time ?? now.toISOString() }
  const git = report.run?.git
  const commit = git?.commit ?? COMMIT_ENVS.map((k) => env[k]).find((v) => v !== undefined && /^[0-9a-f]{7,64}$/i.test(v))
  if (commit) label.commit = commit
  if (git?.branch) label.branch = git.branch
  if (tags.step !== undefined) label.step = tags.step
  if (tags.label !== undefined) label.label = tags.label
  return label
}

/** `2026-11-28T06-52-01.123Z-s2-p4711-9f3a1c0b`: sorts by time; the shard, process and random bytes keep it unique. */
export function historyEntryName(time: string, shard: string | undefined, pid = process.pid): string {
  const stamp = time.replace(/:/g, '-').replace(/[^0-9A-Za-z.-]/g, '')
  return `${stamp}-${shard ? `s${shard.replace(/[^0-9a-z]+/g, '')}-` : ''}p${pid}-${randomBytes(4).toString('hex')}`
}

/**
 * Append a finished run to the history folder: its samples file (the per-sample outcomes a paired comparison of two
 * checkpoints needs), then its report naming that file. Returns the report's path.
 */
export function appendToHistory(dir: string, report: ToolEvalsReport, outcomes: readonly SampleOutcome[], label: HistoryLabel, shard?: string): string {
  mkdirSync(dir, { recursive: true })
  const name = historyEntryName(label.time, shard)
  const samplesName = `${name}.samples.jsonl`
  const runId = report.runId ?? randomUUID()
  const text = serialiseOutcomes(outcomes, runId)
  writeFileAtomic(join(dir, samplesName), text)
  const entry: HistoryEntry = { ...report, samplesFile: samplesName, runId, samplesHash: samplesHash(text), history: label }
  const path = join(dir, `${name}.json`)
  writeFileAtomic(path, `${JSON.stringify(entry)}\n`)
  return path
}
