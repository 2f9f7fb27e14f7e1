// The run's lifecycle through real `vitest run` subprocesses: a run stopped by SIGINT, SIGTERM or SIGKILL never
// leaves the previous run's passing report in place, a `--bail` run's report says it is partial, and filtered runs
// (`-t`, one file path) gate only what ran and write their report beside the whole run's.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEvalProject, ensureBuilt, type EvalProject } from '../helpers/eval-project.js'

const gw = (city: string) => ({ name: 'get_weather', arguments: { city } })
const hermes = (city: string) => `<tool_call>\n${JSON.stringify(gw(city))}\n</tool_call>`
const sample = (id: string, city: string) => ({ id, messages: [{ role: 'user', content: `Weather in ${city}?` }], expected: [gw(city)] })

const config = `
import { defineConfig } from 'vitest/config'
import ToolEvalsReporter from 'vitest-tool-evals/reporter'
export default defineConfig({
  test: {
    include: ['evals/**/*.eval.mjs'],
    testTimeout: 60000,
    reporters: [
      // verbose prints each test as its result reaches the main process: the signal below waits for that.
      'verbose',
      new ToolEvalsReporter({
        thresholds: { name_correct: 0.9, suites: { weather: { args_exact_match: 0.9 }, slow: { has_call: 1 } } },
        outputFile: 'report.json',
        htmlFile: 'report.html',
        // Under GitHub Actions (the SIGTERM run) the summary goes to the step summary instead.
        markdownFile: process.env.GITHUB_STEP_SUMMARY ? undefined : 'summary.md',
      }),
    ],
  },
})
`

// Two samples answered at once; with SLOW set, a third whose generation writes a marker file and never returns
// (the model the run is waiting on when the signal comes); with BOOM set, a first sample whose provider throws.
const weatherEval = `
import { writeFileSync } from 'node:fs'
import { describeEval } from 'vitest-tool-evals'
const samples = ${JSON.stringify([sample('w1', 'Paris'), sample('w2', 'Rome')])}
if (process.env.BOOM) samples.unshift(${JSON.stringify(sample('boom', 'Oslo'))})
if (process.env.SLOW) samples.push(${JSON.stringify(sample('slow', 'Lima'))})
const outputs = { w1: ${JSON.stringify(hermes('Paris'))}, w2: ${JSON.stringify(hermes('Rome'))} }
const model = {
  id: 'inline',
  concurrency: 1,
  async generate(sample) {
    if (sample.id === 'boom') throw new Error('backend down')
    if (sample.id === 'slow') {
      writeFileSync('generating-slow', '')
      return new Promise(() => {})
    }
    return { text: outputs[sample.id] }
  },
}
describeEval('weather', { data: samples, model })
`

const otherEval = `
import { describeEval } from 'vitest-tool-evals'
const model = { id: 'inline', async generate() { return { text: ${JSON.stringify(hermes('Lima'))} } } }
describeEval('slow', { data: ${JSON.stringify([sample('l1', 'Lima')])}, model })
`

const passingReport = JSON.stringify({ samples: 3, pass: true, thresholdsPass: true, testsPass: true })
const STALE_PAGE = '<!doctype html><title>stale</title>PASS'
const STALE_SUMMARY = '## Tool evals ✅\n\n3 samples\n'

/** A previous run's passing files, all of them: every one must be replaced or removed by the next run. */
function writePassingRun(prefix = 'report'): void {
  project.write(`${prefix}.json`, passingReport)
  project.write(`${prefix}.html`, STALE_PAGE)
  project.write(`${prefix}.samples.jsonl`, '{"format":"tool-evals-samples","v":1,"metrics":[]}\n')
  project.write('summary.md', STALE_SUMMARY)
}

