/**
 * The cap on calls per output (`ParseOptions.maxCalls`, issue 21): past it an output is marked by one last call
 * that says why, never cut to a shorter list that looks like an answer, and scoring cannot count it as right.
 */
import { describe, expect, it } from 'vitest'
import { DEFAULT_MAX_CALLS, parseToolCalls, TOO_MANY_CALLS } from '../../../src/calls/index.js'
import { scoreSample } from '../../../src/score/index.js'
import type { ToolCall } from '../../../src/calls/types.js'

const pythonicList = (n: number): string => '[' + Array.from({ length: n }, (_, k) => `f(a=${k})`).join(',') + ']'
const hermesCalls = (n: number): string =>
  Array.from({ length: n }, (_, k) => `<tool_call>{"name": "f", "arguments": {"a": ${k}}}</tool_call>`).join('\n')

function expectMarked(calls: ToolCall[], max: number, format: string): void {
  expect(calls).toHaveLength(max + 1)
  expect(calls.slice(0, max).every((c, k) => c.name === 'f' && c.argumentsValid && c.arguments['a'] === k)).toBe(true)
  expect(calls[max]).toEqual({
    name: '',
    arguments: {},
    argumentsValid: false,
    argumentsError: expect.stringMatching(new RegExp(`^${TOO_MANY_CALLS}: the output holds more than ${max} calls`)),
    format,
  })
}

describe('maxCalls', () => {
  it('defaults to 10,000: a pythonic list of exactly that many is read whole, one more is marked', () => {
    expect(DEFAULT_MAX_CALLS).toBe(10_000)
    const within = parseToolCalls(pythonicList(DEFAULT_MAX_CALLS))
    expect(within).toHaveLength(DEFAULT_MAX_CALLS)
    expect(within.every((c) => c.name === 'f' && c.argumentsValid)).toBe(true)
    expectMarked(parseToolCalls(pythonicList(DEFAULT_MAX_CALLS + 1)), DEFAULT_MAX_CALLS, 'pythonic')
    expectMarked(parseToolCalls(pythonicList(3 * DEFAULT_MAX_CALLS)), DEFAULT_MAX_CALLS, 'pythonic')
  })

  it('holds for every format, with a format hint, and over several lists', () => {
    expectMarked(parseToolCalls(hermesCalls(5), { maxCalls: 3 }), 3, 'hermes')
    expectMarked(parseToolCalls(hermesCalls(5), { maxCalls: 3, format: 'hermes' }), 3, 'hermes')
    expectMarked(parseToolCalls(pythonicList(5), { maxCalls: 3, format: 'pythonic' }), 3, 'pythonic')
    // Two lists: the cap counts the calls of both.
    const two = parseToolCalls('[f(a=0),f(a=1)] then [f(a=2),f(a=3)]', { maxCalls: 3 })
    expectMarked(two, 3, 'pythonic')
    expectMarked(parseToolCalls('<|python_start|>' + pythonicList(4) + '<|python_end|>', { maxCalls: 2 }), 2, 'llama4_pythonic')
    expect(parseToolCalls(hermesCalls(3), { maxCalls: 3 })).toHaveLength(3)
    expect(parseToolCalls(pythonicList(DEFAULT_MAX_CALLS + 5), { maxCalls: Infinity })).toHaveLength(DEFAULT_MAX_CALLS + 5)
  })

  it('does not change which text is a list: a list past the cap that never closes still gives nothing', () => {
    const open = pythonicList(50).slice(0, -1) + ',f(a='
    expect(parseToolCalls(open, { maxCalls: 10 })).toEqual([])
    expect(parseToolCalls(open, { maxCalls: Infinity })).toEqual([])
  })

  it('calls past the cap are still checked as calls: a repeated keyword or a positional after a keyword fails the list', () => {
    const many = Array.from({ length: 12 }, (_, k) => `k${k}=${k}`).join(', ')
    for (const bad of ['f(a=1, a=2)', 'f(a=1, 2)', `f(${many}, k11=0)`, `f(**{'b': 1}, b=2)`, 'f(a=g(b=1, b=2))']) {
      const list = '[' + [...Array.from({ length: 15 }, (_, k) => `f(a=${k})`), bad, 'f(a=0)'].join(', ') + ']'
      expect(parseToolCalls(list, { maxCalls: 5 }), bad).toEqual([])
      expect(parseToolCalls(list, { maxCalls: Infinity }), bad).toEqual([])
    }
    // The same calls well-formed: marked past the cap, all read without it.
    const good = '[' + [...Array.from({ length: 15 }, (_, k) => `f(a=${k})`), `f(${many})`, 'f(a=g(b=1, c=2))'].join(', ') + ']'
    expectMarked(parseToolCalls(good, { maxCalls: 5 }), 5, 'pythonic')
    expect(parseToolCalls(good, { maxCalls: Infinity })).toHaveLength(17)
  })

  it('an output over the cap is never scored as right, even against its first calls', () => {
    const calls = parseToolCalls(hermesCalls(4), { maxCalls: 2 })
    const score = scoreSample(calls, [
      { name: 'f', arguments: { a: 0 } },
      { name: 'f', arguments: { a: 1 } },
    ])
    expect(score.predicted).toBe(3)
    expect(score.failures).toEqual(expect.arrayContaining(['extra_call', 'malformed_call']))
    // The same two calls within the cap: right.
    expect(scoreSample(parseToolCalls(hermesCalls(2), { maxCalls: 2 }), [
      { name: 'f', arguments: { a: 0 } },
      { name: 'f', arguments: { a: 1 } },
    ]).failures).toEqual([])
  })

  it('is a positive integer or Infinity; anything else is a TypeError', () => {
    for (const bad of [0, -1, 1.5, NaN, '3' as unknown as number]) {
      expect(() => parseToolCalls('[f()]', { maxCalls: bad })).toThrow(TypeError)
    }
  })
})
