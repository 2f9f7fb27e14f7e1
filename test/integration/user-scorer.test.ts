// A user scorer (defineScorer) in real `vitest` subprocesses against the built package: its metrics in the JSON report
// and the terminal table, a threshold on one gating the exit code, a threshold on a metric no sample produced
// failing by name (in the same run: each failed threshold is its own reason in the report's gate), and --shard=1/2 +
// --shard=2/2 blob reports merged with --merge-reports giving the numbers of one unsharded run. Four runs: the first
// and the shards in one process (project.runs), the merge in a process of its own.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { comparableReport, createEvalProject, samplesWithoutRunId, ensureBuilt, type EvalProject, type RunResult } from '../helpers/eval-project.js'

const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n'
const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string' } }, required: ['city'] } } }]
const hermes = (args: unknown) => `<tool_call>\n${JSON.stringify({ name: 'get_weather', arguments: args })}\n</tool_call>`
const cities = ['Paris', 'Rome', 'Oslo', 'Lima', 'Kyiv', 'Bern']
const data = jsonl(cities.map((city, i) => ({ id: `w${i + 1}`, messages: [{ role: 'user', content: `Weather in ${city}?` }], tools, expected: [{ name: 'get_weather', arguments: { city } }] })))
// w1 w3 w5 in celsius (or no unit), w2 w4 in fahrenheit, w6 no call (celsius left out, no city).
const outputs = jsonl([
  { id: 'w1', output: hermes({ city: 'Paris' }) },
  { id: 'w2', output: hermes({ city: 'Rome', unit: 'fahrenheit' }) },
  { id: 'w3', output: hermes({ city: 'Oslo', unit: 'celsius' }) },
  { id: 'w4', output: hermes({ city: 'Lima', unit: 'fahrenheit' }) },
  { id: 'w5', output: hermes({ city: 'Kyiv', unit: 'celsius' }) },
  { id: 'w6', output: 'I cannot tell.' },
])

// Two eval files, so --shard splits them between two runs.
const evalFile = (suite: string, from: number, to: number) => `
import { defineScorer, describeEval, replay } from 'vitest-tool-evals'
const units = defineScorer({
  name: 'units',
  metrics: ['celsius', 'has_city'],
  score: ({ calls }) => {
    const call = calls[0]
    if (!call) return { celsius: null, has_city: false }
    return { celsius: (call.arguments.unit ?? 'celsius') === 'celsius', has_city: typeof call.arguments.city === 'string' }
  },
})
describeEval('${suite}', {
  data: (await import('node:fs')).readFileSync('data/weather.jsonl', 'utf8').trim().split('\\n').map((l) => JSON.parse(l)).slice(${from}, ${to}),
  model: replay('data/weather.outputs.jsonl'),
  scorers: [units],
})
`

const config = `
import { defineConfig } from 'vitest/config'
import ToolEvalsReporter from 'vitest-tool-evals/reporter'
const env = process.env
export default defineConfig({
  test: {
    include: ['evals/*.eval.mjs'],
    // One worker thread for both files: what is tested is the report, whatever runs the files.
    pool: 'threads',
    isolate: false,
    reporters: ['default', new ToolEvalsReporter({ thresholds: JSON.parse(env.EVAL_THRESHOLDS ?? '{}'), outputFile: env.EVAL_REPORT ?? 'report.json', markdownFile: false })],
  },
})
`

// units.celsus: a misspelt metric, which no sample produces.
const THRESHOLDS = JSON.stringify({ 'units.celsius': 0.7, 'units.has_city': 0.8, 'units.celsus': 0.5, suites: { second: { 'units.has_city': 0.5 } } })

