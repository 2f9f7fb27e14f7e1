/**
 * A comparison as text: the pull-request comment (Markdown, `tool-evals compare --format md` and the reporter's
 * `$GITHUB_STEP_SUMMARY` when a baseline is set) and a few terminal lines. The comment leads with the verdict, then
 * per metric base → head, the difference with its interval, p-value and MDE, then the regressed and fixed samples
 * with what changed, then token and latency deltas, then the baseline's commit and age. Lists are capped so a
 * 10,000-sample run stays readable; the cap says how many more there are.
 */
import { printable } from '../../calls/printable.js'
import { mdCode, mdText } from '../markdown-text.js'
import type { Comparison, MetricComparison } from './compare.js'
import { regressions } from './compare.js'

export interface RenderOptions {
  /** Samples listed per list (default 20). */
  maxSamples?: number
  /** Now, for the baseline's age. */
  now?: Date
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`
const signed = (x: number) => `${x >= 0 ? '+' : '−'}${(Math.abs(x) * 100).toFixed(1)}`
const pts = (x: number) => `${signed(x)} pts`
const interval = (ci: [number, number]) => `[${signed(ci[0])}, ${signed(ci[1])}]`

export function formatP(p: number): string {
  if (p < 0.0001) return '<0.0001'
  return p < 0.01 ? p.toPrecision(2) : p.toFixed(3)
}

/**
 * The p-value every view shows, with its label: for a gated metric the one the verdict was decided on, adjusted by
 * the gate's procedure (`0.047 (gate-adj.)`: α split over the gated metrics, each metric's overall scope before its
 * suites); for the others the unadjusted one (`0.047 (unadj.)`). One definition so the terminal, Markdown and HTML
 * agree; P_LEGEND explains both.
 */
export function shownP(m: Pick<MetricComparison, 'pValue' | 'pAdjusted'>): string {
  return m.pAdjusted !== undefined ? `${formatP(m.pAdjusted)} (gate-adj.)` : `${formatP(m.pValue)} (unadj.)`
}

/** The legend for `shownP` and `shownVerdict`, the same in every view. */
export const P_LEGEND =
  'p: one-sided. (gate-adj.): the p-value adjusted for the gate\'s family, the one its verdict used (α split over the gated metrics; a metric\'s suites tested only after its overall scope, sharing its α: a closed weighted-Bonferroni test); 1 for a hypothesis that cannot reject (Tarone). (unadj.): not gated, not adjusted: a metric shown for information, which never fails the run, so its drops read "dropped (not gated)", never "regressed"'

/**
 * The verdict as the views show it: a gated metric's own, and for one not gated what it did, marked: its test is
 * unadjusted and decides nothing, so it never reads "regressed" (nor gets the red mark).
 */
export function shownVerdict(m: Pick<MetricComparison, 'verdict' | 'gated'>): string {
  return m.gated !== false ? m.verdict : `${verdictWord(m)} (not gated)`
}

function verdictWord(m: Pick<MetricComparison, 'verdict' | 'gated'>): string {
  if (m.gated !== false) return m.verdict
  return m.verdict === 'regressed' || m.verdict === 'inconclusive' ? 'dropped' : m.verdict === 'improved' ? 'rose' : 'unchanged'
}

const ICON: Record<MetricComparison['verdict'], string> = { regressed: '❌', inconclusive: '⚠️', improved: '✅', unchanged: '➖' }

/** The mark of a row: a gated verdict's; a metric not gated never gets the red one (its drop is a plain arrow). */
function iconOf(m: MetricComparison): string {
  if (m.gated !== false) return ICON[m.verdict]
  return m.verdict === 'regressed' || m.verdict === 'inconclusive' ? '↘️' : m.verdict === 'improved' ? '↗️' : '➖'
}

/** `regressed` / `inconclusive` / ... over every gated metric and suite: the worst one. */
export function overallVerdict(c: Comparison): string {
  // Incomparable first: the metrics table of such a comparison shows nothing to trust, so no other verdict is given.
  if (c.incomparable.length > 0) return 'not comparable'
  if (!c.pass) return regressions(c).length > 0 ? 'regressed' : 'mustPass samples failed'
  const all = [c.metrics, ...Object.values(c.suites).map((s) => s.metrics)].flatMap((ms) => Object.values(ms)).filter((m) => m.gated)
  if (all.some((m) => m.verdict === 'inconclusive')) return 'inconclusive drop (not significant)'
  if (all.some((m) => m.verdict === 'improved')) return 'improved'
  return 'no regression'
}

function age(time: string | undefined, now: Date): string {
  if (!time) return 'unknown age'
  const ms = now.getTime() - Date.parse(time)
  if (!Number.isFinite(ms)) return 'unknown age'
  const h = ms / 3_600_000
  return h < 1 ? `${Math.max(0, Math.round(ms / 60_000))} min old` : h < 48 ? `${h.toFixed(1)} h old` : `${(h / 24).toFixed(1)} days old`
}

function capped(lines: string[], ids: readonly string[], max: number, line: (id: string) => string): void {
  for (const id of ids.slice(0, max)) lines.push(line(id))
  if (ids.length > max) lines.push(`- … and ${ids.length - max} more`)
}

export function renderComparisonMarkdown(c: Comparison, options: RenderOptions = {}): string {
  const max = options.maxSamples ?? 20
  const now = options.now ?? new Date()
  const lines: string[] = []
  const verdict = overallVerdict(c)
  lines.push(`## Tool evals vs baseline: ${c.pass ? '✅' : '❌'} ${verdict}`, '')
  if (c.incomparable.length > 0) lines.push('**Not comparable**, so this run cannot pass the gate:', '', ...c.incomparable.map((r) => `- ${mdText(r)}`), '')
  const failing = regressions(c)
  if (failing.length > 0) lines.push(`**Regressed** (significant at α=${c.options.alpha} after the gate's adjustment, drop ≥ ${pts(c.options.minDrop).slice(1)}): ${failing.map(mdText).join(', ')}`, '')
  if (c.mustPassFailed.length > 0) lines.push(`**mustPass samples now wrong** (${c.mustPassFailed.length}): ${c.mustPassFailed.slice(0, max).map(mdText).join(', ')}${c.mustPassFailed.length > max ? `, … and ${c.mustPassFailed.length - max} more` : ''}`, '')
  for (const w of c.warnings) lines.push(`> ⚠️ ${mdText(w)}`)
  if (c.warnings.length > 0) lines.push('')

