// The opted-in scorers in real `vitest` subprocesses against the built package: schema metrics and judges (a
// replayed judge keyed by judge sample id, and a counting judge behind the generation cache) in the report, a
// threshold on their rates gating the exit code, a warm re-run asking the judge nothing, sharded runs merging to the
// numbers of one run, and strict mode on BFCL samples. Five runs: the BFCL suite is a third eval file of the first
// run (its report and Vitest's JSON show each suite apart, and the gate lists each reason the run fails). All but the
// merge run in one process (project.runs).
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { judgeSampleId } from '../../src/score/judge.js'
import { comparableReport, createEvalProject, ensureBuilt, type EvalProject, type RunResult } from '../helpers/eval-project.js'

const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n'
const user = (content: string) => [{ role: 'user', content }]
const tool = (name: string) => ({ type: 'function', function: { name, parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } })
const tools = [tool('get_weather'), tool('get_forecast')]
const gw = (city: string) => ({ name: 'get_weather', arguments: { city } })
const hermes = (name: string, args: unknown) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`
const verdict = (label: string, explanation: string) => JSON.stringify({ label, explanation })

const weatherData = jsonl([
  { id: 'w1', messages: user('Weather in Paris?'), tools, expected: [gw('Paris')] },
  { id: 'w2', messages: user('Weather in Rome?'), tools, expected: [gw('Rome')] },
  { id: 'w3', messages: user('Thanks!'), tools, expected: [] },
  { id: 'w4', messages: user('Weather in Oslo?'), tools, expected: [gw('Oslo')] },
  { id: 'w5', messages: user('Weather in Lima?'), tools, expected: [gw('Lima')] },
])

// w5 has no recorded output: an errored sample, scored 0 by every scorer without asking the judge.
const weatherOutputs = jsonl([
  { id: 'w1', output: hermes('get_weather', { city: 'Paris' }) },
  { id: 'w2', output: hermes('get_weather', { city: 'rome' }) },
  { id: 'w3', output: "You're welcome!" },
  { id: 'w4', output: hermes('get_forecast', { city: 'Oslo' }) },
])

// Recorded judgements by judge sample id; w4's invocation judgement is missing: a judge error, left out of the rate.
const judgeAnswers = jsonl([
  { id: judgeSampleId('tool_selection', 'w1'), output: verdict('correct', 'get_weather fits') },
  { id: judgeSampleId('tool_invocation', 'w1'), output: verdict('correct', 'city is right') },
  { id: judgeSampleId('tool_selection', 'w2'), output: verdict('correct', 'get_weather fits') },
  { id: judgeSampleId('tool_invocation', 'w2'), output: 'LABEL: incorrect\nEXPLANATION: the city is not capitalised' },
  { id: judgeSampleId('tool_selection', 'w3'), output: verdict('correct', 'no tool needed') },
  { id: judgeSampleId('tool_invocation', 'w3'), output: verdict('incorrect', 'no call was made') },
  { id: judgeSampleId('tool_selection', 'w4'), output: verdict('incorrect', 'a forecast is not the current weather') },
])

const judgedEval = `
import { describeEval, replay } from 'vitest-tool-evals'
describeEval('judged', {
  data: 'data/weather.jsonl',
  model: replay('data/weather.outputs.jsonl'),
  schema: { semantics: 'jsonschema' }, // our corrections: w3's right abstention scores 1 (DeepFabric: 0)
  judge: { model: replay('data/judge.jsonl') },
  failOnError: false,
})
`

// A judge that counts its calls in a file, behind the generation cache: a warm re-run must not call it.
const cachedEval = `
import { appendFileSync } from 'node:fs'
import { describeEval, replay } from 'vitest-tool-evals'
const log = new URL('../judge-calls.log', import.meta.url)
const judge = {
  id: 'counting-judge',
  async generate(sample) {
    appendFileSync(log, sample.id + '\\n')
    return { text: '{"label": "correct", "explanation": "fine"}' }
  },
}
describeEval('cached', {
  data: 'data/weather.jsonl',
  model: replay('data/weather.outputs.jsonl'),
  judge: { model: judge, kinds: ['tool_selection'], cache: { dir: '.judge-cache' } },
  failOnError: false,
})
`

// Strict mode on BFCL samples: the BFCL checker decides (b1 is not the canonical call but an accepted one).
const bfclAnswer = {
  category: 'simple_python',
  ground_truth: [{ get_weather: { city: ['Paris', 'Paris, France'], unit: ['', 'celsius'] } }],
  functions: [{ name: 'get_weather', parameters: { type: 'dict', properties: { city: { type: 'string' }, unit: { type: 'string' } }, required: ['city'] } }],
}
const bfclEval = `
import { describeEval } from 'vitest-tool-evals'
const outputs = { b1: ${JSON.stringify(hermes('get_weather', { city: 'Paris, France', unit: 'celsius' }))}, b2: ${JSON.stringify(hermes('get_weather', { city: 'Lyon' }))} }
const sample = (id) => ({ id, messages: [{ role: 'user', content: 'Weather in Paris?' }], expected: [{ name: 'get_weather', arguments: { city: 'Paris' } }], bfcl: ${JSON.stringify(bfclAnswer)} })
describeEval('bfcl', { data: [sample('b1'), sample('b2')], model: { id: 'inline', generate: async (s) => ({ text: outputs[s.id] }) }, bfcl: true, strict: true })
`

const config = `
import { defineConfig } from 'vitest/config'
import ToolEvalsReporter from 'vitest-tool-evals/reporter'
const env = process.env
export default defineConfig({
  test: {
    include: [env.EVAL_INCLUDE ?? 'evals/*.eval.mjs'],
    // One worker thread for every file: what is tested is the report, whatever runs the files.
    pool: 'threads',
    isolate: false,
    reporters: [
      'default',
      ['json', { outputFile: env.EVAL_VITEST_JSON ?? 'vitest.json' }],
      new ToolEvalsReporter({ thresholds: JSON.parse(env.EVAL_THRESHOLDS ?? '{}'), outputFile: env.EVAL_REPORT ?? 'report.json', markdownFile: false }),
    ],
  },
})
`

const FAILING = JSON.stringify({ judge_tool_selection: 0.9, schema_overall: 0.5 })
const PASSING = JSON.stringify({ judge_tool_selection: 0.7, suites: { judged: { judge_tool_invocation: 0.25, schema_overall: 0.6 } } })

describe('schema metrics and judges in eval projects run by vitest', () => {
  let project: EvalProject
  let first: RunResult
  let passingRun: RunResult
  /** The judge's calls after the first run and after the passing one. */
  let callsAfterFirst: string[]
  let callsAfterPassing: string[]
  const read = (file: string) => JSON.parse(readFileSync(join(project.dir, file), 'utf8'))
  /** A report without its usage sections (a cold run's judge reported usage unknown; a warm one ran none). */
  const withoutUsage = (report: Record<string, unknown>) => ({
    ...report,
    usage: undefined,
    suites: Object.fromEntries(Object.entries(report['suites'] as Record<string, object>).map(([k, v]) => [k, { ...v, usage: undefined }])),
  })
  const judgeCalls = () => {
    const log = join(project.dir, 'judge-calls.log')
    return existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []
  }

  beforeAll(async () => {
    ensureBuilt()
    project = createEvalProject({
      'vitest.config.mjs': config,
      'evals/judged.eval.mjs': judgedEval,
      'evals/cached.eval.mjs': cachedEval,
      'evals/bfcl.eval.mjs': bfclEval,
      'data/weather.jsonl': weatherData,
      'data/weather.outputs.jsonl': weatherOutputs,
      'data/judge.jsonl': judgeAnswers,
    })
    // Four runs in one process (project.runs): their subject is the reports and exit codes, not the process. The
    // merge of the shards' blobs is a `vitest --merge-reports` process of its own, in its test.
    ;[first, passingRun] = (await project.runs([
      { args: ['run'], env: { EVAL_THRESHOLDS: FAILING }, after: () => void (callsAfterFirst = judgeCalls()) },
      // The judged suites alone (the BFCL suite's strict sample fails a test whatever the thresholds).
      {
        args: ['run'],
        env: { EVAL_INCLUDE: 'evals/{judged,cached}.eval.mjs', EVAL_THRESHOLDS: PASSING, EVAL_REPORT: 'passing.json', EVAL_VITEST_JSON: 'passing-vitest.json' },
        after: () => void (callsAfterPassing = judgeCalls()),
      },
      { args: ['run', '--shard=1/2', '--reporter=blob'], env: { EVAL_THRESHOLDS: FAILING } },
      { args: ['run', '--shard=2/2', '--reporter=blob'], env: { EVAL_THRESHOLDS: FAILING } },
    ])) as [RunResult, RunResult, RunResult, RunResult]
  })
  afterAll(() => project?.remove())

  it('the report carries the schema and judge rates and counts, overall and per suite', () => {
    const report = read('report.json')
    const judged = report.suites.judged
    // w1..w3 right schema-wise, w4 the wrong tool (0.35), w5 errored (0).
    expect(judged.metrics).toMatchObject({ schema_tool_selection: 3 / 5, schema_parameter_accuracy: 4 / 5, schema_execution_success: 3 / 5 })
    expect(judged.metrics.schema_overall).toBeCloseTo(3.35 / 5, 12)
    expect(judged.schema).toEqual({ samples: 5, tool_selection: 3, parameter_accuracy: 4, execution_success: 3 })
    // Selection: w1 w2 w3 correct, w4 incorrect, w5 errored (incorrect). Invocation: w1 correct, w2 w3 incorrect,
    // w4 unreadable (no recorded judgement), w5 errored.
    expect(judged.judge).toEqual({ tool_selection: { judged: 5, correct: 3, errors: 0 }, tool_invocation: { judged: 5, correct: 1, errors: 1 } })
    expect(judged.metrics.judge_tool_selection).toBe(3 / 5)
    expect(judged.metrics.judge_tool_invocation).toBe(1 / 4)
    // The cached suite's judge says correct to the four samples with an output.
    expect(report.suites.cached.judge).toEqual({ tool_selection: { judged: 5, correct: 4, errors: 0 } })
    expect(report.suites.cached.metrics).not.toHaveProperty('schema_overall')
    expect(report.metrics.judge_tool_selection).toBe(7 / 10)
    expect(report.metrics.judge_tool_invocation).toBe(1 / 4)
    expect(report.metrics.schema_overall).toBeCloseTo(3.35 / 5, 12)
    expect(report.errored.count).toBe(2)
  })

  it('a threshold on a judged or schema rate gates the exit code, naming metric, value and minimum', () => {
    const report = read('report.json')
    // failOnError: false: no judged or cached test fails (errored w5 included); the thresholds fail the run, and
    // apart from them only the BFCL suite's strict sample (its own test below).
    const results = read('vitest.json').testResults.flatMap((r: { assertionResults: unknown[] }) => r.assertionResults)
    const failed = results.filter((t: { status: string }) => t.status !== 'passed').map((t: { fullName: string }) => t.fullName)
    expect(failed).toEqual(['bfcl b2']) // Vitest's results are the tests'; the thresholds fail the run through its exit code
    expect(report.gate.reasons).toEqual([
      { kind: 'tests_failed', message: expect.stringContaining('1 test(s) failed') },
      { kind: 'threshold', message: expect.stringContaining('judge_tool_selection: 0.700 < required 0.900') },
    ])
    expect(report.thresholds).toEqual([
      { metric: 'judge_tool_selection', min: 0.9, actual: 0.7, pass: false },
      { metric: 'schema_overall', min: 0.5, actual: report.metrics.schema_overall, pass: true },
    ])
    expect(first.code).not.toBe(0)
    expect(first.stdout).toContain('judge_tool_selection: 0.700 < required 0.900')
    expect(first.stdout).toMatch(/judge_tool_invocation\s+0\.250/)
    expect(first.stdout).toContain('judge: 1 judgement(s) without a label')
  })

  it('the judgements are in each test case\'s task meta, explanation included', () => {
    const results = read('vitest.json').testResults.flatMap((r: { assertionResults: unknown[] }) => r.assertionResults)
    const w2 = results.find((t: { fullName: string }) => t.fullName === 'judged w2')
    expect(w2.meta.toolEvals.record.scores.judge.tool_invocation).toEqual({ label: 'incorrect', score: 0, explanation: 'the city is not capitalised' })
    expect(w2.meta.toolEvals.record.scores.schema).toEqual({ tool_selection: 1, parameter_accuracy: 1, execution_success: 1, overall: 1 })
  })

  it('passes (exit 0) when the thresholds are met; the warm re-run asks the cached judge nothing', () => {
    expect(callsAfterFirst).toHaveLength(4) // w1..w4, one judge kind; errored w5 is not judged
    const r = passingRun
    expect(r.code, r.stdout).toBe(0)
    expect(callsAfterPassing).toHaveLength(4)
    const passing = read('passing.json')
    expect(passing.pass).toBe(true)
    const first = read('report.json')
    // The same numbers, but for usage: the first run's judge ran (and reported no usage: unknown), the warm one did not.
    expect(first.suites.cached.usage.judge).toMatchObject({ samples: 4, requests: 4, promptTokensUnknown: 4, completionTokensUnknown: 4 })
    expect(passing.usage).toBeUndefined() // a replayed model and a cached judge: nothing ran
    expect(withoutUsage(passing).suites).toEqual(withoutUsage({ suites: { judged: first.suites.judged, cached: first.suites.cached } }).suites)
    expect(passing.metrics).toMatchObject({ judge_tool_selection: 7 / 10, judge_tool_invocation: 1 / 4 })
  })

  it('gives the numbers of one run from --shard=1/2 and --shard=2/2 blob reports merged with --merge-reports', async () => {
    const merged = await project.run(['--merge-reports'], { EVAL_THRESHOLDS: FAILING, EVAL_REPORT: 'merged.json', EVAL_VITEST_JSON: 'merged-vitest.json' })
    expect(merged.code).not.toBe(0)
    // The shards ran with the judge's cache warm: no usage, as in the warm run.
    expect(withoutUsage(comparableReport(read('merged.json')))).toEqual(withoutUsage(comparableReport(read('report.json'))))
    const mergedReport = read('merged.json')
    expect(mergedReport.usage.judge).toBeUndefined()
    // The BFCL suite's own provider reports no usage: counted the same in both, its tokens unknown.
    expect(mergedReport.usage.model).toEqual(read('report.json').usage.model)
    expect(mergedReport.usage.model).toMatchObject({ samples: 2, promptTokensUnknown: 2 })
    expect(judgeCalls()).toHaveLength(4)
  })

  it('strict mode on BFCL samples fails only the samples the BFCL checker rejects, with its reason', () => {
    // The first run's third eval file (its failed test is the gate's tests_failed reason, checked above).
    expect(first.code).not.toBe(0)
    const results = read('vitest.json')
      .testResults.flatMap((t: { assertionResults: unknown[] }) => t.assertionResults)
      .filter((t: { fullName: string }) => t.fullName.startsWith('bfcl '))
    const status = Object.fromEntries(results.map((t: { title: string; status: string }) => [t.title, t.status]))
    expect(status).toEqual({ b1: 'passed', b2: 'failed' })
    expect(results.find((t: { title: string }) => t.title === 'b2').failureMessages.join('\n')).toContain('BFCL checker: value_error:string')
    const report = read('report.json')
    expect(report.suites.bfcl.metrics.bfcl_accuracy).toBe(0.5)
    expect(report.metrics.bfcl_accuracy).toBe(0.5)
    expect(report.bfcl.errorTypes).toEqual({ 'value_error:string': 1 })
  })
})
