// Usage, latency and cost through real `vitest run` subprocesses against the built package: report totals and
// means per suite and overall, p50 / p95 against values computed here, cost from `pricing`, the judge's usage apart,
// cached samples left out (a second run behind `cached()`), a `maxThresholds` bound failing the run (and a misspelt
// one failing at startup), and --shard=1/2 + --shard=2/2 merged giving the numbers of one run. Six runs: the
// first run is at once the cold run behind `cached()` and the run with a bound over its maximum (neither changes a
// number the report shows), and the shards run without the cache, so their merge equal to it is also the check that
// the cache's cold run counts as a plain one. All but the merge run in one process (project.runs).
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEvalProject, ensureBuilt, type EvalProject, type RunResult } from '../helpers/eval-project.js'

const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n'
const gw = (city: string) => ({ name: 'get_weather', arguments: { city } })
const ALPHA = Array.from({ length: 12 }, (_, i) => i + 1) // a1..a12
const BETA = Array.from({ length: 9 }, (_, i) => i + 20) // b20..b28
const dataOf = (prefix: string, ns: number[]) => jsonl(ns.map((n) => ({ id: `${prefix}${n}`, messages: [{ role: 'user', content: `Weather in city ${n}?` }], expected: [gw(`c${n}`)] })))

// What the model "uses" for sample n (the provider in the eval project computes the same).
const promptTokens = (n: number) => 100 + n
const completionTokens = (n: number) => 10 + (n % 7)
const latency = (n: number) => ((n * 37) % 101) * 10 + 0.5
const JUDGE = { promptTokens: 50, completionTokens: 3, latencyMs: 20 }
const PRICES = { model: { prompt: 2.5, completion: 10 }, judge: { prompt: 1, completion: 2 } }

const providerModule = `
import { appendFileSync } from 'node:fs'
import { cached } from 'vitest-tool-evals'
const log = new URL('../model-calls.log', import.meta.url)
const usageModel = {
  id: 'usage-model@http://127.0.0.1/v1',
  async generate(sample) {
    appendFileSync(log, sample.id + '\\n')
    const n = Number(sample.id.slice(1))
    const call = { name: 'get_weather', arguments: { city: 'c' + n } }
    return {
      text: '<tool_call>\\n' + JSON.stringify(call) + '\\n</tool_call>',
      usage: { promptTokens: 100 + n, completionTokens: 10 + (n % 7), latencyMs: ((n * 37) % 101) * 10 + 0.5 },
    }
  },
}
export const model = process.env.EVAL_CACHE ? cached(usageModel, { dir: process.env.EVAL_CACHE }) : usageModel
export const judge = {
  id: 'usage-judge',
  async generate() {
    return { text: '{"label": "correct", "explanation": "fine"}', usage: ${JSON.stringify(JUDGE)} }
  },
}
`

const config = `
import { defineConfig } from 'vitest/config'
import ToolEvalsReporter from 'vitest-tool-evals/reporter'
const maxThresholds = process.env.EVAL_MAX ? JSON.parse(process.env.EVAL_MAX) : undefined
export default defineConfig({
  test: {
    include: ['evals/*.eval.mjs'],
    // One worker thread for both files: what is tested is the report, whatever runs the files.
    pool: 'threads',
    isolate: false,
    reporters: ['default', new ToolEvalsReporter({
      outputFile: process.env.EVAL_REPORT ?? 'report.json',
      markdownFile: process.env.EVAL_MD ?? false,
      pricing: { 'usage-model': ${JSON.stringify(PRICES.model)}, 'usage-judge': ${JSON.stringify(PRICES.judge)} },
      maxThresholds,
    })],
  },
})
`

let project: EvalProject
/** The cold run behind `cached()`, with a latency bound it misses: report.json, summary.md. */
let first: RunResult
/** The model's calls after the first run. */
let firstCalls: string[]
/** The shard runs (blob reports), the misspelt bound's run, the warm run behind `cached()`, and the model's calls before it. */
let shards: [RunResult, RunResult]
let typo: RunResult
let warm: RunResult
let callsBeforeWarm: number
const CACHE = { EVAL_CACHE: '.gen-cache' }
const read = (file: string) => JSON.parse(readFileSync(join(project.dir, file), 'utf8'))
const modelCalls = () => (existsSync(join(project.dir, 'model-calls.log')) ? readFileSync(join(project.dir, 'model-calls.log'), 'utf8').trim().split('\n') : [])

