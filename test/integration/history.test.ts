// The run history end to end: ten checkpoints of one model evaluated by real Vitest runs (one `vitest` process that
// runs the suite ten times through Vitest's public node API, one training step each), each appended to the history
// folder by the reporter's `historyDir`; then `tool-evals history` over that folder (plus a corrupt file and a file
// of a future history version), opened in Chromium: the plotted points are the reports' numbers, the best checkpoint
// and the significantly worse later one are found by the paired test, and the bad files are listed as skipped.
import { execFile } from 'node:child_process'
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkpointCurves } from '../../src/cli/history-curves.js'
import { historyCommand } from '../../src/cli/history.js'
import { parseHistoryRun, readHistory } from '../../src/cli/history-read.js'
import { renderHistoryPage } from '../../src/cli/history-page.js'
import { checkHistoryOptions, historyTags } from '../../src/reporter/history.js'
import { launchChromium } from '../helpers/browser.js'
import { runCommand } from '../helpers/cli-run.js'
import { createEvalProject, ensureBuilt, type EvalProject } from '../helpers/eval-project.js'

const gw = (city: string) => ({ name: 'get_weather', arguments: { city } })
const CITIES = ['Paris', 'Rome', 'Oslo', 'Lima', 'Cairo', 'Tokyo', 'Quito', 'Accra', 'Hanoi', 'Dakar', 'Minsk', 'Sofia', 'Riga', 'Baku', 'Doha', 'Lome', 'Suva', 'Bern', 'Kyiv', 'Apia', 'Male', 'Nuuk', 'Lusaka', 'Sanaa']
const weather = CITIES.map((city, i) => ({ id: `w${String(i + 1).padStart(2, '0')}`, messages: [{ role: 'user', content: `Weather in ${city}?` }], expected: [gw(city)] }))
// Samples each checkpoint gets wrong (the first N ids): it learns until step 600, then step 1000 breaks 12 samples.
const WRONG: Record<number, number> = { 100: 8, 200: 6, 300: 4, 400: 3, 500: 2, 600: 0, 700: 1, 800: 1, 900: 2, 1000: 12 }
const STEPS = Object.keys(WRONG).map(Number)

const config = `
import { defineConfig } from 'vitest/config'
import { toolEvals } from 'vitest-tool-evals/plugin'
export default defineConfig({
  plugins: [toolEvals({ thresholds: { args_exact_match: 0.8 }, outputFile: 'report.json', baseline: 'base/report.json', historyDir: 'history', summary: false, progress: false })],
  test: { include: ['evals/*.eval.mjs'], pool: 'threads', isolate: false },
})
`
const evalFile = `
import { readFileSync } from 'node:fs'
import { describeEval } from 'vitest-tool-evals'
const wrong = ${JSON.stringify(WRONG)}
const model = {
  id: 'checkpoint',
  async generate(sample) {
    const step = Number(readFileSync(new URL('../step.txt', import.meta.url), 'utf8'))
    const bad = Number(sample.id.slice(1)) <= wrong[step]
    const city = bad ? 'Nowhere' : sample.expected[0].arguments.city
    return { text: '<tool_call>' + JSON.stringify({ name: 'get_weather', arguments: { city } }) + '</tool_call>' }
  },
}
describeEval('weather', { data: ${JSON.stringify(weather)}, model })
`
// One Vitest process, ten runs: the step file and TOOL_EVALS_STEP name the checkpoint each run evaluates.
const driver = `
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs'
import { createVitest } from 'vitest/node'
const vitest = await createVitest('test', { watch: false, reporters: [] })
for (const step of ${JSON.stringify(STEPS)}) {
  writeFileSync('step.txt', String(step))
  process.env.TOOL_EVALS_STEP = String(step)
  process.env.GITHUB_SHA = String(step).padStart(4, '0').repeat(10)
  await vitest.start()
  // The next run's baseline: this one (each run compares itself with the checkpoint before).
  mkdirSync('base', { recursive: true })
  for (const f of ['report.json', 'report.samples.jsonl']) copyFileSync(f, 'base/' + f)
}
await vitest.close()
`

let project: EvalProject
let historyDir: string
let browser: Browser | undefined
let reports: Record<string, any>[]

