/**
 * The model matrix as each view shows it (the report's `models`, decided already): the sentences a pull-request
 * comment needs ("sft_1000 beats base on args_exact_match by 6.1 points, p = 0.003 (Holm)"), the terminal's compact
 * leaderboard, the Markdown tables (every metric per model with its interval, failure categories, confusions), and
 * the page's section (`MATRIX_PAGE_FUNCTIONS`, spliced into the HTML page's script). One wording for all of them.
 */
import type { ChalkInstance } from 'chalk'
import { printable } from '../calls/printable.js'
import { FAILURE_CATEGORIES } from '../score/types.js'
import { formatP } from './compare/render.js'
import { mdCode, mdText } from './markdown-text.js'
import type { ModelMatrixReport, ModelMetricComparison } from './matrix.js'
import { formatRate } from './thresholds.js'

const points = (delta: number) => `${(Math.abs(delta) * 100).toFixed(1)} points`
const signedPoints = (delta: number) => `${delta >= 0 ? '+' : '−'}${(Math.abs(delta) * 100).toFixed(1)}`

/** The p-value a model verdict used: Holm-adjusted over the family for gated metrics. */
export function modelP(r: Pick<ModelMetricComparison, 'pValue' | 'pAdjusted'>): string {
  return r.pAdjusted !== undefined ? `p = ${formatP(r.pAdjusted)} (Holm)` : `p = ${formatP(r.pValue)}`
}

/** One sentence per significant difference, and one per model no gated metric tells apart from the reference. */
export function matrixSentences(m: ModelMatrixReport): string[] {
  const out: string[] = []
  for (const reason of m.incomparable ?? []) out.push(`No model is compared: ${reason}.`)
  if (m.incomparable?.length) return out
  const family = `Holm over ${m.options.family} test${m.options.family === 1 ? '' : 's'}: ${m.models.length - 1} model${m.models.length === 2 ? '' : 's'} × ${m.options.metrics.length} gated metric${m.options.metrics.length === 1 ? '' : 's'}`
  for (const model of m.models) {
    const c = m.comparisons[model]
    if (!c) continue
    if (c.incomparable.length > 0) {
      out.push(`${model} cannot be compared with ${m.reference}: ${c.incomparable.join('; ')}.`)
      continue
    }
    let decided = false
    for (const metric of m.options.metrics) {
      const r = c.metrics[metric]
      if (!r || r.verdict === 'not distinguishable') continue
      decided = true
      const verb = r.verdict === 'better' ? 'beats' : 'is worse than'
      out.push(`${model} ${verb} ${m.reference} on ${metric} by ${points(r.delta)}, ${modelP(r)}.`)
    }
    if (!decided) out.push(`${model} and ${m.reference} are not distinguishable on ${m.options.metrics.join(', ') || 'any metric'} (${family}).`)
  }
  return out
}

/** The terminal's leaderboard: one line per model, the gated metrics with their intervals and the change. */
export function matrixTerminalLines(m: ModelMatrixReport, c: ChalkInstance): string[] {
  const metrics = m.options.metrics.length > 0 ? m.options.metrics : Object.keys(m.perModel[m.reference]?.metrics ?? {}).slice(0, 2)
  // Room for the longest name, ' (ref)' and a space before the first cell.
  const nameWidth = Math.min(24, Math.max(8, ...m.models.map((x) => x.length + 7)))
  const cell = 28
  const out = ['', `  ${c.bold('models')} ${c.dim(`against ${printable(m.reference)}`)}`]
  out.push(`  ${''.padEnd(nameWidth)}${metrics.map((x) => c.dim(printable(x).slice(0, cell - 1).padEnd(cell))).join('')}`)
  for (const model of m.models) {
    const block = m.perModel[model]
    const label = `${printable(model)}${model === m.reference ? ' (ref)' : ''}`.slice(0, nameWidth - 1).padEnd(nameWidth)
    const cells = metrics.map((metric) => {
      const v = block?.metrics[metric] ?? null
      const ci = block?.metricIntervals[metric]
      let text = ci && v !== null ? `${formatRate(v)} (${ci[0].toFixed(2)}–${ci[1].toFixed(2)})` : formatRate(v)
      const r = m.comparisons[model]?.metrics[metric]
      if (r) text += ` ${signedPoints(r.delta)}`
      const padded = text.padEnd(cell)
      return r?.verdict === 'better' ? c.green(padded) : r?.verdict === 'worse' ? c.red(padded) : padded
    })
    out.push(`  ${label}${cells.join('')}`)
  }
  for (const s of matrixSentences(m)) out.push(`  ${c.dim('·')} ${printable(s)}`)
  return out
}

