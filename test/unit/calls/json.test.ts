import { describe, expect, it } from 'vitest'
import { collectFloatPaths, parseJson, parseJsonAt, scanBracketEnd } from '../../../src/calls/json.js'
import { callFromObject } from '../../../src/calls/call-object.js'
import { stripReasoning } from '../../../src/calls/reasoning.js'

describe('parseJsonAt', () => {
  it('decodes a value and reports where it ends', () => {
    const r = parseJsonAt('x {"a": [1, "}"]} tail', 1)
    expect(r).toEqual({ ok: true, value: { a: [1, '}'] }, end: 17 })
  })
  it('reports unterminated and invalid values without throwing', () => {
    expect(parseJsonAt('{"a": 1').ok).toBe(false)
    expect(parseJsonAt('{"a": 1,}').ok).toBe(false)
    expect(parseJsonAt('').ok).toBe(false)
    expect(parseJson('{} x').ok).toBe(false)
  })
  it('records integral floats, which JavaScript numbers cannot tell from integers', () => {
    const r = parseJson('{"a": 3.0, "b": 3, "c": [1, 2.5, 1e2, {"d/e": -0.0}], "s": "1.0"}')
    expect(r.ok && r.floatPaths).toEqual(['/a', '/c/2', '/c/3/d~1e'])
    expect(collectFloatPaths('4.0')).toEqual([''])
  })
  it('survives nesting far deeper than the call stack', () => {
    const deep = '['.repeat(200_000) + ']'.repeat(200_000)
    expect(scanBracketEnd(deep, 0)).toBe(400_000)
    expect(() => parseJsonAt(deep)).not.toThrow()
  })
})

describe('callFromObject', () => {
  it('follows NeMo: arguments, else parameters; strings are decoded; others are invalid', () => {
    expect(callFromObject({ name: 'f', arguments: { a: 1 } }, 'x')).toMatchObject({ arguments: { a: 1 }, argumentsValid: true })
    expect(callFromObject({ name: 'f', parameters: '{"a": 1.0}' }, 'x')).toMatchObject({ arguments: { a: 1 }, floatPaths: ['/a'] })
    expect(callFromObject({ name: 'f', arguments: '[1]' }, 'x')).toMatchObject({ arguments: {}, argumentsValid: false })
    expect(callFromObject({ name: 'f', arguments: 7 }, 'x')).toMatchObject({ arguments: {}, argumentsValid: false })
    expect(callFromObject({ name: 'f' }, 'x')).toMatchObject({ arguments: {}, argumentsValid: true })
    expect(callFromObject({ name: '', arguments: {} }, 'x')).toBeUndefined()
    expect(callFromObject({ name: 'f', arguments: { x: 2.0 } }, 'x', undefined, ['/arguments/x'])?.floatPaths).toEqual(['/x'])
  })
})

describe('stripReasoning', () => {
  it('drops closed, prompt-opened and unclosed reasoning', () => {
    expect(stripReasoning('<think>a<tool_call></think>b')).toBe('b')
    expect(stripReasoning('started in prompt</think>\nanswer')).toBe('\nanswer')
    expect(stripReasoning('pre<think>never closed <tool_call>{}')).toBe('pre')
    expect(stripReasoning('plain')).toBe('plain')
  })
})

describe('stripReasoning: Harmony analysis', () => {
  it('drops analysis-channel bodies so other formats do not read calls from them', () => {
    const text = '<|channel|>analysis<|message|>Maybe <tool_call>{"name":"f"}</tool_call><|end|><|start|>assistant<|channel|>final<|message|>Hi'
    expect(stripReasoning(text)).toBe('<|end|><|start|>assistant<|channel|>final<|message|>Hi')
  })
})