beforeAll(async () => {
  ensureBuilt()
  project = createEvalProject({ 'vitest.config.mjs': config, 'evals/weather.eval.mjs': evalFile, 'drive.mjs': driver })
  const { TOOL_EVALS_STEP: _s, TOOL_EVALS_LABEL: _l, ...env } = process.env
  const result = await new Promise<{ code: number; out: string }>((resolve) =>
    execFile(process.execPath, ['drive.mjs'], { cwd: project.dir, env: { ...Object.fromEntries(Object.entries(env).filter(([k]) => !k.startsWith('VITEST'))), TOOL_EVALS_LABEL: 'sft', CI: 'true', NO_COLOR: '1' }, timeout: 90_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? 1 : 0, out: stdout + stderr }),
    ),
  )
  historyDir = join(project.dir, 'history')
  const files = readdirSync(historyDir).filter((f) => f.endsWith('.json')).sort()
  if (files.length !== STEPS.length) throw new Error(`expected ${STEPS.length} history entries, got ${files.length}:\n${result.out}`)
  reports = files.map((f) => JSON.parse(readFileSync(join(historyDir, f), 'utf8')))
  // Bad input beside the real runs: a cut file and a report of a history version from the future.
  writeFileSync(join(historyDir, 'zz-corrupt.json'), '{"samples": 3, "metr')
  writeFileSync(join(historyDir, 'zz-future.json'), JSON.stringify({ ...reports[0], history: { ...reports[0]!.history, v: 99 } }))
}, 120_000)

afterAll(async () => {
  await browser?.close()
  project?.remove()
})

describe('the history folder', () => {
  it('holds one labelled report per run, in time order, each with its own samples file', () => {
    expect(reports.map((r) => r.history.step)).toEqual(STEPS)
    expect(new Set(reports.map((r) => r.history.label))).toEqual(new Set(['sft']))
    expect(reports.map((r) => r.history.commit)).toEqual(STEPS.map((s) => String(s).padStart(4, '0').repeat(10)))
    for (const r of reports) {
      expect(r.metrics.args_exact_match).toBeCloseTo((24 - (WRONG[r.history.step] as number)) / 24, 12)
      expect(readFileSync(join(historyDir, r.samplesFile), 'utf8')).toContain(r.runId)
    }
    // Each run's comparison with the previous one (baseline: the last report): step 1000 regressed.
    expect(reports.at(-1)!.comparison.metrics.args_exact_match.verdict).toBe('regressed')
  })

  it('a bad TOOL_EVALS_STEP, historyStep or historyDir is an error naming it', () => {
    expect(() => historyTags({}, { TOOL_EVALS_STEP: 'latest' })).toThrow(/TOOL_EVALS_STEP must be a number/)
    expect(historyTags({ historyStep: 5, historyLabel: 'a' }, { TOOL_EVALS_STEP: '7' })).toEqual({ step: 7, label: 'a' })
    expect(() => checkHistoryOptions({ historyDir: true as never }, {})).toThrow(/historyDir. must be a folder path/)
    expect(() => checkHistoryOptions({ historyStep: -1 }, {})).toThrow(/historyStep. must be a number ≥ 0/)
  })
})

describe('checkpoint curves', () => {
  it('finds the best checkpoint and the later one the paired test shows worse, and no other', () => {
    const { runs } = readHistory(historyDir)
    const [curve] = checkpointCurves(historyDir, runs)
    const aem = curve!.curves.find((c) => c.metric === 'args_exact_match')!
    expect(aem.best?.step).toBe(600)
    expect(aem.comparisons).toBe(45)
    const byStep = Object.fromEntries(aem.later.map((l) => [l.step, l]))
    expect(byStep[1000]).toMatchObject({ verdict: 'worse', test: 'paired (mcnemar)' })
    // 12 discordant pairs all one way: p = 2^-12, times the 45 earlier-later pairs.
    expect(byStep[1000]!.pAdjusted).toBeCloseTo(45 / 4096, 12)
    expect(byStep[900]!.verdict).toBe('not shown worse')
  })

  it('fails closed: a missing samples file is "cannot be decided"; without samples files, an unpaired test says so', () => {
    const copy = mkdtempSync(join(tmpdir(), 'history-copy-'))
    try {
      cpSync(historyDir, copy, { recursive: true })
      const last = reports.at(-1)!
      rmSync(join(copy, last.samplesFile))
      const { runs } = readHistory(copy)
      const later = checkpointCurves(copy, runs)[0]!.curves.find((c) => c.metric === 'args_exact_match')!.later.find((l) => l.step === 1000)!
      expect(later.verdict).toBe('undecided')
      expect(later.note).toMatch(/cannot be decided: .*samples file .* is missing/)
      // Reports written without samples files: the two-proportion z-test, labelled unpaired.
      for (const f of readdirSync(copy).filter((f) => f.endsWith('.json') && !f.startsWith('zz'))) {
        const { samplesFile: _f, ...rest } = JSON.parse(readFileSync(join(copy, f), 'utf8'))
        writeFileSync(join(copy, f), JSON.stringify(rest))
      }
      const unpaired = checkpointCurves(copy, readHistory(copy).runs)[0]!.curves.find((c) => c.metric === 'args_exact_match')!.later.find((l) => l.step === 1000)!
      expect(unpaired).toMatchObject({ test: 'unpaired two-proportion z-test', verdict: 'worse' })
      expect(unpaired.note).toMatch(/^unpaired/)
    } finally {
      rmSync(copy, { recursive: true, force: true })
    }
  })
})

