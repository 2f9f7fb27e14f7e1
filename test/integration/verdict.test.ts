// The run's verdict against what Vitest itself knows, through a real `vitest run` subprocess: a `--shard` Vitest
// refuses says why instead of "no eval samples ran". (A worker that dies, JUnit on stdout and every other reporter
// with each outcome of the gate: test/integration/ci-matrix.test.ts.)
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEvalProject, ensureBuilt, type EvalProject } from '../helpers/eval-project.js'

const gw = (city: string) => ({ name: 'get_weather', arguments: { city } })
const hermes = (city: string) => `<tool_call>\n${JSON.stringify(gw(city))}\n</tool_call>`
const sample = (id: string, city: string) => ({ id, messages: [{ role: 'user', content: `Weather in ${city}?` }], expected: [gw(city)] })

const config = `
import { defineConfig } from 'vitest/config'
import { toolEvals } from 'vitest-tool-evals/plugin'
export default defineConfig({
  plugins: [toolEvals({
    thresholds: { name_correct: 0.5 },
    outputFile: 'report.json',
  })],
  test: { include: ['evals/*.eval.mjs'] },
})
`

const weatherEval = `
import { describeEval } from 'vitest-tool-evals'
const outputs = { w1: ${JSON.stringify(hermes('Paris'))}, w2: ${JSON.stringify(hermes('Oslo'))} }
describeEval('weather', {
  data: ${JSON.stringify([sample('w1', 'Paris'), sample('w2', 'Rome')])},
  model: { id: 'inline', async generate(s) { return { text: outputs[s.id] } } },
})
`

let project: EvalProject
const read = (file: string) => readFileSync(join(project.dir, file), 'utf8')

beforeAll(() => {
  ensureBuilt()
  project = createEvalProject({
    'vitest.config.mjs': config,
    'evals/weather.eval.mjs': weatherEval,
  })
})
afterAll(() => project?.remove())

describe('the verdict follows what Vitest knows', () => {
  it('a --shard Vitest refuses says why, rather than "no eval samples ran"', async () => {
    const r = await project.run(['run', '--shard=1/2', '--reporter=blob'])
    expect(r.code).not.toBe(0)
    expect(r.stdout + r.stderr).toContain('--shard <count> must be a smaller than count of test files')
    const partial = JSON.parse(read('report.partial.json'))
    expect(partial.pass).toBe(false)
    expect(partial.gate.reasons[0]).toMatchObject({ kind: 'run_error' })
  })
})
