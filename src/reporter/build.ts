/**
 * The run's one report, from what the run left: the samples' task meta, Vitest's facts about the run (its verdict on
 * the tests, its errors, files that did not finish, how the run was partial), the run metadata and the baseline
 * comparison. Pure: the reporter gathers these at the edges (Vitest's objects, files) and every view renders the
 * result. The gate (gate.ts) decides the verdict last, from the report alone.
 */
import type { EvalMeta } from '../eval/meta.js'
import type { Comparison } from './compare/compare.js'
import type { RunMeta } from './compare/run-meta.js'
import { RunCollector } from './collect.js'
import { applyGate } from './gate.js'
import { thresholdIntervals } from './intervals.js'
import { buildReport, type ToolEvalsReport } from './report.js'
import type { PartialRun } from './run-scope.js'
import { checkThresholds, type Thresholds } from './thresholds.js'
import { applyUsage, type UsageOptions } from './usage-apply.js'
import { MatrixCollector, type ModelGateOptions } from './matrix.js'
import type { RegressionOptions } from './compare/compare.js'

/** What the run says about itself, beside the samples. */
export interface RunFacts {
  /** Vitest's verdict: no test failed. */
  testsPass: boolean
  failedTests?: number
  /** Errors Vitest reported beside the tests, one line each. */
  runErrors?: readonly string[]
  /** Test files that did not finish, relative to the root. */
  unfinishedFiles?: readonly string[]
  /** How the run fell short of the whole suite, if it did. */
  partial?: PartialRun
  run?: RunMeta
  /** The per-sample file, when one was written: its name (relative to the report), run id and content hash. */
  samples?: { samplesFile: string; runId: string; samplesHash: string }
  /** The baseline comparison, or why none could be made (a missing baseline file is no error: nothing to compare). */
  baseline?: { comparison: Comparison } | { error: { file: string; message: string } }
}

export interface ReportOptions {
  thresholds: Thresholds
  usage: UsageOptions
  /** How many worst samples to keep. */
  worst: number
  /** A model matrix's gate (the reporter's `models`) and its tests' level and minimum drop (`regression`). */
  models?: ModelGateOptions
  regression?: RegressionOptions
}

export function buildRunReport(metas: Iterable<EvalMeta>, facts: RunFacts, options: ReportOptions): ToolEvalsReport {
  const collector = new RunCollector(options.worst)
  const matrix = new MatrixCollector()
  for (const meta of metas) {
    collector.add(meta)
    matrix.add(meta)
  }
  const overall = collector.overallAggregate()
  const suites = collector.suiteAggregates()
  const partial = facts.partial !== undefined
  const intervals = thresholdIntervals(collector, overall, suites)
  const thresholds = checkThresholds(options.thresholds, overall, suites, { partial, intervals })
  const report = buildReport(collector, overall, suites, thresholds, facts.testsPass)
  applyUsage(report, collector.usage, options.usage, partial)
  if (facts.failedTests) report.failedTests = facts.failedTests
  if (facts.runErrors?.length) report.runErrors = [...facts.runErrors]
  if (facts.unfinishedFiles?.length) report.unfinishedFiles = [...facts.unfinishedFiles]
  if (facts.partial) {
    report.partial = facts.partial
    if (facts.partial.reason === 'interrupted') report.interrupted = true
  }
  if (facts.run) report.run = facts.run
  if (facts.samples) Object.assign(report, facts.samples)
  if (facts.baseline && 'comparison' in facts.baseline) report.comparison = facts.baseline.comparison
  else if (facts.baseline) report.baselineError = facts.baseline.error
  const models = matrix.finish({ regression: options.regression, gate: options.models, partial })
  if (models) report.models = models
  return applyGate(report)
}
