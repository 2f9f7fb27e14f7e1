/**
 * The HTML report's inlined styles and page script. The script is plain browser JavaScript kept as a string (it
 * runs in the report page, not in Node): it reads the JSON from `#tool-evals-data` and builds the page with DOM
 * calls only. Every piece of data goes in through `textContent`, never as markup, so model output cannot inject
 * anything. No backticks or template placeholders inside (this is a template literal), but one: the model matrix's
 * section, kept in matrix-render.ts.
 */
import { MATRIX_PAGE_FUNCTIONS } from './matrix-render.js'

export const PAGE_CSS = String.raw`
:root { --fg:#1d2330; --muted:#667085; --line:#e4e7ec; --bg:#f7f8fa; --card:#fff; --good:#12805c; --bad:#c4320a; --accent:#3757d4; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif; color:var(--fg); background:var(--bg); }
main { max-width:1200px; margin:0 auto; padding:20px 24px 60px; }
h1 { font-size:22px; margin:0 0 4px; } h2 { font-size:16px; margin:28px 0 10px; }
.muted { color:var(--muted); } .mono, pre, code { font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace; font-size:12.5px; }
.badge { display:inline-block; padding:2px 10px; border-radius:999px; font-weight:600; color:#fff; margin-left:8px; font-size:13px; vertical-align:middle; }
.badge.pass { background:var(--good); } .badge.fail { background:var(--bad); }
.bad { color:var(--bad); font-weight:600; margin:.5em 0 .2em; } #gate ul { margin:.2em 0 .6em 1.2em; padding:0; }
.cards { display:grid; grid-template-columns:repeat(auto-fill,minmax(180px,1fr)); gap:10px; }
.card { background:var(--card); border:1px solid var(--line); border-radius:8px; padding:10px 12px; }
.card .name { color:var(--muted); font-size:12px; } .card .value { font-size:24px; font-weight:650; }
.card .ci { font-size:12px; color:var(--muted); } .card svg { display:block; margin-top:6px; }
table { border-collapse:collapse; background:var(--card); border:1px solid var(--line); width:100%; }
th, td { padding:5px 8px; border-bottom:1px solid var(--line); text-align:left; vertical-align:top; }
th { font-weight:600; font-size:12px; color:var(--muted); background:#fbfbfc; }
.scroll th { position:sticky; top:0; }
td.num, th.num { text-align:right; font-variant-numeric:tabular-nums; }
td .ci { display:block; font-size:11px; color:var(--muted); white-space:nowrap; }
.scroll { overflow:auto; max-height:460px; border-radius:6px; }
.bars .row { display:grid; grid-template-columns:150px 1fr 60px; gap:8px; align-items:center; padding:3px 0; cursor:pointer; }
.bars .row:hover { background:#eef1fb; } .bars .bar { height:14px; background:var(--bad); border-radius:3px; min-width:1px; }
.matrix td.cell { text-align:center; min-width:38px; font-variant-numeric:tabular-nums; }
.matrix th.rowh { position:sticky; left:0; } .matrix td.diag { outline:1px solid #9bd3bd; }
.controls { display:flex; flex-wrap:wrap; gap:8px; margin-bottom:8px; align-items:center; }
select, input[type=search] { font:inherit; padding:4px 6px; border:1px solid #cfd4dc; border-radius:6px; background:#fff; }
input[type=search] { min-width:240px; }
#sample-list tr.sample { cursor:pointer; } #sample-list tr.sample:hover { background:#eef1fb; }
#sample-list tr.sample.open { background:#e3e8fb; }
.tag { display:inline-block; padding:0 6px; margin:0 3px 2px 0; border-radius:4px; font-size:11.5px; background:#fde8e1; color:#8a2a0a; }
.tag.ok { background:#dcf3e9; color:#0b5e43; } .tag.err { background:#f6e1f3; color:#7a1d6c; } .tag.skip { background:#eceff3; color:#475467; }
#sample-detail { background:var(--card); border:1px solid var(--line); border-radius:8px; padding:12px 14px; margin-top:10px; }
#sample-detail h3 { margin:0 0 6px; font-size:15px; } #sample-detail h4 { margin:12px 0 4px; font-size:13px; color:var(--muted); }
pre { background:#f3f4f7; padding:8px 10px; border-radius:6px; white-space:pre-wrap; word-break:break-word; margin:0; max-height:320px; overflow:auto; }
.diff td { font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace; font-size:12.5px; }
.diff .same { color:var(--good); } .diff .differs { color:var(--bad); font-weight:600; }
.diff .del { background:#fde8e1; } .diff .add { background:#dcf3e9; }
button { font:inherit; padding:4px 10px; border:1px solid #cfd4dc; border-radius:6px; background:#fff; cursor:pointer; }
`

