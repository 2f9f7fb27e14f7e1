// The HTML report: the pure parts (Wilson interval, script-safe JSON, confusion matrix), then a real `vitest run`
// subprocess writing `htmlFile`, opened from disk in headless Chromium (playwright-core driving the binary that
// @sparticuz/chromium ships): numbers against the JSON report, filters, a sample's prompt, output and call diff,
// a screenshot, and no console or page error. One browser for the file, one page.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Browser, Page } from 'playwright-core'
import { launchChromium } from '../helpers/browser.js'
import { buildRunReport } from '../../src/reporter/build.js'
import type { EvalMeta } from '../../src/eval/meta.js'
import type { ToolCall } from '../../src/calls/types.js'
import { scoreSample } from '../../src/score/nemo.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { evaluate } from '../../src/eval/describe-eval.js'
import { confusionMatrix, htmlReportData, htmlSampleFromMeta, NO_CALL, renderHtmlReport, scriptSafeJson, wilsonInterval } from '../../src/reporter/html.js'
import { createEvalProject, ensureBuilt, type EvalProject, type RunResult } from '../helpers/eval-project.js'

describe('wilsonInterval', () => {
  it('matches the textbook 95% Wilson interval', () => {
    const half = wilsonInterval(0.5, 10)
    expect(half?.lo).toBeCloseTo(0.2366, 4)
    expect(half?.hi).toBeCloseTo(0.7634, 4)
    const some = wilsonInterval(0.8, 50)
    expect(some?.lo).toBeCloseTo(0.6696, 4)
    expect(some?.hi).toBeCloseTo(0.8876, 4)
  })

  it('stays inside [0, 1] at the edges and has none without trials', () => {
    const none = wilsonInterval(0, 10)
    expect(none?.lo).toBe(0)
    expect(none?.hi).toBeCloseTo(0.2775, 4)
    const all = wilsonInterval(1, 10)
    expect(all?.lo).toBeCloseTo(0.7225, 4)
    expect(all?.hi).toBe(1)
    expect(wilsonInterval(0.5, 0)).toBeNull()
    expect(wilsonInterval(Number.NaN, 5)).toBeNull()
  })

  it('narrows as the sample grows', () => {
    const small = wilsonInterval(0.9, 20)!
    const large = wilsonInterval(0.9, 2000)!
    expect(large.hi - large.lo).toBeLessThan(small.hi - small.lo)
  })
})

/** A report with the fields the page reads; `metricCounts` as given (absent: a report from before the field). */
function smallReport(metrics: Record<string, number | null>, metricCounts?: Record<string, number>): any {
  const suite = { samples: 40, metrics, ...(metricCounts ? { metricCounts } : {}), scored: 40, withExpectedCalls: 40, noCallExpected: 7, errored: { count: 0, byReason: {} }, skipped: { count: 0, byReason: {} }, failures: {}, tools: {} }
  return { ...suite, suites: { s: suite }, thresholds: [], pass: true, thresholdsPass: true, testsPass: true, errored: { count: 0, byReason: {}, samples: [] }, worst: [] }
}

describe('the n of each metric', () => {
  const metrics = { name_correct: 0.5, no_call_accuracy: 1, trajectory_match: 0.5, agent_completed: 1, 'units.celsius': 0.25 }

  it('is the report\'s metricCounts, whatever the scorer (no view works it out by name)', () => {
    const counts = { name_correct: 40, no_call_accuracy: 7, trajectory_match: 4, agent_completed: 6, 'units.celsius': 12 }
    const data = htmlReportData({ report: smallReport(metrics, counts), samples: [] })
    for (const [m, n] of Object.entries(counts)) {
      expect(data.cards[m]?.n, m).toBe(n)
      expect(data.suites[0]?.metrics?.[m]?.n, m).toBe(n)
      // With no interval in the report, Wilson's over that n.
      expect(data.cards[m]?.lo, m).toBeCloseTo(wilsonInterval(metrics[m as keyof typeof metrics], n)!.lo, 12)
    }
  })

  it('is unknown, with no made-up interval, where the report has no metricCounts', () => {
    const data = htmlReportData({ report: smallReport(metrics), samples: [] })
    expect(data.cards['trajectory_match']).toEqual({ value: 0.5, n: null, lo: null, hi: null })
  })
})

