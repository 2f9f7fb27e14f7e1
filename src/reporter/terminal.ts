/**
 * The terminal summary: a compact table of rates (overall and per suite) coloured against their thresholds, the
 * per-tool breakdown, the errored samples, the worst samples with expected against actual calls, and the threshold
 * verdicts.
 */
import { Chalk, type ChalkInstance } from 'chalk'
import { callLine } from '../calls/format.js'
import { printable } from '../calls/printable.js'
import { reportedMetrics, type ToolEvalsReport } from './report.js'
import type { Interval } from '../score/intervals.js'
import { snapshotSection } from './snapshots.js'
import { describeThreshold, formatRate, type ThresholdResult, type Thresholds } from './thresholds.js'
import { trialsLine } from './trials.js'
import { usageLines } from './usage-render.js'
import { matrixTerminalLines } from './matrix-render.js'
import { describeMaxThreshold } from './usage-thresholds.js'

/** More suites than this and the table shows the overall column only (the JSON report has them all). */
const MAX_SUITE_COLUMNS = 5
const MAX_TOOLS = 12
const COLUMN = 10
/** A rate cell with its interval: `0.850 (0.62–0.95)`; without it, `0.850`. */
const RATE_COLUMN = 17
const BARE_RATE_COLUMN = 6
/** Names are shown whole up to this width (users copy metric names into thresholds); longer ones are cut. */
const MAX_NAME_COLUMN = 40
const MIN_NAME_COLUMN = 12
/** The width of a summary written where no terminal says its own (a CI log). */
const LOG_WIDTH = 120

export interface SummaryOptions {
  /** Ignored: thresholds and their outcomes are read from the report (kept so older callers still compile). */
  thresholds?: Thresholds
  /** Colour level (chalk's: 0 none to 3); default: what chalk detects for stdout. */
  colorLevel?: 0 | 1 | 2 | 3
  /** Wall time of the run, shown on the counts line. */
  elapsedMs?: number
  /** Columns to fit the tables in; default: the terminal's, or 120 when stdout is no terminal. */
  width?: number
}

/**
 * How the rate tables fit the width: metric names whole where they fit, suite columns only when all of them fit,
 * intervals dropped before names are cut.
 */
interface Layout {
  name: number
  rate: number
  intervals: boolean
  suites: boolean
}

function layout(names: readonly string[], suiteCount: number, extra: number, width: number): Layout {
  const longest = Math.max(MIN_NAME_COLUMN, ...names.map((n) => n.length + 1))
  const name = Math.min(longest, MAX_NAME_COLUMN)
  const fixed = 2 + name + extra
  const withSuites = fixed + (RATE_COLUMN + 1) * (1 + suiteCount)
  if (suiteCount > 0 && withSuites <= width) return { name, rate: RATE_COLUMN, intervals: true, suites: true }
  if (fixed + RATE_COLUMN + 1 <= width) return { name, rate: RATE_COLUMN, intervals: true, suites: false }
  const cut = Math.max(MIN_NAME_COLUMN, width - 2 - extra - (BARE_RATE_COLUMN + 1))
  return { name: Math.min(name, cut), rate: BARE_RATE_COLUMN, intervals: false, suites: false }
}

export function renderSummary(report: ToolEvalsReport, options: SummaryOptions): string {
  const c: ChalkInstance = options.colorLevel === undefined ? new Chalk() : new Chalk({ level: options.colorLevel })
  const out: string[] = ['']
  out.push(c.bold(' Tool evals ') + countsLine(report, c, options.elapsedMs))
  if (report.samples === 0) {
    out.push(c.dim('  no eval samples ran'))
  } else {
    const width = options.width ?? (process.stdout.columns || LOG_WIDTH)
    out.push(...metricsTable(report, c, width))
    const failures = Object.entries(report.failures).filter(([, n]) => n > 0)
    if (failures.length > 0) out.push('', `  ${c.dim('failures')}  ${failures.map(([k, n]) => `${printable(k)} ${n}`).join(c.dim(' · '))}`)
    out.push(...usageLines(report.usage, c))
    out.push(...toolsTable(report, c, width))
    if (report.models) out.push(...matrixTerminalLines(report.models, c))
    out.push(...trialsLine(report, c))
    out.push(...snapshotSection(report, c))
    out.push(...erroredSection(report, c))
    if (report.cacheRegenerated) out.push('', c.yellow(`  ${report.cacheRegenerated} cache entries were unusable and regenerated`))
    if (report.resumed) out.push('', c.dim(`  ${report.resumed} generations resumed from the journal of an interrupted run (TOOL_EVALS_RESUME=0 asks them again)`))
    out.push(...worstSection(report, c))
  }
  out.push(...thresholdSection(report, c))
  out.push(...verdictSection(report, c))
  out.push('')
  return out.join('\n')
}

function countsLine(report: ToolEvalsReport, c: ChalkInstance, elapsedMs?: number): string {
  const parts = [`${report.samples} samples`]
  if (report.errored.count > 0) parts.push(c.red(`${report.errored.count} errored`))
  if (report.skipped.count > 0) parts.push(c.yellow(`${report.skipped.count} skipped`))
  if (elapsedMs !== undefined && elapsedMs > 0) parts.push(c.dim(`run took ${(elapsedMs / 1000).toFixed(1)}s`))
  return parts.join(c.dim(' · '))
}

