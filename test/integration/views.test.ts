// One run with every feature on (thresholds, a baseline, a built-in and a user scorer, trials, dialogues, usage, an
// errored sample, fully right samples), through real `vitest run`s (one process): the JSON report, the Markdown
// summary, the terminal and the HTML page (opened in Chromium) show the same rates, n, intervals, p-values and
// verdicts, because each renders the one decided report.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Browser } from 'playwright-core'
import { launchChromium } from '../helpers/browser.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { shownP, shownVerdict } from '../../src/reporter/compare/render.js'
import { mdText } from '../../src/reporter/markdown-text.js'
import { createEvalProject, ensureBuilt, type EvalProject, type RunResult } from '../helpers/eval-project.js'

const gw = (city: string) => ({ name: 'get_weather', arguments: { city } })
const hermes = (city: string) => `<tool_call>\n${JSON.stringify(gw(city))}\n</tool_call>`
const CITIES = ['Paris', 'Rome', 'Oslo', 'Lima', 'Cairo', 'Tokyo', 'Quito', 'Accra', 'Hanoi', 'Dakar', 'Minsk', 'Sofia']
const weather = CITIES.map((city, i) => ({ id: `w${i + 1}`, messages: [{ role: 'user', content: `Weather in ${city}?` }], expected: [gw(city)] }))
weather.push({ id: 'boom', messages: [{ role: 'user', content: 'Weather in Bern?' }], expected: [gw('Bern')] })
const assistantCall = (id: string, city: string) => ({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'get_weather', arguments: JSON.stringify({ city }) } }] })
const dialogues = ['Riga', 'Baku', 'Doha', 'Lome', 'Suva'].map((city, i) => ({
  id: `d${i + 1}`,
  messages: [
    { role: 'user', content: `Weather in ${city}?` },
    assistantCall('c1', city),
    { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
    { role: 'assistant', content: 'Sunny.' },
    { role: 'user', content: 'And in Oslo?' },
    assistantCall('c2', 'Oslo'),
  ],
}))

const config = `
import { defineConfig } from 'vitest/config'
import { toolEvals } from 'vitest-tool-evals/plugin'
export default defineConfig({
  plugins: [toolEvals({
    thresholds: { name_correct: 0.8, args_exact_match: 0.9, 'quality.right_city': 0.5 },
    outputFile: process.env.REPORT ?? 'report.json',
    htmlFile: 'report.html',
    markdownFile: 'summary.md',
    pricing: { inline: { prompt: 1, completion: 2 } },
    regression: { minDrop: 0.02 },
  })],
  test: { include: ['evals/*.eval.mjs'] },
})
`

// HEAD=1 is the changed model: six single-turn answers and two dialogue turns go wrong.
const evalFile = `
import { defineScorer, describeEval } from 'vitest-tool-evals'
const head = process.env.HEAD === '1'
const cities = ${JSON.stringify(Object.fromEntries(weather.map((s) => [s.id, s.expected[0]?.arguments.city])))}
const quality = defineScorer({
  name: 'quality',
  metrics: ['right_city', 'one_call'],
  score: ({ sample, calls }) => ({ right_city: calls[0]?.arguments.city === cities[sample.id], one_call: calls.length === 1 }),
})
const model = {
  id: 'inline',
  async generate(sample) {
    if (sample.id === 'boom') throw new Error('backend down')
    const wrong = head ? ['w1', 'w2', 'w3', 'w4', 'w5', 'w6', 'd1#2', 'd2#2'] : ['w12']
    const expected = sample.expected?.[0]?.arguments.city ?? cities[sample.id]
    const city = wrong.includes(sample.id) ? 'Nowhere' : expected
    return { text: ${JSON.stringify(hermes('CITY'))}.replace('CITY', city), usage: { promptTokens: 20, completionTokens: 7, latencyMs: 5 } }
  },
}
describeEval('weather', { data: ${JSON.stringify(weather)}, model, trials: 2, scorers: [quality], schema: true })
describeEval('talks', { data: ${JSON.stringify(dialogues)}, model })
`

let project: EvalProject
let head: RunResult
let browser: Browser | undefined
const read = (file: string) => readFileSync(join(project.dir, file), 'utf8')
/** The head run's part of the Markdown summary (both runs append to it; the head's starts with its comparison). */
const headMarkdown = () => {
  const md = read('summary.md')
  return md.slice(md.lastIndexOf('## Tool evals vs baseline'))
}

beforeAll(async () => {
  ensureBuilt()
  project = createEvalProject({ 'vitest.config.mjs': config, 'evals/weather.eval.mjs': evalFile })
  // The baseline and the head run in one process (project.runs): what is tested is what the head run shows.
  const [runs, launched] = await Promise.all([
    project.runs([{ args: ['run'], env: { REPORT: 'baseline/report.json' } }, { args: ['run'], env: { HEAD: '1', TOOL_EVALS_BASELINE: 'baseline/report.json' } }]),
    launchChromium(),
  ])
  head = runs[1] as RunResult
  browser = launched
}, 240_000)
afterAll(async () => {
  await browser?.close()
  project?.remove()
})

/** What the page shows, read once in Chromium after its script drew it (a single-process browser keeps one page). */
let view: ReturnType<typeof readPage> | undefined
const pageView = () => (view ??= readPage())

async function readPage() {
  const page = await (browser as Browser).newPage()
  await page.goto(pathToFileURL(join(project.dir, 'report.html')).href)
  await page.waitForSelector('body[data-ready="true"]', { timeout: 10_000 })
  const view = {
    verdict: await page.textContent('#verdict'),
    reasons: await page.$$eval('#gate-reasons li', (lis) => lis.map((li) => li.textContent)),
    cards: await page.$$eval('#metrics .card', (cards) =>
      cards.map((c) => ({
        metric: c.getAttribute('data-metric'),
        value: c.getAttribute('data-value'),
        lo: c.getAttribute('data-lo'),
        hi: c.getAttribute('data-hi'),
        ci: c.querySelector('.ci')?.textContent ?? '',
      })),
    ),
    comparison: await page.$$eval('#comparison-metrics tbody tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent))),
  }
  return view
}


describe('every view renders the one report', () => {
  it('the run has every feature on, and fails for reasons the report lists', () => {
    const r = JSON.parse(read('report.json'))
    expect(Object.keys(r.suites).sort()).toEqual(['talks', 'weather'])
    expect(r.errored.count).toBeGreaterThan(0)
    expect(r.trials.count).toBe(2)
    expect(r.metrics['quality.right_city']).toBeTypeOf('number')
    expect(r.metrics['schema_overall']).toBeTypeOf('number')
    expect(r.usage).toBeDefined()
    expect(r.comparison).toBeDefined()
    expect(r.pass).toBe(false)
    expect(r.gate.reasons.length).toBeGreaterThan(1)
    expect(head.code).toBe(1)
  })

  it('the verdict and its reasons are the same in the JSON report, the terminal, Markdown and the page', async () => {
    const r = JSON.parse(read('report.json'))
    const messages: string[] = r.gate.reasons.map((x: { message: string }) => x.message)
    const md = headMarkdown()
    expect(md).toContain('## Tool evals ❌')
    expect(head.stdout).toContain(`The run fails (${messages.length} reasons):`)
    for (const m of messages) {
      expect(head.stdout).toContain(`✗ ${m}`)
      expect(md).toContain(`- ${mdText(m)}`)
    }
    const view = await pageView()
    expect(view.verdict).toBe('FAIL')
    expect(view.reasons).toEqual(messages)
  })

  it('every rate, interval and n agrees across the JSON report, the terminal, Markdown and the page', async () => {
    const r = JSON.parse(read('report.json'))
    const md = headMarkdown()
    const view = await pageView()
    const cards = new Map(view.cards.map((c) => [c.metric, c]))
    const measured = Object.entries(r.metrics as Record<string, number | null>).filter(([, v]) => v !== null) as [string, number][]
    expect(measured.length).toBeGreaterThanOrEqual(12)
    for (const [metric, value] of measured) {
      const [lo, hi] = r.metricIntervals[metric] as [number, number]
      // Terminal: `metric  0.667 (0.39–0.86)` in the overall column (names cut at 25 columns).
      const name = metric.length > 25 ? `${metric.slice(0, 24)}…` : metric
      const row = head.stdout.split('\n').find((l) => l.startsWith(`  ${name} `))
      expect(row, metric).toBeDefined()
      expect(row?.slice(27).trim().startsWith(`${value.toFixed(3)} (${lo.toFixed(2)}–${hi.toFixed(2)})`), `${metric}: ${row}`).toBe(true)
      // Markdown: `| metric | 0.667 | <suites> | 0.391–0.862 |`.
      const mdRow = md.split('\n').find((l) => l.startsWith(`| ${mdText(metric)} |`))
      expect(mdRow?.startsWith(`| ${mdText(metric)} | ${value.toFixed(3)} |`), `${metric}: ${mdRow}`).toBe(true)
      expect(mdRow?.endsWith(` ${lo.toFixed(3)}–${hi.toFixed(3)} |`), `${metric}: ${mdRow}`).toBe(true)
      // The page: the card's value, interval and n are the report's.
      const card = cards.get(metric)
      expect(Number(card?.value), metric).toBe(value)
      expect(Number(card?.lo), metric).toBe(lo)
      expect(Number(card?.hi), metric).toBe(hi)
      expect(card?.ci, metric).toContain(`n=${r.metricCounts[metric]}`)
    }
  })

  it('every comparison row: the same p-value (with its label), n and verdict in the terminal, Markdown and the page', async () => {
    const c = JSON.parse(read('report.json')).comparison
    const md = headMarkdown()
    const view = await pageView()
    const pageRows = new Map(view.comparison.map((row) => [row[0], row]))
    for (const [metric, m] of Object.entries(c.metrics as Record<string, { verdict: 'regressed' | 'improved' | 'inconclusive' | 'unchanged'; gated: boolean; n: number; pValue: number; pAdjusted?: number }>)) {
      const p = shownP(m)
      // A metric not gated says so after its name, and its verdict word is never "regressed".
      const word = shownVerdict(m).replace(' (not gated)', '')
      const line = head.stdout.split('\n').find((l) => l.includes(` ${metric}${m.gated ? '' : ' (not gated)'}: `) && l.trimStart().startsWith(word))
      expect(line, metric).toBeDefined()
      expect(line).toContain(`p=${p},`)
      expect(line).toContain(`n=${m.n})`)
      // The metric's row (an ungated one says so after its name).
      const mdRow = md.split('\n').find((l) => l.split(' | ')[1]?.replace(' (not gated)', '') === mdText(metric) && l.includes('→'))
      expect(mdRow, metric).toBeDefined()
      expect(mdRow).toContain(`| ${p} |`)
      expect(mdRow?.endsWith(`| ${m.n} |`)).toBe(true)
      expect(pageRows.get(metric)?.[5], metric).toBe(p)
      expect(pageRows.get(metric)?.[6], metric).toBe(shownVerdict(m))
    }
  })
})
