/**
 * The Markdown summary (GitHub Actions' `$GITHUB_STEP_SUMMARY`): rates and threshold verdicts as tables, the
 * worst samples folded away.
 */
import { callLine } from '../calls/format.js'
import { mdText } from './markdown-text.js'
import { reportedMetrics, type ToolEvalsReport } from './report.js'
import { snapshotMarkdown } from './snapshots.js'
import { describeThreshold, formatRate } from './thresholds.js'
import { usageMarkdownRows } from './usage-render.js'
import { matrixMarkdownLines } from './matrix-render.js'
import { describeMaxThreshold } from './usage-thresholds.js'

export function renderMarkdown(report: ToolEvalsReport): string {
  const lines: string[] = []
  lines.push(`## Tool evals ${report.pass ? '✅' : '❌'}`, '')
  const counts = [`${report.samples} samples`]
  if (report.errored.count > 0) counts.push(`${report.errored.count} errored`)
  if (report.skipped.count > 0) counts.push(`${report.skipped.count} skipped`)
  lines.push(counts.join(' · '), '')
  if (!report.pass) {
    lines.push(`**The run fails** (${report.gate.reasons.length} reason${report.gate.reasons.length === 1 ? '' : 's'}):`, '')
    for (const r of report.gate.reasons) lines.push(`- ${mdText(r.message)}`)
    lines.push('')
  }
  if (report.gate.notGated) lines.push(`> ${mdText(report.gate.notGated)}`, '')
  if (report.partial) {
    const p = report.partial
    const why = p.reason === 'filter' ? `a selection: ${(p.selection ?? []).join(', ')}` : p.reason === 'bail' ? 'stopped by --bail' : 'interrupted'
    lines.push(`**Partial run** (${mdText(why)}): ${p.ran} of ${p.planned} planned test cases ran.`, '')
  }

  const suites = Object.keys(report.suites)
  const showSuites = suites.length > 1 ? suites : []
  lines.push(`| metric | all |${showSuites.map((s) => ` ${mdText(s)} |`).join('')} 95% CI (all) |`)
  lines.push(`| --- | ---: |${showSuites.map(() => ' ---: |').join('')} ---: |`)
  for (const m of reportedMetrics(report)) {
    const suiteCells = showSuites.map((s) => ` ${formatRate(report.suites[s]?.metrics[m] ?? null)} |`).join('')
    const ci = report.metricIntervals?.[m]
    lines.push(`| ${mdText(m)} | ${formatRate(report.metrics[m] ?? null)} |${suiteCells} ${ci ? `${ci[0].toFixed(3)}–${ci[1].toFixed(3)}` : '—'} |`)
  }
  if (report.trials) {
    const t = report.trials
    lines.push('', `Trials: ${t.count} per sample · ${t.unstable} of ${t.samples} samples unstable (${(t.unstableShare * 100).toFixed(1)}%) · mean flip rate ${t.meanFlipRate.toFixed(3)}`)
  }
  lines.push(...usageMarkdownRows(report.usage, showSuites.map((s) => report.suites[s]?.usage)))
  if (report.bfcl) {
    const cats = Object.entries(report.bfcl.categories).map(([k, v]) => `${mdText(k)} ${v.correct}/${v.total}`)
    lines.push('', `BFCL checker: ${report.bfcl.correct}/${report.bfcl.total} pass${cats.length > 1 ? ` (${cats.join(', ')})` : ''}`)
  }

  const bounds = report.maxThresholds ?? []
  if (report.thresholds.length + bounds.length > 0) {
    lines.push('', '| | threshold |', '| --- | --- |')
    for (const t of report.thresholds) lines.push(`| ${t.pass ? '✅' : '❌'} | ${mdText(describeThreshold(t))} |`)
    for (const t of bounds) lines.push(`| ${t.pass ? '✅' : '❌'} | ${mdText(describeMaxThreshold(t))} |`)
  }

  if (report.models) lines.push(...matrixMarkdownLines(report.models))
  lines.push(...snapshotMarkdown(report))

  const failures = Object.entries(report.failures).filter(([, n]) => n > 0)
  if (failures.length > 0) lines.push('', `Failures: ${failures.map(([k, n]) => `${mdText(k)} ${n}`).join(', ')}`)

  if (report.errored.count > 0) {
    lines.push('', `<details><summary>Errored samples (${report.errored.count})</summary>`, '')
    for (const e of report.errored.samples.slice(0, 50)) {
      lines.push(`- **${mdText(e.suite ? `${e.suite} > ${e.id}` : e.id)}**: ${mdText(e.detail ?? e.reason)}`)
    }
    lines.push('', '</details>')
  }
  if (report.worst.length > 0) {
    lines.push('', '<details><summary>Worst samples</summary>', '')
    for (const w of report.worst) {
      lines.push(`- **${mdText(w.suite ? `${w.suite} > ${w.id}` : w.id)}** (${mdText(w.failures.join(', '))})`)
      const expected = w.expected.length === 0 ? '(no call)' : w.expected.map((e) => callLine(e, 160)).join('; ')
      const actual = w.calls.length === 0 ? '(no call)' : w.calls.map((k) => callLine(k, 160)).join('; ')
      lines.push(`  - expected: ${mdText(expected)}`, `  - actual: ${mdText(actual)}`)
    }
    lines.push('', '</details>')
  }
  lines.push('')
  return lines.join('\n')
}
