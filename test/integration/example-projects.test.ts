// Whole eval projects run by real `vitest` subprocesses, importing the built package as a user would: one test per
// sample, `-t`, the JSON report, thresholds and the exit code, errored samples, and sharded runs merged with
// `--merge-reports` giving the numbers of one run. Six runs in all: five in one process (project.runs), the merge in
// a process of its own.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { comparableReport, createEvalProject, ensureBuilt, type EvalProject, type RunResult } from '../helpers/eval-project.js'

const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n'
const user = (content: string) => [{ role: 'user', content }]
const weatherTool = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }
const gw = (city: string) => ({ name: 'get_weather', arguments: { city } })
const hermes = (...calls: { name: string; arguments: unknown }[]) => calls.map((c) => `<tool_call>\n${JSON.stringify(c)}\n</tool_call>`).join('\n')
const tc = (name: string, args: unknown) => ({ type: 'function', function: { name, arguments: JSON.stringify(args) } })

const weatherData =
  jsonl([
    { id: 'w1', messages: user('Weather in Paris?'), tools: [weatherTool], expected: [gw('Paris')] },
    { id: 'w2', messages: user('Weather in Rome?'), tools: [weatherTool], expected: [gw('Rome')] },
    { id: 'w3', messages: user('Thanks!'), tools: [weatherTool], expected: [] },
  ]) +
  // Line 4: an expected call without a name.
  JSON.stringify({ id: 'w4', messages: user('x'), expected: [{ arguments: {} }] }) +
  '\n' +
  jsonl([{ id: 'w5', messages: user('Oslo and Lima?'), tools: [weatherTool], expected: [gw('Oslo'), gw('Lima')] }])

const weatherOutputs = jsonl([
  { id: 'w1', output: hermes(gw('Paris')) },
  { id: 'w2', output: hermes(gw('rome')) },
  { id: 'w3', output: "You're welcome!" },
  { id: 'w5', output: hermes(gw('Oslo'), gw('Lima')) },
])

const calendarData = jsonl([
  { id: 'c1', messages: user('Cancel evt_1'), expected: [{ name: 'cancel_event', arguments: { event_id: 'evt_1' } }] },
  { id: 'c2', messages: user('Cancel evt_2'), expected: [{ name: 'cancel_event', arguments: { event_id: 'evt_2' } }] },
  { id: 'c3', messages: user('A very long prompt'), expected: [{ name: 'cancel_event', arguments: { event_id: 'evt_3' } }] },
  {
    id: 'd1',
    messages: [
      ...user('What is on today?'),
      { role: 'assistant', tool_calls: [tc('list_events', { date: 'today' })] },
      { role: 'tool', content: '[evt_7, evt_9]' },
      ...user('Cancel both'),
      { role: 'assistant', tool_calls: [tc('cancel_event', { event_id: 'evt_7' })] },
      { role: 'assistant', tool_calls: [tc('cancel_event', { event_id: 'evt_9' })] },
      { role: 'tool', content: 'ok' },
    ],
  },
])

// c2 has no recorded output; c3 was skipped by policy when recorded; d1#2 lists the parallel calls in the other
// order (wrong under positional scoring).
const calendarOutputs = jsonl([
  { id: 'c1', tool_calls: [tc('cancel_event', { event_id: 'evt_1' })] },
  { id: 'c3', skipped: 'prompt over maxPromptTokens' },
  { id: 'd1#1', tool_calls: [tc('list_events', { date: 'today' })] },
  { id: 'd1#2', tool_calls: [tc('cancel_event', { event_id: 'evt_9' }), tc('cancel_event', { event_id: 'evt_7' })] },
])

