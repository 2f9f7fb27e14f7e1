/**
 * The HTML report (`htmlFile`): one self-contained file that opens from disk with no server and no network. The
 * data goes in as inline JSON (`<script type="application/json">`), the page script and styles are inlined, and
 * the page draws everything with plain DOM and SVG (no framework, no chart library): metric cards with 95% Wilson
 * intervals (each `n` from the report's `metricCounts`), per-suite and per-tool tables, failure categories, a
 * confusion matrix of expected against predicted tool names, and a sample browser (filters, prompt, raw output,
 * call diff; a fully right sample's one line of calls).
 *
 * Its input is narrow on purpose (`HtmlReportInput`): the final JSON report and one small record per sample, so the
 * reporter hands over what it already has and nothing here depends on how the run was collected.
 */
import type { EvalMeta, StoredCall } from '../eval/meta.js'
import { FAILURE_CATEGORIES, NEMO_METRICS } from '../score/types.js'
import type { ExpectedCall, RunMetric } from '../score/types.js'
import { wilsonInterval, type Interval } from '../score/intervals.js'
import { PAGE_CSS, PAGE_SCRIPT } from './html-page.js'
import { reportedMetrics, type SuiteReport, type ToolEvalsReport } from './report.js'
import type { Comparison, MetricComparison } from './compare/compare.js'
import { P_LEGEND, shownP, shownVerdict } from './compare/render.js'
import { matrixForPage } from './matrix-render.js'

/** One sample as the HTML report shows it. */
export interface HtmlSample {
  id: string
  suite?: string
  /** Why the sample errored (it then counts as no prediction) or was skipped; absent when it was scored. */
  error?: string
  skipped?: string
  /** Failure categories (empty: fully right). */
  failures: string[]
  /** NeMo's per-sample values, when scored. */
  metrics?: Record<string, number>
  /** Per expected position: the expected tool name and the aligned prediction's (absent: none). */
  positions?: { expected: string; predicted?: string }[]
  expected?: ExpectedCall[]
  calls?: StoredCall[]
  /** A fully right sample's calls as one line (its meta keeps this instead of the lists: see EvalMeta.rightCalls). */
  rightCalls?: string
  /** The record says calls were expected but the meta kept no calls to show (the page says so, not "no call"). */
  callsNotKept?: true
  /** The raw output as stored (already cut short by describeEval). */
  output?: string
  /** The prompt as stored (the last user message), when the run kept it. */
  prompt?: string
  /** The full error message of an errored sample. */
  detail?: string
}

export interface HtmlReportInput {
  report: ToolEvalsReport
  samples: readonly HtmlSample[]
  /** Page title (default "Tool evals report"). */
  title?: string
  /**
   * The baseline comparison (the report's `comparison`: paired deltas with intervals, flipped samples): the page
   * draws it (`renderComparison`) when this is set, and keeps the panel hidden otherwise.
   */
  comparison?: unknown
}

/** A rate with its 95% interval over `n` trials (`null`s when there is no denominator; `n` null: not known). */
export interface RateWithInterval {
  value: number | null
  n: number | null
  lo: number | null
  hi: number | null
}

export { wilsonInterval }

/**
 * A rate with its interval: the report's own (`given`, clustered where samples cluster) when it has one, else
 * Wilson's over `n`. With no known `n` (a report without `metricCounts`) there is no made-up interval either.
 */
export function rateWithInterval(value: number | null | undefined, n: number | null | undefined, given?: Interval | null): RateWithInterval {
  const count = typeof n === 'number' ? n : null
  if (value === null || value === undefined || count === null || !(count > 0)) return { value: value ?? null, n: count, lo: null, hi: null }
  if (given) return { value, n: count, lo: given[0], hi: given[1] }
  const ci = wilsonInterval(value, count)
  return { value, n: count, lo: ci?.lo ?? null, hi: ci?.hi ?? null }
}

/** Each metric's rate with its interval, `n` read from the scope's `metricCounts` (what each scorer declared). */
function metricsWithIntervals(metrics: RunMetric[], scope: SuiteReport | ToolEvalsReport): Record<string, RateWithInterval> {
  const out: Record<string, RateWithInterval> = {}
  for (const m of metrics) out[m] = rateWithInterval(scope.metrics[m], scope.metricCounts?.[m], scope.metricIntervals?.[m])
  return out
}

