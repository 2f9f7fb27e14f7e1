// Retries of an OpenAI-compatible endpoint within the sample's test timeout, through a real `vitest run` subprocess:
// a port where nothing listens makes the sample errored with the real cause (ECONNREFUSED, after N attempts), not
// "timed out after 5000 ms" (the sample's timeout, which the provider's default back-off would outlast); a real
// server on 127.0.0.1 that answers 503 twice then answers is right, and the report counts its 2 retries.
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEvalProject, ensureBuilt, type EvalProject, type RunResult } from '../helpers/eval-project.js'
import { completion, startOpenAIServer, type OpenAIServer } from '../helpers/openai-server.js'

/** A port on 127.0.0.1 with nothing listening: bound by a server, then closed. */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

const call = { id: 'c0', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }
const sample = (id: string) => ({ id, messages: [{ role: 'user', content: id }], expected: [{ name: 'get_weather', arguments: { city: 'Paris' } }] })

// A test timeout of 5 s (given: the default one, derived from the provider, would wait out every retry), the
// provider's default retries (4); a first back-off of 1 s makes the back-off alone 7.5 s at the least: more than the
// sample's time without a deadline.
const evalFile = `
import { describeEval, openaiCompatible } from 'vitest-tool-evals'
const refused = openaiCompatible({ baseURL: process.env.TE_DEAD_URL, model: 'm', retryDelayMs: 1000 })
const flaky = openaiCompatible({ baseURL: process.env.TE_BASE_URL, model: 'm', retryDelayMs: 20 })
describeEval('refused', { data: ${JSON.stringify([sample('r1')])}, model: refused, failOnError: false, timeout: 5000 })
describeEval('flaky', { data: ${JSON.stringify([sample('f1')])}, model: flaky })
`

const config = `
import { defineConfig } from 'vitest/config'
import ToolEvalsReporter from 'vitest-tool-evals/reporter'
export default defineConfig({
  test: {
    include: ['evals/*.eval.mjs'],
    reporters: ['default', new ToolEvalsReporter({ outputFile: 'report.json', markdownFile: false })],
  },
})
`

describe('endpoint retries within the sample timeout (real vitest run)', () => {
  let project: EvalProject
  let server: OpenAIServer
  let run: RunResult
  let report: any
  let port: number

  beforeAll(async () => {
    ensureBuilt()
    port = await freePort()
    server = await startOpenAIServer((r) => (r.hit <= 2 ? { status: 503, json: { error: { message: 'overloaded' } } } : { json: completion(null, [call]) }))
    project = createEvalProject({ 'vitest.config.mjs': config, 'evals/retries.eval.mjs': evalFile })
    run = await project.run(['run'], { TE_BASE_URL: server.baseURL, TE_DEAD_URL: `http://127.0.0.1:${port}/v1` })
    report = JSON.parse(readFileSync(join(project.dir, 'report.json'), 'utf8'))
  }, 120_000)
  afterAll(async () => {
    project?.remove()
    await server?.close()
  })

  it('a refused connection errors with ECONNREFUSED and its attempts, not a timeout', () => {
    const errored = report.errored.samples.find((e: { id: string }) => e.id === 'r1')
    expect(errored?.reason, run.stdout + run.stderr).toContain(`connect ECONNREFUSED 127.0.0.1:${port}`)
    expect(errored.reason).toMatch(/gave up after [1-5] attempts?: no time for another before the sample's timeout/)
    expect(errored.reason).not.toMatch(/timed out/)
    // Its retries are counted although it errored (attempts less the first).
    const attempts = Number(/gave up after (\d)/.exec(errored.reason)?.[1])
    expect(report.suites.refused.usage.model.retries).toBe(attempts - 1)
  })

  it('a server that fails twice with 503 then answers: the sample is right and 2 retries are counted', () => {
    expect(server.hits).toBe(3)
    expect(report.suites.flaky.metrics.name_correct).toBe(1)
    expect(report.suites.flaky.usage.model.retries).toBe(2)
    expect(report.usage.model.retries).toBe(2 + report.suites.refused.usage.model.retries)
    expect(run.stdout).toMatch(/usage {2}model {2}.*\b\d+ retries/)
  })
})
