/**
 * The report's views on the process's output, each behind one small interface: a writer takes the decided run and
 * renders it (the terminal, GitHub annotations). The files are run-files.ts's. None of them computes a verdict or a
 * rate: they read the report, so none can disagree with the gate.
 */
import { printable } from '../calls/printable.js'
import { renderComparisonText } from './compare/render.js'
import { githubError, inGitHubActions } from './github.js'
import { reasonTitle } from './gate.js'
import type { DecidedRun } from './run-files.js'
import type { PartialRun } from './run-scope.js'
import { renderSummary, type SummaryOptions } from './terminal.js'

export interface ReportWriter {
  write(run: DecidedRun): void
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