describe('a fully right sample', () => {
  const weather = (city: string) => ({ name: 'get_weather', arguments: { city } })
  const right = async () => {
    const sample = { id: 'w1', messages: [{ role: 'user' as const, content: 'Weather in Paris?' }], expected: [weather('Paris')] }
    const { stored } = await evaluate(sample, { text: `<tool_call>\n${JSON.stringify(weather('Paris'))}\n</tool_call>` }, undefined, 'weather', {})
    return stored
  }

  it('shows the calls it made, not "(no call)", and counts as its tool in the confusion matrix', async () => {
    const meta = await right()
    const s = htmlSampleFromMeta(meta)
    expect(s.rightCalls).toBe('get_weather({"city":"Paris"})')
    expect(s.positions).toEqual([{ expected: 'get_weather', predicted: 'get_weather' }])
    expect(s).not.toHaveProperty('callsNotKept')
    const m = confusionMatrix([s])
    expect(m).toEqual({ expected: ['get_weather'], predicted: ['get_weather'], counts: [[1]] })
    const page = htmlReportData({ report: smallReport({}), samples: [s] }).samples[0]
    expect(page).toMatchObject({ r: 'get_weather({"city":"Paris"})', pos: [['get_weather', 'get_weather']] })
  })

  it('says its calls were not kept where the meta holds none (an older run), and never counts it as (no call)', async () => {
    const { rightCalls: _dropped, ...old } = await right()
    const s = htmlSampleFromMeta(old)
    expect(s.callsNotKept).toBe(true)
    expect(s).not.toHaveProperty('rightCalls')
    expect(confusionMatrix([s]).counts).toEqual([[1]])
    expect(htmlReportData({ report: smallReport({}), samples: [s] }).samples[0]).toMatchObject({ nk: 1 })
  })

  it('a right abstention stays "no call expected and none made", with nothing said missing', async () => {
    const { stored } = await evaluate({ id: 'a', messages: [{ role: 'user', content: 'Thanks' }], expected: [] }, { text: 'You are welcome.' }, undefined, 'weather', {})
    const s = htmlSampleFromMeta(stored)
    expect(s).not.toHaveProperty('callsNotKept')
    expect(s).not.toHaveProperty('rightCalls')
    expect(confusionMatrix([s])).toEqual({ expected: [NO_CALL], predicted: [NO_CALL], counts: [[1]] })
  })

  it('an errored record keeps no "right" line even where its meta came from a right trial', async () => {
    const meta = await right()
    const s = htmlSampleFromMeta({ ...meta, record: { ...meta.record, error: 'timed out' } })
    expect(s).not.toHaveProperty('rightCalls')
    expect(s.callsNotKept).toBe(true)
  })
})

describe('scriptSafeJson', () => {
  it('cannot close the script element or open a comment, and reads back unchanged', () => {
    const value = { o: '</script><script>alert(1)</script><!-- x -->', s: 'a\u2028b' }
    const text = scriptSafeJson(value)
    expect(text).not.toMatch(/<\/script|<!--|\u2028/i)
    expect(JSON.parse(text)).toEqual(value)
  })
})

