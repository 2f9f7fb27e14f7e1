// BFCL categories as eval samples, the per-sample checker on ToolCalls, and the toMatchBfclAnswer matcher.
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, test } from 'vitest'
import { decodeArguments, makeCall } from '../../../src/calls/call-object.js'
import { parseToolCalls } from '../../../src/calls/index.js'
import type { ToolCall } from '../../../src/calls/types.js'
import { bfclReplayLines, bfclSamplesFromText, loadBfclCategory, type BfclSampleInfo } from '../../../src/bfcl/data/load.js'
import { samplesFromObject } from '../../../src/data/sample.js'
import { bfclMatchers } from '../../../src/bfcl/scorer/matchers.js'
import { checkBfclAnswer } from '../../../src/bfcl/checker/answer.js'

expect.extend(bfclMatchers)

const BFCL = fileURLToPath(new URL('../../../../shared/bfcl/', import.meta.url))
const GLYPHH = `${BFCL}recorded/glyphh-ada-1.1`
const available = existsSync(GLYPHH)
if (!available) console.warn(`[bfcl] ${BFCL} not found: BFCL data tests are skipped`)

const AST = ['simple_python', 'multiple', 'parallel', 'parallel_multiple', 'live_simple', 'live_multiple', 'live_parallel', 'live_parallel_multiple']

/** A function-calling result (`[{name: "json args"}]`) as ToolCalls, the way a provider would hand them over. */
function toolCallsOf(result: unknown): ToolCall[] {
  return (result as Record<string, string>[]).map((item) => {
    const [name, args] = Object.entries(item)[0]!
    return makeCall(name, decodeArguments(args), 'openai')
  })
}

function officialFailures(category: string): Map<string, string> {
  const lines = readFileSync(`${GLYPHH}/BFCL_v4_${category}_score.json`, 'utf8').trim().split('\n').slice(1)
  return new Map(lines.map((l) => JSON.parse(l) as { id: string; error_type: string }).map((e) => [e.id, e.error_type]))
}

function resultsById(category: string): Map<string, unknown> {
  const lines = readFileSync(`${GLYPHH}/BFCL_v4_${category}_result.json`, 'utf8').trim().split('\n')
  return new Map(lines.map((l) => JSON.parse(l) as { id: string; result: unknown }).map((e) => [e.id, e.result]))
}

describe.skipIf(!available)('BFCL categories as samples', () => {
  test('simple_python: samples with OpenAI-style tools, canonical expected calls and the answer in sample.bfcl', () => {
    const { samples, lines, errors } = loadBfclCategory(BFCL, 'simple_python')
    expect(errors).toEqual([])
    expect(samples).toHaveLength(400)
    expect(lines).toHaveLength(400)
    const s = samples.find((x) => x.id === 'simple_python_13')!
    expect(s.messages).toEqual([{ role: 'user', content: 'Calculate the area under the curve y=x^2 from x=1 to x=3.' }])
    expect(s.tools![0]!.function.parameters).toMatchObject({
      type: 'object',
      properties: { interval: { type: 'array', items: { type: 'number' } } },
      required: ['function', 'interval'],
    })
    expect(s.expected).toEqual([{ name: 'calculate_area_under_curve', arguments: { function: 'x**2', interval: [1, 3] } }])
    const bfcl = s.bfcl as BfclSampleInfo
    expect(bfcl).toMatchObject({ category: 'simple_python', id: 'simple_python_13', kind: 'ast' })
    // The answer's floats survive as plain JSON plus their paths.
    expect(bfcl.floatPaths).toEqual(['/0/calculate_area_under_curve/interval/0/0', '/0/calculate_area_under_curve/interval/0/1'])
    expect(bfcl.functions[0]!.parameters.properties['interval']!.type).toBe('array')
  })

  test('the data lines are what describeEval accepts: bfcl lands in sample.bfcl', () => {
    const { lines, samples } = loadBfclCategory(BFCL, 'live_parallel')
    const r = samplesFromObject(JSON.parse(JSON.stringify(lines[0])))
    expect(r.samples?.[0]?.bfcl).toEqual(samples[0]!.bfcl)
    expect(r.samples?.[0]?.expected).toEqual(samples[0]!.expected)
  })

  test('irrelevance samples expect no call; options select ids and limit', () => {
    const { samples } = loadBfclCategory(BFCL, 'irrelevance', { limit: 3 })
    expect(samples.map((s) => s.expected)).toEqual([[], [], []])
    expect(loadBfclCategory(BFCL, 'multiple', { ids: ['multiple_7', 'multiple_3'] }).samples.map((s) => s.id)).toEqual([
      'multiple_3',
      'multiple_7',
    ])
  })

  test('bad input is reported with file, line and field; Java loads', () => {
    const data = '{"id": "simple_python_0", "question": [[{"role": "user", "content": "hi"}]], "function": []}\n{"id": 5}\nnot json\n'
    const r = bfclSamplesFromText('simple_python', data, 'data.json', '{"id": "simple_python_0", "ground_truth": []}', 'answers.json')
    expect(r.samples.map((s) => s.id)).toEqual(['simple_python_0'])
    expect(r.errors).toHaveLength(2)
    expect(r.errors.some((e) => e.startsWith('data.json:2: field "id"'))).toBe(true)
    expect(r.errors.some((e) => e.startsWith('data.json:3: invalid JSON'))).toBe(true)
    expect(loadBfclCategory(BFCL, 'simple_java').errors).toEqual([])
    expect(loadBfclCategory('/nonexistent', 'multiple').errors[0]).toContain('cannot read')
  })

  test.each(AST)(
    '%s: checking ToolCalls against sample.bfcl gives the leaderboard\'s verdict on every entry',
    (category) => {
      const { samples } = loadBfclCategory(BFCL, category)
      const failures = officialFailures(category)
      const results = resultsById(category)
      let failing = 0
      for (const s of samples) {
        const v = checkBfclAnswer(toolCallsOf(results.get(s.id)), s.bfcl as BfclSampleInfo)
        expect(v.error_type, s.id).toBe(failures.get(s.id))
        if (!v.valid) failing++
      }
      expect(failing).toBe(failures.size)
    },
  )

  test('replay lines from recorded results: tool_calls for function-calling, output for prompting', () => {
    const fc = bfclReplayLines('{"id": "a_0", "result": [{"f": "{\\"x\\": 1.0}"}]}\n')
    expect(fc).toEqual([{ id: 'a_0', tool_calls: [{ type: 'function', function: { name: 'f', arguments: '{"x": 1.0}' } }] }])
    expect(bfclReplayLines('{"id": "a_1", "result": "[f(x=1)]"}')).toEqual([{ id: 'a_1', output: '[f(x=1)]' }])
  })
})

