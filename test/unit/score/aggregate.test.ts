import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import type { ToolCall } from '../../../src/calls/types.js'
import {
  REPORT_METRICS,
  addRecord,
  aggregate,
  createAccumulator,
  finishAggregate,
  mergeAccumulators,
  metricValue,
  scoreSample,
  type ExpectedCall,
  type SampleRecord,
} from '../../../src/score/index.js'

const call = (name: string, args: Record<string, unknown> = {}): ToolCall => ({
  name,
  arguments: args,
  argumentsValid: true,
  format: 'test',
})

function scored(id: string, calls: ToolCall[], expected: ExpectedCall[]): SampleRecord {
  return { id, score: scoreSample(calls, expected) }
}
/** What the reporter records for a sample whose generation failed: the score of no prediction, and the reason. */
function errored(id: string, expected: ExpectedCall[], error: string): SampleRecord {
  return { id, error, score: scoreSample([], expected) }
}

const W = { name: 'get_weather', arguments: { city: 'Paris' } }
const T = { name: 'get_time', arguments: { tz: 'CET' } }

describe('aggregate', () => {
  it('means each metric over the samples that expect a call; no_call_accuracy over those that expect none', () => {
    const records = [
      scored('a', [call('get_weather', { city: 'Paris' })], [W]), // all 1
      scored('b', [call('get_weather', { city: 'Rome' })], [W]), // exact 0
      scored('c', [call('get_weather', { city: 'Paris' })], [W, T]), // half
      scored('d', [], []), // right abstention
      scored('e', [call('get_time')], []), // wrong: a call where none was expected
    ]
    const agg = aggregate(records)
    expect(agg.samples).toBe(5)
    expect(agg.scored).toBe(5)
    expect(agg.withExpectedCalls).toBe(3)
    expect(agg.noCallExpected).toBe(2)
    expect(agg.metrics.has_call).toBe((1 + 1 + 0.5) / 3)
    expect(agg.metrics.name_correct).toBe((1 + 1 + 0.5) / 3)
    expect(agg.metrics.args_exact_match).toBe((1 + 0 + 0.5) / 3)
    expect(agg.metrics.no_call_accuracy).toBe(0.5)
    expect(agg.failures).toEqual({
      no_call: 0,
      missing_call: 1, // c made 1 of its 2 calls
      malformed_call: 0,
      wrong_name: 0,
      wrong_arguments: 1,
      extra_call: 0,
      unexpected_call: 1,
    })
    expect(agg.tools).toEqual({
      get_time: { positions: 1, nameCorrect: 0, argsExactMatch: 0, name_correct: 0, args_exact_match: 0 },
      get_weather: { positions: 3, nameCorrect: 3, argsExactMatch: 2, name_correct: 1, args_exact_match: 2 / 3 },
    })
  })

  it('an errored sample stays in the denominator as a sample with no prediction and is counted by reason', () => {
    const ok = scored('a', [call('get_weather', { city: 'Paris' })], [W])
    const agg = aggregate([
      ok,
      errored('b', [W], 'provider failed: HTTP 500'),
      errored('c', [], 'missing recorded output'),
      errored('d', [W], 'provider failed: HTTP 500'),
    ])
    expect(agg.samples).toBe(4)
    expect(agg.scored).toBe(1)
    expect(agg.errored).toEqual({
      count: 3,
      byReason: { 'missing recorded output': 1, 'provider failed: HTTP 500': 2 },
    })
    expect(agg.withExpectedCalls).toBe(3)
    expect(agg.metrics.name_correct).toBe(1 / 3)
    // An errored sample that expected no call is not a right abstention.
    expect(agg.noCallExpected).toBe(1)
    expect(agg.metrics.no_call_accuracy).toBe(0)
    expect(agg.tools['get_weather']).toMatchObject({ positions: 3, nameCorrect: 1 })
  })

  it('an errored record can never raise a rate, whatever score it carries', () => {
    const perfect = scoreSample([call('get_weather', { city: 'Paris' })], [W])
    const abstained = scoreSample([], [])
    const agg = aggregate([
      { id: 'a', error: 'boom', score: perfect },
      { id: 'b', error: 'boom', score: abstained },
    ])
    for (const m of REPORT_METRICS) expect(agg.metrics[m]).toBe(0)
    expect(agg.tools['get_weather']).toMatchObject({ positions: 1, nameCorrect: 0, argsExactMatch: 0 })
  })

  it('an errored record without a score (what it expected is unknown) is counted but in no mean', () => {
    const agg = aggregate([{ id: 'bad', error: 'line 3: invalid JSON' }, scored('a', [], [])])
    expect(agg).toMatchObject({ samples: 2, scored: 1, withExpectedCalls: 0, noCallExpected: 1 })
    expect(agg.errored.count).toBe(1)
    const none = aggregate([{ id: 'x' }])
    expect(none.errored.byReason).toEqual({ 'no score': 1 })
  })

  it('skipped samples leave every mean and are counted by reason; an error beats a skip', () => {
    const agg = aggregate([
      scored('a', [call('get_weather', { city: 'Paris' })], [W]),
      { id: 'b', skipped: 'prompt over maxPromptTokens' },
      { id: 'c', skipped: 'prompt over maxPromptTokens', score: scoreSample([], [W]) },
      { id: 'd', skipped: 'prompt over maxPromptTokens', error: 'boom', score: scoreSample([], [W]) },
    ])
    expect(agg.samples).toBe(4)
    expect(agg.skipped).toEqual({ count: 2, byReason: { 'prompt over maxPromptTokens': 2 } })
    expect(agg.errored.count).toBe(1)
    expect(agg.withExpectedCalls).toBe(2)
    expect(agg.metrics.name_correct).toBe(0.5)
    // Each rate's n: the errored sample stays in, the skipped ones do not.
    expect(agg.metricCounts).toEqual({ has_call: 2, name_correct: 2, args_json_valid: 2, args_field_precision: 2, args_field_recall: 2, args_exact_match: 2, no_call_accuracy: 0 })
    expect(aggregate([scored('a', [], []), scored('b', [call('get_time')], []), scored('c', [], [W])]).metricCounts).toMatchObject({ name_correct: 1, no_call_accuracy: 2 })
  })

  it('a rate with an empty denominator is null, never NaN', () => {
    const empty = aggregate([])
    for (const m of REPORT_METRICS) expect(empty.metrics[m]).toBeNull()
    expect(empty.samples).toBe(0)
    const onlyCalls = aggregate([scored('a', [call('get_weather', { city: 'Paris' })], [W])])
    expect(onlyCalls.metrics.no_call_accuracy).toBeNull()
    expect(onlyCalls.metrics.has_call).toBe(1)
    expect(JSON.parse(JSON.stringify(empty))).toEqual(empty)
  })

  it('metricValue looks a metric up by name', () => {
    const agg = aggregate([scored('a', [call('get_weather', { city: 'Rome' })], [W]), scored('b', [], [])])
    expect(metricValue(agg, 'name_correct')).toBe(1)
    expect(metricValue(agg, 'args_exact_match')).toBe(0)
    expect(metricValue(agg, 'no_call_accuracy')).toBe(1)
    expect(metricValue(agg, 'nonsense')).toBeUndefined()
    expect(metricValue(aggregate([]), 'has_call')).toBeNull()
    expect([...REPORT_METRICS]).toEqual([
      'has_call',
      'name_correct',
      'args_json_valid',
      'args_field_precision',
      'args_field_recall',
      'args_exact_match',
      'no_call_accuracy',
    ])
  })

  it('keeps full precision (no rounding)', () => {
    const agg = aggregate([
      scored('a', [call('f', { x: 1 })], [{ name: 'f', arguments: { x: 1, y: 1, z: 1 } }]),
      scored('b', [call('f', { x: 1 })], [{ name: 'f', arguments: { x: 1 } }]),
      scored('c', [call('f', { x: 1 })], [{ name: 'f', arguments: { x: 1 } }]),
    ])
    expect(Math.abs(agg.metrics.args_field_recall! - 7 / 9)).toBeLessThan(1e-15)
  })
})