  lines.push('| | metric | base → head | Δ (95% CI) | p | MDE | n |', '| --- | --- | --- | --- | ---: | ---: | ---: |')
  for (const [name, m] of Object.entries(c.metrics)) lines.push(metricRow(name, m))
  const suiteRows: string[] = []
  for (const [suite, s] of Object.entries(c.suites)) {
    for (const [name, m] of Object.entries(s.metrics)) if (m.verdict !== 'unchanged') suiteRows.push(metricRow(`${suite}: ${name}`, m))
  }
  if (Object.keys(c.suites).length > 1 && suiteRows.length > 0) {
    lines.push('', '<details><summary>Per suite (changed metrics)</summary>', '')
    lines.push('| | metric | base → head | Δ (95% CI) | p | MDE | n |', '| --- | --- | --- | --- | ---: | ---: | ---: |')
    lines.push(...suiteRows.slice(0, 200))
    if (suiteRows.length > 200) lines.push(`| | … and ${suiteRows.length - 200} more | | | | | |`)
    lines.push('', '</details>')
  }
  lines.push('', `${P_LEGEND}. Tests: exact McNemar for 0/1 metrics of single samples, over dialogues an exact sign-flip test or a clustered t, paired t for fractions. MDE: the drop the gate flags as regressed with 80% power at the level its procedure holds the test to (α=${c.options.alpha}).`)

  const s = c.samples
  lines.push('', `Samples: ${s.regressed.length} regressed · ${s.improved.length} fixed · ${s.added.length} added · ${s.removed.length} removed · ${s.changedCalls} with changed calls${notScored(s, ' · ')}`)
  if (s.regressed.length > 0) {
    lines.push('', `<details open><summary>Regressed samples (${s.regressed.length})</summary>`, '')
    capped(lines, s.regressed, max, (id) => sampleLine(c, id))
    lines.push('', '</details>')
  }
  if (s.improved.length > 0) {
    lines.push('', `<details><summary>Fixed samples (${s.improved.length})</summary>`, '')
    capped(lines, s.improved, max, (id) => sampleLine(c, id))
    lines.push('', '</details>')
  }
  for (const [label, ids] of [['Skipped in this run (not compared)', s.headSkipped ?? []], ['Errored in this run (not compared)', s.headErrored ?? []], ['Added', s.added], ['Removed', s.removed]] as const) {
    if (ids.length === 0) continue
    lines.push('', `<details><summary>${label} samples (${ids.length})</summary>`, '')
    capped(lines, ids, max, (id) => `- ${mdText(id)}`)
    lines.push('', '</details>')
  }

