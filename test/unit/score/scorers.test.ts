// The scorers an eval opts into (BFCL checker, schema metrics, judges): per-sample values in the record, their
// run-level sums (shard-safe), thresholds on them and how the reporter shows them.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
// The bfcl scorer is BFCL's, registered by the entries; these tests use the core's modules, so they load it as an entry does.
import '../../../src/bfcl/register.js'
import type { Sample } from '../../../src/data/types.js'
import { evaluate } from '../../../src/eval/describe-eval.js'
import { META_LIMITS, type EvalMeta } from '../../../src/eval/meta.js'
import { activeScorers, withPreparation, type ScorerOptions } from '../../../src/eval/scorers.js'
import type { ModelOutput, ModelProvider } from '../../../src/models/types.js'
import { RunCollector } from '../../../src/reporter/collect.js'
import { renderMarkdown } from '../../../src/reporter/markdown.js'
import { buildReport } from '../../../src/reporter/report.js'
import { applyGate } from '../../../src/reporter/gate.js'
import { renderSummary } from '../../../src/reporter/terminal.js'
import { checkThresholds, validateThresholds } from '../../../src/reporter/thresholds.js'
import { aggregate } from '../../../src/score/aggregate.js'
import { judgeSampleId } from '../../../src/score/judge.js'
import { reportScorer, scorerRank } from '../../../src/score/run.js'
import { ScoreSums } from '../../../src/score/scorer.js'
import type { SampleRecord } from '../../../src/score/types.js'

/** The scorers' part of an aggregate: their metrics, and their counts by scorer name. */
function finishScorers(sums: ScoreSums): { metrics: Record<string, number | null>; [name: string]: unknown } {
  const out: { metrics: Record<string, number | null>; [name: string]: unknown } = { metrics: {} }
  for (const [name, summary] of sums.finish(scorerRank)) {
    Object.assign(out.metrics, summary.metrics)
    if (summary.details !== undefined) out[name] = summary.details
  }
  return out
}
function aggregateScorers(records: SampleRecord[]) {
  const sums = new ScoreSums(reportScorer)
  for (const r of records) sums.add(r)
  return finishScorers(sums)
}
const withJudges = (model: ModelProvider, judge: NonNullable<ScorerOptions['judge']>, format: string | undefined) =>
  withPreparation(model, activeScorers({ judge }), format)

