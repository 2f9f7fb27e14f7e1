/**
 * The history's page: one self-contained HTML file. uPlot (its minified build, read from node_modules when the page
 * is made, so the page needs no network) draws each metric over the runs with its 95% interval as a band, the
 * threshold as a dashed line, runs the gate failed and metrics the run's own baseline comparison found regressed as
 * marked points; then each checkpoint curve against the step with its best checkpoint and the significantly worse
 * later ones. Everything plotted is also in plain tables (the accessible view, and the page without scripts).
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { scriptSafeJson } from '../reporter/html.js'
import { reportedMetrics } from '../reporter/report.js'
import type { CheckpointCurve } from './history-curves.js'
import type { History, HistoryRun } from './history-read.js'

const require = createRequire(import.meta.url)
let uplot: { js: string; css: string } | undefined

/** uPlot's browser build and stylesheet, as installed beside this package. */
function uplotAssets(): { js: string; css: string } {
  if (uplot) return uplot
  const js = readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8').replace(/<\/(script)/gi, '<\\/$1')
  const css = readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8').replace(/<\/(style)/gi, '<\\/$1')
  return (uplot = { js, css })
}

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

const pct = (v: number | null | undefined) => (v === null || v === undefined ? '–' : `${(v * 100).toFixed(1)}%`)
const pValue = (p: number | undefined) => (p === undefined ? '–' : p < 0.001 ? '< 0.001' : p.toFixed(3))

/** The metrics in the report's order: NeMo's, the scorers', then any other a run measured. */
function metricsOf(runs: readonly HistoryRun[]): string[] {
  const seen = new Set<string>()
  for (const r of runs) for (const m of Object.keys(r.metrics)) seen.add(m)
  return reportedMetrics({ metrics: Object.fromEntries([...seen].map((m) => [m, null])) } as never).filter((m) => seen.has(m))
}

/** What the page's script plots (the same numbers the tables show). */
export function historyPageData(history: History, curves: readonly CheckpointCurve[]) {
  const metrics = metricsOf(history.runs)
  return {
    metrics,
    runs: history.runs.map((r) => ({
      file: r.file,
      time: Date.parse(r.time) / 1000,
      commit: r.commit ?? null,
      step: r.step ?? null,
      label: r.label ?? null,
      pass: r.pass,
      regressed: r.regressed,
      values: metrics.map((m) => r.metrics[m] ?? null),
      intervals: metrics.map((m) => r.intervals[m] ?? null),
      thresholds: metrics.map((m) => r.thresholds[m] ?? null),
    })),
    curves: curves.flatMap((c) =>
      c.curves.map((mc) => ({
        label: c.label,
        metric: mc.metric,
        steps: mc.points.map((p) => p.step),
        values: mc.points.map((p) => p.value),
        intervals: mc.points.map((p) => p.interval),
        best: mc.best?.step ?? null,
        worse: mc.later.filter((l) => l.verdict === 'worse').map((l) => l.step),
      })),
    ),
  }
}

function runsTable(runs: readonly HistoryRun[], metrics: readonly string[]): string {
  const head = ['#', 'time', 'commit', 'label', 'step', 'verdict', 'samples', ...metrics].map((h) => `<th scope="col">${esc(h)}</th>`).join('')
  const rows = runs.map((r, i) => {
    const verdict = r.pass ? 'pass' : 'fail'
    const cells = [
      `<td>${i + 1}</td>`,
      `<td><time datetime="${esc(r.time)}">${esc(r.time)}</time></td>`,
      `<td><code title="${esc(r.commit ?? '')}">${esc((r.commit ?? '–').slice(0, 10))}</code>${r.branch ? ` ${esc(r.branch)}` : ''}</td>`,
      `<td>${esc(r.label ?? '')}</td>`,
      `<td>${r.step ?? ''}</td>`,
      `<td class="${verdict}" title="${esc(r.reasons.join('\n'))}">${verdict}${r.incomplete ? ` (${esc(r.incomplete)})` : ''}</td>`,
      `<td>${r.samples}</td>`,
      ...metrics.map((m) => {
        const v = r.metrics[m]
        const ci = r.intervals[m]
        const mark = r.regressed.includes(m) ? ' <strong class="regressed">regressed</strong>' : ''
        return `<td data-metric="${esc(m)}" data-value="${v ?? ''}">${pct(v)}${ci ? ` <small>[${pct(ci[0])}, ${pct(ci[1])}]</small>` : ''}${mark}</td>`
      }),
    ]
    return `<tr data-file="${esc(r.file)}">${cells.join('')}</tr>`
  })
  return `<table id="runs" class="data"><caption>Runs, oldest first</caption><thead><tr>${head}</tr></thead><tbody>${rows.join('\n')}</tbody></table>`
}

