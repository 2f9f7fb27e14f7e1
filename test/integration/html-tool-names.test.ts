// The HTML report's tool filter and call diff with tool and argument names that are also names of Object.prototype's
// members (`constructor`, `__proto__`, `toString`): model output, so the page keeps them in maps without a prototype.
// The page is rendered from samples made here and opened from disk in headless Chromium.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Browser, Page } from 'playwright-core'
import { launchChromium } from '../helpers/browser.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { renderHtmlReport, type HtmlSample } from '../../src/reporter/html.js'

const report = {
  samples: 4, metrics: { name_correct: 0.5 }, suites: {}, thresholds: [], pass: true, thresholdsPass: true, testsPass: true, scored: 4,
  withExpectedCalls: 4, noCallExpected: 0, errored: { count: 0, byReason: {}, samples: [] }, skipped: { count: 0, byReason: {} },
  failures: { wrong_name: 2 }, tools: {}, worst: [],
}

function sample(id: string, expected: string, predicted: string, args: Record<string, unknown> = {}): HtmlSample {
  const right = expected === predicted
  return {
    id,
    suite: 'tools',
    failures: right ? [] : ['wrong_name'],
    positions: [{ expected, predicted }],
    expected: [{ name: expected, arguments: {} }],
    calls: [{ name: predicted, arguments: args }],
  }
}

const samples: HtmlSample[] = [
  sample('s-constructor', 'get_weather', 'constructor'),
  sample('s-proto', '__proto__', '__proto__'),
  sample('s-tostring', 'get_weather', 'toString'),
  // Its arguments are named like prototype members, and the expected call has none of them.
  sample('s-plain', 'get_weather', 'get_weather', JSON.parse('{"constructor":1,"__proto__":2,"city":"Paris"}')),
]

describe('the HTML tool filter with tool names like prototype members', () => {
  let browser: Browser
  let page: Page
  const dir = mkdtempSync(join(tmpdir(), 'tool-evals-html-names-'))
  const problems: string[] = []

  beforeAll(async () => {
    const file = join(dir, 'report.html')
    writeFileSync(file, renderHtmlReport({ report: report as never, samples }))
    browser = await launchChromium()
    page = await browser.newPage()
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`))
    await page.goto(pathToFileURL(file).href)
    await page.waitForSelector('body[data-ready="true"]', { timeout: 5000 })
  })
  afterAll(async () => {
    await browser?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const ids = () => page.$$eval('#sample-list tr.sample td:nth-child(2)', (tds) => tds.map((td) => td.textContent))

  it('lists every tool name once, `__proto__` included', async () => {
    const options = await page.$$eval('#filter-tool option', (os) => os.map((o) => (o as unknown as { value: string }).value))
    expect(options).toEqual(['', '__proto__', 'constructor', 'get_weather', 'toString'])
  })

  it('filters to the samples that name the tool, and only those', async () => {
    await page.selectOption('#filter-tool', 'constructor')
    expect(await ids()).toEqual(['s-constructor'])
    await page.selectOption('#filter-tool', '__proto__')
    expect(await ids()).toEqual(['s-proto'])
    await page.selectOption('#filter-tool', 'toString')
    expect(await ids()).toEqual(['s-tostring'])
    await page.selectOption('#filter-tool', 'get_weather')
    expect((await ids()).sort()).toEqual(['s-constructor', 's-plain', 's-tostring'])
    await page.selectOption('#filter-tool', '')
    expect(await ids()).toHaveLength(4)
  })

  it("diffs arguments by their own names: 'constructor' and '__proto__' are arguments the expected call lacks", async () => {
    await page.click('#sample-list tr.sample:has-text("s-plain")')
    const lines = await page.$$eval('#call-diff .add, #call-diff .del', (els) => els.map((e) => `${e.className} ${e.textContent}`))
    expect(lines).toEqual(expect.arrayContaining(['add + __proto__: 2', 'add + constructor: 1', 'add + city: "Paris"']))
    expect(lines.filter((l) => l.startsWith('del'))).toEqual([])
    expect(problems).toEqual([])
  })
})