/** p by nearest rank, written out here apart from the library's. */
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.ceil((p / 100) * sorted.length) - 1] as number
}
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0)

function expectedPart(ns: number[]) {
  const prompt = sum(ns.map(promptTokens))
  const completion = sum(ns.map(completionTokens))
  const lat = ns.map(latency)
  return {
    prompt,
    completion,
    p50: percentile(lat, 50),
    p95: percentile(lat, 95),
    mean: sum(lat) / lat.length,
    cost: (prompt * PRICES.model.prompt + completion * PRICES.model.completion) / 1e6,
  }
}

beforeAll(async () => {
  ensureBuilt()
  project = createEvalProject({
    'vitest.config.mjs': config,
    'evals/provider.mjs': providerModule,
    'evals/alpha.eval.mjs': `import { describeEval } from 'vitest-tool-evals'\nimport { model, judge } from './provider.mjs'\ndescribeEval('alpha', { data: 'data/alpha.jsonl', model, judge: { model: judge, kinds: ['tool_selection'] } })\n`,
    'evals/beta.eval.mjs': `import { describeEval } from 'vitest-tool-evals'\nimport { model } from './provider.mjs'\ndescribeEval('beta', { data: 'data/beta.jsonl', model })\n`,
    'data/alpha.jsonl': dataOf('a', ALPHA),
    'data/beta.jsonl': dataOf('b', BETA),
  })
  // Five runs in one process (project.runs): their subject is the reports and exit codes, not the process. The
  // merge of the shards' blobs is a `vitest --merge-reports` process of its own, in its test.
  let one: RunResult, two: RunResult
  ;[first, one, two, typo, warm] = (await project.runs([
    { args: ['run'], env: { ...CACHE, EVAL_MD: 'summary.md', EVAL_MAX: JSON.stringify({ latency_p95_ms: 500, cost_usd: 1 }) }, after: () => void (firstCalls = modelCalls()) },
    // Without the cache: the merge equal to the first run is also the cached() cold run equal to a plain one.
    { args: ['run', '--shard=1/2', '--reporter=blob'] },
    { args: ['run', '--shard=2/2', '--reporter=blob'] },
    { args: ['run'], env: { EVAL_MAX: JSON.stringify({ latency_p59_ms: 500 }), EVAL_REPORT: 'typo.json' } },
    // Warm: every sample from the cache; the latency bound has nothing to measure, so it is not run.
    { args: ['run'], env: { ...CACHE, EVAL_REPORT: 'warm.json', EVAL_MAX: JSON.stringify({ latency_p95_ms: 1 }) }, before: () => void (callsBeforeWarm = modelCalls().length) },
  ])) as [RunResult, RunResult, RunResult, RunResult, RunResult]
  shards = [one, two]
})
afterAll(() => project?.remove())