// Per-sample expectations: strict mode, an assert callback with the package's matchers, a provider that throws,
// one that never answers.
const strictEvals = `
import { expect } from 'vitest'
import { describeEval } from 'vitest-tool-evals'
const outputs = {
  s1: ${JSON.stringify(hermes(gw('Paris')))},
  s2: ${JSON.stringify(hermes(gw('paris')))},
  a1: ${JSON.stringify(hermes(gw('Oslo')))},
  a2: 'I cannot check the weather.',
}
const model = {
  id: 'inline',
  async generate(sample) {
    if (sample.id === 'boom') throw new Error('backend down')
    return { text: outputs[sample.id] }
  },
}
const sample = (id, city) => ({ id, messages: [{ role: 'user', content: 'Weather in ' + city }], expected: [{ name: 'get_weather', arguments: { city } }] })
describeEval('strict', { data: [sample('s1', 'Paris'), sample('s2', 'Paris'), sample('boom', 'Paris')], model, strict: true })
describeEval('asserted', {
  data: [sample('a1', 'Oslo'), sample('a2', 'Oslo')],
  model,
  assert: (result) => expect(result).toCallTool('get_weather', { city: expect.any(String) }),
})
// A generation that never ends: the test times out, and the sample still counts (errored).
describeEval('slow', { data: [sample('hang', 'Lima')], model: { id: 'never', generate: () => new Promise(() => {}) }, timeout: 300 })
`

// A plain test: the matchers registered by the package's setup entry (setupFiles), outside any describeEval.
const plainTest = `
import { expect, test } from 'vitest'
test('matchers from the setup entry', () => {
  expect(${JSON.stringify(hermes(gw('Paris')))}).toCallTool('get_weather', { city: 'Paris' })
  expect('No call here.').toHaveNoToolCall()
})
`

const config = `
import { defineConfig } from 'vitest/config'
import ToolEvalsReporter from 'vitest-tool-evals/reporter'
const env = process.env
export default defineConfig({
  test: {
    include: [env.EVAL_INCLUDE ?? 'evals/*.eval.mjs'],
    setupFiles: ['vitest-tool-evals/setup'],
    reporters: [
      'default',
      ['json', { outputFile: env.EVAL_VITEST_JSON ?? 'vitest.json' }],
      new ToolEvalsReporter({
        thresholds: env.EVAL_THRESHOLDS ? JSON.parse(env.EVAL_THRESHOLDS) : {},
        outputFile: env.EVAL_REPORT ?? 'report.json',
        markdownFile: false,
      }),
    ],
  },
})
`

const evalFile = (suite: string, data: string, outputs: string) => `
import { describeEval, replay } from 'vitest-tool-evals'
describeEval(${JSON.stringify(suite)}, { data: ${JSON.stringify(data)}, model: replay(${JSON.stringify(outputs)}) })
`

interface VitestJson {
  testResults: { assertionResults: { title: string; fullName: string; status: string; failureMessages: string[] }[] }[]
}

