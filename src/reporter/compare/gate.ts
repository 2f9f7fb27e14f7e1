/**
 * The reporter's side of the run artifact and the baseline gate: per-sample outcomes from task meta, run metadata
 * from the suites' task meta, the samples sidecar beside the JSON report, and the comparison with a baseline report
 * (`baseline` option or `TOOL_EVALS_BASELINE`). Kept apart from the reporter class, which calls these at run end.
 */
import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { basename, resolve } from 'node:path'
import type { TestCase, TestModule } from 'vitest/node'
import { readEvalMeta } from '../../eval/meta.js'
import { readSuiteRunInfo, type SuiteRunInfo } from '../../eval/run-info.js'
import { compareRuns, type Comparison, type RegressionOptions } from './compare.js'
import { loadReport } from './load.js'
import { writeFileAtomic } from '../../data/write-atomic.js'
import { cachedLookup, outcomeFromMeta, sortOutcomes, type SampleOutcome } from './outcomes.js'
import { samplesHash, serialiseOutcomes } from './samples-file.js'
import { runMeta, type RunMeta } from './run-meta.js'

export const BASELINE_ENV = 'TOOL_EVALS_BASELINE'

export interface GateOptions {
  /** A previous run's JSON report (its samples sidecar beside it); `TOOL_EVALS_BASELINE` overrides. */
  baseline?: string
  regression?: RegressionOptions
  /** Sample ids (`<suite> > <id>`, or a bare id) that fail the run when they go from right to wrong. */
  mustPass?: string[]
}

/** The sidecar's file name for a report file: `x.json` → `x.samples.jsonl`. */
export function samplesFileFor(reportPath: string): string {
  return `${reportPath.replace(/\.json$/i, '')}.samples.jsonl`
}

export function collectOutcomes(tests: readonly TestCase[]): SampleOutcome[] {
  const lookup = cachedLookup()
  const out: SampleOutcome[] = []
  for (const test of tests) {
    const meta = readEvalMeta(test.meta())
    if (meta) out.push(outcomeFromMeta(meta, lookup))
  }
  return sortOutcomes(out)
}

export function collectRunMeta(root: string, modules: readonly TestModule[]): RunMeta {
  const suites: Record<string, SuiteRunInfo> = {}
  for (const m of modules) {
    // Test doubles (and older Vitest) may not offer the suites: metadata then has none, the run goes on.
    if (typeof m.children?.allSuites !== 'function') continue
    for (const suite of m.children.allSuites()) {
      const info = readSuiteRunInfo(suite.meta())
      if (info) suites[suite.name] = info
    }
  }
  return runMeta(root, suites)
}

/**
 * Write the sidecar beside the report (atomically, as every file of a run: run-files.ts). Returns the report's fields that name it and bind it to the
 * report: `samplesFile` (its name, relative to the report), `runId` (also in the file's header) and `samplesHash`.
 */
export function writeSamplesFile(reportPath: string, outcomes: readonly SampleOutcome[], runId: string = randomUUID()): { samplesFile: string; runId: string; samplesHash: string } {
  const path = samplesFileFor(reportPath)
  const text = serialiseOutcomes(outcomes, runId)
  writeFileAtomic(path, text)
  return { samplesFile: basename(path), runId, samplesHash: samplesHash(text) }
}

export type BaselineResult =
  | { kind: 'none' }
  | { kind: 'missing'; file: string }
  | { kind: 'error'; file: string; message: string }
  | { kind: 'compared'; file: string; comparison: Comparison }

/**
 * Compare the run with the baseline, if one is set and there. A baseline that cannot be used (see load.ts) is
 * `error`; one that loads but cannot be compared is `compared` with `comparison.incomparable` reasons (pass false).
 */
export function compareWithBaseline(
  options: GateOptions,
  root: string,
  head: () => { meta: RunMeta; outcomes: readonly SampleOutcome[] },
  env = process.env,
): BaselineResult {
  const setting = env[BASELINE_ENV] || options.baseline
  if (!setting) return { kind: 'none' }
  const file = resolve(root, setting)
  if (!existsSync(file)) return { kind: 'missing', file }
  try {
    const base = loadReport(file)
    const comparison = compareRuns({ ...base, file: setting }, head(), options.regression, options.mustPass)
    return { kind: 'compared', file, comparison }
  } catch (err) {
    return { kind: 'error', file, message: (err as Error).message }
  }
}