describe('usage, latency and cost in a real run', () => {
  it('reports totals, means, p50 / p95 and cost per suite and overall, the judge apart', () => {
    const r = first
    const report = read('report.json')
    expect(report.testsPass, r.stdout + r.stderr).toBe(true)
    const all = expectedPart([...ALPHA, ...BETA])
    const alpha = expectedPart(ALPHA)
    const beta = expectedPart(BETA)
    const n = ALPHA.length + BETA.length

    expect(report.usage.model).toMatchObject({ samples: n, cached: 0, promptTokens: all.prompt, completionTokens: all.completion })
    expect(report.usage.model.meanPromptTokens).toBeCloseTo(all.prompt / n, 10)
    expect(report.usage.model.latencyMs).toMatchObject({ samples: n, p50: all.p50, p95: all.p95 })
    expect(report.usage.model.latencyMs.mean).toBeCloseTo(all.mean, 10)
    expect(report.suites.alpha.usage.model.latencyMs).toMatchObject({ p50: alpha.p50, p95: alpha.p95 })
    expect(report.suites.beta.usage.model).toMatchObject({ promptTokens: beta.prompt, completionTokens: beta.completion })
    expect(report.suites.beta.usage.model.latencyMs).toMatchObject({ p50: beta.p50, p95: beta.p95 })

    // The judge ran on alpha only, one kind: its own numbers and price.
    const judgeCost = (ALPHA.length * (JUDGE.promptTokens * PRICES.judge.prompt + JUDGE.completionTokens * PRICES.judge.completion)) / 1e6
    expect(report.usage.judge).toMatchObject({ samples: ALPHA.length, promptTokens: JUDGE.promptTokens * ALPHA.length, completionTokens: JUDGE.completionTokens * ALPHA.length })
    expect(report.usage.judge.costUsd).toBeCloseTo(judgeCost, 12)
    expect(report.suites.beta.usage.judge).toBeUndefined()
    expect(report.usage.model.costUsd).toBeCloseTo(all.cost, 12)
    expect(report.usage.costUsd).toBeCloseTo(all.cost + judgeCost, 12)
    expect(report.suites.alpha.usage.model.costUsd).toBeCloseTo(alpha.cost, 12)

    expect(r.stdout).toMatch(new RegExp(`usage\\s+model\\s+${all.prompt.toLocaleString('en-US')} prompt \\+ ${all.completion} completion tokens`))
    expect(r.stdout).toContain(`latency p50 ${Math.round(all.p50)} ms, p95 ${Math.round(all.p95)} ms`)
    expect(r.stdout).toMatch(/usage\s+judge\s+600 prompt \+ 36 completion tokens/)
    const md = readFileSync(join(project.dir, 'summary.md'), 'utf8')
    expect(md).toContain(`| usage: latency p50 / p95 (ms) | ${all.p50} / ${all.p95} | ${alpha.p50} / ${alpha.p95} | ${beta.p50} / ${beta.p95} |`)
  })

  it('gives the numbers of one run from --shard=1/2 and --shard=2/2 blob reports merged with --merge-reports', async () => {
    const [one, two] = shards
    expect(one.code + two.code).toBe(0)
    const merged = await project.run(['--merge-reports'], { EVAL_REPORT: 'merged.json' })
    expect(merged.code, merged.stdout + merged.stderr).toBe(0)
    const whole = read('report.json')
    const m = read('merged.json')
    expect(m.usage).toEqual(whole.usage)
    expect(m.suites.alpha.usage).toEqual(whole.suites.alpha.usage)
    expect(m.suites.beta.usage).toEqual(whole.suites.beta.usage)
  })

  it('a maxThresholds bound over its maximum fails the run, naming the bound and the value', () => {
    const all = expectedPart([...ALPHA, ...BETA])
    const r = first
    expect(r.code).toBe(1)
    const report = read('report.json')
    expect(report).toMatchObject({ pass: false, thresholdsPass: false, testsPass: true })
    expect(report.maxThresholds).toEqual([
      { metric: 'latency_p95_ms', max: 500, actual: all.p95, pass: false },
      { metric: 'cost_usd', max: 1, actual: report.usage.costUsd, pass: true },
    ])
    expect(r.stdout).toContain(`latency_p95_ms: ${all.p95} > max 500`)
  })

  it('a misspelt bound fails at startup, naming it and the known ones', () => {
    const r = typo
    expect(r.code).not.toBe(0)
    expect(r.stdout + r.stderr).toContain('unknown metric in `maxThresholds.latency_p59_ms`; known: latency_p50_ms, latency_p95_ms')
    expect(existsSync(join(project.dir, 'typo.json'))).toBe(false)
  })

  it('leaves cached samples out of latency, tokens and cost (a second run behind cached())', () => {
    // Cold (the first run): every sample called the model.
    expect(firstCalls).toHaveLength(ALPHA.length + BETA.length)
    const before = callsBeforeWarm

    expect(warm.code, warm.stdout).toBe(0)
    expect(modelCalls()).toHaveLength(before)
    const report = read('warm.json')
    expect(report.usage.model).toMatchObject({ samples: 0, cached: ALPHA.length + BETA.length, promptTokens: 0, completionTokens: 0, latencyMs: null, costUsd: 0 })
    // The judge is not behind the cache: it still ran, and its cost is the run's whole cost.
    expect(report.usage.judge.samples).toBe(ALPHA.length)
    expect(report.usage.costUsd).toBe(report.usage.judge.costUsd)
    expect(report.maxThresholds).toEqual([{ metric: 'latency_p95_ms', max: 1, actual: null, pass: true, notRun: true, note: 'every sample was cached' }])
    expect(warm.stdout).toContain('21 cached (not counted)')
  })
})
