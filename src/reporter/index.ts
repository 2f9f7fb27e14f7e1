/**
 * `vitest-tool-evals/reporter`: the Vitest reporter that turns eval test cases into run-level rates.
 *
 *   reporters: ['default', new ToolEvalsReporter({ thresholds: { name_correct: 0.9 }, outputFile: 'tool-evals-report.json' })]
 *
 * It reads each sample's record from its test case's task meta only, so a run merged from sharded blob reports
 * (`vitest --merge-reports`) gives exactly the numbers of one unsharded run. This class is the edge with Vitest: it
 * gathers the run's facts, `buildRunReport` makes the one report, the gate (gate.ts) decides it, and the writers
 * render it; a failed gate exits non-zero with every reason named and, with the plugin, fails the `tool-evals gate`
 * test case (gate-test.ts) that Vitest's own reporters count.
 */
import { rmSync } from 'node:fs'
import { writeFileAtomic } from '../data/write-atomic.js'
import { relative, resolve } from 'node:path'
import type { Reporter, SerializedError, TestCase, TestModule, TestRunEndReason, TestSpecification, Vitest } from 'vitest/node'
import { readEvalMeta, type EvalMeta } from '../eval/meta.js'
import { buildRunReport, type ReportOptions, type RunFacts } from './build.js'
import type { ModelGateOptions } from './matrix.js'
import { htmlSampleFromMeta, type HtmlSample } from './html.js'
import { annotationCounts, annotationOverflowNotice } from './github.js'
import { Progress } from './progress.js'
import { TEST_TIMEOUT_ENV, VITEST_DEFAULT_TEST_TIMEOUT } from '../eval/timeout.js'
import { JOURNAL_ENV, journalFolder, openRunJournal, resumeDisabled, retireRunJournal } from '../models/journal.js'
import type { ToolEvalsReport } from './report.js'
import { describeSelection, hasRun, isPlanned, partialReportPath, type PartialReason } from './run-scope.js'
import { validateThresholds, type Thresholds } from './thresholds.js'
import { validatePricing, type Pricing } from './usage.js'
import type { UsageOptions } from './usage-apply.js'
import { validateMaxThresholds, type MaxThresholds } from './usage-thresholds.js'
import { errorLine, failedTests, moduleErrors, stdoutIsMachineReadable, unfinishedFiles, writesBlob } from './vitest-run.js'
import { printable } from '../calls/printable.js'
import type { GateVerdict } from './gate-test.js'
import { beginRunFiles, finishRunFiles, interruptRunFiles, type DecidedRun, type RunFilePaths } from './run-files.js'
import { githubWriter, terminalWriter } from './writers.js'

import { collectOutcomes, collectRunMeta, compareWithBaseline, samplesFileFor, writeSamplesFile, type GateOptions } from './compare/gate.js'
import type { SampleOutcome } from './compare/outcomes.js'
import type { RunMeta } from './compare/run-meta.js'
import type { RegressionOptions } from './compare/compare.js'
import { checkOptionKeys, type OptionKeys } from '../calls/options.js'
import { appendToHistory, checkHistoryOptions, historyLabel, historyTags, type HistoryOptions } from './history.js'
import { INPUT_ROOT_KEY } from '../data/input-root.js'

export interface ToolEvalsReporterOptions extends GateOptions, HistoryOptions {
  /** Minimum rates, overall / per suite / per tool (see `Thresholds`). A run under any of them fails. */
  thresholds?: Thresholds
  /** Write the JSON report here (relative to Vitest's root). */
  outputFile?: string
  /**
   * Write the Markdown summary to this file (relative to Vitest's root), replaced by each run as the JSON report is.
   * Default: `$GITHUB_STEP_SUMMARY` when set (GitHub Actions), which is appended to (it is the job's, shared by its
   * steps); `false` turns it off.
   */
  markdownFile?: string | false
  /** How many of the worst samples to show (default 5; 0 hides them). */
  worst?: number
  /**
   * Progress lines (done / total, errored, rate, ETA) during the run. Default 'auto' (and `true`): live on a terminal,
   * and off a terminal (CI) a line every `progressIntervalMs`; `false` turns them off.
   */
  progress?: boolean | 'auto'
  /** Off a terminal, a progress line every this many ms (default 15000). */
  progressIntervalMs?: number
  /** Print the terminal summary (default true). */
  summary?: boolean
  /** Write the self-contained HTML report here (relative to Vitest's root), e.g. 'tool-evals-report.html'. */
  htmlFile?: string
  /**
   * USD per million prompt / completion tokens by provider id, e.g. `{ 'openai:gpt-4o': { prompt: 2.5, completion: 10 } }`,
   * for the samples that report no cost of their own (a reported `usage.costUsd` wins).
   */
  pricing?: Pricing
  /** Upper bounds on usage: `{ latency_p95_ms: 2000, cost_usd: 5, suites: { … } }` (see MaxThresholds). */
  maxThresholds?: MaxThresholds