function pad(text: string, width: number, right = false): string {
  const cut = text.length > width ? `${text.slice(0, width - 1)}…` : text
  return right ? cut.padStart(width) : cut.padEnd(width)
}

/** `0.850 (0.62–0.95)`: a rate and its 95% interval (the rate alone when there is none). */
export function rateWithInterval(value: number | null, interval: Interval | null | undefined): string {
  if (value === null || !interval) return formatRate(value)
  return `${formatRate(value)} (${interval[0].toFixed(2)}–${interval[1].toFixed(2)})`
}

/** A rate cell: green when its threshold passed, red when it failed, plain without one (the gate's outcome, not a rule of its own). */
function rateCell(value: number | null, result: ThresholdResult | undefined, c: ChalkInstance, interval: Interval | null | undefined, width: number): string {
  const text = pad(width < RATE_COLUMN ? formatRate(value) : rateWithInterval(value, interval), width, true)
  if (result === undefined || result.notRun) return value === null ? c.dim(text) : text
  return result.pass ? c.green(text) : c.red(text)
}

/** The threshold outcome on a metric in a scope (overall, a suite, a tool), if one was set. */
function resultFor(report: ToolEvalsReport, metric: string, scope: { suite?: string; tool?: string } = {}): ThresholdResult | undefined {
  return report.thresholds.find((t) => t.metric === metric && t.suite === scope.suite && t.tool === scope.tool)
}

function metricsTable(report: ToolEvalsReport, c: ChalkInstance, width: number): string[] {
  const suites = Object.keys(report.suites)
  const metrics = reportedMetrics(report)
  const hasMins = metrics.some((m) => resultFor(report, m) !== undefined)
  const candidates = suites.length > 1 && suites.length <= MAX_SUITE_COLUMNS ? suites : []
  const fit = layout(metrics.map(printable), candidates.length, hasMins ? COLUMN + 5 : 0, width)
  const showSuites = fit.suites ? candidates : []
  const header = ['  ' + pad('metric', fit.name), pad(fit.intervals ? 'all (95% CI)' : 'all', fit.rate, true), ...showSuites.map((s) => pad(printable(s), fit.rate, true))]
  if (hasMins) header.push(pad('min', COLUMN + 4, true))
  const rows = [c.dim(header.join(' '))]
  for (const metric of metrics) {
    const overall = resultFor(report, metric)
    const cells = ['  ' + pad(printable(metric), fit.name), rateCell(report.metrics[metric] ?? null, overall, c, report.metricIntervals?.[metric], fit.rate)]
    for (const s of showSuites) {
      const suite = report.suites[s]
      cells.push(rateCell(suite?.metrics[metric] ?? null, resultFor(report, metric, { suite: s }), c, suite?.metricIntervals?.[metric], fit.rate))
    }
    if (hasMins) {
      const min = overall === undefined ? '' : `${formatRate(overall.min)}${overall.on === 'lower' ? ' (lower)' : ''}`
      cells.push(c.dim(pad(min, COLUMN + 4, true)))
    }
    rows.push(cells.join(' '))
  }
  if (candidates.length > 0 && !fit.suites) rows.push(c.dim('  per-suite rates: JSON report'))
  if (!fit.intervals) rows.push(c.dim('  95% intervals: JSON report'))
  const denominators = `  ${c.dim(`${report.withExpectedCalls} samples expect calls, ${report.noCallExpected} expect none`)}`
  if (suites.length > MAX_SUITE_COLUMNS) rows.push(c.dim(`  ${suites.length} suites: per-suite rates are in the JSON report`))
  return ['', ...rows, denominators, ...scorerLines(report, c)]
}

/** Counts behind the scorer metrics: BFCL verdicts per category, judgements left without a label. */
function scorerLines(report: ToolEvalsReport, c: ChalkInstance): string[] {
  const rows: string[] = []
  if (report.bfcl) {
    const cats = Object.entries(report.bfcl.categories)
    const shown = cats.length > 1 && cats.length <= 8 ? ` (${cats.map(([k, v]) => `${printable(k)} ${v.correct}/${v.total}`).join(', ')})` : ''
    rows.push(`  ${c.dim(`bfcl: ${report.bfcl.correct}/${report.bfcl.total} pass the BFCL checker${shown}`)}`)
  }
  if (report.trajectory) {
    const t = report.trajectory
    const mean = t.meanSteps === null ? '' : ` (mean ${t.meanSteps.toFixed(1)})`
    const matched = t.withExpected > 0 ? `, ${t.matched}/${t.withExpected} match the expected trajectory` : ''
    rows.push(`  ${c.dim(`agent: ${t.samples} run(s), ${t.steps} steps${mean}, ${t.calls} calls, ${t.toolErrors} tool error(s), ${t.stepLimitHit} at the step limit${matched}`)}`)
  }
  const unlabelled = Object.values(report.judge ?? {}).reduce((n, j) => n + (j?.errors ?? 0), 0)
  if (unlabelled > 0) rows.push(`  ${c.yellow(`judge: ${unlabelled} judgement(s) without a label (judge failed or unreadable), left out of the rates`)}`)
  return rows
}

