import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import type { ToolCall } from '../../../src/calls/types.js'
import {
  alignCalls,
  argumentsEqual,
  expectedArguments,
  maxWeightAssignment,
  scorePair,
  scoreSample,
} from '../../../src/score/index.js'
import type { ExpectedCall } from '../../../src/score/types.js'

const call = (name: string, args: Record<string, unknown> = {}, valid = true): ToolCall => ({
  name,
  arguments: args,
  argumentsValid: valid,
  format: 'test',
})
/** A call whose arguments could not be decoded (NeMo: `{}`, not valid). */
const malformed = (name = ''): ToolCall => call(name, {}, false)

describe('scoreSample: NeMo parity (positional)', () => {
  it('a perfect call scores 1 everywhere', () => {
    const s = scoreSample([call('f', { a: 1, b: 2 })], [{ name: 'f', arguments: { a: 1, b: 2 } }])
    expect(s.metrics).toEqual({
      has_call: 1,
      name_correct: 1,
      args_json_valid: 1,
      args_field_precision: 1,
      args_field_recall: 1,
      args_exact_match: 1,
    })
    expect(s.failures).toEqual([])
    expect(s.noCallCorrect).toBeUndefined()
  })

  it('exact match compares arguments only, not the name', () => {
    const s = scoreSample([call('g', { a: 1 })], [{ name: 'f', arguments: { a: 1 } }])
    expect(s.metrics.name_correct).toBe(0)
    expect(s.metrics.args_exact_match).toBe(1)
    expect(s.failures).toEqual(['wrong_name'])
  })

  it('field precision and recall are shares of keys', () => {
    const s = scoreSample([call('f', { a: 1, x: 9, y: 0 })], [{ name: 'f', arguments: { a: 1, b: 2 } }])
    expect(s.metrics.args_field_recall).toBe(0.5)
    expect(s.metrics.args_field_precision).toBe(1 / 3)
    expect(s.metrics.args_exact_match).toBe(0)
    expect(s.failures).toEqual(['wrong_arguments'])
  })

  it('invalid arguments are an empty key set and never an exact match', () => {
    const s = scoreSample([malformed()], [{ name: 'f', arguments: { a: 1 } }])
    expect(s.metrics).toMatchObject({ has_call: 1, name_correct: 0, args_json_valid: 0 })
    expect(s.metrics.args_field_recall).toBe(0)
    expect(s.metrics.args_field_precision).toBe(0) // no predicted keys, expected keys exist
    expect(s.failures).toEqual(['malformed_call'])
  })

  it('invalid arguments against empty expected arguments: both key sets empty, still no exact match', () => {
    const s = scoreSample([call('f', { stale: 1 }, false)], [{ name: 'f', arguments: {} }])
    expect(s.metrics.args_field_recall).toBe(1)
    expect(s.metrics.args_field_precision).toBe(1)
    expect(s.metrics.args_exact_match).toBe(0)
  })

  it('empty key sets: 1 when both are empty, 0 when only one is', () => {
    expect(scorePair(call('f'), { name: 'f', arguments: {} })).toMatchObject({
      args_field_recall: 1,
      args_field_precision: 1,
      args_exact_match: 1,
    })
    // Predicted keys, none expected: recall 0 (NeMo), precision 0.
    expect(scorePair(call('f', { a: 1 }), { name: 'f', arguments: {} })).toMatchObject({
      args_field_recall: 0,
      args_field_precision: 0,
    })
    // Expected keys, none predicted: recall 0, precision 0.
    expect(scorePair(call('f'), { name: 'f', arguments: { a: 1 } })).toMatchObject({
      args_field_recall: 0,
      args_field_precision: 0,
    })
  })

  it('expected arguments may be a JSON string, absent, or unusable (then {})', () => {
    expect(scoreSample([call('f', { a: 1 })], [{ name: 'f', arguments: '{"a": 1}' }]).metrics.args_exact_match).toBe(1)
    expect(scoreSample([call('f')], [{ name: 'f' }]).metrics.args_exact_match).toBe(1)
    expect(expectedArguments('not json')).toEqual({})
    expect(expectedArguments('[1, 2]')).toEqual({})
    expect(expectedArguments(null)).toEqual({})
    expect(expectedArguments([1])).toEqual({})
    expect(expectedArguments('{"x": {"y": [1]}}')).toEqual({ x: { y: [1] } })
  })

  it('a missing prediction scores 0 at its position; the sample value is the mean over positions', () => {
    const s = scoreSample(
      [call('a', { x: 1 })],
      [
        { name: 'a', arguments: { x: 1 } },
        { name: 'b', arguments: { y: 2 } },
      ],
    )
    for (const v of Object.values(s.metrics)) expect(v).toBe(0.5)
    expect(s.failures).toEqual(['missing_call'])
    expect(s.positions).toEqual([
      { expected: 'a', predicted: 'a', metrics: expect.objectContaining({ args_exact_match: 1 }) },
      { expected: 'b', metrics: expect.objectContaining({ has_call: 0, args_field_precision: 0 }) },
    ])
  })

  it('no_call is no call at all; missing_call is fewer calls than expected (a parallel turn cut short)', () => {
    const two = [{ name: 'a' }, { name: 'b' }]
    expect(scoreSample([], two).failures).toEqual(['no_call'])
    expect(scoreSample([call('a')], two).failures).toEqual(['missing_call'])
    expect(scoreSample([call('b')], two, { match: 'unordered' }).failures).toEqual(['missing_call'])
    expect(scoreSample([call('a'), call('b')], two).failures).toEqual([])
  })

  it('extra predictions are ignored by the metrics but named as a failure', () => {
    const s = scoreSample([call('a', { x: 1 }), call('b', { y: 2 }), call('c')], [{ name: 'a', arguments: { x: 1 } }])
    expect(s.metrics.name_correct).toBe(1)
    expect(s.metrics.args_exact_match).toBe(1)
    expect(s.predicted).toBe(3)
    expect(s.expected).toBe(1)
    expect(s.failures).toEqual(['extra_call'])
  })

  it('positional alignment: a swapped order is scored as two wrong calls', () => {
    const s = scoreSample([call('b', { y: 2 }), call('a', { x: 1 })], [
      { name: 'a', arguments: { x: 1 } },
      { name: 'b', arguments: { y: 2 } },
    ])
    expect(s.metrics.name_correct).toBe(0)
    expect(s.metrics.args_exact_match).toBe(0)
    expect(s.failures).toEqual(['wrong_name'])
  })

  it('first call wrong, second right: halves', () => {
    const s = scoreSample([call('wrong'), call('b', { y: 2 })], [
      { name: 'a', arguments: { x: 1 } },
      { name: 'b', arguments: { y: 2 } },
    ])
    expect(s.metrics.name_correct).toBe(0.5)
    expect(s.metrics.args_exact_match).toBe(0.5)
  })

  it('values are summed in position order and divided once, as NeMo does', () => {
    const expected: ExpectedCall[] = [
      { name: 'f', arguments: { a: 1, b: 1, c: 1 } },
      { name: 'f', arguments: { a: 1, b: 1, c: 1 } },
      { name: 'f', arguments: { a: 1, b: 1, c: 1 } },
    ]
    const s = scoreSample([call('f', { a: 1 }), call('f', { a: 1, b: 1 }), call('f', { a: 1 })], expected)
    expect(s.metrics.args_field_recall).toBe((1 / 3 + 2 / 3 + 1 / 3) / 3)
  })
})

