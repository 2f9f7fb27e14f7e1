// HTML report at scale: 10,000 synthetic samples (5 suites, 20 tools, about a third not fully right, outputs of a few
// hundred characters, prompts on the failing ones), rendered with the built renderer: the file's size (and gzipped),
// the time to render it in Node, and in headless Chromium (@sparticuz/chromium) the time from navigation to a drawn
// page, to a text-search filter over all samples, and to open one sample. Run: npm run bench (or node bench/html.js
// after npm run build). Figures go to BENCHMARKS.md; nothing here passes or fails.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { gzipSync } from 'node:zlib'
import { renderHtmlReport } from '../dist/reporter/html.js'
import { FAILURE_CATEGORIES, NEMO_METRICS } from '../dist/score/types.js'

const N = Number(process.env.HTML_BENCH_SAMPLES ?? 10_000)
const TOOLS = Array.from({ length: 20 }, (_, i) => `tool_${String(i).padStart(2, '0')}`)
const SUITES = ['weather', 'calendar', 'search', 'bfcl_simple', 'multi_turn']

/** A small deterministic generator (same data every run). */
function rng(seed) {
  let s = seed >>> 0
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32)
}

function makeSamples() {
  const rand = rng(42)
  const samples = []
  for (let i = 0; i < N; i++) {
    const tool = TOOLS[Math.floor(rand() * TOOLS.length)]
    const args = { query: `item ${i} in city ${Math.floor(rand() * 500)}`, limit: 1 + Math.floor(rand() * 10) }
    const roll = rand()
    let name = tool
    let got = args
    const failures = []
    if (roll < 0.08) {
      name = TOOLS[(TOOLS.indexOf(tool) + 1) % TOOLS.length]
      failures.push('wrong_name')
    } else if (roll < 0.25) {
      got = { ...args, limit: args.limit + 1 }
      failures.push('wrong_arguments')
    } else if (roll < 0.3) failures.push('no_call')
    const calls = failures[0] === 'no_call' ? [] : [{ name, arguments: got, format: 'hermes' }]
    const right = failures.length === 0
    const metric = (v) => Object.fromEntries(NEMO_METRICS.map((m) => [m, v]))
    const s = {
      id: `s${i}`,
      suite: SUITES[i % SUITES.length],
      failures,
      metrics: metric(right ? 1 : 0.5),
      positions: [calls[0] ? { expected: tool, predicted: name } : { expected: tool }],
      expected: [{ name: tool, arguments: args }],
      calls,
      output: calls.length
        ? `Let me look that up for you.\n<tool_call>\n${JSON.stringify({ name, arguments: got })}\n</tool_call>`
        : 'I am not able to help with that request, but here is some general advice about it instead.',
    }
    if (!right) s.prompt = `Please find ${args.query} and show me at most ${args.limit} results, sorted by relevance.`
    samples.push(s)
  }
  return samples
}

function reportOf(samples) {
  const failures = Object.fromEntries(FAILURE_CATEGORIES.map((f) => [f, 0]))
  const tools = {}
  let nameOk = 0
  for (const s of samples) {
    for (const f of s.failures) failures[f]++
    const p = s.positions[0]
    const t = (tools[p.expected] ??= { positions: 0, nameCorrect: 0, argsExactMatch: 0 })
    t.positions++
    if (p.predicted === p.expected) (t.nameCorrect++, nameOk++)
    if (s.failures.length === 0) t.argsExactMatch++
  }
  for (const t of Object.values(tools)) {
    t.name_correct = t.nameCorrect / t.positions
    t.args_exact_match = t.argsExactMatch / t.positions
  }
  const metrics = { has_call: 0.95, name_correct: nameOk / samples.length, args_json_valid: 0.95, args_field_precision: 0.8, args_field_recall: 0.8, args_exact_match: 0.7, no_call_accuracy: null }
  const suite = (n) => ({ samples: n, metrics, scored: n, withExpectedCalls: n, noCallExpected: 0, errored: { count: 0, byReason: {} }, skipped: { count: 0, byReason: {} }, failures, tools })
  return {
    samples: samples.length, metrics, suites: Object.fromEntries(SUITES.map((name) => [name, suite(samples.length / SUITES.length)])),
    thresholds: [], pass: true, thresholdsPass: true, testsPass: true, scored: samples.length, withExpectedCalls: samples.length, noCallExpected: 0,
    errored: { count: 0, byReason: {}, samples: [] }, skipped: { count: 0, byReason: {} }, failures, tools, worst: [],
  }
}

async function browserTimes(file) {
  let chromium, playwright
  try {
    chromium = (await import('@sparticuz/chromium')).default
    playwright = (await import('playwright-core')).chromium
  } catch {
    return { note: 'playwright-core / @sparticuz/chromium not installed: browser timings skipped' }
  }
  const browser = await playwright.launch({ executablePath: await chromium.executablePath(), args: chromium.args, headless: true })
  try {
    const best = { readyMs: Infinity, searchMs: Infinity, openMs: Infinity }
    // One page, loaded afresh each round (the shipped Chromium runs single-process: closing a page ends it).
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    for (let round = 0; round < 3; round++) {
      await page.goto(pathToFileURL(file).href)
      await page.waitForSelector('body[data-ready="true"]')
      best.readyMs = Math.min(best.readyMs, Number(await page.getAttribute('body', 'data-ready-ms')))
      // Timed inside the page: the filter redraw and a sample's detail, without the driver's round trips.
      const { searchMs, openMs } = await page.evaluate(() => {
        const input = document.getElementById('filter-text')
        let t0 = performance.now()
        input.value = 'city 123'
        input.dispatchEvent(new Event('input'))
        const searchMs = performance.now() - t0
        input.value = ''
        input.dispatchEvent(new Event('input'))
        t0 = performance.now()
        document.querySelector('#sample-list tr.sample').click()
        return { searchMs, openMs: performance.now() - t0 }
      })
      best.searchMs = Math.min(best.searchMs, searchMs)
      best.openMs = Math.min(best.openMs, openMs)
    }
    return { chromium: browser.version(), readyMs: best.readyMs, searchMs: +best.searchMs.toFixed(1), openMs: +best.openMs.toFixed(1) }
  } finally {
    await browser.close()
  }
}

const samples = makeSamples()
const report = reportOf(samples)
let html = ''
let renderMs = Infinity
for (let r = 0; r < 5; r++) {
  const t0 = process.hrtime.bigint()
  html = renderHtmlReport({ report, samples })
  renderMs = Math.min(renderMs, Number(process.hrtime.bigint() - t0) / 1e6)
}
const dir = mkdtempSync(join(tmpdir(), 'tool-evals-html-bench-'))
const file = join(dir, 'report.html')
writeFileSync(file, html)
const bytes = Buffer.byteLength(html)
const failing = samples.filter((s) => s.failures.length > 0).length
console.log(JSON.stringify({ bench: 'html', samples: N, failing, bytes, mb: +(bytes / 1e6).toFixed(2), gzipMb: +(gzipSync(html).length / 1e6).toFixed(2), bytesPerSample: Math.round(bytes / N), renderMs: +renderMs.toFixed(1) }))
console.log(JSON.stringify({ bench: 'html-browser', samples: N, ...(await browserTimes(file)) }))
rmSync(dir, { recursive: true, force: true })