describe('the page', () => {
  it('keeps text from reports inert: a label, a commit, a file name or a metric name cannot add markup', () => {
    const evil = '<img src=x onerror=alert(1)></script><script>alert(2)</script>'
    const report = { ...reports[0]!, history: { ...reports[0]!.history, label: evil, commit: evil }, metrics: { ...reports[0]!.metrics, [evil]: 0.5 } }
    const run = parseHistoryRun(`${evil}.json`, JSON.stringify(report))
    if ('skipped' in run) throw new Error(run.skipped)
    const html = renderHistoryPage({ dir: evil, runs: [run], skipped: [{ file: evil, reason: evil }] }, checkpointCurves(historyDir, [run]))
    expect(html).not.toContain('<img')
    expect(html.match(/<script/g)).toHaveLength(4) // the data, the locale guard, uPlot, the page's script
  })
})

describe('tool-evals history', () => {
  it('renders every run in Chromium with the reports\' points, the bad files listed as skipped', async () => {
    const out = join(project.dir, 'page.html')
    const cli = await runCommand([historyCommand], ['history', historyDir, '--out', out])
    expect(cli.code).toBe(1) // two files skipped
    expect(cli.stderr).toContain('skipped zz-corrupt.json: not valid JSON')
    expect(cli.stderr).toMatch(/skipped zz-future\.json: history format version 99/)
    expect(readFileSync(out, 'utf8')).not.toMatch(/<script[^>]+src=|https?:\/\/cdn/)

    browser = await launchChromium()
    const page = await browser.newPage()
    const errors: string[] = []
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text())
    })
    page.on('pageerror', (e) => errors.push(e.message))
    await page.goto(pathToFileURL(out).href)
    const plotted = await page.evaluate(() =>
      (globalThis as any).historyPlots.map((p: any) => ({ kind: p.kind, metric: p.metric, data: p.plot.data, canvas: p.plot.root.querySelector('canvas')?.width ?? 0 })),
    )
    expect(errors).toEqual([])
    const aem = plotted.find((p: any) => p.kind === 'runs' && p.metric === 'args_exact_match')
    expect(aem.canvas).toBeGreaterThan(0)
    expect(aem.data[0]).toEqual(STEPS.map((_, i) => i + 1))
    expect(aem.data[1]).toEqual(reports.map((r) => r.metrics.args_exact_match))
    expect(aem.data[2]).toEqual(reports.map((r) => r.metricIntervals.args_exact_match[0]))
    expect(aem.data[3]).toEqual(reports.map((r) => r.metricIntervals.args_exact_match[1]))
    expect(aem.data[4]).toEqual(reports.map(() => 0.8)) // the threshold
    expect(aem.data[5]).toEqual(reports.map((r) => (r.pass ? null : r.metrics.args_exact_match))) // gate failed
    expect(aem.data[5].filter((v: unknown) => v !== null)).toHaveLength(3) // steps 100, 200 (under 0.8) and 1000
    expect(aem.data[6]).toEqual(reports.map((r) => (r.comparison?.metrics.args_exact_match.verdict === 'regressed' ? r.metrics.args_exact_match : null)))
    const curve = plotted.find((p: any) => p.kind === 'curve' && p.metric === 'args_exact_match')
    expect(curve.data[0]).toEqual(STEPS)
    expect(curve.data[1]).toEqual(reports.map((r) => r.metrics.args_exact_match))
    expect(curve.data[4]).toEqual(STEPS.map((s, i) => (s === 600 ? reports[i]!.metrics.args_exact_match : null))) // best
    expect(curve.data[5]).toEqual(STEPS.map((s, i) => (s === 1000 ? reports[i]!.metrics.args_exact_match : null))) // worse
    // The x axis by checkpoint step redraws the run plots with the steps.
    await page.selectOption('#x-axis', 'step')
    const bySteps = await page.evaluate(() => (globalThis as any).historyPlots.find((p: any) => p.kind === 'runs' && p.metric === 'args_exact_match').plot.data[0])
    expect(bySteps).toEqual(STEPS)
    // The table (the accessible view) and the skipped list.
    expect(await page.locator('#runs tbody tr').count()).toBe(10)
    expect(await page.locator('#runs td[data-metric="args_exact_match"]').evaluateAll((tds) => tds.map((td) => Number(td.getAttribute('data-value'))))).toEqual(
      reports.map((r) => r.metrics.args_exact_match),
    )
    expect(await page.locator('#skipped li').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-file')))).toEqual(['zz-corrupt.json', 'zz-future.json'])
    expect(await page.locator('figure[role="img"][aria-label^="args_exact_match:"]').getAttribute('aria-label')).toBe('args_exact_match: 10 runs; values in the table of runs below')
    expect(errors).toEqual([])
  })
})