function toolsTable(report: ToolEvalsReport, c: ChalkInstance, width: number): string[] {
  const tools = Object.entries(report.tools).sort((a, b) => b[1].positions - a[1].positions)
  if (tools.length === 0) return []
  const shown = tools.slice(0, MAX_TOOLS)
  // Two rate columns: lay them out as a table of one rate column plus one "suite".
  const fit = layout(shown.map(([name]) => printable(name)), 0, COLUMN + 1 + RATE_COLUMN + 1, width)
  const rate = fit.intervals ? RATE_COLUMN : BARE_RATE_COLUMN
  const rows = [
    '',
    c.dim(`  ${pad('tool', fit.name)} ${pad('calls', COLUMN, true)} ${pad('name', rate, true)} ${pad('args exact', rate, true)}`),
  ]
  for (const [name, t] of shown) {
    const iv = report.toolIntervals?.[name]
    const cell = (metric: 'name_correct' | 'args_exact_match') => rateCell(t[metric], resultFor(report, metric, { tool: name }), c, iv?.[metric], rate)
    rows.push(`  ${pad(printable(name), fit.name)} ${pad(String(t.positions), COLUMN, true)} ${cell('name_correct')} ${cell('args_exact_match')}`)
  }
  if (tools.length > MAX_TOOLS) rows.push(c.dim(`  … ${tools.length - MAX_TOOLS} more tools in the JSON report`))
  return rows
}

function sampleName(s: { suite?: string; id: string }): string {
  return printable(s.suite === undefined ? s.id : `${s.suite} > ${s.id}`)
}

/** An invalid line without an id is named by its location, which its detail starts with too: say it once. */
function withoutId(text: string, id: string): string {
  return text.startsWith(`${id}: `) ? text.slice(id.length + 2) : text
}

function erroredSection(report: ToolEvalsReport, c: ChalkInstance): string[] {
  if (report.errored.count === 0) return []
  const rows = ['', c.red(`  Errored samples (${report.errored.count})`)]
  for (const e of report.errored.samples.slice(0, 10)) rows.push(`  ${c.red('!')} ${sampleName(e)}: ${printable(withoutId(e.detail ?? e.reason, e.id))}`)
  const more = report.errored.count - Math.min(10, report.errored.samples.length)
  if (more > 0) rows.push(c.dim(`  … ${more} more (by reason in the JSON report)`))
  return rows
}

function worstSection(report: ToolEvalsReport, c: ChalkInstance): string[] {
  if (report.worst.length === 0) return []
  const rows = ['', c.bold('  Worst samples')]
  for (const w of report.worst) {
    rows.push(`  ${c.red('✗')} ${sampleName(w)}  ${c.dim(printable(w.failures.join(', ')))}`)
    const expected = w.expected.length === 0 ? ['(no call)'] : w.expected.map((e) => printable(callLine(e, 160)))
    const actual = w.calls.length === 0 ? ['(no call)'] : w.calls.map((k) => printable(callLine(k, 160)))
    expected.forEach((line, i) => rows.push(`      ${c.dim(i === 0 ? 'expected' : '        ')}  ${c.green(line)}`))
    actual.forEach((line, i) => rows.push(`      ${c.dim(i === 0 ? 'actual  ' : '        ')}  ${c.red(line)}`))
  }
  return rows
}

function thresholdSection(report: ToolEvalsReport, c: ChalkInstance): string[] {
  const all = [
    ...report.thresholds.map((t) => ({ ...t, text: describeThreshold(t) })),
    ...(report.maxThresholds ?? []).map((t) => ({ ...t, text: describeMaxThreshold(t) })),
  ]
  if (all.length === 0) return []
  const rows = ['']
  for (const t of all) rows.push(`  ${t.notRun ? c.dim('○') : t.pass ? c.green('✓') : c.red('✗')} ${printable(t.text)}`)
  return rows
}

/** The gate's verdict and every reason for it, as the report states them. */
function verdictSection(report: ToolEvalsReport, c: ChalkInstance): string[] {
  const rows = ['']
  if (report.gate.notGated) rows.push(c.yellow(`  ${printable(report.gate.notGated)}`))
  if (report.pass) {
    const bounds = report.thresholds.length + (report.maxThresholds?.length ?? 0)
    const text = bounds === 0 ? 'The run passes' : report.thresholdsPass ? 'All thresholds pass: the run passes' : 'The run passes (its thresholds are shown, not gated)'
    rows.push(c.green(`  ${text}`))
    return rows
  }
  rows.push(c.red.bold(`  The run fails (${report.gate.reasons.length} reason${report.gate.reasons.length === 1 ? '' : 's'}):`))
  for (const r of report.gate.reasons) rows.push(c.red(`  ✗ ${printable(r.message)}`))
  return rows
}
