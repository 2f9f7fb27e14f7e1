// Repeated trials and intervals through a real `vitest run` over a replay file holding 3 lines per id (by order, or
// tagged with `trial`): the three reducers (mean, all = pass^k, any = pass@k), flip rates and unstable samples in the
// report, the rates' 95% Wilson intervals against an independent computation, thresholds on the lower bound, and
// the tool-call snapshot of a suite with trials. Two runs in one process: `-u` writes the snapshot, then a CI run
// (read by every test) finds it unchanged.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEvalProject, ensureBuilt, type EvalProject, type RunResult } from '../helpers/eval-project.js'

const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n'
const gw = (city: string) => ({ name: 'get_weather', arguments: { city } })
const sample = (id: string, city: string) => ({ id, messages: [{ role: 'user', content: `Weather in ${city}?` }], expected: [gw(city)] })
const hermes = (name: string, city: string) => `<tool_call>\n${JSON.stringify({ name, arguments: { city } })}\n</tool_call>`
const right = (id: string, city: string, trial?: number) => ({ id, output: hermes('get_weather', city), ...(trial === undefined ? {} : { trial }) })
const wrong = (id: string, city: string, trial?: number) => ({ id, output: hermes('get_forecast', city), ...(trial === undefined ? {} : { trial }) })

// s1 right ×3; s2 right, wrong, right (by order); s3 wrong ×3; s4 tagged, written out of order: trial 2 wrong.
const outputs = jsonl([
  right('s1', 'Paris'), right('s1', 'Paris'), right('s1', 'Paris'),
  right('s2', 'Rome'), wrong('s2', 'Rome'), right('s2', 'Rome'),
  wrong('s3', 'Oslo'), wrong('s3', 'Oslo'), wrong('s3', 'Oslo'),
  wrong('s4', 'Lima', 2), right('s4', 'Lima', 0), right('s4', 'Lima', 1),
])

const data = jsonl([sample('s1', 'Paris'), sample('s2', 'Rome'), sample('s3', 'Oslo'), sample('s4', 'Lima')])

const config = `
import { defineConfig } from 'vitest/config'
import ToolEvalsReporter from 'vitest-tool-evals/reporter'
export default defineConfig({
  test: {
    include: ['evals/**/*.eval.mjs'],
    testTimeout: 60000,
    reporters: ['default', new ToolEvalsReporter({
      outputFile: 'report.json',
      markdownFile: false,
      thresholds: { suites: { any: { name_correct: 0.7, has_call: { min: 0.7, on: 'lower' } }, all: { name_correct: { min: 0.2 } } } },
    })],
  },
})
`

const evalFile = `
import { describeEval, replay } from 'vitest-tool-evals'
const common = { data: 'data/weather.jsonl', model: replay('data/outputs.jsonl') }
// The snapshot in 'report' mode changes no metric or test: the trial assertions read the same run.
describeEval('mean', { ...common, trials: 3, snapshot: 'report' })
describeEval('all', { ...common, trials: { count: 3, reduce: { name_correct: 'all' } } })
describeEval('any', { ...common, trials: { count: 3, reduce: 'any' } })
`

/** Wilson's 95% score interval, written out from the textbook formula (not the code under test). */
function textbookWilson(x: number, n: number): [number, number] {
  const z = 1.959963984540054
  const p = x / n
  const centre = p + (z * z) / (2 * n)
  const spread = z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))
  const denom = 1 + (z * z) / n
  return [(centre - spread) / denom, (centre + spread) / denom]
}