describe('a user scorer in eval projects run by vitest', () => {
  let project: EvalProject
  let first: RunResult
  let shards: RunResult[]
  const read = (file: string) => JSON.parse(readFileSync(join(project.dir, file), 'utf8'))

  beforeAll(async () => {
    ensureBuilt()
    project = createEvalProject({
      'vitest.config.mjs': config,
      'evals/first.eval.mjs': evalFile('first', 0, 3),
      'evals/second.eval.mjs': evalFile('second', 3, 6),
      'data/weather.jsonl': data,
      'data/weather.outputs.jsonl': outputs,
    })
    // The first run and the two shards in one process (project.runs): their subject is the reports and exit codes.
    // The merge of the shards' blobs is a `vitest --merge-reports` process of its own, in its test.
    ;[first, ...shards] = (await project.runs([
      { args: ['run'], env: { EVAL_THRESHOLDS: THRESHOLDS } },
      { args: ['run', '--shard=1/2', '--reporter=blob'], env: { EVAL_THRESHOLDS: THRESHOLDS } },
      { args: ['run', '--shard=2/2', '--reporter=blob'], env: { EVAL_THRESHOLDS: THRESHOLDS } },
    ])) as [RunResult, RunResult, RunResult]
  })
  afterAll(() => project?.remove())

  it('its metrics are in the JSON report, overall and per suite, and in the terminal table', () => {
    const report = read('report.json')
    // celsius over the five samples with a call: w1 w3 w5 → 3/5; has_city: five of six.
    expect(report.metrics['units.celsius']).toBe(3 / 5)
    expect(report.metrics['units.has_city']).toBe(5 / 6)
    expect(report.suites.first.metrics['units.celsius']).toBe(2 / 3)
    expect(report.suites.second.metrics['units.has_city']).toBe(2 / 3)
    // NeMo's numbers sit beside it, as always.
    expect(report.metrics.args_exact_match).toBe(1 / 6) // only w1 has exactly the expected arguments
    expect(first.stdout).toMatch(/units\.celsius\s+0\.600/)
    expect(first.stdout).toMatch(/units\.has_city\s+0\.833/)
  })

  it('thresholds on its metrics gate the exit code by name', () => {
    expect(first.code).not.toBe(0)
    expect(read('report.json').thresholds).toEqual([
      { metric: 'units.celsius', min: 0.7, actual: 0.6, pass: false },
      { metric: 'units.has_city', min: 0.8, actual: 5 / 6, pass: true },
      { metric: 'units.celsus', min: 0.5, actual: null, pass: false },
      { metric: 'units.has_city', min: 0.5, actual: 2 / 3, pass: true, suite: 'second' },
    ])
    expect(first.stdout).toContain('units.celsius: 0.600 < required 0.700')
  })

  it('a threshold on a metric no sample produced fails the run, naming it', () => {
    // Its own reason in the gate (whose verdict the exit code follows: the test above), beside units.celsius's.
    const gate = read('report.json').gate
    expect(gate.pass).toBe(false)
    expect(gate.reasons.map((r: { kind: string }) => r.kind)).toEqual(['threshold', 'threshold'])
    expect(gate.reasons[1].message).toContain('units.celsus: no sample produced this metric')
    expect(first.stdout).toContain('units.celsus: no sample produced this metric')
  })

  it('gives the numbers of one run from --shard=1/2 and --shard=2/2 blob reports merged with --merge-reports', async () => {
    const [one, two] = shards as [RunResult, RunResult]
    expect(one.code + two.code, one.stderr + two.stderr).toBe(0) // the blob reporter alone gates nothing
    const merged = await project.run(['--merge-reports'], { EVAL_THRESHOLDS: THRESHOLDS, EVAL_REPORT: 'merged.json' })
    expect(merged.code).not.toBe(0)
    const report = read('report.json')
    expect(comparableReport(read('merged.json'))).toEqual(comparableReport(report))
    // The samples sidecar too: the same per-sample outcomes, line for line.
    const samples = (file: string) => readFileSync(join(project.dir, file), 'utf8')
    expect(samplesWithoutRunId(samples('merged.samples.jsonl'))).toBe(samplesWithoutRunId(samples('report.samples.jsonl')))
    expect(merged.stdout).toMatch(/units\.celsius\s+0\.600/)
  })
})