describe.skipIf(!available)('toMatchBfclAnswer', () => {
  const { samples } = available ? loadBfclCategory(BFCL, 'simple_python', { ids: ['simple_python_13', 'simple_python_0'] }) : { samples: [] }

  test('passes on acceptable calls, with the answer given as sample.bfcl or as ground_truth + functions', () => {
    const s = samples.find((x) => x.id === 'simple_python_0')!
    const bfcl = s.bfcl as BfclSampleInfo
    const calls = parseToolCalls('<tool_call>{"name": "calculate_triangle_area", "arguments": {"base": 10, "height": 5}}</tool_call>')
    expect(calls).toMatchBfclAnswer(bfcl)
    expect(calls).toMatchBfclAnswer(bfcl.ground_truth, bfcl.functions)
    // BFCL's own result formats: function-calling and prompting.
    expect([{ calculate_triangle_area: '{"base": 10, "height": 5, "unit": "units"}' }]).toMatchBfclAnswer(bfcl)
    expect('[calculate_triangle_area(base=10, height=5)]').toMatchBfclAnswer(bfcl)
    expect({ text: 'calculate_triangle_area(base=10, height=5)' }).toMatchBfclAnswer(bfcl)
    expect('[calculate_triangle_area(base=10, height=6)]').not.toMatchBfclAnswer(bfcl)
  })

  test('integers where the answer has floats fail the nested type check, with the reason in the message', () => {
    const bfcl = samples.find((x) => x.id === 'simple_python_13')!.bfcl as BfclSampleInfo
    const ints = parseToolCalls('<tool_call>{"name": "calculate_area_under_curve", "arguments": {"function": "x**2", "interval": [1, 3]}}</tool_call>')
    const floats = parseToolCalls('<tool_call>{"name": "calculate_area_under_curve", "arguments": {"function": "x**2", "interval": [1.0, 3.0]}}</tool_call>')
    expect(floats).toMatchBfclAnswer(bfcl)
    expect(() => expect(ints).toMatchBfclAnswer(bfcl)).toThrow(/type_error:nested[\s\S]*Nested type checking failed for parameter 'interval'/)
    // Without the answer's float paths, 1.0 is an int as far as JavaScript knows, and the ints pass.
    expect(ints).toMatchBfclAnswer(bfcl.ground_truth, bfcl.functions)
  })

  test('no answer means no call is expected (irrelevance)', () => {
    expect([]).toMatchBfclAnswer([], [{ name: 'f', parameters: { type: 'dict', properties: {} } }])
    expect('[f()]').not.toMatchBfclAnswer([], [{ name: 'f', parameters: { type: 'dict', properties: {} } }])
  })
})
