/**
 * The gate: the one place that decides whether a run passes. It reads only the built report (every fact it needs is
 * a report field), writes `pass`, `thresholdsPass` and `gate`, and lists every reason the run fails, so the terminal,
 * the JSON and per-sample files, Markdown, HTML, GitHub annotations and the exit code render one verdict and
 * cannot disagree with it. `test/unit/reporter/gate.test.ts` checks that no other source file writes a report's `pass`.
 *
 * A filtered run (`-t`, some files, `--shard`, a watch rerun) measures rates on a part of the suite: its thresholds
 * and regression verdicts are shown but not gated (a rate over one sample says nothing); what a filter can honestly
 * gate still is: failed tests (errored samples, `strict`, `assert`), `mustPass` samples gone wrong, Vitest's errors.
 */
import { regressions } from './compare/compare.js'
import { matrixGateFailures } from './matrix.js'
import type { Gate, GateReason, GateReasonKind, ToolEvalsReport, UndecidedReport } from './report.js'

export type { Gate, GateReason, GateReasonKind } from './report.js'
import { describeThreshold } from './thresholds.js'
import { describeMaxThreshold } from './usage-thresholds.js'

/** The reasons the run fails, from the report's facts; empty when it passes. */
export function gateReasons(report: UndecidedReport): { reasons: GateReason[]; notGated?: string } {
  const reasons: GateReason[] = []
  const add = (kind: GateReasonKind, message: string) => reasons.push({ kind, message })
  const partial = report.partial
  if (report.interrupted || partial?.reason === 'interrupted') {
    add('interrupted', `the run was interrupted: ${partial?.ran ?? 0} of ${partial?.planned ?? 0} planned test case(s) finished`)
  } else if (partial?.reason === 'bail') {
    add('bail', `the run stopped at --bail: ${partial.ran} of ${partial.planned} planned test case(s) ran`)
  }
  for (const e of report.runErrors ?? []) add('run_error', `Vitest reported an error: ${e}`)
  for (const f of report.unfinishedFiles ?? []) add('file_unfinished', `${f} did not finish (its worker exited or it failed to load): its samples are missing`)
  if (!report.testsPass) {
    const n = report.failedTests
    add('tests_failed', n === undefined || n === 0 ? 'the test run failed' : `${n} test(s) failed (errored samples, strict, assert or other tests)`)
  }
  const filtered = partial?.reason === 'filter'
  if (!filtered) {
    for (const t of report.thresholds) if (!t.pass) add('threshold', describeThreshold(t))
    for (const b of report.maxThresholds ?? []) if (!b.pass) add('usage_bound', describeMaxThreshold(b))
  }
  if (report.baselineError) add('baseline', `baseline ${report.baselineError.file} cannot be used: ${report.baselineError.message}`)
  const c = report.comparison
  if (c) {
    if (c.incomparable?.length) add('baseline', `baseline ${c.base.file ?? ''} cannot be compared: ${c.incomparable.join('; ')}`)
    const regressed = regressions(c)
    if (regressed.length > 0 && !filtered) add('regression', `regressed against the baseline: ${regressed.join(', ')}`)
    if (c.mustPassFailed.length > 0) add('must_pass', `mustPass samples now wrong: ${c.mustPassFailed.join(', ')}`)
  }
  if (report.models) {
    const failed = matrixGateFailures(report.models)
    if (!filtered) {
      for (const w of failed.worse) add('model_worse', w)
      for (const { model, result } of failed.thresholds) add('threshold', `${model}: ${describeThreshold(result)}`)
      for (const u of failed.unknown) add('threshold', u)
    }
  }
  if (!filtered) return { reasons }
  const what = (partial.selection ?? []).join(', ') || 'a selection'
  return { reasons, notGated: `filtered run (${what}): thresholds and regression verdicts are shown, not gated; failed tests, mustPass samples and errors still fail it` }
}

/** Decide the run: the only writer of a report's `pass`, `thresholdsPass` and `gate`. */
export function applyGate(undecided: UndecidedReport): ToolEvalsReport {
  const { reasons, notGated } = gateReasons(undecided)
  const gate: Gate = { pass: reasons.length === 0, reasons }
  if (notGated !== undefined) gate.notGated = notGated
  const report = undecided as ToolEvalsReport
  report.thresholdsPass = report.thresholds.every((t) => t.pass) && (report.maxThresholds ?? []).every((b) => b.pass)
  report.pass = gate.pass
  report.gate = gate
  return report
}

/** The title of a reason's GitHub error annotation (the README documents `tool-evals threshold failed`). */
export function reasonTitle(kind: GateReasonKind): string {
  if (kind === 'threshold' || kind === 'usage_bound') return 'tool-evals threshold failed'
  if (kind === 'regression' || kind === 'must_pass' || kind === 'baseline' || kind === 'model_worse') return 'tool-evals regression'
  return 'tool-evals gate failed'
}