describe('eval projects run by vitest', () => {
  let project: EvalProject
  let full: RunResult
  let shard1: RunResult, shard2: RunResult, clean: RunResult, filtered: RunResult

  const read = <T = Record<string, any>>(file: string): T => JSON.parse(readFileSync(join(project.dir, file), 'utf8')) as T
  const tests = (file: string) => read<VitestJson>(file).testResults.flatMap((r) => r.assertionResults)

  beforeAll(async () => {
    ensureBuilt()
    project = createEvalProject({
      'vitest.config.mjs': config,
      'evals/weather.eval.mjs': evalFile('weather', 'data/weather.jsonl', 'data/weather.outputs.jsonl'),
      'evals/calendar.eval.mjs': evalFile('calendar', 'data/calendar.jsonl', 'data/calendar.outputs.jsonl'),
      'evals/strict.eval.mjs': strictEvals,
      'evals/plain.eval.mjs': plainTest,
      'clean/weather.eval.mjs': evalFile('weather', 'data/clean.jsonl', 'data/weather.outputs.jsonl'),
      'data/weather.jsonl': weatherData,
      'data/weather.outputs.jsonl': weatherOutputs,
      'data/calendar.jsonl': calendarData,
      'data/calendar.outputs.jsonl': calendarOutputs,
      'data/clean.jsonl': weatherData.split('\n').slice(0, 3).join('\n') + '\n',
    })
    // Five runs in one process (project.runs): their subject is the reports and exit codes, not the process. The
    // merge of the shards' blobs is a `vitest --merge-reports` process of its own, in its test.
    ;[full, shard1, shard2, clean, filtered] = (await project.runs([
      { args: ['run'] },
      // Each shard's files in one worker thread: the merge is what is tested (the whole run, with Vitest's default
      // pool, is where the plain test's matchers come from the setup entry alone).
      { args: ['run', '--shard=1/2', '--reporter=blob', '--pool=threads', '--no-isolate'] },
      { args: ['run', '--shard=2/2', '--reporter=blob', '--pool=threads', '--no-isolate'] },
      {
        args: ['run'],
        env: { EVAL_INCLUDE: 'clean/*.eval.mjs', EVAL_THRESHOLDS: JSON.stringify({ has_call: 1, no_call_accuracy: 1 }), EVAL_REPORT: 'clean.json', EVAL_VITEST_JSON: 'clean-vitest.json' },
      },
      {
        args: ['run', '-t', 'w2'],
        env: { EVAL_INCLUDE: 'clean/*.eval.mjs', EVAL_THRESHOLDS: JSON.stringify({ name_correct: 0.5, args_exact_match: 0.5 }), EVAL_REPORT: 'filtered.json', EVAL_VITEST_JSON: 'filtered-vitest.json' },
      },
    ])) as [RunResult, RunResult, RunResult, RunResult, RunResult]
  })
  afterAll(() => project?.remove())

  it('makes one test per sample, named after its id, and an invalid line its own failing test', () => {
    const results = tests('vitest.json')
    expect(results.map((t) => t.fullName).sort()).toEqual(
      [
        'asserted a1',
        'asserted a2',
        'calendar c1',
        'calendar c2',
        'calendar c3',
        'calendar d1#1',
        'calendar d1#2',
        'matchers from the setup entry',
        'slow hang',
        'strict boom',
        'strict s1',
        'strict s2',
        'weather w1',
        'weather w2',
        'weather w3',
        'weather w4 [invalid sample at data/weather.jsonl:4]',
        'weather w5',
      ].sort(),
    )
    const status = Object.fromEntries(results.map((t) => [t.fullName, t.status]))
    // By default only samples that could not be evaluated fail; wrong calls (w2, d1#2) are recorded, not failed.
    // strict (s2) and assert (a2) make a wrong sample fail its test; a sample skipped by policy is a skipped test.
    expect(Object.keys(status).filter((k) => status[k] === 'failed').sort()).toEqual([
      'asserted a2',
      'calendar c2',
      'slow hang',
      'strict boom',
      'strict s2',
      'weather w4 [invalid sample at data/weather.jsonl:4]',
    ])
    expect(status['calendar c3']).toBe('skipped')
    expect(status['matchers from the setup entry']).toBe('passed')
    const failure = (name: string) => results.find((t) => t.fullName === name)?.failureMessages.join('\n') ?? ''
    expect(failure('weather w4 [invalid sample at data/weather.jsonl:4]')).toContain('data/weather.jsonl:4: field `expected[0].name`: must be a non-empty string')
    expect(failure('calendar c2')).toContain('no recorded output for sample "c2" in data/calendar.outputs.jsonl')
    expect(failure('strict boom')).toContain('backend down')
    expect(failure('strict s2')).toContain('sample "s2": wrong_arguments')
    expect(failure('strict s2')).toMatch(/-\s+"city": "Paris"/)
    expect(failure('strict s2')).toMatch(/\+\s+"city": "paris"/)
    expect(failure('asserted a2')).toContain('Expected a call of "get_weather"')
    expect(full.code).not.toBe(0)
  })

  it('writes the report: every sample counted, errored and skipped ones by reason, NeMo aggregation', () => {
    const report = read('report.json')
    expect(report.samples).toBe(16) // the plain test is not a sample
    expect(report.errored.count).toBe(4)
    expect(report.errored.byReason).toEqual({
      'backend down': 1,
      "timed out after 300 ms (the sample's test timeout), or the run was interrupted": 1,
      'invalid sample: field `expected[0].name`: must be a non-empty string': 1,
      'no recorded output in data/calendar.outputs.jsonl': 1,
    })
    expect(report.errored.samples.map((e: { id: string }) => e.id)).toEqual(['c2', 'hang', 'boom', 'w4'])
    expect(report.skipped).toEqual({ count: 1, byReason: { 'prompt over maxPromptTokens': 1 } })
    // Call samples: w1 w2 w5, c1 c2(errored: no prediction) d1#1 d1#2, s1 s2 boom(errored), a1 a2, hang(errored);
    // w4's expected calls are unreadable, c3 was skipped.
    expect(report.metrics.has_call).toBeCloseTo(9 / 13, 12)
    expect(report.metrics.name_correct).toBeCloseTo(9 / 13, 12)
    expect(report.metrics.args_exact_match).toBeCloseTo(6 / 13, 12)
    expect(report.metrics.no_call_accuracy).toBe(1)
    expect(Object.fromEntries(Object.entries(report.suites).map(([k, v]) => [k, (v as { samples: number }).samples]))).toEqual({
      asserted: 2,
      calendar: 5,
      slow: 1,
      strict: 3,
      weather: 5,
    })
    expect(report.failures.wrong_arguments).toBe(3)
    expect(report.thresholds).toEqual([])
    expect(report.pass).toBe(false) // tests failed
    expect(full.stdout).toContain('Tool evals')
    expect(full.stdout).toMatch(/16 samples · 4 errored · 1 skipped/)
  })

  it('gives the metrics of one run from --shard=1/2 and --shard=2/2 blob reports merged with --merge-reports', async () => {
    expect(shard1.stderr + shard2.stderr).not.toContain('Error: ')
    const merged = await project.run(['--merge-reports'], { EVAL_REPORT: 'merged.json', EVAL_VITEST_JSON: 'merged-vitest.json' })
    expect(merged.code).not.toBe(0) // the errored samples' tests failed in the shards
    expect(comparableReport(read('merged.json'))).toEqual(comparableReport(read('report.json')))
    expect(tests('merged-vitest.json')).toHaveLength(17)
  })

  it('passes (exit 0) when every threshold is met', () => {
    const r = clean
    expect(r.code).toBe(0)
    expect(read('clean.json')).toMatchObject({ samples: 3, pass: true, thresholds: [{ metric: 'has_call', min: 1, actual: 1, pass: true }, { metric: 'no_call_accuracy' }] })
  })

  it('-t runs only the matching samples; their thresholds are shown, not gated (a rate over one sample says nothing)', () => {
    const r = filtered
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('args_exact_match: 0.000 < required 0.500')
    expect(r.stdout).toContain('name_correct: 1.000 >= required 0.500')
    expect(r.stdout).toContain('filtered run (-t /w2/): thresholds and regression verdicts are shown, not gated')
    const statuses = Object.fromEntries(tests('filtered-vitest.json').map((t) => [t.title, t.status]))
    expect(statuses).toEqual({ w1: 'skipped', w2: 'passed', w3: 'skipped' })
    // A filtered run is partial: its report goes beside the whole run's (filtered.json), never over it.
    const report = read('filtered.partial.json')
    expect(report).toMatchObject({ samples: 1, pass: true, thresholdsPass: false, testsPass: true, partial: { reason: 'filter' }, gate: { pass: true, reasons: [] } })
    expect(report.thresholds[1]).toEqual({ metric: 'args_exact_match', min: 0.5, actual: 0, pass: false })
  })
})