  /**
   * Per-sample outcomes (JSONL) beside the JSON report: default `<outputFile without .json>.samples.jsonl`; `false`
   * turns it off (a report without it cannot be a baseline).
   */
  samplesFile?: false
  /**
   * A model matrix's gate (describeEval's `models`): `{ noneWorse: true }` fails the run when a model is significantly
   * worse than the reference; `thresholds: { sft_1000: { args_exact_match: 0.8 } }` sets minimums per model.
   */
  models?: ModelGateOptions
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
  /** Where this run's files go (absolute): a selection's beside the whole run's, never over them. */
  paths: RunFilePaths
  /** Test cases collected to run, and those finished so far (for a report written mid-run). */
  planned: number
  finished: TestCase[]
  /** The run's test modules, the latest of each (Vitest makes a module anew when its file is collected), by file. */
  modules: Map<string, TestModule>
  cancelHooked?: boolean
}

export default class ToolEvalsReporter implements Reporter {
  private readonly options: ToolEvalsReporterOptions
  private readonly thresholds: Thresholds
  private readonly usageOptions: UsageOptions
  private vitest: Vitest | undefined
  private progress: Progress
  /** The current run: its selection (empty when whole), the files it writes, the cases finished so far. */
  private run: RunState | undefined
  /** Why Vitest cancelled the current run ('test-failure' is `--bail`), if it did. */
  private cancelReason: string | undefined
  /** The last run's report (for programmatic use and tests). */
  report: ToolEvalsReport | undefined
  /** Whether another reporter writes a document to stdout (read once from the reporters Vitest was given). */
  private textToStderr: boolean | undefined
  /** The run journal's folder (describeEval's resume), when this Vitest runs tests and resuming is on. */
  private journal: string | undefined

  /** The gate's test case, when the plugin runs one: where its verdict goes, and the project that holds it. */
  private gate: { file: string; project: string } | undefined

  constructor(options: ToolEvalsReporterOptions = {}) {
    checkReporterOptions(options, 'ToolEvalsReporter')
    this.options = options
    this.thresholds = validateThresholds(options.thresholds)
    // Each model's thresholds checked as the run's are (a misspelt metric must not silently disable a gate).
    for (const t of Object.values(options.models?.thresholds ?? {})) validateThresholds(t)
    const pricing = validatePricing(options.pricing)
    this.usageOptions = { pricing, maxThresholds: validateMaxThresholds(options.maxThresholds) }
    const interval = options.progressIntervalMs
    if (interval !== undefined && !(typeof interval === 'number' && Number.isFinite(interval) && interval > 0)) {
      throw new Error(`ToolEvalsReporter: option \`progressIntervalMs\` must be a positive number of milliseconds, got ${String(interval)}`)
    }
    this.progress = this.makeProgress()
    try {
      checkHistoryOptions(options)
    } catch (err) {
      throw new Error(`ToolEvalsReporter: ${(err as Error).message}`)
    }
  }

  /** What buildRunReport needs of this reporter's options. */
  private reportOptions(): ReportOptions {
    const out: ReportOptions = { thresholds: this.thresholds, usage: this.usageOptions, worst: this.options.worst ?? 5 }
    if (this.options.models) out.models = this.options.models
    if (this.options.regression) out.regression = this.options.regression
    return out
  }