const dir = mkdtempSync(join(tmpdir(), 'scorers-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const weatherTool = {
  type: 'function',
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city'] } },
}
const hermes = (name: string, args: unknown) => `<tool_call>${JSON.stringify({ name, arguments: args })}</tool_call>`

// A BFCL answer as loadBfclCategory puts it in sample.bfcl: `unit` may be left out or be "celsius".
const bfclAnswer = {
  category: 'simple_python',
  id: 'b1',
  ground_truth: [{ get_weather: { city: ['Paris', 'Paris, France'], unit: ['', 'celsius'] } }],
  functions: [
    { name: 'get_weather', parameters: { type: 'dict', properties: { city: { type: 'string' }, unit: { type: 'string' } }, required: ['city'] } },
  ],
}
const bfclSample: Sample = {
  id: 'b1',
  messages: [{ role: 'user', content: 'Weather in Paris?' }],
  tools: [weatherTool as Sample['tools'] extends (infer T)[] | undefined ? T : never],
  expected: [{ name: 'get_weather', arguments: { city: 'Paris' } }],
  bfcl: bfclAnswer,
}
const { bfcl: _answer, ...plainFields } = bfclSample
const plain: Sample = { ...plainFields, id: 'p1' }
/** The record's value of one scorer. */
const scoreOf = (record: SampleRecord, name: string) => record.scores?.[name]

describe('per sample (evaluate)', () => {
  it('bfcl: the checker accepts any listed value; the verdict is in the record and in full in the result', async () => {
    const ok = await evaluate(bfclSample, { text: hermes('get_weather', { city: 'Paris, France', unit: 'celsius' }) }, undefined, 's', { bfcl: true })
    expect(scoreOf(ok.stored.record, 'bfcl')).toEqual({ valid: true, category: 'simple_python' })
    // NeMo's canonical expected call differs, BFCL's answer does not.
    expect(ok.stored.record.score?.failures).toEqual(['wrong_arguments'])
    expect(ok.result.bfcl?.valid).toBe(true)
    const bad = await evaluate(bfclSample, { text: hermes('get_weather', { city: 'Lyon' }) }, undefined, 's', { bfcl: true })
    expect(scoreOf(bad.stored.record, 'bfcl')).toEqual({ valid: false, category: 'simple_python', error_type: 'value_error:string' })
    expect(bad.result.bfcl?.error.join(' ')).toContain("Invalid value for parameter 'city'")
    // Samples without an answer get no verdict; an unreadable answer is a failing one.
    expect((await evaluate(plain, { text: '' }, undefined, 's', { bfcl: true })).stored.record.scores).toBeUndefined()
    const unreadable = await evaluate({ ...plain, bfcl: { ground_truth: [] } as never }, { text: '' }, undefined, 's', { bfcl: true })
    expect(scoreOf(unreadable.stored.record, 'bfcl')).toEqual({ valid: false, error_type: 'bfcl_answer_unreadable' })
    // Off by default.
    expect((await evaluate(bfclSample, { text: '' }, undefined, 's', {})).stored.record.scores).toBeUndefined()
  })

  it('schema: the three metrics as 0/1 and the weighted overall (default and custom weights)', async () => {
    const typeError = { text: hermes('get_weather', { city: 'Paris', days: 'two' }) }
    expect(scoreOf((await evaluate(plain, typeError, undefined, 's', { schema: true })).stored.record, 'schema')).toEqual({
      tool_selection: 1,
      parameter_accuracy: 0,
      execution_success: 0,
      overall: 0.4,
    })
    const weighted = await evaluate(plain, typeError, undefined, 's', { schema: { weights: { tool_selection: 0.5 } } })
    expect(weighted.stored.record.scores?.schema?.overall).toBe(0.5)
    expect(weighted.result.schema?.problems).toEqual(['parameter \'days\' is not of type "integer"'])
  })

  it('an errored sample gets zeros from every scorer that is on; a skipped one gets none', async () => {
    const judge: ModelProvider = { id: 'j', generate: () => Promise.reject(new Error('never asked')) }
    const options = { bfcl: true, schema: true, judge: { model: judge } }
    const { stored } = await evaluate(bfclSample, undefined, new Error('backend down'), 's', options)
    expect(stored.record.scores?.bfcl).toEqual({ valid: false, category: 'simple_python', error_type: 'sample_errored' })
    expect(stored.record.scores?.schema).toEqual({ tool_selection: 0, parameter_accuracy: 0, execution_success: 0, overall: 0 })
    expect(stored.record.scores?.judge?.tool_selection).toMatchObject({ label: 'incorrect', score: 0 })
    expect(stored.record.scores?.judge?.tool_invocation).toMatchObject({ label: 'incorrect', score: 0 })
    const skipped = (await evaluate(bfclSample, { skipped: 'too long' }, undefined, 's', options)).stored.record
    expect(skipped.scores).toBeUndefined()
  })
})

/** A judge that answers by kind and counts its calls. */
function countingJudge(answer: (sampleId: string) => string): ModelProvider & { calls: string[] } {
  const calls: string[] = []
  return {
    id: 'counting-judge',
    calls,
    async generate(s) {
      calls.push(s.id)
      return { text: answer(s.id) }
    },
  }
}

const fixedModel = (text: string): ModelProvider => ({ id: 'fixed', generate: async () => ({ text }) })

describe('judges', () => {
  it('run after each generation on its parsed calls; label, score and a cut explanation go into the record', async () => {
    const long = 'because '.repeat(200)
    const judge = countingJudge((id) =>
      id.startsWith('judge:tool_selection') ? JSON.stringify({ label: 'correct', explanation: long }) : 'LABEL: incorrect\nEXPLANATION: wrong city',
    )
    const model = withJudges(fixedModel(hermes('get_weather', { city: 'Lyon' })), { model: judge }, undefined)
    const output = await model.generate(plain)
    expect(judge.calls).toEqual([judgeSampleId('tool_selection', 'p1'), judgeSampleId('tool_invocation', 'p1')])
    const { stored, result } = await evaluate(plain, output, undefined, 's', { judge: { model: judge } })
    expect(stored.record.scores?.judge?.tool_invocation).toEqual({ label: 'incorrect', score: 0, explanation: 'wrong city' })
    const sel = stored.record.scores?.judge?.tool_selection
    expect(sel).toMatchObject({ label: 'correct', score: 1 })
    expect(sel!.explanation!.length).toBeLessThan(META_LIMITS.judgeChars + 30)
    expect(result.judge?.[0]?.explanation).toBe(long) // in full for `assert`
    // The judge saw the call the model made.
    expect(JSON.stringify(stored)).not.toContain('raw')
  })

  it('a judge that fails or answers nonsense leaves the judgement without a label (an error), never throws', async () => {
    const judge = countingJudge(() => 'I think it is fine')
    const output = await withJudges(fixedModel(hermes('get_weather', { city: 'Paris' })), { model: judge, kinds: ['tool_selection'] }, undefined).generate(plain)
    const { stored } = await evaluate(plain, output, undefined, 's', { judge: { model: judge } })
    expect(Object.keys(stored.record.scores?.judge ?? {})).toEqual(['tool_selection'])
    expect(stored.record.scores?.judge?.tool_selection?.label).toBeUndefined()
    expect(stored.record.scores?.judge?.tool_selection?.error).toContain('no readable label')
  })

  it('with `cache`, a warm re-run asks the judge nothing and gets the same judgements', async () => {
    const judge = countingJudge(() => '{"label": "correct", "explanation": "ok"}')
    const cache = { dir: join(dir, 'judge-cache') }
    const run = async () => {
      const model = withJudges(fixedModel(hermes('get_weather', { city: 'Paris' })), { model: judge, cache }, undefined)
      const outputs: ModelOutput[] = []
      for (const s of [plain, { ...plain, id: 'p2', messages: [{ role: 'user', content: 'Weather in Oslo?' }] }]) outputs.push(await model.generate(s))
      return outputs
    }
    const cold = await run()
    expect(judge.calls).toHaveLength(4)
    const warm = await run()
    expect(judge.calls).toHaveLength(4)
    // The same judgements; the cold ones ran the judge, which reported no usage (unknown), the warm ones ran nothing.
    const judgements = (outputs: ModelOutput[]) => outputs.map((o) => (o as { prepared?: { judge?: { usage?: unknown }[] } }).prepared?.judge ?? [])
    expect(judgements(cold).flat().map((j) => j.usage)).toEqual(Array(4).fill({ provider: 'counting-judge' }))
    expect(judgements(warm).flat().map((j) => j.usage)).toEqual(Array(4).fill(undefined))
    const withoutUsage = (outputs: ModelOutput[]) => judgements(outputs).map((js) => js.map(({ usage: _u, ...j }) => j))
    expect(withoutUsage(warm)).toEqual(withoutUsage(cold))
  })

  it('skipped generations are not judged; provider errors pass through', async () => {
    const judge = countingJudge(() => 'correct')
    const skipping: ModelProvider = { id: 's', generate: async () => ({ skipped: 'too long' }) }
    expect(await withJudges(skipping, { model: judge }, undefined).generate(plain)).toEqual({ skipped: 'too long' })
    const failing: ModelProvider = { id: 'f', generate: () => Promise.reject(new Error('down')) }
    await expect(withJudges(failing, { model: judge }, undefined).generate(plain)).rejects.toThrow('down')
    expect(judge.calls).toEqual([])
  })
})

// ---- run level ----

const rec = (id: string, suite: string, extra: Partial<SampleRecord> & { bfcl?: unknown; schema?: unknown; judge?: unknown }): SampleRecord => {
  const { bfcl, schema, judge, ...rest } = extra
  const scores = Object.fromEntries(Object.entries({ bfcl, schema, judge }).filter(([, v]) => v !== undefined))
  return {
    id,
    suite,
    score: { expected: 1, predicted: 1, metrics: { has_call: 1, name_correct: 1, args_json_valid: 1, args_field_precision: 1, args_field_recall: 1, args_exact_match: 1 }, positions: [], failures: [] },
    ...rest,
    ...(Object.keys(scores).length > 0 ? { scores } : {}),
  }
}
const schemaRec = (ts: 0 | 1, pa: 0 | 1, overall: number) => ({ tool_selection: ts, parameter_accuracy: pa, execution_success: (ts && pa) as 0 | 1, overall })

function runRecords(): SampleRecord[] {
  return [
    rec('a', 'bfcl', { bfcl: { valid: true, category: 'live_parallel' }, schema: schemaRec(1, 1, 1) }),
    rec('b', 'bfcl', { bfcl: { valid: false, category: 'live_parallel', error_type: 'value_error:string' }, schema: schemaRec(1, 0, 0.4) }),
    rec('c', 'bfcl', { bfcl: { valid: true, category: 'simple_python' }, schema: schemaRec(0, 1, 0.35) }),
    rec('d', 'bfcl', { error: 'backend down', bfcl: { valid: false, category: 'simple_python', error_type: 'sample_errored' }, schema: schemaRec(0, 0, 0) }),
    { id: 'e', suite: 'bfcl', skipped: 'too long' },
    rec('j1', 'judged', { judge: { tool_selection: { label: 'correct', score: 1 }, tool_invocation: { label: 'incorrect', score: 0 } } }),
    rec('j2', 'judged', { judge: { tool_selection: { label: 'correct', score: 1 }, tool_invocation: { error: 'judge failed: 500' } } }),
    rec('j3', 'judged', { judge: { tool_selection: { label: 'incorrect', score: 0 }, tool_invocation: { label: 'correct', score: 1 } } }),
    rec('n', 'plain', {}),
  ]
}

describe('run-level scorer metrics', () => {
  it('sums counts: BFCL overall and per category, schema shares and mean overall, judge rates without unlabelled', () => {
    const s = aggregateScorers(runRecords())
    expect(s.metrics).toEqual({
      bfcl_accuracy: 2 / 4,
      schema_tool_selection: 2 / 4,
      schema_parameter_accuracy: 2 / 4,
      schema_execution_success: 1 / 4,
      schema_overall: (1 + 0.4 + 0.35) / 4,
      judge_tool_selection: 2 / 3,
      judge_tool_invocation: 1 / 2,
    })
    expect(s.bfcl).toEqual({
      total: 4,
      correct: 2,
      categories: { live_parallel: { total: 2, correct: 1, accuracy: 0.5 }, simple_python: { total: 2, correct: 1, accuracy: 0.5 } },
      errorTypes: { sample_errored: 1, 'value_error:string': 1 },
    })
    expect(s.judge).toEqual({ tool_selection: { judged: 3, correct: 2, errors: 0 }, tool_invocation: { judged: 3, correct: 1, errors: 1 } })
    expect(aggregateScorers([rec('n', 'plain', {})])).toEqual({ metrics: {} })
  })

  it('an errored record never counts as right, whatever it claims', () => {
    const s = aggregateScorers([rec('x', 's', { error: 'e', bfcl: { valid: true }, schema: schemaRec(1, 1, 1), judge: { tool_selection: { label: 'correct' } } })])
    expect(s.metrics).toMatchObject({ bfcl_accuracy: 0, schema_overall: 0, judge_tool_selection: 0 })
  })

  it('shards merge to the numbers of one run, in any order', () => {
    const records = runRecords()
    const whole = aggregateScorers(records)
    for (const cut of [0, 3, 5, records.length]) {
      const a = new ScoreSums(reportScorer)
      const b = new ScoreSums(reportScorer)
      records.slice(0, cut).forEach((r) => a.add(r))
      records.slice(cut).reverse().forEach((r) => b.add(r))
      expect(finishScorers(b.merge(a))).toEqual(whole)
    }
    // Sums of fractional overalls are exact, so order cannot change the last bit.
    const many = Array.from({ length: 1000 }, (_, i) => rec(`s${i}`, 's', { schema: schemaRec(1, i % 3 ? 1 : 0, i % 3 ? 1 : 0.4 + i * 1e-7) }))
    expect(aggregateScorers([...many].reverse()).metrics.schema_overall).toBe(aggregateScorers(many).metrics.schema_overall)
  })
})

const meta = (record: SampleRecord): EvalMeta => ({ v: 1, record })

describe('reporter', () => {
  const collector = new RunCollector(5)
  for (const r of runRecords()) collector.add(meta(r))
  const overall = collector.overallAggregate()
  const suites = collector.suiteAggregates()

  it('aggregates the scorer metrics beside NeMo, overall and per suite, only where measured', () => {
    expect(overall.metrics).toMatchObject({ has_call: 7 / 8, bfcl_accuracy: 0.5, judge_tool_invocation: 0.5 })
    expect(overall.metrics.args_exact_match).toBe(aggregate(runRecords()).metrics.args_exact_match)
    expect(suites.get('bfcl')?.metrics.bfcl_accuracy).toBe(0.5)
    expect(suites.get('bfcl')?.metrics).not.toHaveProperty('judge_tool_selection')
    expect(suites.get('judged')?.judge?.tool_selection).toEqual({ judged: 3, correct: 2, errors: 0 })
    expect(suites.get('plain')?.metrics).not.toHaveProperty('bfcl_accuracy')
    expect(suites.get('plain')).toEqual(aggregate([rec('n', 'plain', {})]))
  })

  it('each rate carries its denominator (metricCounts): samples with a verdict, schema samples, labelled judgements', () => {
    // 8 records, e skipped: 8 expect a call (d errored stays in), none expects none.
    const nemo = { has_call: 8, name_correct: 8, args_json_valid: 8, args_field_precision: 8, args_field_recall: 8, args_exact_match: 8, no_call_accuracy: 0 }
    const scorers = { bfcl_accuracy: 4, schema_tool_selection: 4, schema_parameter_accuracy: 4, schema_execution_success: 4, schema_overall: 4 }
    // j2's tool_invocation judgement has no label: out of its rate, so out of its n.
    expect(overall.metricCounts).toEqual({ ...nemo, ...scorers, judge_tool_selection: 3, judge_tool_invocation: 2 })
    expect(Object.keys(overall.metricCounts)).toEqual(Object.keys(overall.metrics))
    expect(suites.get('judged')?.metricCounts).toMatchObject({ name_correct: 3, judge_tool_invocation: 2 })
    expect(suites.get('plain')?.metricCounts).toEqual({ ...nemo, has_call: 1, name_correct: 1, args_json_valid: 1, args_field_precision: 1, args_field_recall: 1, args_exact_match: 1 })
    const report = buildReport(collector, overall, suites, [], true)
    expect(report.metricCounts).toEqual(overall.metricCounts)
    expect(report.suites['bfcl']?.metricCounts['bfcl_accuracy']).toBe(4)
  })

  it('thresholds accept the scorer metrics overall and per suite, and reject misspelt ones', () => {
    const thresholds = validateThresholds({
      bfcl_accuracy: 0.5,
      schema_overall: 0.5,
      judge_tool_selection: 0.9,
      suites: { bfcl: { bfcl_accuracy: 0.6 }, plain: { schema_overall: 0.1 } },
    })
    expect(checkThresholds(thresholds, overall, suites)).toEqual([
      { metric: 'bfcl_accuracy', min: 0.5, actual: 0.5, pass: true },
      { metric: 'schema_overall', min: 0.5, actual: 0.4375, pass: false },
      { metric: 'judge_tool_selection', min: 0.9, actual: 2 / 3, pass: false },
      { metric: 'bfcl_accuracy', min: 0.6, actual: 0.5, pass: false, suite: 'bfcl' },
      // Nothing measured there: a gate on nothing fails.
      { metric: 'schema_overall', min: 0.1, actual: null, pass: false, suite: 'plain' },
    ])
    expect(() => validateThresholds({ schema_overal: 0.8 })).toThrow(/unknown metric in `thresholds.schema_overal`.*bfcl_accuracy/)
  })

  it('the JSON report, terminal table and Markdown carry them', () => {
    const thresholds = validateThresholds({ bfcl_accuracy: 0.6 })
    const report = applyGate(buildReport(collector, overall, suites, checkThresholds(thresholds, overall, suites), true))
    expect(report.bfcl).toMatchObject({ total: 4, correct: 2 })
    expect(report.schema).toEqual({ samples: 4, tool_selection: 2, parameter_accuracy: 2, execution_success: 1 })
    expect(report.suites['bfcl']?.bfcl?.categories['live_parallel']).toEqual({ total: 2, correct: 1, accuracy: 0.5 })
    expect(report.suites['plain']).not.toHaveProperty('bfcl')
    expect(report.pass).toBe(false)
    const text = renderSummary(report, { thresholds, colorLevel: 0 })
    expect(text).toMatch(/bfcl_accuracy\s+0\.500/)
    expect(text).toMatch(/schema_overall\s+0\.438/)
    expect(text).toMatch(/judge_tool_invocation\s+0\.500/)
    expect(text).toContain('bfcl: 2/4 pass the BFCL checker (live_parallel 1/2, simple_python 1/2)')
    expect(text).toContain('judge: 1 judgement(s) without a label')
    expect(text).toContain('bfcl_accuracy: 0.500 < required 0.600')
    const md = renderMarkdown(report)
    expect(md).toContain('| schema\\_execution\\_success | 0.250 |')
    expect(md).toContain('BFCL checker: 2/4 pass (live\\_parallel 1/2, simple\\_python 1/2)')
  })

  it('a run without scorers reports exactly as before', () => {
    const c = new RunCollector(5)
    c.add(meta(rec('n', 'plain', {})))
    const report = applyGate(buildReport(c, c.overallAggregate(), c.suiteAggregates(), [], true))
    expect(Object.keys(report.metrics)).toHaveLength(7)
    expect(report).not.toHaveProperty('bfcl')
    expect(renderSummary(report, { thresholds: {}, colorLevel: 0 })).not.toContain('bfcl')
  })
})