  const usage = Object.entries(c.usage)
  if (usage.length > 0) {
    lines.push('', '| usage (mean per sample) | base | head | Δ |', '| --- | ---: | ---: | ---: |')
    for (const [k, u] of usage) lines.push(`| ${mdText(k)} | ${num(u.base)} | ${num(u.head)} | ${u.delta >= 0 ? '+' : ''}${num(u.delta)} (${u.base === 0 ? 'n/a' : `${u.delta >= 0 ? '+' : ''}${((u.delta / u.base) * 100).toFixed(1)}%`}) |`)
  }

  const meta = c.base.meta
  const commit = meta?.git?.commit ? meta.git.commit.slice(0, 12) : 'unknown commit'
  lines.push('', `Baseline: ${mdText(c.base.file ?? 'report')} · ${commit}${meta?.git?.branch ? ` (${mdText(meta.git.branch)})` : ''} · ${age(meta?.time, now)}`, '')
  return lines.join('\n')
}

/** The paired samples this run did not score (absent in comparisons saved before they were counted). */
function notScored(s: Comparison['samples'], sep: string): string {
  const skipped = s.headSkipped?.length ?? 0
  const errored = s.headErrored?.length ?? 0
  return `${skipped > 0 ? `${sep}${skipped} skipped in this run (not compared)` : ''}${errored > 0 ? `${sep}${errored} errored in this run (not compared)` : ''}`
}

function num(x: number): string {
  return Math.abs(x) >= 100 ? x.toFixed(0) : x.toFixed(2)
}

function metricRow(name: string, m: MetricComparison): string {
  const p = shownP(m)
  return `| ${iconOf(m)} | ${mdText(name)}${m.gated ? '' : ' (not gated)'} | ${pct(m.base)} → ${pct(m.head)} | ${pts(m.delta)} ${interval(m.ci)} | ${p} | ${m.mde === null ? '–' : pts(m.mde).slice(1)} | ${m.n} |`
}

function sampleLine(c: Comparison, id: string): string {
  const d = c.details[id]
  if (!d) return `- ${mdText(id)}`
  const parts = [`- **${mdText(id)}**${d.failures.length > 0 ? ` (${mdText(d.failures.join(', '))})` : ''}`]
  if (d.expected !== undefined) parts.push(`  - expected: ${mdCode(d.expected)}`)
  if (d.base !== undefined) parts.push(`  - base: ${mdCode(d.base)}`)
  if (d.head !== undefined) parts.push(`  - head: ${mdCode(d.head)}`)
  return parts.join('\n')
}

/** A few terminal lines: the verdict, the metrics that moved, warnings. */
export function renderComparisonText(c: Comparison): string {
  const lines = [`tool-evals baseline comparison: ${c.pass ? 'pass' : 'FAIL'} (${overallVerdict(c)})`]
  for (const r of c.incomparable) lines.push(`  not comparable: ${printable(r)}`)
  for (const [name, m] of Object.entries(c.metrics)) {
    lines.push(`  ${verdictWord(m).padEnd(12)} ${printable(name)}${m.gated !== false ? '' : ' (not gated)'}: ${pct(m.base)} → ${pct(m.head)} (${pts(m.delta)} ${interval(m.ci)}, p=${shownP(m)}, MDE ${m.mde === null ? '–' : pts(m.mde).slice(1)}, n=${m.n})`)
  }
  for (const [suite, s] of Object.entries(c.suites)) {
    for (const [name, m] of Object.entries(s.metrics)) if (m.gated && (m.verdict === 'regressed' || m.verdict === 'inconclusive')) lines.push(`  ${m.verdict.padEnd(12)} ${printable(suite)}: ${printable(name)} (${pts(m.delta)}, p=${shownP(m)})`)
  }
  const s = c.samples
  lines.push(`  samples: ${s.regressed.length} regressed, ${s.improved.length} fixed, ${s.added.length} added, ${s.removed.length} removed, ${s.changedCalls} with changed calls${notScored(s, ', ')}`)
  if (c.mustPassFailed.length > 0) lines.push(`  mustPass samples now wrong: ${c.mustPassFailed.slice(0, 20).map(printable).join(', ')}${c.mustPassFailed.length > 20 ? ` … and ${c.mustPassFailed.length - 20} more` : ''}`)
  for (const w of c.warnings) lines.push(`  warning: ${printable(w)}`)
  lines.push(`  ${P_LEGEND}`)
  return lines.join('\n')
}
