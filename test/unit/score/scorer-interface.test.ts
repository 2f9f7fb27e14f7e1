// The scorer interface: user scorers (defineScorer) from the sample to the report, the reporter summing scorers it
// has never loaded, one parse per sample with a preparing scorer, the typed BFCL slot, and task meta size.
import { describe, expect, it } from 'vitest'
// The bfcl scorer is BFCL's, registered by the entries; these tests use the core's modules, so they load it as an entry does.
import '../../../src/bfcl/register.js'
import type { ToolCall } from '../../../src/calls/types.js'
import { loadArray } from '../../../src/data/load.js'
import type { Sample } from '../../../src/data/types.js'
import { evaluate, evaluateWith } from '../../../src/eval/describe-eval.js'
import { META_LIMITS, type EvalMeta } from '../../../src/eval/meta.js'
import { withPreparation } from '../../../src/eval/scorers.js'
import type { ModelProvider } from '../../../src/models/types.js'
import { RunCollector } from '../../../src/reporter/collect.js'
import { buildReport } from '../../../src/reporter/report.js'
import { applyGate } from '../../../src/reporter/gate.js'
import { renderSummary } from '../../../src/reporter/terminal.js'
import { checkThresholds, describeThreshold, validateThresholds } from '../../../src/reporter/thresholds.js'
import { defineScorer } from '../../../src/score/define-scorer.js'
import { aggregateRun, createRunAccumulator, addToRun, finishRun, mergeRuns } from '../../../src/score/run.js'
import type { Scorer } from '../../../src/score/scorer.js'
import type { SampleRecord } from '../../../src/score/types.js'