/** Label of "no call" in the confusion matrix: no prediction at an expected position, or no call expected. */
export const NO_CALL = '(no call)'

/**
 * Expected × predicted tool-name counts: per expected position, plus predictions no position took, plus right
 * abstentions as (no call) × (no call).
 */
export interface ConfusionMatrix {
  expected: string[]
  predicted: string[]
  /** counts[i][j]: expected[i] predicted as predicted[j]. */
  counts: number[][]
}

export function confusionMatrix(samples: readonly HtmlSample[]): ConfusionMatrix {
  const cells = new Map<string, Map<string, number>>()
  const bump = (e: string, p: string) => {
    let row = cells.get(e)
    if (!row) cells.set(e, (row = new Map()))
    row.set(p, (row.get(p) ?? 0) + 1)
  }
  for (const s of samples) {
    if (s.skipped !== undefined) continue
    // A right abstention: no call expected and none made (an errored sample made none because it failed).
    if (!s.positions?.length && !s.calls?.length && s.error === undefined) bump(NO_CALL, NO_CALL)
    const taken = new Map<string, number>()
    for (const pos of s.positions ?? []) {
      bump(pos.expected, pos.predicted ?? NO_CALL)
      if (pos.predicted !== undefined) taken.set(pos.predicted, (taken.get(pos.predicted) ?? 0) + 1)
    }
    // Calls that no expected position took (extra calls, or a call where none was expected).
    for (const c of s.calls ?? []) {
      const left = taken.get(c.name) ?? 0
      if (left > 0) taken.set(c.name, left - 1)
      else bump(NO_CALL, c.name)
    }
  }
  const expected = [...cells.keys()].sort(byNameNoCallLast)
  const predictedSet = new Set<string>()
  for (const row of cells.values()) for (const p of row.keys()) predictedSet.add(p)
  const predicted = [...predictedSet].sort(byNameNoCallLast)
  const counts = expected.map((e) => predicted.map((p) => cells.get(e)?.get(p) ?? 0))
  return { expected, predicted, counts }
}

function byNameNoCallLast(a: string, b: string): number {
  if (a === NO_CALL) return b === NO_CALL ? 0 : 1
  if (b === NO_CALL) return -1
  return a < b ? -1 : a > b ? 1 : 0
}

/** The sample fields the page reads, with short keys (the file holds up to tens of thousands of them). */
interface PageSample {
  i: string
  s: number
  e?: string
  k?: string
  f: number[]
  m?: number[]
  x?: ExpectedCall[]
  c?: StoredCall[]
  /** rightCalls; `nk`: callsNotKept. */
  r?: string
  nk?: 1
  o?: string
  p?: string
  d?: string
  pos?: [string, string | null][]
}

function pageSample(s: HtmlSample, suiteIndex: number): PageSample {
  const out: PageSample = { i: s.id, s: suiteIndex, f: s.failures.map((f) => FAILURE_CATEGORIES.indexOf(f as never)) }
  if (s.error !== undefined) out.e = s.error
  if (s.skipped !== undefined) out.k = s.skipped
  if (s.metrics) out.m = NEMO_METRICS.map((k) => s.metrics?.[k] ?? 0)
  if (s.expected?.length) out.x = s.expected
  if (s.calls?.length) out.c = s.calls
  if (s.rightCalls !== undefined) out.r = s.rightCalls
  if (s.callsNotKept) out.nk = 1
  if (s.output !== undefined) out.o = s.output
  if (s.prompt !== undefined) out.p = s.prompt
  if (s.detail !== undefined) out.d = s.detail
  if (s.positions?.length) out.pos = s.positions.map((p) => [p.expected, p.predicted ?? null])
  return out
}

/** Sample ids in natural order (`s2` before `s10`), the same everywhere. */
const ID_ORDER = new Intl.Collator('en', { numeric: true })