function curvesSection(curves: readonly CheckpointCurve[]): string {
  if (curves.length === 0) return ''
  const parts = curves.map((c) => {
    const rows = c.curves.map((mc) => {
      const later = mc.later
        .filter((l) => l.delta < 0)
        .map((l) => {
          const what = l.verdict === 'worse' ? '<strong class="worse">worse</strong>' : esc(l.verdict)
          const p = l.pValue === undefined ? '' : `, p = ${pValue(l.pValue)}, adjusted ${pValue(l.pAdjusted)} (×${mc.comparisons})`
          return `<li data-step="${l.step}" data-verdict="${esc(l.verdict)}">step ${l.step}: ${what}, ${(l.delta * 100).toFixed(1)} points${p}${l.test ? `; ${esc(l.test)}` : ''}${l.note ? `; ${esc(l.note)}` : ''}</li>`
        })
      return `<tr data-metric="${esc(mc.metric)}"><th scope="row">${esc(mc.metric)}</th><td>${mc.best ? `step ${mc.best.step}: ${pct(mc.best.value)}` : '–'}</td><td>${later.length > 0 ? `<ul>${later.join('')}</ul>` : 'no later checkpoint lower'}</td></tr>`
    })
    const excluded = c.excluded.length > 0 ? `<p>Left out: ${c.excluded.map((e) => `${esc(e.file)} (${esc(e.reason)})`).join('; ')}</p>` : ''
    return `<section class="curve" data-label="${esc(c.label)}"><h3>${esc(c.label)}</h3>
<table class="data"><caption>Best checkpoint per metric, and later checkpoints below it</caption><thead><tr><th scope="col">metric</th><th scope="col">best</th><th scope="col">later checkpoints lower than the best</th></tr></thead><tbody>${rows.join('\n')}</tbody></table>${excluded}</section>`
  })
  return `<h2>Checkpoints</h2>
<p>Each metric against the training step. A later checkpoint is <strong>worse</strong> when the gate's paired test on the
two runs' samples finds its drop significant after a Bonferroni correction over every earlier-later pair of checkpoints
(the best is chosen by looking at the data), and the drop is at least 2 points.</p>
<div id="curve-plots"></div>
${parts.join('\n')}`
}

function skippedSection(history: History): string {
  if (history.skipped.length === 0) return ''
  const items = history.skipped.map((s) => `<li data-file="${esc(s.file)}"><code>${esc(s.file)}</code>: ${esc(s.reason)}</li>`)
  return `<h2>Skipped files</h2><ul id="skipped">${items.join('')}</ul>`
}

/**
 * uPlot formats numbers with the browser's language; a language tag Intl rejects (headless Chromium under a POSIX
 * locale reports `en-US@posix`) would stop it from loading at all: fall back to en-US then.
 */
const LOCALE_GUARD = `try { new Intl.NumberFormat(navigator.language) } catch (e) { Object.defineProperty(navigator, 'language', { value: 'en-US' }) }`

