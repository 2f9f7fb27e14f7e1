/**
 * The one rule every file of a run follows. Each is written whole: beside it, then renamed over it, so a reader (or a
 * kill mid-write) never meets half a file. From the moment a run starts each file is this run's: at the start it
 * says the run has not finished (the per-sample file, which only a finished run may hold, is removed); a run stopped
 * by a signal rewrites it with what finished; a finished run writes its decided report. So whatever stops a run,
 * SIGKILL included, no file is left saying the last run's verdict.
 *
 * GitHub's step summary is the one file that is not the run's own (every step of a job appends to it): it is only
 * appended to, one whole section per write, when the run ends, finished or interrupted.
 */
import { appendFileSync, rmSync } from 'node:fs'
import { writeFileAtomic } from '../data/write-atomic.js'
import { printable } from '../calls/printable.js'
import { renderComparisonMarkdown } from './compare/render.js'
import { renderHtmlReport, type HtmlSample } from './html.js'
import { renderMarkdown } from './markdown.js'
import type { ToolEvalsReport } from './report.js'


/** A run's report, as the files render it. */
export interface DecidedRun {
  report: ToolEvalsReport
  /** The HTML page's samples (made on first use). */
  htmlSamples(): readonly HtmlSample[]
}

/** The files of one run (absolute paths; each optional). */
export interface RunFilePaths {
  /** The JSON report. */
  json?: string
  /** The per-sample file beside it: written by the reporter from the outcomes before the report (which names it). */
  samples?: string
  html?: string
  /** A Markdown summary of the run's own, replaced like the others. */
  markdown?: string
  /** GitHub's step summary: appended to. */
  stepSummary?: string
}

export function jsonText(report: ToolEvalsReport): string {
  return `${JSON.stringify(report, null, 2)}\n`
}

function markdownText(report: ToolEvalsReport): string {
  return (report.comparison ? `${renderComparisonMarkdown(report.comparison)}\n` : '') + renderMarkdown(report)
}

/** The files the run replaces, each with how its text is made from the run. */
function ownFiles(paths: RunFilePaths): { path: string; what: string; text(run: DecidedRun): string }[] {
  const out: { path: string; what: string; text(run: DecidedRun): string }[] = []
  if (paths.json) out.push({ path: paths.json, what: 'JSON report', text: ({ report }) => jsonText(report) })
  if (paths.html) {
    const html = paths.html
    out.push({ path: html, what: 'HTML report', text: (run) => renderHtmlReport({ report: run.report, samples: run.htmlSamples(), comparison: run.report.comparison }) })
  }
  if (paths.markdown) out.push({ path: paths.markdown, what: 'Markdown summary', text: ({ report }) => markdownText(report) })
  return out
}

/** Append one whole section to the step summary; a summary that cannot be written is said, not fatal. */
function appendStepSummary(path: string, report: ToolEvalsReport, log: (line: string) => void): void {
  try {
    appendFileSync(path, markdownText(report))
  } catch (err) {
    log(`tool-evals: could not write the Markdown summary to ${printable(path)}: ${printable((err as Error).message)}`)
  }
}

/** At run start: every file of the run says it has not finished, and no per-sample file is left. */
export function beginRunFiles(paths: RunFilePaths, unfinished: DecidedRun): void {
  if (paths.samples) rmSync(paths.samples, { force: true })
  for (const f of ownFiles(paths)) writeFileAtomic(f.path, f.text(unfinished))
}

/** A run stopped by a signal: its files hold what finished, marked interrupted; no per-sample file (no baseline). */
export function interruptRunFiles(paths: RunFilePaths, interrupted: DecidedRun, log: (line: string) => void): void {
  beginRunFiles(paths, interrupted)
  if (paths.stepSummary) appendStepSummary(paths.stepSummary, interrupted.report, log)
}

/** A finished run: every file gets the decided report (the per-sample file was written before it, by the reporter). */
export function finishRunFiles(paths: RunFilePaths, run: DecidedRun, log: (line: string) => void): void {
  for (const f of ownFiles(paths)) {
    writeFileAtomic(f.path, f.text(run))
    log(`tool-evals: ${f.what} written to ${f.path}`)
  }
  if (paths.stepSummary) appendStepSummary(paths.stepSummary, run.report, log)
}