/** Everything the page draws, computed here so the page only lays it out (and tests can check it directly). */
export function htmlReportData(input: HtmlReportInput) {
  const { report } = input
  const metrics = reportedMetrics(report)
  const suiteNames = Object.keys(report.suites)
  for (const s of input.samples) if (!suiteNames.includes(s.suite ?? '(no suite)')) suiteNames.push(s.suite ?? '(no suite)')
  const suiteIndex = new Map(suiteNames.map((n, i) => [n, i]))
  const { worst: _worst, errored, ...rest } = report
  return {
    v: 1,
    title: input.title ?? 'Tool evals report',
    report: { ...rest, errored: { count: errored.count, byReason: errored.byReason } },
    metricNames: metrics,
    cards: metricsWithIntervals(metrics, report),
    suites: suiteNames.map((name) => {
      const suite = report.suites[name]
      return suite ? { name, samples: suite.samples, scored: suite.scored, errored: suite.errored.count, skipped: suite.skipped.count, failures: suite.failures, metrics: metricsWithIntervals(metrics, suite) } : { name }
    }),
    tools: Object.entries(report.tools)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, t]) => ({
        name,
        positions: t.positions,
        name_correct: rateWithInterval(t.name_correct, t.positions, report.toolIntervals?.[name]?.name_correct),
        args_exact_match: rateWithInterval(t.args_exact_match, t.positions, report.toolIntervals?.[name]?.args_exact_match),
      })),
    failureNames: [...FAILURE_CATEGORIES],
    nemoMetrics: [...NEMO_METRICS],
    confusion: confusionMatrix(input.samples),
    samples: input.samples
      .map((s) => pageSample(s, suiteIndex.get(s.suite ?? '(no suite)') ?? 0))
      .sort((a, b) => a.s - b.s || ID_ORDER.compare(a.i, b.i)),
    comparison: comparisonForPage(input.comparison),
    models: matrixForPage(report.models),
  }
}

/** The comparison as the page shows it: each metric's p-value and verdict already written as every view writes them. */
function comparisonForPage(c: unknown): unknown {
  if (typeof c !== 'object' || c === null || typeof (c as Comparison).metrics !== 'object') return c ?? null
  const comparison = c as Comparison
  const metrics: Record<string, MetricComparison & { pShown: string; verdictShown: string }> = {}
  for (const [name, m] of Object.entries(comparison.metrics)) metrics[name] = { ...m, pShown: shownP(m), verdictShown: shownVerdict(m) }
  return { ...comparison, metrics, pLegend: P_LEGEND }
}

/**
 * JSON that is safe inside a `<script>` element: every `<` is written as `\u003c` (so neither `</script` nor
 * `<!--` can appear), and U+2028/U+2029 are escaped too. `JSON.parse` reads it back unchanged.
 */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029')
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;'))
}

/** The whole page as one string. */
export function renderHtmlReport(input: HtmlReportInput): string {
  const data = htmlReportData(input)
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>${escapeHtml(data.title)}</title>
<style>${PAGE_CSS}</style>
</head>
<body>
<noscript>This report needs JavaScript to draw its tables; the data is in the page source.</noscript>
<script type="application/json" id="tool-evals-data">${scriptSafeJson(data)}</script>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`
}

/** The HTML report's view of one test case's meta (what the reporter already collects). */
export function htmlSampleFromMeta(meta: EvalMeta): HtmlSample {
  const { record } = meta
  const s: HtmlSample = { id: record.id, failures: record.score && record.error === undefined ? [...record.score.failures] : [] }
  if (record.suite !== undefined) s.suite = record.suite
  if (record.error !== undefined) s.error = record.error
  if (record.skipped !== undefined) s.skipped = record.skipped
  if (record.score && record.skipped === undefined) {
    s.metrics = { ...record.score.metrics }
    s.positions = record.score.positions.map((p) => (p.predicted === undefined ? { expected: p.expected } : { expected: p.expected, predicted: p.predicted }))
  }
  if (meta.expected) s.expected = meta.expected
  if (meta.calls) s.calls = meta.calls
  // The line stands for the calls only while the record is fully right (with trials, an errored trial's record wins).
  const right = record.error === undefined && record.skipped === undefined && record.score !== undefined && record.score.failures.length === 0
  if (meta.rightCalls !== undefined && right) s.rightCalls = meta.rightCalls
  else if (record.skipped === undefined && record.score?.positions.length && !meta.expected && !meta.calls) s.callsNotKept = true
  if (meta.output !== undefined) s.output = meta.output
  if (meta.prompt !== undefined) s.prompt = meta.prompt
  if (meta.detail !== undefined) s.detail = meta.detail
  return s
}
