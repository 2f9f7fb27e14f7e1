/**
 * `vitest-tool-evals/reporter`: the Vitest reporter that turns eval test cases into run-level rates.
 *
 *   reporters: ['default', new ToolEvalsReporter({ thresholds: { name_correct: 0.9 }, outputFile: 'tool-evals-report.json' })]
 *
 * It reads each sample's record from its test case's task meta only, so a run merged from sharded blob reports
 * (`vitest --merge-reports`) gives exactly the numbers of one unsharded run. A threshold under its minimum fails the
 * run (non-zero exit) naming the metric, its value and the minimum.
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import type { Reporter, SerializedError, TestCase, TestModule, TestRunEndReason, Vitest } from 'vitest/node'
import { readEvalMeta } from '../eval/meta.js'
import { RunCollector } from './collect.js'
import { htmlSampleFromMeta, writeHtmlReport, type HtmlReportInput, type HtmlSample } from './html.js'

import { githubError, inGitHubActions } from './github.js'
import { renderMarkdown } from './markdown.js'
import { Progress } from './progress.js'
import { buildReport, type ToolEvalsReport } from './report.js'
import { renderSummary } from './terminal.js'
import { checkThresholds, describeThreshold, validateThresholds, type Thresholds } from './thresholds.js'

export interface ToolEvalsReporterOptions {
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
}

export default class ToolEvalsReporter implements Reporter {
  private readonly options: ToolEvalsReporterOptions
  private readonly thresholds: Thresholds
  private vitest: Vitest | undefined
  private progress: Progress
  /** The last run's report (for programmatic use and tests). */
  report: ToolEvalsReport | undefined

  constructor(options: ToolEvalsReporterOptions = {}) {
    this.options = options
    this.thresholds = validateThresholds(options.thresholds)
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

  onTestRunStart(): void {
    this.progress.start()
  }

  onTestModuleCollected(module: TestModule): void {
    let n = 0
    for (const test of module.children.allTests()) if (test.options.mode === 'run' || test.options.mode === 'only') n++
    this.progress.addTotal(n)
  }

  onTestCaseResult(_test: TestCase): void {
    this.progress.tick()
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>, _errors: ReadonlyArray<SerializedError>, reason: TestRunEndReason): void {
    const collector = new RunCollector(this.options.worst ?? 5)
    const htmlSamples: HtmlSample[] = []
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const meta = readEvalMeta(test.meta())
        if (meta) collector.add(meta)
        if (meta && this.options.htmlFile) htmlSamples.push(htmlSampleFromMeta(meta))
      }
    }
    const overall = collector.overallAggregate()
    const suites = collector.suiteAggregates()
    const thresholds = checkThresholds(this.thresholds, overall, suites)
    const report = buildReport(collector, overall, suites, thresholds, reason === 'passed')
    this.report = report

    if (this.options.summary ?? true) {
      // A merged run (`--merge-reports`) only reads blobs: its own time says nothing about the tests' run, so none is shown.
      const elapsedMs = this.vitest?.config.mergeReports ? undefined : this.progress.elapsedMs()
      this.log(renderSummary(report, { thresholds: this.thresholds, elapsedMs }))
    }
    if (this.options.outputFile) this.writeJson(this.options.outputFile, report)
    if (this.options.htmlFile) this.writeHtml(this.options.htmlFile, { report, samples: htmlSamples })
    const markdownFile = this.options.markdownFile ?? process.env['GITHUB_STEP_SUMMARY']
    if (markdownFile) this.appendMarkdown(markdownFile, report)

    if (!report.thresholdsPass) {
      // Vitest sets the exit code from test results before reporters run; a failed gate must fail the run too.
      process.exitCode = 1
      const failed = thresholds.filter((t) => !t.pass).map(describeThreshold)
      if (!(this.options.summary ?? true)) this.log(`tool-evals: threshold(s) failed: ${failed.join('; ')}`)
      if (inGitHubActions()) for (const text of failed) this.log(githubError('tool-evals threshold failed', text))
    }
  }

  private resolvePath(file: string): string {
    return resolve(this.vitest?.config.root ?? process.cwd(), file)
  }

  private writeJson(file: string, report: ToolEvalsReport): void {
    const path = this.resolvePath(file)
    mkdirSync(dirname(path), { recursive: true })
    writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`)
    this.log(`tool-evals: JSON report written to ${path}`)
  }

  private writeHtml(file: string, input: HtmlReportInput): void {
    const path = this.resolvePath(file)
    writeHtmlReport(path, input)
    this.log(`tool-evals: HTML report written to ${path}`)
  }

  private appendMarkdown(file: string, report: ToolEvalsReport): void {
    try {
      appendFileSync(this.resolvePath(file), renderMarkdown(report))
    } catch (err) {
      this.log(`tool-evals: could not write the Markdown summary to ${file}: ${(err as Error).message}`)
    }
  }
}

export { ToolEvalsReporter }
export type { Thresholds, MetricThresholds, ToolThresholds, ThresholdResult } from './thresholds.js'
export type { ToolEvalsReport, SuiteReport, ScorerDetails } from './report.js'
export type { WorstSample, ErroredSample } from './collect.js'
export { renderSummary } from './terminal.js'
export { renderMarkdown } from './markdown.js'
export { renderHtmlReport, wilsonInterval } from './html.js'
export type { HtmlReportInput, HtmlSample } from './html.js'