  private makeProgress(): Progress {
    const setting = this.options.progress ?? 'auto'
    const mode = setting === false ? 'off' : process.stdout.isTTY === true ? 'live' : 'log'
    return new Progress((line) => this.log(line), mode, mode === 'log' ? this.options.progressIntervalMs : undefined)
  }

  /** Human text: to stdout, unless a reporter writes a machine-readable document there (then stderr). */
  private log(text: string): void {
    if (this.vitest && (this.textToStderr ??= stdoutIsMachineReadable(this.vitest))) process.stderr.write(`${text}\n`)
    else if (this.vitest) this.vitest.logger.log(text)
    else process.stdout.write(`${text}\n`)
  }

  /** The plugin runs the gate's test case (reporter/gate-test.ts) in `project`; it reads its verdict from `file`. @internal */
  useGateTest(file: string, project: string): void {
    this.gate = { file, project }
  }

  private isGate(module: TestModule | undefined): boolean {
    return this.gate !== undefined && module?.project?.name === this.gate.project
  }

  onInit(vitest: Vitest): void {
    this.vitest = vitest
    // Relative input paths (data, recordings, caches) resolve in the workers from the root the reports go to.
    // (Test doubles of Vitest may lack `provide`: inputs then resolve from the current directory.)
    if (typeof vitest.provide === 'function') vitest.provide(INPUT_ROOT_KEY, vitest.config.root)
    this.textToStderr = undefined
    this.setUpJournal(vitest)
    // A testTimeout the user set wins over describeEval's derived default: the workers learn it from their env.
    const { testTimeout } = vitest.config
    if (typeof testTimeout === 'number' && testTimeout !== VITEST_DEFAULT_TEST_TIMEOUT) {
      ;((vitest.config.env ??= {}) as Record<string, string>)[TEST_TIMEOUT_ENV] = String(testTimeout)
    }
  }

  /**
   * The run journal (see models/journal.ts): the workers learn its folder from their environment, which Vitest builds
   * from its `env` when it starts them. A merged run (`--merge-reports`) generates nothing: no journal.
   */
  private setUpJournal(vitest: Vitest): void {
    this.journal = undefined
    if (vitest.config.mergeReports || resumeDisabled()) return
    this.journal = journalFolder(vitest.config.root, vitest.config.shard)
    const env = (vitest.config.env ??= {}) as Record<string, string>
    env[JOURNAL_ENV] = this.journal
  }

  /** Open the journal for this run: an unfinished run's generations are there to resume, and the run says how many. */
  private openJournal(): void {
    if (!this.journal) return
    try {
      const { resumable, dropped } = openRunJournal(this.journal)
      const where = relative(this.root(), this.journal) || this.journal
      const cut = dropped > 0 ? `; ${dropped} cut or unreadable line(s) dropped, their samples asked again` : ''
      if (resumable > 0 || dropped > 0) {
        this.log(`tool-evals: resuming an interrupted run: ${resumable} generations journaled in ${where}${cut} (TOOL_EVALS_RESUME=0 asks them again)`)
      }
    } catch (err) {
      this.log(`tool-evals: the run journal could not be opened (${errorLine(err)}): this run neither resumes nor can be resumed`)
    }
  }