/** The Markdown summary: this run's alone (never the last run's verdict above or below it). */
function summary(): string {
  const md = readFileSync(join(project.dir, 'summary.md'), 'utf8')
  expect(md.match(/^## Tool evals.*$/gm)).toEqual(['## Tool evals ❌'])
  return md
}

/** No file half-written beside its name (each is written beside it and renamed). */
function leftoverTemporaries(): string[] {
  return readdirSync(project.dir).filter((f) => f.endsWith('.tmp'))
}

/** The report inside an HTML page (its inline JSON data). */
function pageReport(file = 'report.html'): Record<string, any> {
  const html = readFileSync(join(project.dir, file), 'utf8')
  const m = /<script type="application\/json" id="tool-evals-data">([\s\S]*?)<\/script>/.exec(html)
  if (!m) throw new Error(`${file} has no report data: ${html.slice(0, 200)}`)
  return JSON.parse(m[1] as string).report
}

let project: EvalProject
const reportOf = (file = 'report.json') => JSON.parse(readFileSync(join(project.dir, file), 'utf8'))

beforeAll(() => {
  ensureBuilt()
  project = createEvalProject({
    'vitest.config.mjs': config,
    'evals/weather.eval.mjs': weatherEval,
    'evals/other.eval.mjs': otherEval,
  })
})
afterAll(() => project?.remove())

/** Start a run whose `slow` sample never answers, wait until it is generating, then signal the process. */
async function interruptedRun(signal: NodeJS.Signals, env: Record<string, string> = {}) {
  rmSync(join(project.dir, 'generating-slow'), { force: true })
  writePassingRun()
  const live = project.start(['run', '--no-file-parallelism'], { SLOW: '1', ...env })
  const deadline = Date.now() + 30_000
  while (!existsSync(join(project.dir, 'generating-slow'))) {
    if (Date.now() > deadline) throw new Error(`the slow sample never started:\n${live.output()}`)
    await new Promise((r) => setTimeout(r, 50))
  }
  // w1 and w2 finished before the slow sample's generation began; wait until their results have reached the main
  // process (the verbose reporter prints them then), however slow the machine: a fixed delay was a race under load.
  while (!/\bw1\b[\s\S]*\bw2\b|\bw2\b[\s\S]*\bw1\b/.test(live.output())) {
    if (Date.now() > deadline) throw new Error(`w1 and w2 never reached the main process:\n${live.output()}`)
    await new Promise((r) => setTimeout(r, 50))
  }
  live.child.kill(signal)
  return live.done
}

describe('interrupted runs', () => {
  it('SIGINT mid-run: the stale passing report is replaced by one marked interrupted, with what finished', async () => {
    const result = await interruptedRun('SIGINT')
    expect(result.code).not.toBe(0)
    const report = reportOf()
    expect(report.interrupted).toBe(true)
    expect(report.pass).toBe(false)
    expect(report.partial.reason).toBe('interrupted')
    // The finished samples are in it (other.eval's l1 may or may not have run first: at least w1 and w2).
    expect(report.suites.weather.samples).toBe(2)
    expect(report.suites.weather.metrics.args_exact_match).toBe(1)
    expect(report.partial.ran).toBeGreaterThanOrEqual(2)
    expect(report.partial.planned).toBeGreaterThan(report.partial.ran)
    expect(result.stderr).toContain('tool-evals: run interrupted')
    // Every file follows the JSON report: the page says interrupted, and the stale per-sample file is gone.
    expect(pageReport()).toMatchObject({ pass: false, interrupted: true, partial: { reason: 'interrupted' } })
    expect(pageReport().suites.weather.samples).toBe(2)
    expect(existsSync(join(project.dir, 'report.samples.jsonl'))).toBe(false)
    const md = summary()
    expect(md).toContain('## Tool evals ❌')
    expect(md).toMatch(/\*\*Partial run\*\* \(interrupted\): [2-9] of \d+ planned test cases ran/)
    expect(leftoverTemporaries()).toEqual([])
  })

  it('SIGTERM mid-run under GitHub Actions: the same, and the step summary gets the interrupted run appended', async () => {
    const stepSummary = join(project.dir, 'step-summary.md')
    project.write('step-summary.md', '## An earlier step\n')
    const result = await interruptedRun('SIGTERM', { GITHUB_STEP_SUMMARY: stepSummary })
    expect(result.code).not.toBe(0)
    const report = reportOf()
    expect(report).toMatchObject({ interrupted: true, pass: false, partial: { reason: 'interrupted' } })
    expect(report.suites.weather.samples).toBe(2)
    // Appended after what the job's earlier steps wrote, one whole section.
    const md = readFileSync(stepSummary, 'utf8')
    expect(md.startsWith('## An earlier step\n## Tool evals ❌\n')).toBe(true)
    expect(md.match(/^## /gm)).toHaveLength(2)
    expect(md).toMatch(/\*\*Partial run\*\* \(interrupted\): [2-9] of \d+ planned test cases ran/)
  })

  it('SIGKILL mid-run: the report written at run start says the run did not finish', async () => {
    const result = await interruptedRun('SIGKILL')
    expect(result.code).toBe(137)
    const report = reportOf()
    expect(report).toMatchObject({ interrupted: true, pass: false, samples: 0, partial: { reason: 'interrupted', ran: 0 } })
    expect(pageReport()).toMatchObject({ interrupted: true, pass: false, samples: 0 })
    expect(existsSync(join(project.dir, 'report.samples.jsonl'))).toBe(false)
    // Replaced at run start: the run did not finish, and it says so.
    expect(summary()).toContain('**Partial run** (interrupted): 0 of')
  })
})

describe('--bail', () => {
  it('a run stopped at the first failure writes a report marked partial with the planned total, never a pass', async () => {
    project.write('report.json', passingReport)
    const result = await project.run(['run', '--bail=1', '--no-file-parallelism', 'evals/weather.eval.mjs'], { BOOM: '1' })
    expect(result.code).not.toBe(0)
    // One file of two: a selection, so the report goes beside the whole run's file, which stays as it was.
    const report = reportOf('report.partial.json')
    expect(report.pass).toBe(false)
    expect(report.interrupted).toBeUndefined()
    expect(report.partial.reason).toBe('bail')
    expect(report.partial.planned).toBe(3)
    expect(report.partial.ran).toBeLessThan(3)
    expect(reportOf()).toEqual(JSON.parse(passingReport))
  })

  it('a whole run stopped by --bail replaces the whole run report, marked bail', async () => {
    writePassingRun()
    const result = await project.run(['run', '--bail=1', '--no-file-parallelism', '--sequence.shuffle=false'], { BOOM: '1' })
    expect(result.code).not.toBe(0)
    const report = reportOf()
    expect(report.pass).toBe(false)
    expect(report.partial.reason).toBe('bail')
    expect(report.partial.selection).toBeUndefined()
    expect(report.partial.ran).toBeLessThan(report.partial.planned)
    // The page beside it says the same, and a run cut short leaves no per-sample file (it is no baseline).
    expect(pageReport()).toMatchObject({ pass: false, partial: { reason: 'bail' }, gate: { pass: false } })
    expect(pageReport().gate.reasons[0].kind).toBe('bail')
    expect(existsSync(join(project.dir, 'report.samples.jsonl'))).toBe(false)
    expect(report.samplesFile).toBeUndefined()
  })
})

describe('filtered runs', () => {
  it('a whole run: every threshold is checked and the report is the whole one', async () => {
    rmSync(join(project.dir, 'report.partial.json'), { force: true })
    const result = await project.run(['run'])
    expect(result.code).toBe(0)
    const report = reportOf()
    expect(report.pass).toBe(true)
    expect(report.partial).toBeUndefined()
    expect(report.thresholds.every((t: { notRun?: boolean }) => t.notRun === undefined)).toBe(true)
  })

  it('one file path: the suite that did not run is "not run", the run passes, the whole report is kept', async () => {
    const before = readFileSync(join(project.dir, 'report.json'), 'utf8')
    const summaryBefore = readFileSync(join(project.dir, 'summary.md'), 'utf8')
    const result = await project.run(['run', 'evals/weather.eval.mjs'])
    expect(result.code).toBe(0)
    expect(readFileSync(join(project.dir, 'report.json'), 'utf8')).toBe(before)
    // The Markdown summary follows the same rule: the selection's goes beside the whole run's.
    expect(readFileSync(join(project.dir, 'summary.md'), 'utf8')).toBe(summaryBefore)
    expect(readFileSync(join(project.dir, 'summary.partial.md'), 'utf8')).toContain('**Partial run** (a selection: test files: 1 of 2)')
    const report = reportOf('report.partial.json')
    expect(report.pass).toBe(true)
    expect(report.partial).toMatchObject({ reason: 'filter', selection: ['test files: 1 of 2'], planned: 2, ran: 2 })
    const slow = report.thresholds.find((t: { suite?: string }) => t.suite === 'slow')
    expect(slow).toMatchObject({ metric: 'has_call', actual: null, pass: true, notRun: true })
    expect(result.stdout).toContain('has_call (suite slow): not run in this partial run')
    expect(result.stdout).toContain('report.partial.json')
  })

  it('-t: gates only the samples that ran (a failing one still fails the gate)', async () => {
    const ok = await project.run(['run', '-t', 'w1'])
    expect(ok.code).toBe(0)
    const report = reportOf('report.partial.json')
    expect(report.samples).toBe(1)
    expect(report.partial.selection).toContain('-t /w1/')
    expect(report.partial.planned).toBe(1)
  })

  it('a whole run with zero samples still fails "no samples to measure"', async () => {
    const empty = createEvalProject({
      'vitest.config.mjs': config,
      'evals/empty.eval.mjs': `import { describeEval } from 'vitest-tool-evals'\nimport { test } from 'vitest'\ntest('nothing', () => {})\n`,
    })
    try {
      const result = await empty.run(['run'])
      expect(result.code).not.toBe(0)
      expect(result.stdout).toContain('name_correct: no samples to measure')
      expect(JSON.parse(readFileSync(join(empty.dir, 'report.json'), 'utf8')).partial).toBeUndefined()
    } finally {
      empty.remove()
    }
  })
})
