// A three-model matrix (describeEval's `models`) against a loopback endpoint that answers by the request's model
// name, run by a real `vitest run` subprocess against dist/: `sft_1000` fixes the arguments `base` and `sft_500`
// get wrong (the same samples: the two are indistinguishable), all three call the same wrong tool on the same
// samples. The report, the Markdown summary and the HTML page name the better model with its Holm p-value and say the
// other two are not distinguishable; records carry their model, so each model is a suite of its own.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEvalProject, ensureBuilt, type EvalProject, type RunResult } from '../helpers/eval-project.js'
import { startOpenAIServer, type OpenAIServer } from '../helpers/openai-server.js'

const N = 24

const evalFile = `
import { describeEval, openaiCompatible } from 'vitest-tool-evals'
const model = (name) => openaiCompatible({ baseURL: process.env.TE_BASE_URL, model: name, maxRetries: 0 })
const tools = [
  { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
  { type: 'function', function: { name: 'get_forecast', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
]
const data = Array.from({ length: ${N} }, (_, i) => ({
  id: 's' + i, tools,
  messages: [{ role: 'user', content: 'weather ' + i }],
  expected: [{ name: 'get_weather', arguments: { city: 'c' + i } }],
}))
describeEval('weather', { data, models: { base: model('base'), sft_500: model('sft_500'), sft_1000: model('sft_1000') } })
`

const config = `
import { defineConfig } from 'vitest/config'
import ToolEvalsReporter from 'vitest-tool-evals/reporter'
export default defineConfig({
  test: {
    include: ['evals/*.eval.mjs'],
    reporters: ['default', new ToolEvalsReporter({ outputFile: 'report.json', markdownFile: 'summary.md', htmlFile: 'report.html', models: { noneWorse: true, thresholds: { sft_1000: { args_exact_match: 0.95 } } } })],
  },
})
`

/** Samples every model calls the wrong tool on (i % 3 == 0), and those only sft_1000 gets the arguments right on. */
function answer(model: string, i: number): { name: string; city: string } {
  if (i % 3 === 0) return { name: 'get_forecast', city: `c${i}` }
  if (i % 3 === 1 && model !== 'sft_1000') return { name: 'get_weather', city: 'elsewhere' }
  return { name: 'get_weather', city: `c${i}` }
}

describe('a model matrix run by vitest', () => {
  let project: EvalProject
  let server: OpenAIServer
  let run: RunResult
  let report: any

  beforeAll(async () => {
    ensureBuilt()
    server = await startOpenAIServer((r) => {
      const i = Number(String(r.body?.messages?.[0]?.content).split(' ')[1])
      const call = answer(String(r.body?.model), i)
      return { content: null, toolCalls: [{ id: 'c', type: 'function', function: { name: call.name, arguments: JSON.stringify({ city: call.city }) } }] }
    })
    project = createEvalProject({ 'vitest.config.mjs': config, 'evals/weather.eval.mjs': evalFile })
    run = await project.run(['run'], { TE_BASE_URL: server.baseURL })
    report = JSON.parse(readFileSync(join(project.dir, 'report.json'), 'utf8'))
  }, 120_000)
  afterAll(async () => {
    project?.remove()
    await server?.close()
  })

  it('runs every sample against every model, each model a describe block and a suite of its own', () => {
    expect(run.code, run.stdout + run.stderr).toBe(0)
    expect(new Set(server.requests.map((r) => r.body.model))).toEqual(new Set(['base', 'sft_500', 'sft_1000']))
    expect(server.hits).toBe(3 * N)
    expect(Object.keys(report.suites).sort()).toEqual(['weather > base', 'weather > sft_1000', 'weather > sft_500'])
    expect(report.models.models).toEqual(['base', 'sft_1000', 'sft_500'])
    // NeMo scores the arguments apart from the name: a wrong tool with the right city still matches them.
    expect(report.models.perModel.base.metrics.args_exact_match).toBeCloseTo(2 / 3)
    expect(report.models.perModel.sft_1000.metrics.args_exact_match).toBe(1)
    expect(report.models.perModel.sft_1000.metricIntervals.args_exact_match[0]).toBeLessThan(1)
  })

  it('names the better model with its Holm p-value and the indistinguishable pair, in the report and the Markdown', () => {
    const m = report.models
    // 8 discordant samples, all one way: McNemar's p = 0.5^8, Holm over 2 models × 2 gated metrics: × 4.
    const better = m.comparisons.sft_1000.metrics.args_exact_match
    expect(better).toMatchObject({ verdict: 'better', test: 'mcnemar', discordant: { regressed: 0, improved: 8 } })
    expect(better.pValue).toBeCloseTo(0.5 ** 8, 10)
    expect(better.pAdjusted).toBeCloseTo(4 * 0.5 ** 8, 10)
    expect(m.options.family).toBe(4)
    expect(m.comparisons.sft_1000.metrics.name_correct.verdict).toBe('not distinguishable')
    expect(m.comparisons.sft_500.metrics.args_exact_match).toMatchObject({ verdict: 'not distinguishable', delta: 0 })
    const md = readFileSync(join(project.dir, 'summary.md'), 'utf8').replace(/\\(.)/g, '$1')
    expect(md).toContain('sft_1000 beats base on args_exact_match by 33.3 points, p = 0.016 (Holm).')
    expect(md).toContain('sft_500 and base are not distinguishable on name_correct, args_exact_match')
    expect(run.stdout).toContain('sft_1000 beats base on args_exact_match by 33.3 points, p = 0.016 (Holm).')
  })

  it('has the model × failure-category table and, per tool, which tool each model called instead', () => {
    const m = report.models
    expect(m.perModel.base.failures).toMatchObject({ wrong_name: 8, wrong_arguments: 8 })
    expect(m.perModel.sft_1000.failures).toMatchObject({ wrong_name: 8, wrong_arguments: 0 })
    expect(m.confusion).toEqual({ get_weather: { base: { get_forecast: 8 }, sft_500: { get_forecast: 8 }, sft_1000: { get_forecast: 8 } } })
    expect(m.disagreements.total).toBe(8)
    expect(m.disagreements.samples[0]).toEqual({ sample: 'weather > s1', right: ['sft_1000'], wrong: ['base', 'sft_500'] })
    expect(m.perModel.sft_1000.thresholds).toEqual([{ metric: 'args_exact_match', min: 0.95, actual: 1, pass: true }])
    expect(report.gate.reasons).toEqual([])
  })

  it('draws the leaderboard, the verdicts and the disagreements into the HTML page', () => {
    const html = readFileSync(join(project.dir, 'report.html'), 'utf8')
    const data = JSON.parse(html.match(/<script type="application\/json" id="tool-evals-data">(.*?)<\/script>/s)?.[1] ?? 'null')
    expect(data.models.sentences).toContain('sft_1000 beats base on args_exact_match by 33.3 points, p = 0.016 (Holm).')
    expect(data.models.sentences.some((s: string) => s.startsWith('sft_500 and base are not distinguishable'))).toBe(true)
    expect(html).toContain("h('section', { id: 'models', hidden: true })")
  })
})