export const PAGE_SCRIPT = String.raw`
(function () {
  'use strict';
  var DATA = JSON.parse(document.getElementById('tool-evals-data').textContent);
  var R = DATA.report, NO_CALL = '(no call)', PAGE = 100;

  function h(tag, attrs) {
    var el = document.createElement(tag);
    if (attrs) for (var k in attrs) {
      var v = attrs[k];
      if (v === undefined || v === null || v === false) continue;
      if (k === 'text') el.textContent = v;
      else if (k === 'onclick' || k === 'oninput' || k === 'onchange') el[k] = v;
      else el.setAttribute(k, v === true ? '' : String(v));
    }
    for (var i = 2; i < arguments.length; i++) add(el, arguments[i]);
    return el;
  }
  function add(el, child) {
    if (child === undefined || child === null || child === false) return;
    if (Array.isArray(child)) { for (var i = 0; i < child.length; i++) add(el, child[i]); return; }
    el.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
  function svg(tag, attrs) {
    var el = document.createElementNS('http://www.w3.org/2000/svg', tag);
    for (var k in attrs) el.setAttribute(k, String(attrs[k]));
    for (var i = 2; i < arguments.length; i++) el.appendChild(arguments[i]);
    return el;
  }
  function pct(v) { return v === null || v === undefined ? '\u2013' : (v * 100).toFixed(1) + '%'; }
  function ciText(r) { return r && r.lo !== null ? '95% CI ' + pct(r.lo) + ' \u2013 ' + pct(r.hi) : 'no interval'; }
  function json(v) { try { return JSON.stringify(v); } catch (e) { return String(v); } }
  function args(a) {
    if (typeof a === 'string') { try { return JSON.parse(a); } catch (e) { return a; } }
    return a === undefined ? {} : a;
  }

  // ---- header, cards, thresholds
  function header() {
    var pass = R.pass;
    return h('header', null,
      h('h1', null, DATA.title, h('span', { class: 'badge ' + (pass ? 'pass' : 'fail'), id: 'verdict', text: pass ? 'PASS' : 'FAIL' })),
      h('div', { class: 'muted', id: 'counts' },
        h('span', { 'data-count': 'samples', text: R.samples }), ' samples \u00b7 ',
        h('span', { 'data-count': 'scored', text: R.scored }), ' scored \u00b7 ',
        h('span', { 'data-count': 'errored', text: R.errored.count }), ' errored \u00b7 ',
        h('span', { 'data-count': 'skipped', text: R.skipped.count }), ' skipped'),
      gateReasons());
  }

  // Why the run fails (the gate's reasons, as the JSON report lists them), and what a filtered run does not gate.
  function gateReasons() {
    var g = R.gate || { reasons: [] };
    if (!g.reasons.length && !g.notGated) return null;
    return h('div', { id: 'gate' },
      g.reasons.length ? h('p', { class: 'bad', text: 'The run fails:' }) : null,
      g.reasons.length ? h('ul', { id: 'gate-reasons' }, g.reasons.map(function (r) { return h('li', { 'data-kind': r.kind, text: r.message }); })) : null,
      g.notGated ? h('p', { class: 'muted', id: 'not-gated', text: g.notGated }) : null);
  }

  function intervalBar(r) {
    var w = 156, y = 7, g = svg('svg', { width: w, height: 14, viewBox: '0 0 ' + w + ' 14', 'aria-hidden': 'true' });
    g.appendChild(svg('line', { x1: 0, x2: w, y1: y, y2: y, stroke: '#e4e7ec', 'stroke-width': 6, 'stroke-linecap': 'round' }));
    if (r.value === null) return g;
    if (r.lo !== null) g.appendChild(svg('line', { x1: r.lo * w, x2: r.hi * w, y1: y, y2: y, stroke: '#9aa9e8', 'stroke-width': 6 }));
    g.appendChild(svg('circle', { cx: Math.max(3, Math.min(w - 3, r.value * w)), cy: y, r: 4, fill: '#3757d4' }));
    return g;
  }

  function cards() {
    return h('section', { id: 'metrics' }, h('h2', { text: 'Metrics' }),
      h('div', { class: 'cards' }, DATA.metricNames.map(function (m) {
        var r = DATA.cards[m];
        return h('div', { class: 'card', 'data-metric': m, 'data-value': r.value, 'data-lo': r.lo, 'data-hi': r.hi },
          h('div', { class: 'name', text: m }), h('div', { class: 'value', text: pct(r.value) }),
          h('div', { class: 'ci', text: ciText(r) + (r.n === null ? '' : ' \u00b7 n=' + r.n) }), intervalBar(r));
      })));
  }

  function thresholds() {
    if (!R.thresholds.length) return null;
    return h('section', { id: 'thresholds' }, h('h2', { text: 'Thresholds' }),
      h('table', null, h('thead', null, h('tr', null, h('th', { text: 'metric' }), h('th', { text: 'scope' }), h('th', { class: 'num', text: 'minimum' }), h('th', { class: 'num', text: 'actual' }), h('th', { text: '' }))),
        h('tbody', null, R.thresholds.map(function (t) {
          var scope = t.suite ? 'suite ' + t.suite : t.tool ? 'tool ' + t.tool : 'run';
          return h('tr', null, h('td', { text: t.metric }), h('td', { text: scope }), h('td', { class: 'num', text: pct(t.min) }), h('td', { class: 'num', text: pct(t.actual) }),
            h('td', null, h('span', { class: 'tag' + (t.pass ? ' ok' : ''), text: t.pass ? 'pass' : 'fail' })));
        }))));
  }

  // ---- failures, suites, tools, confusion matrix
  function failures() {
    var max = 1;
    DATA.failureNames.forEach(function (f) { max = Math.max(max, R.failures[f] || 0); });
    return h('section', { id: 'failures' }, h('h2', { text: 'Failure categories' }),
      h('div', { class: 'bars' }, DATA.failureNames.map(function (f) {
        var n = R.failures[f] || 0;
        return h('div', { class: 'row', 'data-failure': f, title: 'Show these samples', onclick: function () { setFilter('category', f); } },
          h('span', { class: 'mono', text: f }), h('div', null, h('div', { class: 'bar', style: 'width:' + (100 * n / max).toFixed(1) + '%' })),
          h('span', { class: 'num', text: n }));
      })),
      R.errored.count ? h('p', { class: 'muted', text: 'Errored samples by reason: ' + Object.keys(R.errored.byReason).map(function (k) { return k + ' (' + R.errored.byReason[k] + ')'; }).join('; ') }) : null);
  }

  function rateCell(r) {
    return h('td', { class: 'num', 'data-value': r ? r.value : null }, pct(r ? r.value : null), h('span', { class: 'ci', text: r && r.lo !== null ? pct(r.lo) + '\u2013' + pct(r.hi) : '' }));
  }

  function suites() {
    return h('section', { id: 'suites' }, h('h2', { text: 'Suites' }),
      h('div', { class: 'scroll' }, h('table', null,
        h('thead', null, h('tr', null, h('th', { text: 'suite' }), h('th', { class: 'num', text: 'samples' }), h('th', { class: 'num', text: 'errored' }), h('th', { class: 'num', text: 'skipped' }),
          DATA.metricNames.map(function (m) { return h('th', { class: 'num', text: m }); }))),
        h('tbody', null, DATA.suites.filter(function (s) { return s.metrics; }).map(function (s) {
          return h('tr', { 'data-suite': s.name }, h('td', null, h('a', { href: '#samples', text: s.name, onclick: function () { setFilter('suite', s.name); } })),
            h('td', { class: 'num', text: s.samples }), h('td', { class: 'num', text: s.errored }), h('td', { class: 'num', text: s.skipped }),
            DATA.metricNames.map(function (m) { return rateCell(s.metrics[m]); }));
        })))));
  }

  function tools() {
    if (!DATA.tools.length) return null;
    return h('section', { id: 'tools' }, h('h2', { text: 'Tools (by expected name)' }),
      h('div', { class: 'scroll' }, h('table', null,
        h('thead', null, h('tr', null, h('th', { text: 'tool' }), h('th', { class: 'num', text: 'positions' }), h('th', { class: 'num', text: 'name_correct' }), h('th', { class: 'num', text: 'args_exact_match' }))),
        h('tbody', null, DATA.tools.map(function (t) {
          return h('tr', { 'data-tool': t.name }, h('td', null, h('a', { href: '#samples', class: 'mono', text: t.name, onclick: function () { setFilter('tool', t.name); } })),
            h('td', { class: 'num', text: t.positions }), rateCell(t.name_correct), rateCell(t.args_exact_match));
        })))));
  }

  function confusion() {
    var c = DATA.confusion;
    if (!c.expected.length) return null;
    var max = 1;
    c.counts.forEach(function (row) { row.forEach(function (n) { max = Math.max(max, n); }); });
    return h('section', { id: 'confusion' }, h('h2', { text: 'Confusion matrix: expected (rows) against predicted (columns) tool names' }),
      h('div', { class: 'scroll' }, h('table', { class: 'matrix' },
        h('thead', null, h('tr', null, h('th', { class: 'rowh', text: 'expected \\ predicted' }), c.predicted.map(function (p) { return h('th', { class: 'mono', text: p }); }))),
        h('tbody', null, c.expected.map(function (e, i) {
          return h('tr', null, h('th', { class: 'rowh mono', text: e }), c.predicted.map(function (p, j) {
            var n = c.counts[i][j], right = e === p, a = n ? 0.12 + 0.7 * n / max : 0;
            var bg = n ? (right ? 'rgba(18,128,92,' : 'rgba(196,50,10,') + a.toFixed(2) + ')' : 'transparent';
            return h('td', { class: 'cell' + (right ? ' diag' : ''), style: 'background:' + bg + (a > 0.5 ? ';color:#fff' : ''), 'data-expected': e, 'data-predicted': p, title: e + ' \u2192 ' + p + ': ' + n, text: n || '' });
          }));
        })))));
  }

  // The baseline comparison (the report's \`comparison\`): per metric base \u2192 head, the paired delta with its 95%
  // interval, p-value and verdict, then the flipped samples. Hidden when the run had no baseline.
  function signed(v) { return v === null || v === undefined ? '\u2013' : (v >= 0 ? '+' : '') + (v * 100).toFixed(1) + ' pt'; }
  function renderComparison(c) {
    var el = h('section', { id: 'comparison', hidden: true });
    if (!c) return el;
    el.hidden = false;
    var names = Object.keys(c.metrics || {});
    var incomparable = c.incomparable || [];
    el.appendChild(h('h2', { text: 'Against the baseline: ' + (incomparable.length > 0 ? 'not comparable' : c.pass ? 'no regression' : 'regression') }));
    if (incomparable.length > 0) el.appendChild(h('ul', { id: 'comparison-incomparable' }, incomparable.map(function (r) { return h('li', { text: r }); })));
    el.appendChild(h('table', { id: 'comparison-metrics' },
      h('thead', null, h('tr', null, ['metric', 'base', 'head', 'delta', '95% interval', 'p (one-sided)', 'verdict'].map(function (t) { return h('th', { text: t }); }))),
      h('tbody', null, names.map(function (m) {
        var r = c.metrics[m];
        var ci = r.ci ? signed(r.ci[0]) + ' \u2013 ' + signed(r.ci[1]) : '\u2013';
        var p = r.pShown || '\u2013';
        return h('tr', { class: 'verdict-' + (r.gated === false ? 'not-gated' : r.verdict), 'data-metric': m },
          h('td', { text: m }), h('td', { text: pct(r.base) }), h('td', { text: pct(r.head) }), h('td', { text: signed(r.delta) }),
          h('td', { text: ci }), h('td', { text: p }), h('td', { class: 'verdict', text: r.verdictShown || r.verdict }));
      }))));
    if (c.pLegend) el.appendChild(h('p', { id: 'comparison-legend', class: 'note', text: c.pLegend }));
    var samples = c.samples || {};
    [['regressed', 'Went from right to wrong'], ['improved', 'Went from wrong to right']].forEach(function (kind) {
      var ids = samples[kind[0]] || [];
      if (ids.length === 0) return;
      var shown = ids.slice(0, 100);
      el.appendChild(h('h3', { text: kind[1] + ' (' + ids.length + ')' }));
      el.appendChild(h('ul', { id: 'comparison-' + kind[0] }, shown.map(function (id) { return h('li', { text: id }); }),
        ids.length > shown.length ? h('li', { class: 'muted', text: (ids.length - shown.length) + ' more' }) : null));
    });
    return el;
  }

${MATRIX_PAGE_FUNCTIONS}
  // ---- sample browser
  var state = { suite: '', tool: '', category: '', q: '', shown: PAGE, open: -1 };
  var controls = {};
  var haystacks = [];

  // A fully right sample keeps no call lists, only its positions' names (and a line of its calls): read both.
  // Names are model output: a map without a prototype, so 'constructor' or '__proto__' is a tool like any other.
  function toolsOf(s) {
    var out = Object.create(null);
    (s.x || []).forEach(function (c) { out[c.name] = 1; });
    (s.c || []).forEach(function (c) { out[c.name] = 1; });
    (s.pos || []).forEach(function (p) { out[p[0]] = 1; if (p[1] !== null) out[p[1]] = 1; });
    return out;
  }
  function hay(i) {
    var s = DATA.samples[i];
    if (haystacks[i] === undefined) haystacks[i] = [s.i, s.p, s.o, s.e, s.k, Object.keys(toolsOf(s)).join(' ')].join('\n').toLowerCase();
    return haystacks[i];
  }
  function categoryOf(s, cat) {
    if (cat === '') return true;
    if (cat === ':errored') return s.e !== undefined;
    if (cat === ':skipped') return s.k !== undefined;
    if (cat === ':right') return s.e === undefined && s.k === undefined && s.f.length === 0;
    if (cat === ':any') return s.e !== undefined || s.f.length > 0;
    return s.f.indexOf(DATA.failureNames.indexOf(cat)) >= 0;
  }
  function matches(i) {
    var s = DATA.samples[i];
    if (state.suite !== '' && DATA.suites[s.s].name !== state.suite) return false;
    if (state.tool !== '' && toolsOf(s)[state.tool] !== 1) return false;
    if (!categoryOf(s, state.category)) return false;
    if (state.q !== '' && hay(i).indexOf(state.q) < 0) return false;
    return true;
  }

  function options(values, all) {
    return [h('option', { value: '', text: all })].concat(values.map(function (v) { return h('option', { value: v[0], text: v[1] }); }));
  }

  function browser() {
    var toolNames = Object.create(null);
    DATA.samples.forEach(function (s) { for (var k in toolsOf(s)) toolNames[k] = 1; });
    controls.suite = h('select', { id: 'filter-suite', 'aria-label': 'suite', onchange: function () { setFilter('suite', this.value); } },
      options(DATA.suites.map(function (s) { return [s.name, s.name]; }), 'all suites'));
    controls.tool = h('select', { id: 'filter-tool', 'aria-label': 'tool', onchange: function () { setFilter('tool', this.value); } },
      options(Object.keys(toolNames).sort().map(function (t) { return [t, t]; }), 'all tools'));
    controls.category = h('select', { id: 'filter-category', 'aria-label': 'failure category', onchange: function () { setFilter('category', this.value); } },
      options([[':any', 'any failure or error'], [':right', 'fully right'], [':errored', 'errored'], [':skipped', 'skipped']].concat(DATA.failureNames.map(function (f) { return [f, f]; })), 'all samples'));
    controls.q = h('input', { type: 'search', id: 'filter-text', placeholder: 'search id, prompt, output, tool', oninput: function () { setFilter('q', this.value); } });
    controls.count = h('span', { id: 'sample-count', class: 'muted' });
    controls.list = h('tbody', { id: 'sample-list' });
    controls.more = h('button', { id: 'show-more', onclick: function () { state.shown += PAGE; drawList(); } , text: 'Show more' });
    controls.detail = h('div', { id: 'sample-detail', hidden: true });
    return h('section', { id: 'samples' }, h('h2', { text: 'Samples' }),
      h('div', { class: 'controls' }, controls.suite, controls.tool, controls.category, controls.q, controls.count),
      h('div', { class: 'scroll' }, h('table', null,
        h('thead', null, h('tr', null, h('th', { text: 'suite' }), h('th', { text: 'id' }), h('th', { text: 'outcome' }), h('th', { text: 'expected' }), h('th', { text: 'predicted' }))),
        controls.list)),
      controls.more, controls.detail);
  }

  function setFilter(key, value) {
    state[key] = key === 'q' ? String(value).trim().toLowerCase() : value;
    if (key !== 'q' && controls[key]) controls[key].value = value;
    state.shown = PAGE;
    drawList();
    if (key !== 'q') document.getElementById('samples').scrollIntoView();
  }

  function outcomeTags(s) {
    if (s.e !== undefined) return [h('span', { class: 'tag err', text: 'errored' })];
    if (s.k !== undefined) return [h('span', { class: 'tag skip', text: 'skipped' })];
    if (!s.f.length) return [h('span', { class: 'tag ok', text: 'right' })];
    return s.f.map(function (f) { return h('span', { class: 'tag', text: DATA.failureNames[f] }); });
  }
  function names(calls) { return (calls || []).map(function (c) { return c.name; }).join(', ') || NO_CALL; }
  var NOT_KEPT = 'calls not kept';
  function expectedNames(s) {
    if (s.x || !s.pos) return names(s.x);
    return s.pos.map(function (p) { return p[0]; }).join(', ');
  }
  // Fully right: every position has its prediction and there is no other call, so the positions name the calls.
  function predictedNames(s) {
    if (s.r !== undefined) return s.pos ? s.pos.map(function (p) { return p[1]; }).join(', ') : s.r;
    return s.nk ? NOT_KEPT : names(s.c);
  }

  function drawList() {
    var rows = [], total = 0;
    for (var i = 0; i < DATA.samples.length; i++) {
      if (!matches(i)) continue;
      total++;
      if (rows.length < state.shown) rows.push(i);
    }
    controls.count.textContent = total + ' of ' + DATA.samples.length + ' samples';
    controls.list.textContent = '';
    rows.forEach(function (i) {
      var s = DATA.samples[i];
      controls.list.appendChild(h('tr', { class: 'sample' + (i === state.open ? ' open' : ''), 'data-index': i, onclick: function () { openSample(i); } },
        h('td', { text: DATA.suites[s.s].name }), h('td', { class: 'mono', text: s.i }), h('td', null, outcomeTags(s)),
        h('td', { class: 'mono', text: expectedNames(s) }), h('td', { class: 'mono', text: s.k !== undefined || s.e !== undefined ? '' : predictedNames(s) })));
    });
    controls.more.hidden = total <= rows.length;
  }

  // Pair each expected position with the call the scorer aligned to it (by name, in order), then the calls left.
  function alignCalls(s) {
    var x = s.x || [], c = s.c || [], used = [], rows = [];
    x.forEach(function (e, j) {
      var want = s.pos && s.pos[j] ? s.pos[j][1] : null, k = -1;
      if (want !== null) for (var n = 0; n < c.length; n++) if (!used[n] && c[n].name === want) { k = n; break; }
      if (k >= 0) used[k] = true;
      rows.push([e, k >= 0 ? c[k] : null]);
    });
    c.forEach(function (call, n) { if (!used[n]) rows.push([null, call]); });
    return rows;
  }

  function argLines(e, p) {
    var ea = e ? args(e.arguments) : {}, pa = p ? args(p.arguments) : {}, lines = [];
    if (typeof ea !== 'object' || typeof pa !== 'object' || ea === null || pa === null) {
      if (e) lines.push(h('div', { class: 'del', text: '- ' + json(ea) }));
      if (p) lines.push(h('div', { class: 'add', text: '+ ' + json(pa) }));
      return lines;
    }
    // Argument names are model output too: own properties only, in a map without a prototype.
    var keys = Object.create(null), own = Object.prototype.hasOwnProperty;
    if (e) Object.keys(ea).forEach(function (k) { keys[k] = 1; });
    if (p) Object.keys(pa).forEach(function (k) { keys[k] = 1; });
    Object.keys(keys).sort().forEach(function (key) {
      var inE = e && own.call(ea, key), inP = p && own.call(pa, key), ej = inE ? json(ea[key]) : '', pj = inP ? json(pa[key]) : '';
      if (inE && inP && ej === pj) lines.push(h('div', { text: '  ' + key + ': ' + ej }));
      else {
        if (inE) lines.push(h('div', { class: 'del', text: '- ' + key + ': ' + ej }));
        if (inP) lines.push(h('div', { class: 'add', text: '+ ' + key + ': ' + pj }));
      }
    });
    return lines;
  }

  function callDiff(s) {
    if (s.r !== undefined) return [h('p', { class: 'muted', text: 'Fully right: the calls made are the expected ones.' }), h('pre', { id: 'right-calls', text: s.r })];
    if (s.nk) return h('p', { class: 'muted', id: 'calls-not-kept', text: 'Calls not kept: this run stored no calls for this sample, only its scores.' });
    var rows = alignCalls(s);
    if (!rows.length) return h('p', { class: 'muted', text: 'No call expected and none made.' });
    return h('table', { class: 'diff', id: 'call-diff' },
      h('thead', null, h('tr', null, h('th', { text: 'expected' }), h('th', { text: 'predicted' }), h('th', { text: 'arguments (- expected, + predicted)' }))),
      h('tbody', null, rows.map(function (r) {
        var e = r[0], p = r[1], sameName = e && p && e.name === p.name;
        return h('tr', null,
          h('td', { class: sameName ? 'same' : 'differs', text: e ? e.name : NO_CALL }),
          h('td', { class: sameName ? 'same' : 'differs', text: p ? p.name + (p.argumentsValid === false ? ' (malformed arguments)' : '') : NO_CALL }),
          h('td', null, argLines(e, p)));
      })));
  }

  function openSample(i) {
    var s = DATA.samples[i], d = controls.detail;
    state.open = i;
    d.textContent = '';
    d.hidden = false;
    d.setAttribute('data-index', i);
    add(d, [
      h('h3', null, h('span', { class: 'mono', text: s.i }), ' ', h('span', { class: 'muted', text: DATA.suites[s.s].name }), ' ', outcomeTags(s)),
      s.e !== undefined ? [h('h4', { text: 'Error' }), h('pre', { id: 'sample-error', text: s.d || s.e })] : null,
      s.k !== undefined ? [h('h4', { text: 'Skipped' }), h('pre', { text: s.k })] : null,
      s.m ? h('div', { class: 'muted mono' }, DATA.nemoMetrics.map(function (m, j) { return m + ' ' + s.m[j].toFixed(2); }).join(' \u00b7 ')) : null,
      h('h4', { text: 'Prompt (last user message)' }),
      s.p !== undefined ? h('pre', { id: 'sample-prompt', text: s.p }) : h('p', { class: 'muted', text: 'Not stored (kept only for samples that are not fully right).' }),
      h('h4', { text: 'Calls' }), s.k === undefined ? callDiff(s) : h('p', { class: 'muted', text: 'Not scored.' }),
      h('h4', { text: 'Raw output' }),
      s.o !== undefined ? h('pre', { id: 'sample-output', text: s.o }) : h('p', { class: 'muted', text: 'Not stored (kept only for samples that are not fully right).' }),
    ]);
    var rows = controls.list.querySelectorAll('tr.sample');
    for (var n = 0; n < rows.length; n++) rows[n].classList.toggle('open', rows[n].getAttribute('data-index') === String(i));
    d.scrollIntoView({ block: 'nearest' });
  }

  var main = h('main', null, header(), cards(), thresholds(), failures(), suites(), tools(), confusion(), models(), renderComparison(DATA.comparison), browser());
  document.body.appendChild(main);
  drawList();
  document.body.setAttribute('data-ready-ms', String(Math.round(performance.now())));
  document.body.setAttribute('data-ready', 'true');
})();
`