describe('repeated trials and intervals (real vitest run)', () => {
  let project: EvalProject
  let written: RunResult
  let run: RunResult
  let report: any

  beforeAll(async () => {
    ensureBuilt()
    project = createEvalProject({
      'vitest.config.mjs': config,
      'evals/trials.eval.mjs': evalFile,
      'data/weather.jsonl': data,
      'data/outputs.jsonl': outputs,
    })
    // Both runs in one process (project.runs): what is tested is the snapshot written, the report and the exit code.
    ;[written, run] = (await project.runs([{ args: ['run', '-u'] }, { args: ['run'] }])) as [RunResult, RunResult]
    report = JSON.parse(readFileSync(join(project.dir, 'report.json'), 'utf8'))
  })
  afterAll(() => project?.remove())

  it('runs one test per sample (ids unchanged) and reduces each metric as configured', () => {
    // 12 samples pass; the suite `any` misses a lower-bound threshold, so the run fails through its exit code.
    expect(run.stdout + run.stderr).toMatch(/Tests\s+12 passed/)
    expect(run.code).toBe(1)
    // mean: (1 + 2/3 + 0 + 2/3) / 4; all (pass^3): only s1; any (pass@3): s1, s2, s4.
    expect(report.suites.mean.metrics.name_correct).toBeCloseTo(7 / 12, 12)
    expect(report.suites.all.metrics.name_correct).toBe(1 / 4)
    expect(report.suites.any.metrics.name_correct).toBe(3 / 4)
    // Reducers are per metric: `all` names only name_correct; has_call (every trial called a tool) stays a mean of 1s.
    expect(report.suites.all.metrics.has_call).toBe(1)
    expect(report.suites.mean.samples).toBe(4)
  })

  it('reports flip rates and the share of unstable samples', () => {
    expect(report.trials).toMatchObject({ samples: 12, count: 3, unstable: 6, unstableShare: 0.5 })
    expect(report.trials.flipRates['mean > s2']).toBeCloseTo(1 / 3, 12)
    expect(report.trials.flipRates['any > s4']).toBeCloseTo(1 / 3, 12)
    expect(report.trials.flipRates['mean > s1']).toBeUndefined()
    expect(report.trials.meanFlipRate).toBeCloseTo(((1 / 3) * 6) / 12, 12)
    expect(run.stdout).toContain('6 of 12 samples unstable (50.0%)')
  })

  it('every rate carries a Wilson interval equal to the textbook one', () => {
    const [lo, hi] = textbookWilson(3, 4)
    expect(report.suites.any.metricIntervals.name_correct[0]).toBeCloseTo(lo, 12)
    expect(report.suites.any.metricIntervals.name_correct[1]).toBeCloseTo(hi, 12)
    const [alo, ahi] = textbookWilson(1, 4)
    expect(report.suites.all.metricIntervals.name_correct).toEqual([expect.closeTo(alo, 12), expect.closeTo(ahi, 12)])
    // The run's: 7/3 + 1 + 3 = 19/3 right out of 12 samples, as a share.
    const p = report.metrics.name_correct
    expect(p).toBeCloseTo(19 / 36, 12)
    const [olo, ohi] = textbookWilson(p * 12, 12)
    expect(report.metricIntervals.name_correct).toEqual([expect.closeTo(olo, 12), expect.closeTo(ohi, 12)])
    // No samples expect no call: no rate, no interval. Per-tool rates have theirs: 12 positions, taken from each
    // sample's most frequent calls (right for s1, s2, s4 in every suite).
    expect(report.metricIntervals.no_call_accuracy).toBeNull()
    const [tlo, thi] = textbookWilson(9, 12)
    expect(report.toolIntervals.get_weather.name_correct).toEqual([expect.closeTo(tlo, 12), expect.closeTo(thi, 12)])
    // `metrics` itself keeps plain numbers.
    expect(typeof report.metrics.name_correct).toBe('number')
    // The terminal table shows the interval beside the rate.
    expect(run.stdout).toMatch(new RegExp(`name_correct\\s+${p.toFixed(3)} \\(${olo.toFixed(2)}–${ohi.toFixed(2)}\\)`))
  })

  it('a threshold on the lower bound fails where the plain one passes', () => {
    expect(run.code).toBe(1)
    const byKey = Object.fromEntries(report.thresholds.map((t: any) => [`${t.suite}.${t.metric}`, t]))
    expect(byKey['any.name_correct']).toMatchObject({ min: 0.7, actual: 0.75, pass: true })
    expect(byKey['any.name_correct'].on).toBeUndefined()
    // has_call is 1 on every sample: 4/4, whose lower bound is under 0.7.
    const [lower] = textbookWilson(4, 4)
    expect(lower).toBeLessThan(0.7)
    expect(byKey['any.has_call']).toMatchObject({ min: 0.7, actual: 1, on: 'lower', pass: false })
    expect(byKey['any.has_call'].lower).toBeCloseTo(lower, 12)
    expect(byKey['all.name_correct']).toMatchObject({ min: 0.2, actual: 0.25, pass: true })
    expect(run.stdout).toContain(`has_call (suite any): lower 95% bound ${lower.toFixed(3)} < required 0.700 (rate 1.000)`)
  })

  it('with trials, the snapshot keeps the most frequent calls and their frequency', () => {
    // -u fails no sample: the run fails on the threshold alone, as in the CI run.
    expect(written.stdout + written.stderr).toMatch(/Tests\s+12 passed/)
    expect(written.code).toBe(1)
    const lines = readFileSync(join(project.dir, 'evals/trials.eval.mean.calls.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l))
    expect(lines.map((l) => [l.id, l.calls[0].name, l.frequency])).toEqual([
      ['s1', 'get_weather', '3/3'],
      ['s2', 'get_weather', '2/3'],
      ['s3', 'get_forecast', '3/3'],
      ['s4', 'get_weather', '2/3'],
    ])
    // The same trials again (the CI run): nothing changed.
    expect(report.snapshots).toMatchObject({ changed: [], added: [], unchanged: 4 })
  })
})
