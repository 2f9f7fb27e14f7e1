// Trials against a real OpenAI-compatible server on 127.0.0.1, through a real `vitest run` subprocess: with
// `trials: 3` and 10 samples the server answers 30 requests, and the report's tokens, cost and latency count every
// one of them (not one trial's). The same run checks the failure categories of a cut-short parallel turn
// (`missing_call`) against no call at all (`no_call`).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEvalProject, ensureBuilt, type EvalProject, type RunResult } from '../helpers/eval-project.js'
import { completion, startOpenAIServer, type OpenAIServer } from '../helpers/openai-server.js'

const PRICE = { prompt: 2, completion: 8 } // USD per million tokens
const IDS = Array.from({ length: 10 }, (_, i) => `s${i}`)

const gw = (city: string) => ({ name: 'get_weather', arguments: { city } })
const toolCall = (i: number, city: string) => ({ id: `c${i}`, type: 'function', function: { name: 'get_weather', arguments: JSON.stringify({ city }) } })

// s8 expects two parallel calls and gets one (missing_call); s9 expects one and gets text only (no_call).
const samples = IDS.map((id) => ({
  id,
  messages: [{ role: 'user', content: id }],
  expected: id === 's8' ? [gw('Paris'), gw('Rome')] : [gw('Paris')],
}))

const evalFile = `
import { describeEval, openaiCompatible } from 'vitest-tool-evals'
const model = openaiCompatible({ baseURL: process.env.TE_BASE_URL, model: 'm', maxRetries: 0 })
describeEval('trials', { data: ${JSON.stringify(samples)}, model, trials: 3 })
`

const config = `
import { defineConfig } from 'vitest/config'
import ToolEvalsReporter from 'vitest-tool-evals/reporter'
export default defineConfig({
  test: {
    include: ['evals/*.eval.mjs'],
    reporters: ['default', new ToolEvalsReporter({ outputFile: 'report.json', markdownFile: false, pricing: { "openai:m": ${JSON.stringify(PRICE)} } })],
  },
})
`

describe('trials against an endpoint: usage of every request', () => {
  let project: EvalProject
  let server: OpenAIServer
  let run: RunResult
  let report: any
  // What the server billed, request by request: tokens differ per request, so one trial's share cannot pass.
  const billed: { prompt: number; completion: number }[] = []

  beforeAll(async () => {
    ensureBuilt()
    server = await startOpenAIServer((r) => {
      const usage = { prompt_tokens: 100 + r.hit, completion_tokens: 7 + (r.hit % 5) }
      billed.push({ prompt: usage.prompt_tokens, completion: usage.completion_tokens })
      const id = String(r.body?.messages?.[0]?.content)
      const body = id === 's9' ? completion('no idea') : completion(null, [toolCall(0, 'Paris')])
      return { json: { ...body, usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } }, delayMs: r.hit % 3 }
    })
    project = createEvalProject({ 'vitest.config.mjs': config, 'evals/trials.eval.mjs': evalFile })
    run = await project.run(['run'], { TE_BASE_URL: server.baseURL })
    report = JSON.parse(readFileSync(join(project.dir, 'report.json'), 'utf8'))
  }, 120_000)
  afterAll(async () => {
    project?.remove()
    await server?.close()
  })

  it('the server answered 30 requests and the report counts them all', () => {
    expect(run.code, run.stdout + run.stderr).toBe(0)
    expect(server.hits).toBe(30)
    expect(report.usage.model.samples).toBe(10)
    expect(report.usage.model.requests).toBe(30)
    expect(report.usage.model.latencyMs.samples).toBe(30)
  })

  it("token totals and cost equal the server's sums over every trial", () => {
    const prompt = billed.reduce((a, b) => a + b.prompt, 0)
    const completionTokens = billed.reduce((a, b) => a + b.completion, 0)
    expect(report.usage.model.promptTokens).toBe(prompt)
    expect(report.usage.model.completionTokens).toBe(completionTokens)
    expect(report.usage.model.meanPromptTokens).toBe(prompt / 10)
    expect(report.usage.costUsd).toBeCloseTo((prompt * PRICE.prompt + completionTokens * PRICE.completion) / 1e6, 12)
    expect(report.suites.trials.usage.model.promptTokens).toBe(prompt)
  })

  it('a parallel turn cut short is missing_call; no call at all is no_call', () => {
    expect(report.failures).toMatchObject({ no_call: 1, missing_call: 1 })
  })
})