describe('scoreSample: nothing expected', () => {
  it('NeMo gives 0 everywhere; a right abstention is reported separately', () => {
    const s = scoreSample([], [])
    expect(Object.values(s.metrics)).toEqual([0, 0, 0, 0, 0, 0])
    expect(s.noCallCorrect).toBe(true)
    expect(s.failures).toEqual([])
    expect(s.positions).toEqual([])
  })

  it('a call where none was expected', () => {
    const s = scoreSample([call('f')], [])
    expect(Object.values(s.metrics)).toEqual([0, 0, 0, 0, 0, 0])
    expect(s.noCallCorrect).toBe(false)
    expect(s.failures).toEqual(['unexpected_call'])
  })

  it('a malformed unexpected call is named as both', () => {
    expect(scoreSample([malformed()], []).failures).toEqual(['malformed_call', 'unexpected_call'])
  })
})

describe('failures', () => {
  it('are deduplicated and listed in the stable category order', () => {
    const s = scoreSample(
      [call('x'), malformed(), call('c', { z: 0 }), call('x'), call('extra')],
      [
        { name: 'a' },
        { name: 'b', arguments: { y: 1 } },
        { name: 'c', arguments: { z: 1 } },
        { name: 'd' },
        { name: 'e' },
        { name: 'f' },
      ],
    )
    expect(s.failures).toEqual(['missing_call', 'malformed_call', 'wrong_name', 'wrong_arguments'])
    const t = scoreSample([call('a'), call('b', {}, false)], [{ name: 'a' }])
    expect(t.failures).toEqual(['malformed_call', 'extra_call'])
  })
})

