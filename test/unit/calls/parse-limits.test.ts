/**
 * Limits that keep parsed arguments safe for everything downstream: nesting deeper than MAX_ARGUMENT_DEPTH is an
 * invalid call (so JSON.stringify, structuredClone and deep equality cannot overflow the stack), and every key a
 * model writes, `__proto__` and `constructor` included, is an own data property of the arguments.
 */
import { describe, expect, it } from 'vitest'
import { decodeArguments, MAX_ARGUMENT_DEPTH } from '../../../src/calls/call-object.js'
import { FORMATS, parseToolCalls } from '../../../src/calls/index.js'
import { MAX_PY_DEPTH } from '../../../src/python/index.js'

const nestedObject = (depth: number): string => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)
const nestedList = (depth: number): string => '['.repeat(depth) + '1' + ']'.repeat(depth)

describe('argument nesting depth', () => {
  it('is a documented limit of 512 levels', () => {
    expect(MAX_ARGUMENT_DEPTH).toBe(512)
  })

  it('accepts arguments exactly MAX_ARGUMENT_DEPTH deep and rejects one level more', () => {
    // The arguments object is level 1: `{"a": {"a": ... 1}}` with k braces is k levels.
    const call = (depth: number) => parseToolCalls(`<tool_call>{"name":"f","arguments":${nestedObject(depth)}}</tool_call>`)
    const ok = call(MAX_ARGUMENT_DEPTH)
    expect(ok).toMatchObject([{ name: 'f', argumentsValid: true }])
    const tooDeep = call(MAX_ARGUMENT_DEPTH + 1)
    expect(tooDeep).toEqual([{ name: 'f', arguments: {}, argumentsValid: false, format: 'hermes', raw: expect.any(String) }])
    expect(decodeArguments(JSON.parse(nestedObject(MAX_ARGUMENT_DEPTH))).argumentsValid).toBe(true)
    expect(decodeArguments(nestedObject(MAX_ARGUMENT_DEPTH + 1))).toEqual({ arguments: {}, argumentsValid: false })
  })

  it('needs no walk for Python calls: the deepest call the Python parser accepts is within MAX_ARGUMENT_DEPTH', () => {
    // A nested call is two levels of arguments (`{g: {a: ...}}`) for one of the parse tree, the deepest kind.
    expect(2 * MAX_PY_DEPTH + 1).toBeLessThanOrEqual(MAX_ARGUMENT_DEPTH)
    const nested = (k: number): string => (k === 0 ? '1' : `g(a=${nested(k - 1)})`)
    const deepest = parseToolCalls(`[f(a=${nested(MAX_PY_DEPTH - 2)})]`)
    expect(deepest).toMatchObject([{ name: 'f', argumentsValid: true }])
    expect(JSON.stringify(deepest[0]!.arguments).split('{').length - 1).toBeGreaterThan(MAX_PY_DEPTH)
    expect(parseToolCalls(`[f(a=${nested(MAX_PY_DEPTH)})]`)).toEqual([])
  })

  const D = 100_000
  const deep: Record<string, string> = {
    hermes: `<tool_call>{"name":"f","arguments":${nestedObject(D)}}</tool_call>`,
    mistral: `[TOOL_CALLS]f[ARGS]${nestedObject(D)}`,
    json: `{"name":"f","arguments":{"a":${nestedList(D)}}}`,
    qwen3_coder: `<tool_call>\n<function=f>\n<parameter=a>\n${nestedList(D)}\n</parameter>\n</function>\n</tool_call>`,
    deepseek_v32: `<｜DSML｜function_calls>\n<｜DSML｜invoke name="f">\n<｜DSML｜parameter name="a" string="false">${nestedList(D)}</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>`,
    gemma4: `<|tool_call>call:f{a:${nestedList(D)}}<tool_call|>`,
    pythonic: `[f(a=${nestedList(D)})]`,
  }
  it.for(Object.entries(deep))('%s: 100k-deep arguments give an invalid call (or none), never a value too deep to serialise', ([, text]) => {
    const calls = parseToolCalls(text)
    for (const c of calls) {
      expect(c.name).toBe('f')
      expect(c.argumentsValid).toBe(false)
      expect(c.arguments).toEqual({})
    }
    expect(() => structuredClone(calls)).not.toThrow()
    expect(() => JSON.stringify(calls)).not.toThrow()
  })

  it('holds for arguments given as data (native tool_calls, `calls` lines)', () => {
    let v: unknown = 1
    for (let i = 0; i < D; i++) v = { a: v }
    expect(decodeArguments(v)).toEqual({ arguments: {}, argumentsValid: false })
  })
})

describe('argument keys are own data properties, __proto__ and constructor included', () => {
  it.for(FORMATS.filter((f) => f.render).map((f) => [f.name, f] as const))('%s', ([, f]) => {
    const args = JSON.parse('{"__proto__": {"polluted": 1}, "constructor": "c", "b": 2}') as Record<string, unknown>
    const [call] = f.parse(f.render!([{ name: 'f', arguments: args }]), {})
    const a = call!.arguments
    expect(Object.getPrototypeOf(a)).toBe(Object.prototype)
    expect(Object.keys(a)).toEqual(['__proto__', 'constructor', 'b'])
    expect(Object.getOwnPropertyDescriptor(a, '__proto__')).toMatchObject({ value: { polluted: 1 }, enumerable: true })
    expect(a['constructor']).toBe('c')
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined()
  })
})