/** The page's own script: one uPlot chart per metric over the runs, one per checkpoint curve. */
const PAGE_SCRIPT = String.raw`
(function () {
  var data = JSON.parse(document.getElementById('history-data').textContent);
  var plots = [];
  window.historyPlots = plots;
  var pick = function (list, i) { return list.map(function (r) { return r[i]; }); };
  var width = function (el) { return Math.max(320, Math.min(960, el.clientWidth || 720)); };
  var band = { stroke: 'transparent', points: { show: false } };
  function chart(el, title, x, series, opts) {
    var box = document.createElement('figure');
    box.setAttribute('role', 'img');
    box.setAttribute('aria-label', title + ': ' + opts.describe);
    var cap = document.createElement('figcaption');
    cap.textContent = title;
    box.appendChild(cap);
    el.appendChild(box);
    var plot = new uPlot({
      width: width(el), height: 240,
      scales: { x: { time: opts.time }, y: { range: [0, 1] } },
      axes: [{ values: opts.xValues }, { values: function (u, v) { return v.map(function (t) { return Math.round(t * 100) + '%'; }); } }],
      series: [{ label: opts.xLabel }].concat(series.map(function (s) { return s.style; })),
      bands: [{ series: [3, 2], fill: 'rgba(37,99,235,0.12)' }],
    }, [x].concat(series.map(function (s) { return s.values; })), box);
    plots.push({ kind: opts.kind, metric: opts.metric, label: opts.label || null, plot: plot });
  }
  function point(color, size) { return { show: true, size: size, fill: color, stroke: color }; }
  function runCharts() {
    var el = document.getElementById('run-plots');
    el.textContent = '';
    for (var i = plots.length - 1; i >= 0; i--) if (plots[i].kind === 'runs') { plots[i].plot.destroy(); plots.splice(i, 1); }
    var mode = document.getElementById('x-axis').value;
    var runs = data.runs.filter(function (r) { return mode !== 'step' || r.step !== null; });
    var x = runs.map(function (r, i) { return mode === 'time' ? r.time : mode === 'step' ? r.step : i + 1; });
    var names = runs.map(function (r) { return r.commit ? r.commit.slice(0, 7) : '#' + (runs.indexOf(r) + 1); });
    data.metrics.forEach(function (metric, m) {
      var values = runs.map(function (r) { return r.values[m]; });
      if (values.every(function (v) { return v === null; })) return;
      var ci = runs.map(function (r) { return r.intervals[m]; });
      chart(el, metric, x, [
        { values: values, style: { label: metric, stroke: '#2563eb', width: 2, points: point('#2563eb', 5) } },
        { values: ci.map(function (c) { return c ? c[0] : null; }), style: Object.assign({ label: '95% low' }, band) },
        { values: ci.map(function (c) { return c ? c[1] : null; }), style: Object.assign({ label: '95% high' }, band) },
        { values: runs.map(function (r) { return r.thresholds[m]; }), style: { label: 'threshold', stroke: '#b45309', dash: [6, 4], width: 1.5, points: { show: false } } },
        { values: runs.map(function (r) { return r.pass ? null : r.values[m]; }), style: { label: 'gate failed', stroke: 'transparent', paths: function () { return null; }, points: point('#dc2626', 9) } },
        { values: runs.map(function (r) { return r.regressed.indexOf(metric) >= 0 ? r.values[m] : null; }), style: { label: 'regressed', stroke: 'transparent', paths: function () { return null; }, points: point('#7c3aed', 13) } },
      ], {
        kind: 'runs', metric: metric, time: mode === 'time',
        xLabel: mode === 'time' ? 'time' : mode === 'step' ? 'step' : 'run',
        xValues: mode === 'run' ? function (u, v) { return v.map(function (t) { return Number.isInteger(t) && names[t - 1] ? names[t - 1] : ''; }); } : undefined,
        describe: runs.length + ' runs; values in the table of runs below',
      });
    });
  }
  function curveCharts() {
    var el = document.getElementById('curve-plots');
    if (!el) return;
    data.curves.forEach(function (c) {
      chart(el, c.label + ': ' + c.metric + ' by step', c.steps, [
        { values: c.values, style: { label: c.metric, stroke: '#2563eb', width: 2, points: point('#2563eb', 5) } },
        { values: c.intervals.map(function (i) { return i ? i[0] : null; }), style: Object.assign({ label: '95% low' }, band) },
        { values: c.intervals.map(function (i) { return i ? i[1] : null; }), style: Object.assign({ label: '95% high' }, band) },
        { values: c.steps.map(function (s, i) { return s === c.best ? c.values[i] : null; }), style: { label: 'best', stroke: 'transparent', paths: function () { return null; }, points: point('#059669', 13) } },
        { values: c.steps.map(function (s, i) { return c.worse.indexOf(s) >= 0 ? c.values[i] : null; }), style: { label: 'worse than best', stroke: 'transparent', paths: function () { return null; }, points: point('#dc2626', 11) } },
      ], { kind: 'curve', metric: c.metric, label: c.label, time: false, xLabel: 'step', describe: c.steps.length + ' checkpoints; best at step ' + c.best + '; details in the table below' });
    });
  }
  document.getElementById('x-axis').addEventListener('change', runCharts);
  runCharts();
  curveCharts();
})();
`

export function renderHistoryPage(history: History, curves: readonly CheckpointCurve[]): string {
  const data = historyPageData(history, curves)
  const { js, css } = uplotAssets()
  const failed = history.runs.filter((r) => !r.pass).length
  const hasSteps = history.runs.some((r) => r.step !== undefined)
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>tool-evals history</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>${css}
body{font:14px/1.45 system-ui,sans-serif;margin:1.5rem;color:#111}
table.data{border-collapse:collapse;margin:1rem 0}.data th,.data td{border:1px solid #ccc;padding:.2rem .45rem;text-align:left;vertical-align:top}
.pass{color:#166534}.fail,.worse,.regressed{color:#b91c1c}figure{margin:1rem 0}figcaption{font-weight:600}
#run-plots,#curve-plots{display:flex;flex-wrap:wrap;gap:1rem}</style></head>
<body><main>
<h1>Run history</h1>
<p id="summary">${history.runs.length} run(s) from <code>${esc(history.dir)}</code>; ${failed} failed the gate; ${history.skipped.length} file(s) skipped.</p>
<h2>Metrics over runs</h2>
<p>The line is the rate, the band its 95% interval, the dashed line the threshold; red points are runs the gate
failed, violet ones a metric the run's comparison with its baseline found regressed.</p>
<label>x axis <select id="x-axis"><option value="run">run (commit)</option><option value="time">time</option>${hasSteps ? '<option value="step">checkpoint step</option>' : ''}</select></label>
<div id="run-plots"></div>
${curvesSection(curves)}
<h2>Runs</h2>
${runsTable(history.runs, data.metrics)}
${skippedSection(history)}
</main>
<script id="history-data" type="application/json">${scriptSafeJson(data)}</script>
<script>${LOCALE_GUARD}</script>
<script>${js}</script>
<script>${PAGE_SCRIPT}</script>
</body></html>
`
}