describe('argumentsEqual', () => {
  it('ignores key order and keeps list order', () => {
    expect(argumentsEqual({ a: 1, b: { c: 2, d: 3 } }, { b: { d: 3, c: 2 }, a: 1 })).toBe(true)
    expect(argumentsEqual({ a: [1, 2] }, { a: [2, 1] })).toBe(false)
    expect(argumentsEqual({ a: [1, 2] }, { a: [1, 2, 3] })).toBe(false)
    expect(argumentsEqual({ a: 1 }, { a: 1, b: undefined })).toBe(false)
  })

  it('Python semantics by default: true == 1 == 1.0, false == 0, also nested', () => {
    expect(argumentsEqual({ flag: true }, { flag: 1 })).toBe(true)
    expect(argumentsEqual({ flag: false }, { flag: 0 })).toBe(true)
    expect(argumentsEqual({ l: [true, { x: 1 }] }, { l: [1, { x: true }] })).toBe(true)
    expect(argumentsEqual({ flag: true }, { flag: 2 })).toBe(false)
    expect(argumentsEqual({ s: '1' }, { s: 1 })).toBe(false)
    expect(argumentsEqual({ n: null }, { n: 0 })).toBe(false)
    expect(argumentsEqual({ n: null }, { n: false })).toBe(false)
    expect(argumentsEqual({ o: {} }, { o: [] })).toBe(false)
  })

  it('strictTypes keeps booleans and numbers apart', () => {
    expect(argumentsEqual({ flag: true }, { flag: 1 }, true)).toBe(false)
    expect(argumentsEqual({ l: [0] }, { l: [false] }, true)).toBe(false)
    expect(argumentsEqual({ n: 1 }, { n: 1.0 }, true)).toBe(true)
    const expected = [{ name: 'f', arguments: { verbose: true } }]
    expect(scoreSample([call('f', { verbose: 1 })], expected).metrics.args_exact_match).toBe(1)
    const strict = scoreSample([call('f', { verbose: 1 })], expected, { strictTypes: true })
    expect(strict.metrics.args_exact_match).toBe(0)
    expect(strict.failures).toEqual(['wrong_arguments'])
  })

  it('handles deep nesting without recursion', () => {
    let a: unknown = 1
    let b: unknown = 1
    for (let i = 0; i < 200_000; i++) {
      a = [a]
      b = { k: [b] }
    }
    expect(argumentsEqual({ a }, { a })).toBe(true)
    expect(argumentsEqual({ a }, { a: b })).toBe(false)
  })
})

