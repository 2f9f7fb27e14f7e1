/**
 * The report's views, each behind one small interface: a writer takes the decided run and renders it (a file, the
 * terminal, GitHub annotations). None of them computes a verdict or a rate: they read the report (and the HTML page
 * its per-sample view), so none can disagree with the gate.
 */
import { appendFileSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { printable } from '../calls/printable.js'
import { renderComparisonMarkdown, renderComparisonText } from './compare/render.js'
import { githubError, inGitHubActions } from './github.js'
import { reasonTitle } from './gate.js'
import { writeHtmlReport, type HtmlSample } from './html.js'
import { renderMarkdown } from './markdown.js'
import type { ToolEvalsReport } from './report.js'
import type { PartialRun } from './run-scope.js'
import { renderSummary, type SummaryOptions } from './terminal.js'

/** A decided run, as the writers receive it. */
export interface DecidedRun {
  report: ToolEvalsReport
  /** The HTML page's samples (made on first use). */
  htmlSamples(): readonly HtmlSample[]
}

export interface ReportWriter {
  write(run: DecidedRun): void
}

/** Write beside and rename: a reader (or a kill mid-write) never sees half a file. */
export function writeAtomically(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true })
  const tmp = `${path}.${process.pid}.tmp`
  writeFileSync(tmp, text)
  renameSync(tmp, path)
}

export function jsonText(report: ToolEvalsReport): string {
  return `${JSON.stringify(report, null, 2)}\n`
}

/** The JSON report (`outputFile`). */
export function jsonWriter(path: string, log: (line: string) => void): ReportWriter {
  return {
    write({ report }) {
      writeAtomically(path, jsonText(report))
      log(`tool-evals: JSON report written to ${path}`)
    },
  }
}

/** Remove a file left by an earlier run (a stale per-sample file must not sit beside a report that is not its own). */
export function removeStale(path: string): void {
  rmSync(path, { force: true })
}

export function htmlWriter(path: string, log: (line: string) => void): ReportWriter {
  return {
    write(run) {
      writeHtmlReport(path, { report: run.report, samples: run.htmlSamples(), comparison: run.report.comparison })
      log(`tool-evals: HTML report written to ${path}`)
    },
  }
}

/** The Markdown summary, appended (GitHub's `$GITHUB_STEP_SUMMARY` is one file per step that several tools append to). */
export function markdownWriter(path: string, log: (line: string) => void): ReportWriter {
  return {
    write({ report }) {
      try {
        const comparison = report.comparison ? `${renderComparisonMarkdown(report.comparison)}\n` : ''
        appendFileSync(path, comparison + renderMarkdown(report))
      } catch (err) {
        log(`tool-evals: could not write the Markdown summary to ${printable(path)}: ${printable((err as Error).message)}`)
      }
    },
  }
}

/** `partial run (bail): 3 of 10 planned test cases ran`: one line for the terminal. */
export function describePartial(p: PartialRun): string {
  const what = p.reason === 'filter' ? `partial run (${(p.selection ?? []).join(', ')})` : `partial run (${p.reason})`
  return `${what}: ${p.ran} of ${p.planned} planned test case(s) ran; thresholds whose scope did not run are "not run"`
}

/** The terminal: the summary (with the verdict and its reasons), the partial-run line, the comparison. */
export function terminalWriter(log: (text: string) => void, options: Omit<SummaryOptions, 'thresholds'> & { summary: boolean }): ReportWriter {
  return {
    write({ report }) {
      if (options.summary) log(renderSummary(report, options))
      else if (!report.pass) log(`tool-evals: the run fails: ${report.gate.reasons.map((r) => printable(r.message)).join('; ')}`)
      if (report.partial) log(`tool-evals: ${printable(describePartial(report.partial))}`)
      if (report.comparison) log(renderComparisonText(report.comparison))
    },
  }
}

/**
 * GitHub Actions: one error annotation per reason the run fails, then (when annotations of a kind pass the 10 GitHub
 * shows per step) a notice saying where the rest are.
 */
export function githubWriter(log: (line: string) => void, overflowNotice: () => string | false | undefined = () => undefined, env: NodeJS.ProcessEnv = process.env): ReportWriter {
  return {
    write({ report }) {
      if (!inGitHubActions(env)) return
      for (const r of report.gate.reasons) log(githubError(reasonTitle(r.kind), r.message))
      const notice = overflowNotice()
      if (notice) log(notice)
    },
  }
}