/** Random records: scored samples with fractional values, errors, skips, abstentions. */
const recordArb: fc.Arbitrary<SampleRecord> = fc
  .record({
    kind: fc.constantFrom('scored', 'scored', 'scored', 'errored', 'skipped'),
    keys: fc.integer({ min: 0, max: 7 }),
    hit: fc.integer({ min: 0, max: 7 }),
    positions: fc.integer({ min: 0, max: 3 }),
    predicted: fc.integer({ min: 0, max: 3 }),
    reason: fc.constantFrom('r1', 'r2'),
  })
  .map(({ kind, keys, hit, positions, predicted, reason }) => {
    const expectedArgs = Object.fromEntries(Array.from({ length: keys }, (_, k) => [`k${k}`, k]))
    const predArgs = Object.fromEntries(Array.from({ length: Math.min(hit, keys) + 1 }, (_, k) => [`k${k}`, k]))
    const expected = Array.from({ length: positions }, (_, p) => ({ name: `t${p}`, arguments: expectedArgs }))
    const calls = Array.from({ length: predicted }, (_, p) => call(`t${p}`, predArgs))
    const id = `s${keys}-${positions}`
    if (kind === 'skipped') return { id, skipped: reason }
    if (kind === 'errored') return errored(id, expected, reason)
    return scored(id, calls, expected)
  })

describe('sharded runs', () => {
  it('aggregate(a ∪ b) equals one run, bit for bit, whatever the order; accumulators merge the same way', () => {
    fc.assert(
      fc.property(fc.array(recordArb, { maxLength: 40 }), fc.nat(), (records, cut) => {
        const whole = aggregate(records)
        const k = records.length === 0 ? 0 : cut % (records.length + 1)
        const a = records.slice(0, k)
        const b = records.slice(k)
        // Shards concatenated in the other order.
        expect(aggregate([...b, ...a])).toEqual(whole)
        expect(aggregate([...records].reverse())).toEqual(whole)
        const accA = createAccumulator()
        for (const r of a) addRecord(accA, r)
        const accB = createAccumulator()
        for (const r of b) addRecord(accB, r)
        expect(finishAggregate(mergeAccumulators(accB, accA))).toEqual(whole)
      }),
      { numRuns: 200, seed: 11 },
    )
  })

  it('sums exactly: order cannot move a mean by a rounding step', () => {
    const values = [1 / 3, 0.1, 0.7, 1 / 7, 0.2, 2 / 3, 0.3]
    const records: SampleRecord[] = values.map((v, i) => ({
      id: String(i),
      score: {
        expected: 1,
        predicted: 1,
        metrics: { has_call: v, name_correct: v, args_json_valid: v, args_field_precision: v, args_field_recall: v, args_exact_match: v },
        positions: [],
        failures: [],
      },
    }))
    const forward = aggregate(records).metrics.has_call
    const backward = aggregate([...records].reverse()).metrics.has_call
    expect(forward).toBe(backward)
    // The naive sum depends on the order here, so the check above is not vacuous.
    const naive = (xs: number[]): number => xs.reduce((s, x) => s + x, 0)
    expect(naive(values)).not.toBe(naive([...values].reverse()))
  })
})