describe('confusionMatrix', () => {
  it('counts expected positions against their predictions, and calls no position took', () => {
    const m = confusionMatrix([
      { id: 'a', failures: [], positions: [{ expected: 'f', predicted: 'f' }], calls: [{ name: 'f', arguments: {} }] },
      { id: 'b', failures: ['wrong_name'], positions: [{ expected: 'f', predicted: 'g' }], calls: [{ name: 'g', arguments: {} }] },
      { id: 'c', failures: ['no_call'], positions: [{ expected: 'g' }], calls: [] },
      { id: 'd', failures: ['extra_call'], positions: [{ expected: 'f', predicted: 'f' }], calls: [{ name: 'f', arguments: {} }, { name: 'f', arguments: {} }] },
      { id: 'e', failures: [], skipped: 'policy', calls: [{ name: 'z', arguments: {} }] },
      { id: 'f', failures: [], positions: [], calls: [] },
      { id: 'g', failures: [], error: 'backend down', positions: [], calls: [] },
    ])
    expect(m.expected).toEqual(['f', 'g', NO_CALL])
    expect(m.predicted).toEqual(['f', 'g', NO_CALL])
    expect(m.counts).toEqual([
      [2, 1, 0],
      [0, 0, 1],
      [1, 0, 1],
    ])
  })
})

// ---- the page in a browser, from a real run

const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n'
const user = (content: string) => [{ role: 'user', content }]
const call = (name: string, args: Record<string, unknown>) => ({ name, arguments: args })
const hermes = (...calls: { name: string; arguments: unknown }[]) => calls.map((c) => `<tool_call>\n${JSON.stringify(c)}\n</tool_call>`).join('\n')
const tc = (name: string, args: unknown) => ({ type: 'function', function: { name, arguments: JSON.stringify(args) } })
const gw = (city: string) => call('get_weather', { city })
const HOSTILE = '</script><script>window.__pwned = 1</script><!-- not a call'

const weatherData = jsonl([
  { id: 'w1', messages: user('Weather in Paris?'), expected: [gw('Paris')] },
  { id: 'w2', messages: user('Weather in Rome?'), expected: [gw('Rome')] },
  { id: 'w3', messages: [{ role: 'system', content: 'Be brief.' }, ...user('Weather in Oslo?')], expected: [gw('Oslo')] },
  { id: 'w4', messages: user('Thanks!'), expected: [] },
  { id: 'w5', messages: user('Bye'), expected: [] },
  { id: 'w6', messages: user('Weather in <b>Tokyo</b>?'), expected: [gw('Tokyo')] },
  { id: 'w7', messages: user('Weather in Lima?'), expected: [gw('Lima')] },
  { id: 'w8', messages: user('Weather in Bern?'), expected: [gw('Bern')] },
])
const weatherOutputs = jsonl([
  { id: 'w1', output: hermes(gw('Paris')) },
  { id: 'w2', output: hermes(gw('rome')) },
  { id: 'w3', output: hermes(call('get_time', { city: 'Oslo' })) },
  { id: 'w4', output: "You're welcome!" },
  { id: 'w5', output: hermes(gw('Lima')) },
  { id: 'w6', output: HOSTILE },
  // w7: no recorded output (errored)
  { id: 'w8', output: hermes(gw('Bern'), gw('Bern')) },
])
const calendarData = jsonl([
  { id: 'c1', messages: user('Cancel evt_1'), expected: [call('cancel_event', { event_id: 'evt_1' })] },
  { id: 'c2', messages: user('Cancel evt_2'), expected: [call('cancel_event', { event_id: 'evt_2' })] },
])
const calendarOutputs = jsonl([
  { id: 'c1', tool_calls: [tc('cancel_event', { event_id: 'evt_1' })] },
  { id: 'c2', tool_calls: [tc('cancel_event', { event_id: 'evt_9' })] },
])

const evalFile = (suite: string, data: string, outputs: string, scorers = '') => `
import { defineScorer, describeEval, replay } from 'vitest-tool-evals'
describeEval(${JSON.stringify(suite)}, { data: ${JSON.stringify(data)}, model: replay(${JSON.stringify(outputs)})${scorers} })
`
// A user scorer that gives a value only where calls were expected: its n is not the run's withExpectedCalls.
const oneCall = `, scorers: [defineScorer({ name: 'quality', metrics: ['one_call'], score: ({ sample, calls }) => ({ one_call: sample.expected.length > 0 ? calls.length === 1 : null }) })]`