/** The Markdown section: every metric per model with its interval, the verdicts, failure categories, confusions. */
export function matrixMarkdownLines(m: ModelMatrixReport): string[] {
  const lines = ['', `### Models (reference: ${mdText(m.reference)})`, '']
  for (const s of matrixSentences(m)) lines.push(`- ${mdText(s)}`)
  lines.push('', `| metric |${m.models.map((x) => ` ${mdText(x)} |`).join('')}`, `| --- |${m.models.map(() => ' ---: |').join('')}`)
  const metrics = Object.keys(m.perModel[m.reference]?.metrics ?? {})
  for (const model of m.models) for (const metric of Object.keys(m.perModel[model]?.metrics ?? {})) if (!metrics.includes(metric)) metrics.push(metric)
  for (const metric of metrics) {
    const cells = m.models.map((model) => {
      const v = m.perModel[model]?.metrics[metric] ?? null
      const ci = m.perModel[model]?.metricIntervals[metric]
      let text = ci && v !== null ? `${formatRate(v)} (${ci[0].toFixed(2)}–${ci[1].toFixed(2)})` : formatRate(v)
      const r = m.comparisons[model]?.metrics[metric]
      if (r) text += ` ${signedPoints(r.delta)}${r.verdict === 'better' ? ' ✅' : r.verdict === 'worse' ? ' ❌' : ''}`
      return ` ${mdText(text)} |`
    })
    lines.push(`| ${mdText(metric)} |${cells.join('')}`)
  }
  const categories = FAILURE_CATEGORIES.filter((f) => m.models.some((x) => (m.perModel[x]?.failures[f] ?? 0) > 0))
  if (categories.length > 0) {
    lines.push('', `| failures |${categories.map((f) => ` ${mdText(f)} |`).join('')}`, `| --- |${categories.map(() => ' ---: |').join('')}`)
    for (const model of m.models) lines.push(`| ${mdText(model)} |${categories.map((f) => ` ${m.perModel[model]?.failures[f] ?? 0} |`).join('')}`)
  }
  const confused = Object.entries(m.confusion)
  if (confused.length > 0) {
    lines.push('', '<details><summary>Tools called instead, per model</summary>', '', '| expected tool | model | called instead |', '| --- | --- | --- |')
    for (const [tool, byModel] of confused) {
      for (const model of m.models) {
        const counts = byModel[model]
        if (!counts) continue
        const text = Object.entries(counts).sort(([, a], [, b]) => b - a).map(([name, n]) => `${mdCode(name)} ${n}`).join(', ')
        lines.push(`| ${mdCode(tool)} | ${mdText(model)} | ${text} |`)
      }
    }
    lines.push('', '</details>')
  }
  if (m.disagreements.total > 0) {
    lines.push('', `<details><summary>Samples the models disagree on (${m.disagreements.total})</summary>`, '')
    for (const d of m.disagreements.samples.slice(0, 50)) lines.push(`- ${mdText(d.sample)}: right ${mdText(d.right.join(', '))}; wrong ${mdText(d.wrong.join(', '))}`)
    lines.push('', '</details>')
  }
  return lines
}

/** What the page draws: the matrix with its sentences and each comparison's p-value already written. */
export function matrixForPage(m: ModelMatrixReport | undefined): unknown {
  if (!m) return null
  const shown: Record<string, Record<string, string>> = {}
  for (const [model, c] of Object.entries(m.comparisons)) {
    shown[model] = {}
    for (const [metric, r] of Object.entries(c.metrics)) (shown[model] as Record<string, string>)[metric] = modelP(r)
  }
  return { ...m, sentences: matrixSentences(m), pShown: shown, failureNames: [...FAILURE_CATEGORIES] }
}

/**
 * The page's matrix section (browser JavaScript, spliced into PAGE_SCRIPT's function scope: it uses `h`, `pct`,
 * `signed` and `DATA`): the leaderboard, the verdicts, failure categories per model, confusions, disagreements.
 * No backticks or template placeholders inside.
 */
