// The run's verdict against what Vitest itself knows, through real `vitest run` subprocesses: a test file whose worker
// dies never leaves a passing report; JUnit written to stdout still parses and counts a failed gate; a `--shard`
// Vitest refuses says why instead of "no eval samples ran".
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEvalProject, ensureBuilt, type EvalProject } from './helpers/eval-project.js'

const gw = (city: string) => ({ name: 'get_weather', arguments: { city } })
const hermes = (city: string) => `<tool_call>\n${JSON.stringify(gw(city))}\n</tool_call>`
const sample = (id: string, city: string) => ({ id, messages: [{ role: 'user', content: `Weather in ${city}?` }], expected: [gw(city)] })

const config = `
import { defineConfig } from 'vitest/config'
import { toolEvals } from 'vitest-tool-evals/plugin'
export default defineConfig({
  plugins: [toolEvals({
    thresholds: JSON.parse(process.env.THRESHOLDS ?? '{"name_correct":0.5}'),
    outputFile: 'report.json',
    htmlFile: 'report.html',
    markdownFile: 'summary.md',
  })],
  test: { include: [process.env.INCLUDE ?? 'evals/*.eval.mjs'] },
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

// A real trigger is a dataset that exhausts the heap (the worker aborts, no try can catch it); SIGKILL is the same.
const dyingEval = `
import { describeEval } from 'vitest-tool-evals'
process.kill(process.pid, 'SIGKILL')
describeEval('dying', { data: ${JSON.stringify([sample('d1', 'Lima')])}, model: { id: 'x', async generate() { return { text: '' } } } })
`

let project: EvalProject
const read = (file: string) => readFileSync(join(project.dir, file), 'utf8')
const report = () => JSON.parse(read('report.json'))

beforeAll(() => {
  ensureBuilt()
  project = createEvalProject({
    'vitest.config.mjs': config,
    'evals/weather.eval.mjs': weatherEval,
    'crash/dying.eval.mjs': dyingEval,
  })
})
afterAll(() => project?.remove())

describe('the verdict follows what Vitest knows', () => {
  it('a test file whose worker dies fails the run in every view, naming the file', async () => {
    const r = await project.run(['run'], { INCLUDE: '{evals,crash}/*.eval.mjs' })
    expect(r.code).not.toBe(0)
    const json = report()
    expect(json).toMatchObject({ pass: false, testsPass: true, gate: { pass: false } })
    const kinds = json.gate.reasons.map((x: { kind: string }) => x.kind)
    expect(kinds).toContain('file_unfinished')
    expect(kinds).toContain('run_error')
    expect(json.unfinishedFiles).toEqual(['crash/dying.eval.mjs'])
    expect(json.suites.dying).toBeUndefined()
    // The terminal, the Markdown summary, the HTML page and Vitest's own summary all say it.
    expect(r.stdout).toContain('crash/dying.eval.mjs did not finish')
    expect(read('summary.md')).toContain('## Tool evals ❌')
    expect(read('summary.md')).toContain('crash/dying.eval.mjs did not finish')
    expect(read('report.html')).toContain('crash/dying.eval.mjs did not finish')
    expect(r.stdout + r.stderr).toMatch(/FAIL .*tool-evals gate/)
    // A run with holes is no baseline: its per-sample file is written, but the report marks it failed.
    expect(json.samples).toBe(2)
  })

  it('JUnit on stdout stays parseable (the summary goes to stderr) and counts a failed gate', async () => {
    const r = await project.run(['run', '--reporter=junit'], { THRESHOLDS: '{"args_exact_match":0.9}' })
    expect(r.code).toBe(1)
    const xml = r.stdout.trim()
    expect(xml.startsWith('<?xml')).toBe(true)
    expect(xml.endsWith('</testsuites>')).toBe(true)
    expect(xml).not.toContain('Tool evals')
    expect(xml).toMatch(/<testsuites [^>]*tests="3" failures="1"/)
    expect(xml).toContain('<failure message="the run fails its gate: args_exact_match: 0.500 &lt; required 0.900"')
    expect(r.stderr).toContain('Tool evals')
    expect(r.stderr).toContain('args_exact_match: 0.500 < required 0.900')
    expect(report().pass).toBe(false)
  })

  it('a passing run adds nothing to JUnit', async () => {
    const r = await project.run(['run', '--reporter=junit', '--outputFile=junit.xml'])
    expect(r.code).toBe(0)
    const xml = read('junit.xml')
    expect(xml).toMatch(/<testsuites [^>]*tests="2" failures="0"/)
    expect(xml).not.toContain('tool-evals gate')
    // JUnit went to a file: the summary is on stdout as usual.
    expect(r.stdout).toContain('Tool evals')
  })

  it('a --shard Vitest refuses says why, rather than "no eval samples ran"', async () => {
    const r = await project.run(['run', '--shard=1/2', '--reporter=blob'])
    expect(r.code).not.toBe(0)
    expect(r.stdout + r.stderr).toContain('--shard <count> must be a smaller than count of test files')
    const partial = JSON.parse(read('report.partial.json'))
    expect(partial.pass).toBe(false)
    expect(partial.gate.reasons[0]).toMatchObject({ kind: 'run_error' })
  })
})