const weatherTool = {
  type: 'function' as const,
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string' } }, required: ['city'] } },
}
const sample = (id: string, city: string): Sample => ({
  id,
  messages: [{ role: 'system', content: 'You are a helpful assistant with weather tools.' }, { role: 'user', content: `What's the weather in ${city} right now?` }],
  tools: [weatherTool],
  expected: [{ name: 'get_weather', arguments: { city } }],
})
const hermes = (name: string, args: unknown) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`

// A user scorer: is the unit celsius (or left out), and did the call name a city at all.
const units = defineScorer({
  name: 'units',
  metrics: ['celsius', 'has_city'],
  score: ({ calls }) => {
    const call = calls[0]
    if (!call) return { celsius: null, has_city: false }
    return { celsius: call.arguments['unit'] === undefined || call.arguments['unit'] === 'celsius', has_city: typeof call.arguments['city'] === 'string' }
  },
})

describe('defineScorer', () => {
  it('rejects names the report could not tell apart, and bad metric lists', () => {
    expect(() => defineScorer({ name: 'Units', metrics: ['a'], score: () => ({}) })).toThrow(/name "Units" must be lowercase/)
    expect(() => defineScorer({ name: 'schema', metrics: ['a'], score: () => ({}) })).toThrow(/"schema" is taken/)
    expect(() => defineScorer({ name: 'u', metrics: [], score: () => ({}) })).toThrow(/non-empty list/)
    expect(() => defineScorer({ name: 'u', metrics: ['a.b'], score: () => ({}) })).toThrow(/non-empty list/)
    expect(units.metrics).toEqual(['units.celsius', 'units.has_city'])
  })

  it('records its values under its name, hands `assert` what it returned, and scores an errored sample 0', async () => {
    const ok = await evaluate(sample('a', 'Paris'), { text: hermes('get_weather', { city: 'Paris', unit: 'fahrenheit' }) }, undefined, 's', { scorers: [units] })
    expect(ok.stored.record.scores).toEqual({ units: { celsius: 0, has_city: 1 } })
    expect(ok.result['units']).toEqual({ celsius: false, has_city: true })
    // No call: `celsius` null leaves the sample out of that mean.
    const none = await evaluate(sample('b', 'Paris'), { text: 'It is sunny.' }, undefined, 's', { scorers: [units] })
    expect(none.stored.record.scores).toEqual({ units: { has_city: 0 } })
    const errored = await evaluate(sample('c', 'Paris'), undefined, new Error('down'), 's', { scorers: [units] })
    expect(errored.stored.record.scores).toEqual({ units: { celsius: 0, has_city: 0 } })
  })

  it('a scorer that throws or gives a value outside [0, 1] errors that sample only, naming scorer and metric', async () => {
    const broken = defineScorer({ name: 'broken', metrics: ['x'], score: () => ({ x: 2 }) })
    const { stored } = await evaluate(sample('a', 'Paris'), { text: hermes('get_weather', { city: 'Paris' }) }, undefined, 's', { scorers: [broken], schema: true })
    expect(stored.record.error).toBe('a scorer failed: scorer "broken": metric "x" must be a number in [0, 1], a boolean or null (got 2)')
    // Scored as errored by every scorer that is on.
    expect(stored.record.scores).toEqual({ schema: { tool_selection: 0, parameter_accuracy: 0, execution_success: 0, overall: 0 }, broken: { x: 0 } })
    const throwing = defineScorer({ name: 'throwing', metrics: ['x'], score: () => { throw new Error('boom') } })
    expect((await evaluate(sample('a', 'Paris'), { text: '' }, undefined, 's', { scorers: [throwing] })).stored.record.error).toBe('a scorer failed: boom')
  })

  it('two scorers with one name are refused when the eval is set up', async () => {
    await expect(evaluate(sample('a', 'Paris'), { text: '' }, undefined, 's', { scorers: [units, units] })).rejects.toThrow(/two scorers are named "units"/)
  })
})

async function records(): Promise<SampleRecord[]> {
  const outputs: [Sample, string | undefined][] = [
    [sample('a', 'Paris'), hermes('get_weather', { city: 'Paris' })],
    [sample('b', 'Rome'), hermes('get_weather', { city: 'Rome', unit: 'fahrenheit' })],
    [sample('c', 'Oslo'), hermes('get_weather', { city: 'Oslo', unit: 'celsius' })],
    [sample('d', 'Lima'), 'No idea.'],
    [sample('e', 'Kyiv'), undefined], // errored
  ]
  const out: SampleRecord[] = []
  for (const [s, text] of outputs) {
    const suite = s.id < 'c' ? 'first' : 'second'
    out.push((await evaluate(s, text === undefined ? undefined : { text }, new Error('down'), suite, { scorers: [units] })).stored.record)
  }
  return out
}

describe('the reporter sums user scorers it never loaded, from the records alone', () => {
  it('means per metric over the samples that gave a value (errored ones count 0), overall and per suite', async () => {
    const agg = aggregateRun(await records())
    // celsius: a 1, b 0, c 1, d left out, e errored 0 → 2/4; has_city: a b c 1, d 0, e 0 → 3/5.
    expect(agg.metrics['units.celsius']).toBe(2 / 4)
    expect(agg.metrics['units.has_city']).toBe(3 / 5)
    const collector = new RunCollector(5)
    for (const record of await records()) collector.add({ v: 1, record } satisfies EvalMeta)
    expect(collector.suiteAggregates().get('first')?.metrics['units.celsius']).toBe(1 / 2)
    const report = applyGate(buildReport(collector, collector.overallAggregate(), collector.suiteAggregates(), [], true))
    expect(report.metrics['units.has_city']).toBe(3 / 5)
    expect(report).not.toHaveProperty('units') // no counts of its own: just its metrics
    // n per metric: the samples that gave it a value (d left celsius out), not the samples expecting calls.
    expect(agg.metricCounts['units.celsius']).toBe(4)
    expect(agg.metricCounts['units.has_city']).toBe(5)
    expect(report.metricCounts).toMatchObject({ 'units.celsius': 4, 'units.has_city': 5 })
    expect(report.suites['first']?.metricCounts['units.celsius']).toBe(2)
    expect(renderSummary(report, { thresholds: {}, colorLevel: 0 })).toMatch(/units\.celsius\s+0\.500/)
  })

  it('shards merge to the numbers of one run, in any order, bit for bit', async () => {
    const fractional = defineScorer({ name: 'frac', metrics: ['m'], score: ({ sample }) => ({ m: (Number(sample.id.slice(1)) % 7) / 7 + 1e-9 }) })
    const all: SampleRecord[] = []
    for (let i = 0; i < 200; i++) {
      const s = sample(`s${i}`, 'Paris')
      all.push((await evaluate(s, { text: hermes('get_weather', { city: 'Paris' }) }, undefined, 'x', { scorers: [fractional, units] })).stored.record)
    }
    const whole = aggregateRun(all)
    for (const cut of [0, 37, 200]) {
      const a = createRunAccumulator()
      const b = createRunAccumulator()
      all.slice(0, cut).forEach((r) => addToRun(a, r))
      all.slice(cut).reverse().forEach((r) => addToRun(b, r))
      expect(finishRun(mergeRuns(b, a))).toEqual(whole)
    }
  })

  it('thresholds take `<scorer>.<metric>` up front, still reject misspelt built-in names, and fail clearly on a metric no sample produced', async () => {
    const collector = new RunCollector(5)
    for (const record of await records()) collector.add({ v: 1, record })
    const thresholds = validateThresholds({ 'units.celsius': 0.4, 'units.celsus': 0.4, suites: { second: { 'units.has_city': 0.9 } } })
    const results = checkThresholds(thresholds, collector.overallAggregate(), collector.suiteAggregates())
    expect(results).toEqual([
      { metric: 'units.celsius', min: 0.4, actual: 0.5, pass: true },
      { metric: 'units.celsus', min: 0.4, actual: null, pass: false },
      { metric: 'units.has_city', min: 0.9, actual: 1 / 3, pass: false, suite: 'second' },
    ])
    expect(describeThreshold(results[1]!)).toContain('units.celsus: no sample produced this metric')
    expect(() => validateThresholds({ name_corect: 0.9 })).toThrow(/unknown metric in `thresholds.name_corect`.*or a user scorer's `<scorer>.<metric>`/)
    expect(() => validateThresholds({ 'Units.x': 0.9 })).toThrow(/unknown metric/)
  })
})

describe('one parse per sample', () => {
  it('a preparing scorer (the judge\'s way) and the scoring see the very same parsed calls', async () => {
    const seen: (readonly ToolCall[])[] = []
    const spy: Scorer<number, number> = {
      name: 'spy',
      metrics: [],
      prepare: async ({ calls }) => {
        seen.push(calls)
        return 'prepared'
      },
      score: ({ calls, prepared }) => {
        seen.push(calls)
        return { value: prepared === 'prepared' ? 1 : 0 }
      },
      errored: () => 0,
      accumulator: { create: () => 0, add: () => {}, merge: (a) => a, finish: () => ({ metrics: {}, counts: {} }) },
    }
    const model: ModelProvider = { id: 'm', generate: async () => ({ text: hermes('get_weather', { city: 'Paris' }) }) }
    const s = sample('a', 'Paris')
    const output = await withPreparation(model, [spy], undefined).generate(s)
    const { stored } = await evaluateWith(s, output, undefined, 'x', [spy], {})
    expect(stored.record.scores).toEqual({ spy: 1 })
    expect(seen).toHaveLength(2)
    expect(seen[0]).toBe(seen[1])
  })
})

describe('sample.bfcl', () => {
  it('a data line\'s `bfcl` lands in the typed slot; one that is not a BFCL answer is an invalid sample naming the field', () => {
    const answer = { ground_truth: [], functions: [] }
    const [ok, bad] = loadArray([
      { id: 'a', messages: [{ role: 'user', content: 'hi' }], expected: [], bfcl: answer },
      { id: 'b', messages: [{ role: 'user', content: 'hi' }], expected: [], bfcl: { ground_truth: [] } },
    ])
    expect(ok?.sample?.bfcl).toEqual(answer)
    // The former name is read as the generic slot too.
    expect(ok?.sample?.answers).toEqual({ bfcl: answer })
    expect(ok?.sample?.extra).toBeUndefined()
    expect(bad?.error).toMatchObject({ field: 'bfcl', message: expect.stringContaining('`functions` list') })
  })
})

describe('sample.answers', () => {
  const line = (id: string, more: Record<string, unknown>) => ({ id, messages: [{ role: 'user', content: 'hi' }], expected: [], ...more })
  const bfclAnswer = { category: 'simple_python', ground_truth: [{ get_weather: { city: ['Paris'], unit: ['', 'celsius'] } }], functions: [weatherTool] }

  it('holds answers by scorer name; `answers.bfcl` is also readable as `bfcl`, and nothing lands in `extra`', () => {
    const [r] = loadArray([line('a', { answers: { bfcl: bfclAnswer, units: { unit: 'celsius' } } })])
    expect(r?.sample?.answers).toEqual({ bfcl: bfclAnswer, units: { unit: 'celsius' } })
    expect(r?.sample?.bfcl).toEqual(bfclAnswer)
    expect(r?.sample?.extra).toBeUndefined()
  })

  it('refuses what it cannot read, naming the field: not an object, a BFCL answer without functions, both names at once', () => {
    const [notObject, badBfcl, twice, protoKey] = loadArray([
      line('a', { answers: [1] }),
      line('b', { answers: { bfcl: { ground_truth: [] } } }),
      line('c', { answers: { bfcl: bfclAnswer }, bfcl: bfclAnswer }),
      line('d', { answers: JSON.parse('{"__proto__": {"polluted": true}}') }),
    ])
    expect(notObject?.error).toMatchObject({ field: 'answers', message: expect.stringContaining('by scorer name') })
    expect(badBfcl?.error).toMatchObject({ field: 'answers.bfcl', message: expect.stringContaining('`functions` list') })
    expect(twice?.error).toMatchObject({ field: 'bfcl', message: expect.stringContaining('given twice') })
    // A key named __proto__ is an answer like any other, never the object's prototype.
    expect(Object.keys(protoKey?.sample?.answers ?? {})).toEqual(['__proto__'])
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined()
  })

  it('the bfcl scorer checks `answers.bfcl` alone, and gives the same verdicts as with the former field', async () => {
    const right = hermes('get_weather', { city: 'Paris' })
    const wrong = hermes('get_weather', { city: 'Rome' })
    const withAnswers = { ...sample('a', 'Paris'), answers: { bfcl: bfclAnswer } }
    const withFormer = { ...sample('a', 'Paris'), bfcl: bfclAnswer }
    for (const s of [withAnswers, withFormer]) {
      const ok = await evaluate(s, { text: right }, undefined, 's', { bfcl: true })
      expect(ok.stored.record.scores?.bfcl).toEqual({ valid: true, category: 'simple_python' })
      const bad = await evaluate(s, { text: wrong }, undefined, 's', { bfcl: true })
      expect(bad.stored.record.scores?.bfcl).toMatchObject({ valid: false, error_type: 'value_error:string' })
    }
    const unreadable = await evaluate({ ...sample('b', 'Paris'), answers: { bfcl: { ground_truth: [] } } }, { text: right }, undefined, 's', { bfcl: true })
    expect(unreadable.stored.record.scores?.bfcl).toMatchObject({ valid: false, error_type: 'bfcl_answer_unreadable' })
  })

  it('a scorer of your own reads its answer under its name', async () => {
    const unitScorer = defineScorer({
      name: 'unit',
      metrics: ['matches'],
      score: ({ sample, calls }) => {
        const want = (sample.answers?.['unit'] as { unit?: string } | undefined)?.unit
        return { matches: want === undefined ? null : calls[0]?.arguments['unit'] === want }
      },
    })
    const [r] = loadArray([{ ...sample('a', 'Paris'), answers: { unit: { unit: 'celsius' } } }])
    const s = r!.sample!
    const yes = await evaluate(s, { text: hermes('get_weather', { city: 'Paris', unit: 'celsius' }) }, undefined, 's', { scorers: [unitScorer] })
    const no = await evaluate(s, { text: hermes('get_weather', { city: 'Paris', unit: 'kelvin' }) }, undefined, 's', { scorers: [unitScorer] })
    const none = await evaluate(sample('b', 'Paris'), { text: hermes('get_weather', { city: 'Paris' }) }, undefined, 's', { scorers: [unitScorer] })
    expect(yes.stored.record.scores).toEqual({ unit: { matches: 1 } })
    expect(no.stored.record.scores).toEqual({ unit: { matches: 0 } })
    expect(none.stored.record.scores).toEqual({ unit: {} })
  })
})

describe('task meta size', () => {
  // A realistic right answer: some reasoning before the call, as thinking models write.
  const reasoning = `<think>${'The user asks for the current weather in Paris, so get_weather fits. '.repeat(20)}</think>\n`
  const size = (meta: EvalMeta) => JSON.stringify(meta).length

  it('a fully right sample keeps under 1 KB (its record only), with the built-in scorers on', async () => {
    const s = { ...sample('w01', 'Paris'), bfcl: { category: 'simple_python', ground_truth: [{ get_weather: { city: ['Paris'] } }], functions: [weatherTool] } }
    const { stored } = await evaluate(s, { text: reasoning + hermes('get_weather', { city: 'Paris' }) }, undefined, 'weather', { schema: true, bfcl: true })
    expect(stored.record.score?.failures).toEqual([])
    expect(size(stored)).toBeLessThan(1024)
    expect(stored).not.toHaveProperty('output')
    // What was right stays showable: one line of its calls, in place of the expected and parsed lists.
    expect(stored.rightCalls).toBe('get_weather({"city":"Paris"})')
    expect(stored).not.toHaveProperty('expected')
    expect(stored).not.toHaveProperty('calls')
  })

  it('a fully right sample with many or long calls keeps its line capped (and the cut marked), still under 1 KB', async () => {
    const many = { ...sample('w03', 'Paris'), expected: Array.from({ length: 12 }, (_, i) => ({ name: 'get_weather', arguments: { city: `City number ${i} ${'x'.repeat(40)}` } })) }
    const text = many.expected.map((e) => hermes(e.name, e.arguments)).join('\n')
    const { stored } = await evaluate({ ...many, expected: many.expected.slice(0, 2) }, { text: many.expected.slice(0, 2).map((e) => hermes(e.name, e.arguments)).join('\n') }, undefined, 'weather', {})
    expect(stored.rightCalls).toBe(`get_weather({"city":"City number 0 ${'x'.repeat(40)}"}); get_weather({"city":"City number 1 ${'x'.repeat(40)}"})`)
    const long = await evaluate(many, { text }, undefined, 'weather', {})
    expect(long.stored.record.score?.failures).toEqual([])
    expect(long.stored.rightCalls).toMatch(/^get_weather\(\{"city":"City number 0 x+"\}\); .*… \[\d+ more chars\]$/)
    expect(long.stored.rightCalls!.length).toBeLessThanOrEqual(META_LIMITS.rightCallsChars + 30)
    expect(JSON.stringify({ ...long.stored, record: {} }).length).toBeLessThan(1024)
  })

  it('a right abstention keeps no call line (it made none)', async () => {
    const { stored } = await evaluate({ ...sample('w04', 'Paris'), expected: [] }, { text: 'No tool needed.' }, undefined, 'weather', {})
    expect(stored.record.score?.failures).toEqual([])
    expect(stored).not.toHaveProperty('rightCalls')
  })

  it('a wrong one keeps what the worst-samples list shows: expected, calls, output', async () => {
    const { stored } = await evaluate(sample('w02', 'Paris'), { text: reasoning + hermes('get_weather', { city: 'Lyon' }) }, undefined, 'weather', {})
    expect(stored.expected).toEqual([{ name: 'get_weather', arguments: { city: 'Paris' } }])
    expect(stored.calls?.[0]?.arguments).toEqual({ city: 'Lyon' })
    expect(stored.output).toContain('<think>')
  })
})