export const MATRIX_PAGE_FUNCTIONS = String.raw`
  function models() {
    var m = DATA.models;
    var el = h('section', { id: 'models', hidden: true });
    if (!m) return el;
    el.hidden = false;
    var metrics = Object.keys(m.perModel[m.reference] ? m.perModel[m.reference].metrics : {});
    el.appendChild(h('h2', { text: 'Models against ' + m.reference }));
    el.appendChild(h('ul', { id: 'model-verdicts' }, m.sentences.map(function (s) { return h('li', { text: s }); })));
    el.appendChild(h('div', { class: 'scroll' }, h('table', { id: 'model-leaderboard' },
      h('thead', null, h('tr', null, h('th', { text: 'metric' }), m.models.map(function (x) { return h('th', { class: 'num', text: x + (x === m.reference ? ' (reference)' : '') }); }))),
      h('tbody', null, metrics.map(function (metric) {
        return h('tr', { 'data-metric': metric }, h('td', { text: metric }), m.models.map(function (x) {
          var b = m.perModel[x], v = b.metrics[metric], ci = b.metricIntervals[metric];
          var r = m.comparisons[x] ? m.comparisons[x].metrics[metric] : null;
          return h('td', { class: 'num' + (r ? ' verdict-' + r.verdict.replace(/ /g, '-') : ''), 'data-model': x },
            pct(v), ci ? h('span', { class: 'ci', text: pct(ci[0]) + ' \u2013 ' + pct(ci[1]) }) : null,
            r ? h('span', { class: 'ci', text: signed(r.delta) + ', ' + m.pShown[x][metric] + ', ' + r.verdict }) : null);
        }));
      })))));
    var cats = m.failureNames.filter(function (f) { return m.models.some(function (x) { return (m.perModel[x].failures[f] || 0) > 0; }); });
    if (cats.length) {
      el.appendChild(h('h3', { text: 'Failure categories per model' }));
      el.appendChild(h('table', { id: 'model-failures' },
        h('thead', null, h('tr', null, h('th', { text: 'model' }), cats.map(function (f) { return h('th', { class: 'num', text: f }); }))),
        h('tbody', null, m.models.map(function (x) {
          return h('tr', { 'data-model': x }, h('td', { text: x }), cats.map(function (f) { return h('td', { class: 'num', text: String(m.perModel[x].failures[f] || 0) }); }));
        }))));
    }
    var tools = Object.keys(m.confusion);
    if (tools.length) {
      el.appendChild(h('h3', { text: 'Tools called instead, per model' }));
      el.appendChild(h('table', { id: 'model-confusion' },
        h('thead', null, h('tr', null, h('th', { text: 'expected tool' }), m.models.map(function (x) { return h('th', { text: x }); }))),
        h('tbody', null, tools.map(function (t) {
          return h('tr', { 'data-tool': t }, h('td', { class: 'mono', text: t }), m.models.map(function (x) {
            var counts = m.confusion[t][x] || {};
            return h('td', { class: 'mono', 'data-model': x, text: Object.keys(counts).sort(function (a, b) { return counts[b] - counts[a]; }).map(function (k) { return k + ' ' + counts[k]; }).join(', ') || '\u2013' });
          }));
        }))));
    }
    var d = m.disagreements;
    if (d.total) {
      el.appendChild(h('h3', { text: 'Samples the models disagree on (' + d.total + ')' }));
      el.appendChild(h('div', { class: 'scroll' }, h('table', { id: 'model-disagreements' },
        h('thead', null, h('tr', null, h('th', { text: 'sample' }), m.models.map(function (x) { return h('th', { text: x }); }))),
        h('tbody', null, d.samples.map(function (s) {
          return h('tr', { 'data-sample': s.sample }, h('td', { class: 'mono', text: s.sample }), m.models.map(function (x) {
            var right = s.right.indexOf(x) >= 0, wrong = s.wrong.indexOf(x) >= 0;
            return h('td', { class: right ? 'same' : wrong ? 'differs' : 'muted', text: right ? 'right' : wrong ? 'wrong' : '\u2013' });
          }));
        })))));
      if (d.total > d.samples.length) el.appendChild(h('p', { class: 'muted', text: (d.total - d.samples.length) + ' more not listed' }));
    }
    return el;
  }
`