// An agent suite (two samples): t1 fully right through a tool, t2 answers without calling. Its trajectory metrics
// are over these two samples only.
const tripData = [
  { id: 't1', messages: user('Airport of Lisbon?'), tools: [{ type: 'function', function: { name: 'find_airport', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }], expectedTrajectory: [[call('find_airport', { city: 'Lisbon' })]] },
  { id: 't2', messages: user('Airport of Faro?'), expectedTrajectory: [[call('find_airport', { city: 'Faro' })]] },
]
const tripEval = `
import { describeEval } from 'vitest-tool-evals'
const model = {
  id: 'scripted-trip',
  async generate(sample) {
    const asked = sample.messages.find((m) => m.role === 'user').content
    const tool = sample.messages.find((m) => m.role === 'tool')
    if (tool) return { text: 'It is ' + tool.content }
    if (asked.includes('Lisbon')) return { text: '<tool_call>\\n' + JSON.stringify({ name: 'find_airport', arguments: { city: 'Lisbon' } }) + '\\n</tool_call>' }
    return { text: 'No idea.' }
  },
}
describeEval('trip', { data: ${JSON.stringify(tripData)}, model, tools: { find_airport: ({ city }) => (city === 'Lisbon' ? 'LIS' : 'none') } })
`
const config = `
import { defineConfig } from 'vitest/config'
import ToolEvalsReporter from 'vitest-tool-evals/reporter'
export default defineConfig({
  test: {
    include: ['evals/*.eval.mjs'],
    // One worker thread for every file: what is tested is the page, whatever runs the files.
    pool: 'threads',
    isolate: false,
    setupFiles: ['vitest-tool-evals/setup'],
    reporters: [new ToolEvalsReporter({ thresholds: { name_correct: 0.5 }, outputFile: 'report.json', htmlFile: 'out/report.html', markdownFile: false, summary: false })],
  },
})
`

const pct = (v: number | null | undefined) => (v === null || v === undefined ? '\u2013' : `${(v * 100).toFixed(1)}%`)

describe('the HTML report in a browser', () => {
  let project: EvalProject
  let run: RunResult
  let browser: Browser
  let page: Page
  let report: Record<string, any>
  const problems: string[] = []
  const shots = mkdtempSync(join(tmpdir(), 'tool-evals-html-'))

  beforeAll(async () => {
    ensureBuilt()
    project = createEvalProject({
      'vitest.config.mjs': config,
      'evals/weather.eval.mjs': evalFile('weather', 'data/weather.jsonl', 'data/weather.outputs.jsonl', oneCall),
      'evals/trip.eval.mjs': tripEval,
      'evals/calendar.eval.mjs': evalFile('calendar', 'data/calendar.jsonl', 'data/calendar.outputs.jsonl'),
      'data/weather.jsonl': weatherData,
      'data/weather.outputs.jsonl': weatherOutputs,
      'data/calendar.jsonl': calendarData,
      'data/calendar.outputs.jsonl': calendarOutputs,
    })
    const [result, launched] = await Promise.all([project.run(['run']), launchChromium()])
    run = result
    browser = launched
    report = JSON.parse(readFileSync(join(project.dir, 'report.json'), 'utf8'))
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`)
    })
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`))
    // Anything but the file itself would be a network request: the page must need none.
    page.on('request', (r) => {
      if (!r.url().startsWith('file:')) problems.push(`request: ${r.url()}`)
    })
    await page.goto(pathToFileURL(join(project.dir, 'out/report.html')).href)
    await page.waitForSelector('body[data-ready="true"]', { timeout: 5000 })
  })

  afterAll(async () => {
    await browser?.close()
    project?.remove()
  })

  it('is written by the run next to the JSON report', () => {
    expect(run.stdout + run.stderr).toContain('HTML report written to')
    expect(report.samples).toBe(12)
  })

  it('shows the JSON report numbers: counts, verdict, every metric with its interval', async () => {
    expect(await page.textContent('#verdict')).toBe(report.pass ? 'PASS' : 'FAIL')
    expect(await page.textContent('[data-count="samples"]')).toBe(String(report.samples))
    expect(await page.textContent('[data-count="errored"]')).toBe(String(report.errored.count))
    expect(await page.textContent('[data-count="skipped"]')).toBe(String(report.skipped.count))
    const cards = await page.$$eval('.card', (els) => els.map((e) => ({ metric: e.getAttribute('data-metric'), value: e.querySelector('.value')?.textContent, ci: e.querySelector('.ci')?.textContent, lo: e.getAttribute('data-lo'), hi: e.getAttribute('data-hi') })))
    expect(cards.map((c) => c.metric)).toEqual(Object.keys(report.metrics))
    for (const card of cards) {
      const value = report.metrics[card.metric as string] as number
      expect(card.value, card.metric as string).toBe(pct(value))
      const n = report.metricCounts[card.metric as string] as number
      const ci = wilsonInterval(value, n)!
      expect(Number(card.lo)).toBeCloseTo(ci.lo, 12)
      expect(Number(card.hi)).toBeCloseTo(ci.hi, 12)
      expect(card.ci).toBe(`95% CI ${pct(ci.lo)} \u2013 ${pct(ci.hi)} \u00b7 n=${n}`)
    }
    // The n each view shows is the one the scorer declared: 2 agent samples, 6 weather samples with a value, 10
    // samples expecting calls, 2 expecting none. None of them may borrow another's.
    expect(report.metricCounts).toMatchObject({ name_correct: 10, no_call_accuracy: 2, trajectory_match: 2, trajectory_args_exact_match: 2, agent_completed: 2, 'quality.one_call': 6 })
    const nOf = async (m: string) => (await page.textContent(`.card[data-metric="${m}"] .ci`))?.split('n=')[1]
    expect(await nOf('trajectory_match')).toBe('2')
    expect(await nOf('agent_completed')).toBe('2')
    expect(await nOf('quality.one_call')).toBe('6')
  })

  it('shows per-suite and per-tool rates and the failure counts of the report', async () => {
    for (const [suite, s] of Object.entries<any>(report.suites)) {
      const cells = await page.$$eval(`#suites tr[data-suite="${suite}"] td`, (tds) => tds.map((td) => td.childNodes[0]?.textContent ?? ''))
      expect(cells.slice(0, 4)).toEqual([suite, String(s.samples), String(s.errored.count), String(s.skipped.count)])
      expect(cells.slice(4)).toEqual(Object.keys(report.metrics).map((m) => pct(s.metrics[m])))
    }
    for (const [tool, t] of Object.entries<any>(report.tools)) {
      const cells = await page.$$eval(`#tools tr[data-tool="${tool}"] td`, (tds) => tds.map((td) => td.childNodes[0]?.textContent ?? ''))
      expect(cells).toEqual([tool, String(t.positions), pct(t.name_correct), pct(t.args_exact_match)])
    }
    for (const [category, n] of Object.entries(report.failures)) {
      expect(await page.textContent(`#failures [data-failure="${category}"] .num`)).toBe(String(n))
    }
  })

  it('draws the confusion matrix from the per-position names', async () => {
    const cell = (e: string, p: string) => page.getAttribute(`#confusion td[data-expected="${e}"][data-predicted="${p}"]`, 'title')
    expect(await cell('get_weather', 'get_weather')).toBe('get_weather \u2192 get_weather: 3')
    expect(await cell('get_weather', 'get_time')).toBe('get_weather \u2192 get_time: 1')
    expect(await cell('get_weather', NO_CALL)).toBe(`get_weather \u2192 ${NO_CALL}: 2`) // w6 (no call), w7 (errored)
    expect(await cell(NO_CALL, 'get_weather')).toBe(`${NO_CALL} \u2192 get_weather: 2`) // w5 unexpected, w8 extra
    expect(await cell(NO_CALL, NO_CALL)).toBe(`${NO_CALL} \u2192 ${NO_CALL}: 1`) // w4 rightly made none
    expect(await cell('cancel_event', 'cancel_event')).toBe('cancel_event \u2192 cancel_event: 2')
  })

  it('filters the samples by suite, tool, failure category and text', async () => {
    const count = () => page.textContent('#sample-count')
    const ids = () => page.$$eval('#sample-list tr.sample td:nth-child(2)', (tds) => tds.map((td) => td.textContent))
    expect(await count()).toBe('12 of 12 samples')
    await page.selectOption('#filter-suite', 'calendar')
    expect(await ids()).toEqual(['c1', 'c2'])
    await page.selectOption('#filter-category', 'wrong_arguments')
    expect(await ids()).toEqual(['c2'])
    await page.selectOption('#filter-suite', '')
    expect(await ids()).toEqual(['c2', 'w2'])
    await page.selectOption('#filter-category', ':errored')
    expect(await ids()).toEqual(['w7'])
    await page.selectOption('#filter-category', '')
    await page.selectOption('#filter-tool', 'get_time')
    expect(await ids()).toEqual(['w3'])
    await page.selectOption('#filter-tool', '')
    await page.fill('#filter-text', 'TOKYO')
    expect(await ids()).toEqual(['w6'])
    await page.fill('#filter-text', '')
    // A failure bar filters too.
    await page.click('#failures [data-failure="unexpected_call"]')
    expect(await ids()).toEqual(['w5'])
    expect(await page.inputValue('#filter-category')).toBe('unexpected_call')
    await page.selectOption('#filter-category', '')
    expect(await count()).toBe('12 of 12 samples')
  })

  it('opens a sample: prompt, raw output shown as text (never as markup), call diff', async () => {
    await page.click('#sample-list tr.sample:has-text("w6")')
    expect(await page.textContent('#sample-prompt')).toBe('Weather in <b>Tokyo</b>?')
    expect(await page.textContent('#sample-output')).toBe(HOSTILE)
    expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined()
    expect(await page.$$eval('#call-diff tbody td', (tds) => tds.map((td) => td.textContent))).toEqual(['get_weather', NO_CALL, '- city: "Tokyo"'])

    await page.click('#sample-list tr.sample:has-text("w2")')
    expect(await page.textContent('#sample-prompt')).toBe('Weather in Rome?')
    expect(await page.$$eval('#call-diff tbody td', (tds) => tds.map((td) => td.textContent))).toEqual(['get_weather', 'get_weather', '- city: "Rome"+ city: "rome"'])

    await page.click('#sample-list tr.sample:has-text("w3")')
    expect(await page.textContent('#sample-prompt')).toBe('Weather in Oslo?') // the last user message, not the system one

    await page.click('#sample-list tr.sample:has-text("w8")')
    expect(await page.$$eval('#call-diff tbody tr', (trs) => trs.map((tr) => tr.firstElementChild?.textContent))).toEqual(['get_weather', NO_CALL])

    await page.click('#sample-list tr.sample:has-text("w7")')
    expect(await page.textContent('#sample-error')).toMatch(/w7/)

    // A fully right sample keeps its record and one line of its calls (under 1 KB): no prompt, no output, but what
    // it got right, in the list and in the detail, never "(no call)".
    const row = (id: string) => page.$$eval(`#sample-list tr.sample[data-index]`, (trs, id) => trs.filter((tr) => tr.children[1]?.textContent === id).map((tr) => [...tr.children].slice(3).map((td) => td.textContent))[0], id)
    expect(await row('w1')).toEqual(['get_weather', 'get_weather'])
    await page.click('#sample-list tr.sample:has-text("w1")')
    expect(await page.$('#sample-prompt')).toBeNull()
    expect(await page.$('#sample-output')).toBeNull()
    expect(await page.textContent('#right-calls')).toBe('get_weather({"city":"Paris"})')
    expect(await page.textContent('#sample-detail')).not.toContain('No call expected')
    expect(await page.$('#call-diff')).toBeNull()
    // The same for a right sample whose calls came structured (tool_calls), and for an agent's.
    await page.click('#sample-list tr.sample:has-text("c1")')
    expect(await page.textContent('#right-calls')).toBe('cancel_event({"event_id":"evt_1"})')
    expect(await row('t1')).toEqual(['find_airport', 'find_airport'])
    await page.click('#sample-list tr.sample:has-text("t1")')
    expect(await page.textContent('#right-calls')).toBe('find_airport({"city":"Lisbon"})')
    // A right abstention still says so.
    await page.click('#sample-list tr.sample:has-text("w4")')
    expect(await page.textContent('#sample-detail')).toContain('No call expected and none made.')
    // The tool filter finds fully right samples too (by their positions' names).
    await page.selectOption('#filter-tool', 'cancel_event')
    expect(await page.$$eval('#sample-list tr.sample td:nth-child(2)', (tds) => tds.map((td) => td.textContent))).toEqual(['c1', 'c2'])
    await page.selectOption('#filter-tool', '')
  })

  it('renders without console errors, page errors or network requests (screenshot for a look)', async () => {
    await page.click('#sample-list tr.sample:has-text("w2")')
    expect(await page.textContent('#thresholds tbody')).toBe('name_correctrun50.0%60.0%pass')
    const file = join(shots, 'report.png')
    await page.screenshot({ path: file, fullPage: true })
    console.log(`HTML report screenshot: ${file}`)
    expect(readFileSync(file).length).toBeGreaterThan(10_000)
    expect(problems).toEqual([])
  })

  it('draws the baseline comparison: paired deltas with intervals, p-values, verdicts and the flipped samples', async () => {
    const comparison = {
      base: { file: 'base/report.json', meta: {} },
      metrics: {
        name_correct: { base: 0.9, head: 0.8, delta: -0.1, ci: [-0.16, -0.04], pValue: 0.0039, pAdjusted: 0.0078, verdict: 'regressed', gated: true, discordant: { regressed: 9, improved: 1 } },
        has_call: { base: 1, head: 1, delta: 0, ci: [0, 0], pValue: 1, verdict: 'unchanged', gated: false, discordant: { regressed: 0, improved: 0 } },
        args_json_valid: { base: 1, head: 0.9, delta: -0.1, ci: [-0.16, -0.04], pValue: 0.001, verdict: 'regressed', gated: false, discordant: { regressed: 10, improved: 0 } },
      },
      suites: {},
      samples: { regressed: Array.from({ length: 103 }, (_, i) => `weather > r${i}`), improved: ['weather > w5'], added: [], removed: [] },
      pass: false,
    }
    const file = join(shots, 'comparison.html')
    writeFileSync(file, renderHtmlReport({ report: report as never, samples: [], comparison }))
    await page.goto(pathToFileURL(file).href)
    await page.waitForSelector('body[data-ready="true"]', { timeout: 5000 })
    expect(await page.isVisible('#comparison')).toBe(true)
    const rows = await page.$$eval('#comparison-metrics tbody tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)))
    expect(rows).toEqual([
      // The p-value every view shows, named by its adjustment; only a gated verdict reads "regressed".
      ['name_correct', '90.0%', '80.0%', '-10.0 pt', '-16.0 pt \u2013 -4.0 pt', '0.0078 (gate-adj.)', 'regressed'],
      ['has_call', '100.0%', '100.0%', '+0.0 pt', '+0.0 pt \u2013 +0.0 pt', '1.000 (unadj.)', 'unchanged (not gated)'],
      ['args_json_valid', '100.0%', '90.0%', '-10.0 pt', '-16.0 pt \u2013 -4.0 pt', '0.0010 (unadj.)', 'dropped (not gated)'],
    ])
    expect(await page.textContent('#comparison-legend')).toMatch(/\(gate-adj\.\).*\(unadj\.\)/)
    // Long lists are capped, and say how many more.
    const regressed = await page.$$eval('#comparison-regressed li', (lis) => lis.map((li) => li.textContent))
    expect(regressed).toHaveLength(101)
    expect(regressed[100]).toBe('3 more')
    expect(await page.textContent('#comparison-improved')).toBe('weather > w5')
    expect(problems).toEqual([])
  })

  it('draws a model matrix: the leaderboard with intervals and verdicts, failures, confused tools, disagreements', async () => {
    const metas: EvalMeta[] = []
    const expected = [{ name: 'get_weather', arguments: { city: 'Paris' } }]
    for (let i = 0; i < 12; i++) {
      for (const model of ['base', 'sft']) {
        const right = model === 'sft' || i >= 9
        const calls: ToolCall[] = [{ name: right || i > 0 ? 'get_weather' : 'get_forecast', arguments: { city: right ? 'Paris' : 'Rome' }, argumentsValid: true, format: 'hermes' }]
        const m: EvalMeta = { v: 1, record: { id: `s${i}`, suite: `weather > ${model}`, score: scoreSample(calls, expected) }, model, reference: 'base' }
        if (!right) Object.assign(m, { expected, calls })
        metas.push(m)
      }
    }
    const matrix = buildRunReport(metas, { testsPass: true }, { thresholds: {}, usage: { pricing: undefined, maxThresholds: {} }, worst: 5 })
    const file = join(shots, 'models.html')
    writeFileSync(file, renderHtmlReport({ report: matrix, samples: metas.map(htmlSampleFromMeta) }))
    await page.goto(pathToFileURL(file).href)
    await page.waitForSelector('body[data-ready="true"]', { timeout: 5000 })
    expect(await page.isVisible('#models')).toBe(true)
    expect(await page.$$eval('#model-verdicts li', (lis) => lis.map((li) => li.textContent))).toEqual([
      'sft beats base on args_exact_match by 75.0 points, p = 0.0039 (Holm).',
    ])
    const cell = await page.textContent('#model-leaderboard tr[data-metric="args_exact_match"] td[data-model="sft"]')
    expect(cell).toBe('100.0%75.8% \u2013 100.0%+75.0 pt, p = 0.0039 (Holm), better')
    expect(await page.textContent('#model-failures tr[data-model="base"]')).toBe('base18')
    expect(await page.textContent('#model-confusion tr[data-tool="get_weather"] td[data-model="base"]')).toBe('get_forecast 1')
    expect(await page.$$eval('#model-disagreements tbody tr', (trs) => trs.length)).toBe(9)
    expect(problems).toEqual([])
  })
})

describe('renderHtmlReport', () => {
  it('keeps the comparison panel hidden without a baseline, and embeds one JSON block', () => {
    const report = JSON.parse(JSON.stringify({ samples: 0, metrics: {}, suites: {}, thresholds: [], pass: true, thresholdsPass: true, testsPass: true, scored: 0, withExpectedCalls: 0, noCallExpected: 0, errored: { count: 0, byReason: {}, samples: [] }, skipped: { count: 0, byReason: {} }, failures: {}, tools: {}, worst: [] }))
    const html = renderHtmlReport({ report, samples: [] })
    expect(html.match(/<script type="application\/json"/g)).toHaveLength(1)
    expect(htmlReportData({ report, samples: [] }).comparison).toBeNull()
  })
})