describe("match: 'unordered'", () => {
  it('pairs swapped calls with their expected positions', () => {
    const expected = [
      { name: 'a', arguments: { x: 1 } },
      { name: 'b', arguments: { y: 2 } },
    ]
    const s = scoreSample([call('b', { y: 2 }), call('a', { x: 1 })], expected, { match: 'unordered' })
    expect(s.metrics.name_correct).toBe(1)
    expect(s.metrics.args_exact_match).toBe(1)
    expect(s.failures).toEqual([])
    expect(s.positions.map((p) => [p.expected, p.predicted])).toEqual([
      ['a', 'a'],
      ['b', 'b'],
    ])
  })

  it('is optimal where greedy matching is not', () => {
    // Per-pair summed scores: e0 = f({}) prefers p0 = f({a:1}) (3) over p1 = g({a:2}) (2), but e1 = f({a:1}) gets 6
    // from p0 and 4 from p1. Greedy (e0 first) gives 3 + 4 = 7; the optimum is 2 + 6 = 8.
    const expected = [
      { name: 'f', arguments: {} },
      { name: 'f', arguments: { a: 1 } },
    ]
    const calls = [call('f', { a: 1 }), call('g', { a: 2 })]
    expect(alignCalls(calls, expected, { match: 'unordered' })).toEqual([1, 0])
    const s = scoreSample(calls, expected, { match: 'unordered' })
    const total = Object.values(s.metrics).reduce((x, y) => x + y, 0) * 2
    expect(total).toBe(8)
    expect(s.metrics.args_exact_match).toBe(0.5)
    expect(s.positions.map((p) => p.predicted)).toEqual(['g', 'f'])
  })

  it('leaves positions without a prediction when there are fewer calls, and ignores extras', () => {
    const expected = [{ name: 'a' }, { name: 'b' }, { name: 'c' }]
    const s = scoreSample([call('c')], expected, { match: 'unordered' })
    expect(s.positions.map((p) => p.predicted)).toEqual([undefined, undefined, 'c'])
    expect(s.metrics.has_call).toBe(1 / 3)
    expect(s.failures).toEqual(['missing_call'])
    const t = scoreSample([call('z'), call('b'), call('a')], [{ name: 'a' }, { name: 'b' }], { match: 'unordered' })
    expect(t.metrics.name_correct).toBe(1)
    expect(t.failures).toEqual(['extra_call'])
  })

  it('breaks a tie in the summed score toward the right name', () => {
    // Against get_weather(city=Paris): get_time(city=Paris) and get_weather(city=London) both sum to 5.
    const s = scoreSample(
      [call('get_time', { city: 'Paris' }), call('get_weather', { city: 'London' })],
      [{ name: 'get_weather', arguments: { city: 'Paris' } }],
      { match: 'unordered' },
    )
    expect(s.positions[0]!.predicted).toBe('get_weather')
    expect(s.metrics.name_correct).toBe(1)
  })
})

function bruteForceBest(w: number[][]): number {
  const rows = w.length
  const cols = w[0]?.length ?? 0
  let best = -Infinity
  const used = new Array<boolean>(cols).fill(false)
  const go = (i: number, acc: number): void => {
    if (i === rows) {
      best = Math.max(best, acc)
      return
    }
    go(i + 1, acc) // row unassigned (weight 0)
    for (let j = 0; j < cols; j++) {
      if (used[j]) continue
      used[j] = true
      go(i + 1, acc + w[i]![j]!)
      used[j] = false
    }
  }
  go(0, 0)
  return best
}

describe('maxWeightAssignment', () => {
  it('returns [] for no rows and -1 for rows left without a column', () => {
    expect(maxWeightAssignment([])).toEqual([])
    expect(maxWeightAssignment([[], []])).toEqual([-1, -1])
    expect(maxWeightAssignment([[1], [5]])).toEqual([-1, 0])
  })

  it('matches brute force on random non-negative matrices', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 0, max: 5 }),
        fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 25, maxLength: 25 }),
        (rows, cols, pool) => {
          const w = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => pool[i * 5 + j]! / 2))
          const a = maxWeightAssignment(w)
          const taken = a.filter((j) => j >= 0)
          expect(new Set(taken).size).toBe(taken.length) // one-to-one
          const total = a.reduce((s, j, i) => s + (j >= 0 ? w[i]![j]! : 0), 0)
          expect(total).toBe(bruteForceBest(w))
        },
      ),
      { numRuns: 300, seed: 7 },
    )
  })
})
