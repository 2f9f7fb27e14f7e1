/**
 * What a run covered, from Vitest's own information: whether it was whole or a selection (`-t`, file paths,
 * `--changed`, `--shard`, a watch rerun of some files), whether it stopped early (`--bail`, a signal, a cancel),
 * and how many test cases it planned and finished. The reporter gates only what ran and keeps a partial run's
 * report out of the whole run's file.
 */
import { readEvalMeta } from '../eval/meta.js'
import type { TestSpecification, Vitest } from 'vitest/node'

/**
 * How a run is partial: `filter` (a selection of the suite), `bail` (stopped at `--bail` failures) or
 * `interrupted` (a signal, Ctrl-C, the process killed: the report was written before the run could finish).
 */
export type PartialReason = 'filter' | 'bail' | 'interrupted'

export interface PartialRun {
  reason: PartialReason
  /** What narrowed the run (`-t /w1/`, `test files: 1 of 3`, `--shard 1/2`), when it was a selection. */
  selection?: string[]
  /** Test cases this run set out to run (after filters), and those that finished. */
  planned: number
  ran: number
}

/**
 * The selection a run's specifications make of the whole project; empty when the run is whole. Files of the projects
 * `aside` names (the gate's own test case) are not the suite's.
 */
export async function describeSelection(vitest: Vitest, all: ReadonlyArray<TestSpecification>, aside: (project: string) => boolean = () => false): Promise<string[]> {
  const specifications = all.filter((s) => !aside(s.project.name))
  const out: string[] = []
  const pattern = vitest.config.testNamePattern
  if (pattern) out.push(`-t ${String(pattern)}`)
  const shard = vitest.config.shard
  if (shard) out.push(`--shard ${shard.index}/${shard.count}`)
  if (specifications.some((s) => (s.testLines?.length ?? 0) > 0 || (s.testIds?.length ?? 0) > 0 || s.testNamePattern)) {
    out.push('test locations or ids')
  }
  let total: number | undefined
  try {
    total = (await vitest.globTestSpecifications()).filter((s) => !aside(s.project.name)).length
  } catch {
    // Globbing failed (an unusual setup): judge by the other signs alone.
  }
  if (total !== undefined && specifications.length < total) out.push(`test files: ${specifications.length} of ${total}`)
  return out
}

/** `tool-evals-report.json` -> `tool-evals-report.partial.json`: where a partial run's report goes. */
export function partialReportPath(file: string): string {
  const slash = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'))
  const dot = file.lastIndexOf('.')
  return dot > slash + 1 ? `${file.slice(0, dot)}.partial${file.slice(dot)}` : `${file}.partial`
}

interface CaseLike {
  options: { mode: string }
  result(): { state: string }
  meta(): unknown
}

/** Test cases that were to run (not skipped by `-t`, `.skip` or `.only` elsewhere). */
export function isPlanned(test: CaseLike): boolean {
  return test.options.mode === 'run' || test.options.mode === 'only'
}

/** Test cases that finished: passed, failed, or skipped by policy after recording their sample. */
export function hasRun(test: CaseLike): boolean {
  const state = test.result().state
  return state === 'passed' || state === 'failed' || (state === 'skipped' && readEvalMeta(test.meta()) !== undefined)
}
