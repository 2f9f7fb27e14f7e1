/**
 * `vitest-tool-evals/reporter`: the Vitest reporter that turns eval test cases into run-level rates.
 *
 *   reporters: ['default', new ToolEvalsReporter({ thresholds: { name_correct: 0.9 }, outputFile: 'tool-evals-report.json' })]
 *
 * It reads each sample's record from its test case's task meta only, so a run merged from sharded blob reports
 * (`vitest --merge-reports`) gives exactly the numbers of one unsharded run. A threshold under its minimum fails the
 * run (non-zero exit) naming the metric, its value and the minimum.
 */
import { appendFileSync, mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import type { Reporter, SerializedError, TestCase, TestModule, TestRunEndReason, TestSpecification, Vitest } from 'vitest/node'
import { readEvalMeta } from '../eval/meta.js'
import { RunCollector } from './collect.js'
import { htmlSampleFromMeta, writeHtmlReport, type HtmlReportInput, type HtmlSample } from './html.js'

import { annotationCounts, annotationOverflowNotice, githubError, inGitHubActions } from './github.js'
import { renderMarkdown } from './markdown.js'
import { Progress } from './progress.js'
import { buildReport, type ToolEvalsReport } from './report.js'
import { renderSummary } from './terminal.js'
import { describeSelection, hasRun, isPlanned, partialReportPath, type PartialReason, type PartialRun } from './run-scope.js'
import { thresholdIntervals } from './intervals.js'
import { checkThresholds, describeThreshold, validateThresholds, type Thresholds } from './thresholds.js'
import { validatePricing, type Pricing } from './usage.js'
import { applyUsage, failedMaxThresholds, type UsageOptions } from './usage-apply.js'
import { validateMaxThresholds, type MaxThresholds } from './usage-thresholds.js'

import { collectOutcomes, collectRunMeta, compareWithBaseline, writeSamplesFile, type GateOptions } from './compare/gate.js'
import type { SampleOutcome } from './compare/outcomes.js'
import type { RunMeta } from './compare/run-meta.js'
import { regressions } from './compare/compare.js'
import { renderComparisonMarkdown, renderComparisonText } from './compare/render.js'

export interface ToolEvalsReporterOptions extends GateOptions {
  /** Minimum rates, overall / per suite / per tool (see `Thresholds`). A run under any of them fails. */
  thresholds?: Thresholds
  /** Write the JSON report here (relative to Vitest's root). */
  outputFile?: string
  /**
   * Append a Markdown summary to this file. Default: `$GITHUB_STEP_SUMMARY` when set (GitHub Actions); `false`
   * turns it off.
   */
  markdownFile?: string | false
  /** How many of the worst samples to show (default 5; 0 hides them). */
  worst?: number
  /** Progress lines (done / total, rate, ETA) during the run. Default 'auto': only when stdout is a TTY. */
  progress?: boolean | 'auto'
  /** Print the terminal summary (default true). */
  summary?: boolean
  /** Write the self-contained HTML report here (relative to Vitest's root), e.g. 'tool-evals-report.html'. */
  htmlFile?: string
  /** USD per million prompt / completion tokens by provider id, e.g. `{ 'openai:gpt-4o': { prompt: 2.5, completion: 10 } }`. */
  pricing?: Pricing
  /** Upper bounds on usage: `{ latency_p95_ms: 2000, cost_usd: 5, suites: { … } }` (see MaxThresholds). */
  maxThresholds?: MaxThresholds

  /**
   * Per-sample outcomes (JSONL) beside the JSON report: default `<outputFile without .json>.samples.jsonl`; `false`
   * turns it off (a report without it cannot be a baseline).
   */
  samplesFile?: false
}

/**
 * Reporters with a run under way. SIGINT / SIGTERM make Vitest exit the process without ending the run: one exit
 * listener for the process writes what each of them finished.
 */
const runsInFlight = new Set<ToolEvalsReporter>()
let exitListening = false

function listenForExit(): void {
  if (exitListening) return
  exitListening = true
  process.on('exit', () => {
    for (const reporter of [...runsInFlight]) reporter.writeInterrupted()
  })
}

interface RunState {
  /** How the run narrows the suite (empty when whole). */
  selection: string[]
  /** Where its report goes (absolute), if anywhere. */
  outputPath: string | undefined
  /** Test cases collected to run, and those finished so far (for a report written mid-run). */
  planned: number
  finished: TestCase[]
  cancelHooked?: boolean
}

export default class ToolEvalsReporter implements Reporter {
  private readonly options: ToolEvalsReporterOptions
  private readonly thresholds: Thresholds
  private readonly usageOptions: UsageOptions
  private vitest: Vitest | undefined
  private progress: Progress
  /** The current run: its selection (empty when whole), the file its report goes to, the cases finished so far. */
  private run: RunState | undefined
  /** Why Vitest cancelled the current run ('test-failure' is `--bail`), if it did. */
  private cancelReason: string | undefined
  /** The last run's report (for programmatic use and tests). */
  report: ToolEvalsReport | undefined

  constructor(options: ToolEvalsReporterOptions = {}) {
    this.options = options
    this.thresholds = validateThresholds(options.thresholds)
    const pricing = validatePricing(options.pricing)
    this.usageOptions = { pricing, maxThresholds: validateMaxThresholds(options.maxThresholds, pricing !== undefined) }
    this.progress = this.makeProgress()
  }

  private makeProgress(): Progress {
    const setting = this.options.progress ?? 'auto'
    const enabled = setting === 'auto' ? process.stdout.isTTY === true : setting
    return new Progress((line) => this.log(line), enabled)
  }

  private log(text: string): void {
    if (this.vitest) this.vitest.logger.log(text)
    else process.stdout.write(`${text}\n`)
  }

  onInit(vitest: Vitest): void {
    this.vitest = vitest
  }

  async onTestRunStart(specifications: ReadonlyArray<TestSpecification> = []): Promise<void> {
    this.progress.start()
    this.cancelReason = undefined
    listenForExit()
    const selection = this.vitest ? await describeSelection(this.vitest, specifications) : []
    const outputPath = this.reportPath(selection.length > 0)
    this.run = { selection, outputPath, planned: 0, finished: [] }
    runsInFlight.add(this)
    // Until the run ends, the file says it did not: a killed run (SIGKILL, a crash) leaves no stale pass behind.
    if (outputPath) this.writeFile(outputPath, this.interruptedReport(this.run))
  }

  /** Vitest drops its cancel listeners as each run starts: listen again once the run is under way. */
  private listenForCancel(): void {
    const run = this.run
    if (!run || run.cancelHooked || !this.vitest) return
    run.cancelHooked = true
    this.vitest.onCancel((reason) => {
      this.cancelReason = reason
    })
  }

  onTestModuleQueued(): void {
    this.listenForCancel()
  }

  onTestModuleCollected(module: TestModule): void {
    this.listenForCancel()
    let n = 0
    for (const test of module.children.allTests()) if (isPlanned(test)) n++
    this.progress.addTotal(n)
    if (this.run) this.run.planned += n
  }

  onTestCaseResult(test: TestCase): void {
    this.progress.tick()
    this.run?.finished.push(test)
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>, _errors: ReadonlyArray<SerializedError>, reason: TestRunEndReason): void {
    const run: RunState = this.run ?? { selection: [], outputPath: this.reportPath(false), planned: 0, finished: [] }
    this.run = undefined
    runsInFlight.delete(this)
    const tests = modules.flatMap((m) => [...m.children.allTests()])
    const stopped = reason === 'interrupted' ? (this.cancelReason === 'test-failure' ? 'bail' : 'interrupted') : undefined
    const partial = stopped ?? (run.selection.length > 0 ? 'filter' : undefined)
    const report = this.buildFrom(tests, reason === 'passed', partial, run.selection)
    this.report = report
    const gateFailures = this.applyGate(report, tests, modules, run.outputPath)

    if (this.options.summary ?? true) {
      // A merged run (`--merge-reports`) only reads blobs: its own time says nothing about the tests' run, so none is shown.
      const elapsedMs = this.vitest?.config.mergeReports ? undefined : this.progress.elapsedMs()
      this.log(renderSummary(report, { thresholds: this.thresholds, elapsedMs }))
    }
    if (report.partial) this.log(`tool-evals: ${describePartial(report.partial)}`)
    if (report.comparison) this.log(renderComparisonText(report.comparison))
    if (run.outputPath) {
      this.writeFile(run.outputPath, report)
      this.log(`tool-evals: JSON report written to ${run.outputPath}`)
    }
    if (this.options.htmlFile) {
      const samples: HtmlSample[] = []
      for (const test of tests) {
        const meta = readEvalMeta(test.meta())
        if (meta) samples.push(htmlSampleFromMeta(meta))
      }
      // Like the JSON report: a partial run's page goes beside the whole run's, never over it.
      this.writeHtml(report.partial ? partialReportPath(this.options.htmlFile) : this.options.htmlFile, { report, samples, comparison: report.comparison })
    }
    const markdownFile = this.options.markdownFile ?? process.env['GITHUB_STEP_SUMMARY']
    if (markdownFile) this.appendMarkdown(markdownFile, report)

    if (gateFailures.length > 0) {
      process.exitCode ||= 1
      if (inGitHubActions()) for (const text of gateFailures) this.log(githubError('tool-evals regression', text))
    }
    if (!report.pass && (!report.thresholdsPass || stopped)) {
      // Vitest sets the exit code from test results before reporters run; a failed gate must fail the run too.
      process.exitCode ||= 1
      const failed = [...report.thresholds.filter((t) => !t.pass).map(describeThreshold), ...failedMaxThresholds(report)]
      if (failed.length > 0 && !(this.options.summary ?? true)) this.log(`tool-evals: threshold(s) failed: ${failed.join('; ')}`)
      if (inGitHubActions()) for (const text of failed) this.log(githubError('tool-evals threshold failed', text))
    }
    const overflow = inGitHubActions() && annotationOverflowNotice(annotationCounts(tests))
    if (overflow) this.log(overflow)
  }

  /**
   * Run metadata, the samples sidecar (beside the report) and the baseline comparison. Returns why the gate fails
   * (regressed metrics, mustPass flips, an unreadable baseline), empty when it does not; a failure clears `pass`.
   */
  private applyGate(report: ToolEvalsReport, tests: readonly TestCase[], modules: ReadonlyArray<TestModule>, outputPath: string | undefined): string[] {
    const root = this.vitest?.config.root ?? process.cwd()
    report.run = collectRunMeta(root, modules)
    // Outcomes are made once, and only when something needs them (a sidecar to write, a baseline to compare with).
    let made: SampleOutcome[] | undefined
    const outcomes = (): SampleOutcome[] => (made ??= collectOutcomes(tests))
    if (outputPath !== undefined && this.options.samplesFile !== false) report.samplesFile = writeSamplesFile(outputPath, outcomes())
    const result = compareWithBaseline(this.options, root, () => ({ meta: report.run as RunMeta, outcomes: outcomes() }))
    const failures: string[] = []
    if (result.kind === 'missing') this.log(`tool-evals: no baseline report at ${result.file}: comparison skipped`)
    else if (result.kind === 'error') failures.push(`baseline ${result.file} could not be read: ${result.message}`)
    else if (result.kind === 'compared') {
      report.comparison = result.comparison
      const regressed = regressions(result.comparison)
      if (regressed.length > 0) failures.push(`regressed against the baseline: ${regressed.join(', ')}`)
      if (result.comparison.mustPassFailed.length > 0) failures.push(`mustPass samples now wrong: ${result.comparison.mustPassFailed.join(', ')}`)
    }
    if (failures.length > 0) {
      report.pass = false
      this.log(`tool-evals: ${failures.join('; ')}`)
    }
    return failures
  }

  /** The report of the given test cases; `partial` says how the run fell short of the whole suite, if it did. */
  private buildFrom(tests: readonly TestCase[], testsPass: boolean, partial: PartialReason | undefined, selection: string[]): ToolEvalsReport {
    const collector = new RunCollector(this.options.worst ?? 5)
    for (const test of tests) {
      const meta = readEvalMeta(test.meta())
      if (meta) collector.add(meta)
    }
    const overall = collector.overallAggregate()
    const suites = collector.suiteAggregates()
    const intervals = thresholdIntervals(collector, overall, suites)
    const thresholds = checkThresholds(this.thresholds, overall, suites, { partial: partial !== undefined, intervals })
    const report = buildReport(collector, overall, suites, thresholds, testsPass)
    applyUsage(report, collector.usage, this.usageOptions, partial !== undefined)
    if (partial === undefined) return report
    let planned = 0
    let ran = 0
    for (const test of tests) {
      if (isPlanned(test)) planned++
      if (hasRun(test)) ran++
    }
    report.partial = { reason: partial, planned, ran }
    if (selection.length > 0) report.partial.selection = selection
    if (partial === 'interrupted') report.interrupted = true
    // A run that stopped early never passes, whatever the part that ran scored.
    if (partial !== 'filter') report.pass = false
    return report
  }

  /** What finished of a run cut short (or, at run start, nothing): marked interrupted, never a pass. */
  private interruptedReport(run: RunState): ToolEvalsReport {
    const report = this.buildFrom(run.finished, false, 'interrupted', run.selection)
    report.partial = { ...(report.partial as PartialRun), planned: run.planned, ran: run.finished.length }
    return report
  }

  /** On process exit with a run still open (SIGINT, SIGTERM, `process.exit` mid-run): write what finished. @internal */
  writeInterrupted(): void {
    const run = this.run
    this.run = undefined
    runsInFlight.delete(this)
    if (!run?.outputPath) return
    try {
      this.writeFile(run.outputPath, this.interruptedReport(run))
      process.stderr.write(`tool-evals: run interrupted; report of the ${run.finished.length} finished test(s) written to ${run.outputPath}\n`)
    } catch {
      // Exiting anyway; the file written at run start already says the run did not finish.
    }
  }

  /** The file this run's report goes to: a partial run's beside the whole run's, never over it. */
  private reportPath(partial: boolean): string | undefined {
    const file = this.options.outputFile
    if (!file) return undefined
    return this.resolvePath(partial ? partialReportPath(file) : file)
  }

  private resolvePath(file: string): string {
    return resolve(this.vitest?.config.root ?? process.cwd(), file)
  }

  private writeFile(path: string, report: ToolEvalsReport): void {
    mkdirSync(dirname(path), { recursive: true })
    // Write beside and rename: a reader (or a kill mid-write) never sees half a report.
    const tmp = `${path}.${process.pid}.tmp`
    writeFileSync(tmp, `${JSON.stringify(report, null, 2)}\n`)
    renameSync(tmp, path)
  }

  private writeHtml(file: string, input: HtmlReportInput): void {
    const path = this.resolvePath(file)
    writeHtmlReport(path, input)
    this.log(`tool-evals: HTML report written to ${path}`)
  }

  private appendMarkdown(file: string, report: ToolEvalsReport): void {
    try {
      const comparison = report.comparison ? `${renderComparisonMarkdown(report.comparison)}\n` : ''
      appendFileSync(this.resolvePath(file), comparison + renderMarkdown(report))
    } catch (err) {
      this.log(`tool-evals: could not write the Markdown summary to ${file}: ${(err as Error).message}`)
    }
  }
}

/** `partial run (bail): 3 of 10 planned test cases ran`: one line for the terminal. */
export function describePartial(p: PartialRun): string {
  const what = p.reason === 'filter' ? `partial run (${(p.selection ?? []).join(', ')})` : `partial run (${p.reason})`
  return `${what}: ${p.ran} of ${p.planned} planned test case(s) ran; thresholds whose scope did not run are "not run"`
}

export { ToolEvalsReporter }
export type { Thresholds, MetricThresholds, ToolThresholds, ThresholdResult } from './thresholds.js'
export type { ToolEvalsReport, SuiteReport, ScorerDetails } from './report.js'
export type { WorstSample, ErroredSample } from './collect.js'
export type { PartialRun, PartialReason } from './run-scope.js'
export type { Pricing, Price, UsageReport, UsagePartReport } from './usage.js'
export type { MaxThresholds, MaxMetricThresholds, MaxMetric, MaxThresholdResult } from './usage-thresholds.js'

export { compareRuns, type Comparison, type MetricComparison, type RegressionOptions, type Verdict } from './compare/compare.js'
export { loadReport } from './compare/load.js'
export { renderComparisonMarkdown } from './compare/render.js'
export type { SampleOutcome } from './compare/outcomes.js'
export type { RunMeta } from './compare/run-meta.js'
export { renderSummary } from './terminal.js'
export { renderMarkdown } from './markdown.js'
export { renderHtmlReport, wilsonInterval } from './html.js'
export type { HtmlReportInput, HtmlSample } from './html.js'
export { clusteredWilson, designEffect, wilson, type Interval } from '../score/intervals.js'
export type { MetricIntervals, ToolIntervals } from './intervals.js'
export type { SnapshotReport } from './snapshots.js'
export type { TrialsReport } from './trials.js'
export type { ThresholdSpec, ThresholdOn } from './thresholds.js'