  async onTestRunStart(specifications: ReadonlyArray<TestSpecification> = []): Promise<void> {
    this.progress.start()
    this.openJournal()
    this.cancelReason = undefined
    listenForExit()
    if (this.gate) rmSync(this.gate.file, { force: true })
    const gateProject = this.gate?.project
    const selection = this.vitest ? await describeSelection(this.vitest, specifications, (name) => name === gateProject) : []
    this.run = { selection, paths: this.runPaths(selection.length > 0), planned: 0, finished: [], modules: new Map() }
    runsInFlight.add(this)
    // Until the run ends, every file says it did not: a killed run (SIGKILL, a crash) leaves no stale pass behind.
    beginRunFiles(this.run.paths, this.unfinishedRun(this.run))
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

  onTestModuleQueued(module: TestModule): void {
    this.listenForCancel()
    // Queued after every other project's files have finished (its group runs last): the gate decides now.
    if (this.isGate(module)) this.writeGateVerdict()
    else this.track(module)
  }

  private track(module: TestModule): void {
    this.run?.modules.set(`${module.project?.name ?? ''}\0${module.moduleId}`, module)
  }

  onTestModuleEnd(module: TestModule): void {
    if (!this.isGate(module)) this.track(module)
  }

  onTestModuleCollected(module: TestModule): void {
    this.listenForCancel()
    if (this.isGate(module)) return
    this.track(module)
    let n = 0
    for (const test of module.children.allTests()) if (isPlanned(test)) n++
    this.progress.addTotal(n)
    if (this.run) this.run.planned += n
  }

  onTestCaseResult(test: TestCase): void {
    if (this.isGate(test.module)) return
    this.progress.tick(readEvalMeta(test.meta())?.record.error !== undefined)
    this.run?.finished.push(test)
  }

  /** The run's report at its end. */
  private decide(modules: ReadonlyArray<TestModule>, errors: ReadonlyArray<SerializedError>, reason: TestRunEndReason): { report: ToolEvalsReport; tests: readonly TestCase[]; run: RunState } {
    const run: RunState = this.run ?? { selection: [], paths: this.runPaths(false), planned: 0, finished: [], modules: new Map() }
    this.run = undefined
    runsInFlight.delete(this)
    return { ...this.judge(modules, errors, reason, run, true), run }
  }

  /** The verdict the gate's test case carries: what fails the run beyond its failed tests, once every file finished. */
  private writeGateVerdict(): void {
    if (!this.gate || !this.run) return
    const { report } = this.judge([...this.run.modules.values()], [], 'passed', this.run, false)
    const verdict: GateVerdict = { reasons: report.gate.reasons.filter((r) => r.kind !== 'tests_failed').map((r) => printable(r.message)) }
    writeFileAtomic(this.gate.file, JSON.stringify(verdict))
  }

  /**
   * A report from Vitest's results (read, never changed), decided by the gate; the gate's own test case is not the
   * run's. `final` (the run's end) writes the per-sample file and says when a baseline is missing.
   */
  private judge(all: ReadonlyArray<TestModule>, errors: ReadonlyArray<SerializedError>, reason: TestRunEndReason, run: RunState, final: boolean): { report: ToolEvalsReport; tests: readonly TestCase[] } {
    const modules = all.filter((m) => !this.isGate(m))
    // Vitest's reason counts the gate's test case too: with one, the run's tests pass when their modules do.
    const testsPass = modules.length === all.length ? reason === 'passed' : reason !== 'interrupted' && modules.every((m) => m.ok())
    const root = this.root()
    const tests = modules.flatMap((m) => [...m.children.allTests()])
    const metas = metasOf(tests)
    const stopped: PartialReason | undefined = reason === 'interrupted' ? (this.cancelReason === 'test-failure' ? 'bail' : 'interrupted') : undefined
    const facts: RunFacts = {
      testsPass,
      failedTests: failedTests(tests),
      runErrors: [...errors.map(errorLine), ...moduleErrors(root, modules)],
      unfinishedFiles: stopped ? [] : unfinishedFiles(root, modules),
      run: collectRunMeta(root, modules),
    }
    const partial = stopped ?? (run.selection.length > 0 ? 'filter' : undefined)
    if (partial) facts.partial = scopeOf(partial, tests, run.selection)
    // Outcomes are made once, and only when something needs them (a per-sample file to write, a baseline).
    let made: SampleOutcome[] | undefined
    const outcomes = (): SampleOutcome[] => (made ??= collectOutcomes(tests))
    // The per-sample file first (the report names it, with its run id and hash); a run cut short is no baseline.
    if (final && run.paths.json && run.paths.samples && !stopped) facts.samples = writeSamplesFile(run.paths.json, outcomes())
    const baseline = compareWithBaseline(this.options, root, () => ({ meta: facts.run as RunMeta, outcomes: outcomes() }))
    if (baseline.kind === 'missing' && final) this.log(`tool-evals: no baseline report at ${baseline.file}: comparison skipped`)
    else if (baseline.kind === 'error') facts.baseline = { error: { file: baseline.file, message: baseline.message } }
    else if (baseline.kind === 'compared') facts.baseline = { comparison: baseline.comparison }
    const report = buildRunReport(metas, facts, this.reportOptions())
    return { report, tests }
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>, errors: ReadonlyArray<SerializedError>, reason: TestRunEndReason): void {
    const { report, tests, run } = this.decide(modules, errors, reason)
    this.progress.stop()
    // A run that reached its end with every file finished leaves nothing to resume: its journal is never replayed.
    // One that ran only part of the evals (filtered, or a file that failed to load) keeps what an unfinished run left.
    if (reason !== 'interrupted' && unfinishedFiles(this.root(), modules).length === 0) {
      this.retireJournal(run.selection.length > 0 || moduleErrors(this.root(), modules).length > 0)
    }
    this.report = report
    let samples: HtmlSample[] | undefined
    const decided: DecidedRun = { report, htmlSamples: () => (samples ??= metasOf(tests).map(htmlSampleFromMeta)) }
    const log = (line: string) => this.log(line)
    // A merged run (`--merge-reports`) only reads blobs: its own time says nothing about the tests' run, so none is shown.
    const elapsedMs = this.vitest?.config.mergeReports ? undefined : this.progress.elapsedMs()
    terminalWriter(log, { summary: this.options.summary ?? true, elapsedMs }).write(decided)
    finishRunFiles(run.paths, decided, log)
    githubWriter(log, () => annotationOverflowNotice(annotationCounts(tests))).write(decided)
    if (this.options.historyDir) this.appendHistory(this.options.historyDir, report, tests)
    // The gate's verdict in Vitest's results is the exit code, as Vitest's own coverage thresholds do: Vitest set it
    // from the tests before reporters run, and a gate that fails for more than tests (a threshold, a regression)
    // fails the process too. Vitest's results are left as Vitest made them (see docs/ARCHITECTURE.md).
    if (!report.pass) process.exitCode ||= 1
  }

  /** The finished run into the history folder (see history.ts); a blob shard is appended when its blobs are merged. */
  private appendHistory(dir: string, report: ToolEvalsReport, tests: readonly TestCase[]): void {
    if (this.vitest && writesBlob(this.vitest)) return
    try {
      const shard = this.vitest?.config.shard
      const label = historyLabel(report, historyTags(this.options))
      const path = appendToHistory(this.resolvePath(dir), report, collectOutcomes(tests), label, shard ? `${shard.index}of${shard.count}` : undefined)
      this.log(`tool-evals: run appended to the history: ${path}`)
    } catch (err) {
      this.log(`tool-evals: the run could not be appended to the history in ${dir}: ${errorLine(err)}`)
      process.exitCode ||= 1
    }
  }

  /** A partial run keeps what an unfinished whole run left for the run that runs everything. */
  private retireJournal(partial: boolean): void {
    if (!this.journal) return
    try {
      retireRunJournal(this.journal, { keepResume: partial })
    } catch (err) {
      this.log(`tool-evals: the run journal ${this.journal} could not be removed (${errorLine(err)}): remove it, or the next run resumes from it`)
    }
  }

  /** What finished of a run cut short (or, at run start, nothing): marked interrupted, never a pass. */
  private unfinishedRun(run: RunState): DecidedRun {
    const partial = { ...scopeOf('interrupted', run.finished, run.selection), planned: run.planned, ran: run.finished.length }
    const report = buildRunReport(metasOf(run.finished), { testsPass: false, partial }, this.reportOptions())
    return { report, htmlSamples: () => metasOf(run.finished).map(htmlSampleFromMeta) }
  }

  /** On process exit with a run still open (SIGINT, SIGTERM, `process.exit` mid-run): write what finished. @internal */
  writeInterrupted(): void {
    this.progress.stop()
    const run = this.run
    this.run = undefined
    runsInFlight.delete(this)
    const where = run && (run.paths.json ?? run.paths.html ?? run.paths.markdown ?? run.paths.stepSummary)
    if (!run || !where) return
    try {
      interruptRunFiles(run.paths, this.unfinishedRun(run), (line) => process.stderr.write(`${line}\n`))
      process.stderr.write(`tool-evals: run interrupted; report of the ${run.finished.length} finished test(s) written to ${where}\n`)
    } catch {
      // Exiting anyway; the files written at run start already say the run did not finish.
    }
  }

  /**
   * The files this run writes: a selection's beside the whole run's, never over them. The Markdown summary is the
   * run's own file unless it is GitHub's step summary, which is appended to.
   */
  private runPaths(partial: boolean): RunFilePaths {
    const paths: RunFilePaths = {}
    const own = (file: string) => this.resolvePath(partial ? partialReportPath(file) : file)
    const { outputFile, htmlFile, markdownFile } = this.options
    if (outputFile) {
      paths.json = own(outputFile)
      if (this.options.samplesFile !== false) paths.samples = samplesFileFor(paths.json)
    }
    if (htmlFile) paths.html = own(htmlFile)
    const stepSummary = process.env['GITHUB_STEP_SUMMARY'] ? this.resolvePath(process.env['GITHUB_STEP_SUMMARY']) : undefined
    if (markdownFile === undefined) {
      if (stepSummary) paths.stepSummary = stepSummary
    } else if (markdownFile !== false) {
      if (this.resolvePath(markdownFile) === stepSummary) paths.stepSummary = stepSummary
      else paths.markdown = own(markdownFile)
    }
    return paths
  }

  private root(): string {
    return this.vitest?.config.root ?? process.cwd()
  }

  private resolvePath(file: string): string {
    return resolve(this.root(), file)
  }
}

/** The reporter's option names (the plugin adds its own). */
const REPORTER_OPTION_KEYS: OptionKeys<ToolEvalsReporterOptions> = {
  thresholds: true, outputFile: true, markdownFile: true, worst: true, progress: true, summary: true, htmlFile: true,
  pricing: true, maxThresholds: true, samplesFile: true, baseline: true, regression: true, mustPass: true, progressIntervalMs: true,
  historyDir: true, historyStep: true, historyLabel: true, models: true,
}
const MODEL_GATE_OPTION_KEYS: OptionKeys<ModelGateOptions> = { noneWorse: true, thresholds: true }
const REGRESSION_OPTION_KEYS: OptionKeys<RegressionOptions> = { alpha: true, minDrop: true, metrics: true, mustPass: true }

/** Unknown keys in the reporter's options (and its `regression` object) are errors naming the closest known one. @internal */
export function checkReporterOptions(options: object, where: string, extra: readonly string[] = []): void {
  checkOptionKeys(options, [...Object.keys(REPORTER_OPTION_KEYS), ...extra], where)
  const regression = (options as ToolEvalsReporterOptions).regression
  if (regression !== undefined) checkOptionKeys(regression, REGRESSION_OPTION_KEYS, `${where}: \`regression\``)
  const models = (options as ToolEvalsReporterOptions).models
  if (models !== undefined) checkOptionKeys(models, MODEL_GATE_OPTION_KEYS, `${where}: \`models\``)
}

function metasOf(tests: readonly TestCase[]): EvalMeta[] {
  const out: EvalMeta[] = []
  for (const test of tests) {
    const meta = readEvalMeta(test.meta())
    if (meta) out.push(meta)
  }
  return out
}

/** How much of the planned run ran, for a partial run's report. */
function scopeOf(reason: PartialReason, tests: readonly TestCase[], selection: string[]): NonNullable<RunFacts['partial']> {
  let planned = 0
  let ran = 0
  for (const test of tests) {
    if (isPlanned(test)) planned++
    if (hasRun(test)) ran++
  }
  const partial: NonNullable<RunFacts['partial']> = { reason, planned, ran }
  if (selection.length > 0) partial.selection = selection
  return partial
}

export { describePartial } from './writers.js'
export { ToolEvalsReporter }
export type { Thresholds, MetricThresholds, ToolThresholds, ThresholdResult } from './thresholds.js'
export type { ToolEvalsReport, SuiteReport, ScorerDetails } from './report.js'
export type { Gate, GateReason, GateReasonKind } from './gate.js'
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
