// DeepFabric-style schema metrics (REFERENCE.md section 4), including what DeepFabric gets wrong.
import { describe, expect, test } from 'vitest'
import { parseToolCalls } from '../src/calls/index.js'
import type { ToolCall, ToolDefinition } from '../src/calls/types.js'
import { matchesJsonType, schemaMetrics } from '../src/score/schema.js'
import { schemaScorer } from '../src/score/scorers/schema.js'

const tools: ToolDefinition[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      parameters: {
        type: 'object',
        properties: {
          city: { type: 'string' },
          days: { type: 'integer' },
          units: { type: ['string', 'null'] },
          lat: { type: 'number' },
        },
        required: ['city'],
      },
    },
  },
  { type: 'function', function: { name: 'now', parameters: { type: 'object', properties: {} } } },
]

const call = (name: string, args: Record<string, unknown>): ToolCall[] =>
  parseToolCalls(`<tool_call>${JSON.stringify({ name, arguments: args })}</tool_call>`)

describe('per sample', () => {
  test('right tool, schema-valid arguments: values are not compared', () => {
    const m = schemaMetrics(call('get_weather', { city: 'Lyon', days: 3 }), [{ name: 'get_weather', arguments: { city: 'Paris' } }], tools)
    expect(m).toMatchObject({ tool_selection: true, parameter_accuracy: true, execution_success: true })
    expect(m.overall).toBeCloseTo(1)
  })

  test('both argument sets empty counts as right, whatever the schema requires (DeepFabric)', () => {
    expect(schemaMetrics(call('get_weather', {}), [{ name: 'get_weather' }], tools).parameter_accuracy).toBe(true)
  })

  test('a missing required parameter or a wrong type fails parameter_accuracy only', () => {
    const expected = [{ name: 'get_weather', arguments: { city: 'Paris' } }]
    const missing = schemaMetrics(call('get_weather', { days: 3 }), expected, tools)
    expect(missing).toMatchObject({ tool_selection: true, parameter_accuracy: false, execution_success: false })
    expect(missing.overall).toBeCloseTo(0.4)
    expect(missing.problems).toEqual(["missing required parameter 'city'"])
    const wrongType = schemaMetrics(call('get_weather', { city: 'Paris', days: '3' }), expected, tools)
    expect(wrongType.problems).toEqual(['parameter \'days\' is not of type "integer"'])
  })

  test('types: an integer is a number, a boolean is not, 3.0 is not an integer, nullable unions work', () => {
    const expected = [{ name: 'get_weather' }]
    expect(schemaMetrics(call('get_weather', { city: 'P', lat: 3 }), expected, tools).parameter_accuracy).toBe(true)
    expect(schemaMetrics(call('get_weather', { city: 'P', lat: true }), expected, tools).parameter_accuracy).toBe(false)
    // The raw text says 3.0: a float, as DeepFabric's Python sees it.
    const floatDays = parseToolCalls('<tool_call>{"name": "get_weather", "arguments": {"city": "P", "days": 3.0}}</tool_call>')
    expect(schemaMetrics(floatDays, expected, tools).parameter_accuracy).toBe(false)
    // DeepFabric crashes on ["string", "null"]; here both members are accepted.
    expect(schemaMetrics(call('get_weather', { city: 'P', units: null }), expected, tools).parameter_accuracy).toBe(true)
    expect(schemaMetrics(call('get_weather', { city: 'P', units: 'metric' }), expected, tools).parameter_accuracy).toBe(true)
    expect(schemaMetrics(call('get_weather', { city: 'P', units: 5 }), expected, tools).parameter_accuracy).toBe(false)
    expect(matchesJsonType(undefined, { any: 'thing' })).toBe(true)
    expect(matchesJsonType('dict', {})).toBe(true) // BFCL's names too
  })

  test('parameters outside the schema are tolerated, as DeepFabric does', () => {
    expect(schemaMetrics(call('get_weather', { city: 'P', extra: 1 }), [{ name: 'get_weather' }], tools).parameter_accuracy).toBe(true)
  })

  test('wrong tool: tool_selection fails, the arguments are still checked against the called tool', () => {
    const m = schemaMetrics(call('now', {}), [{ name: 'get_weather', arguments: { city: 'Paris' } }], tools)
    expect(m).toMatchObject({ tool_selection: false, parameter_accuracy: true, execution_success: false })
    expect(m.overall).toBeCloseTo(0.35)
  })

  test('a tool not on offer: values are compared instead (strings case-insensitively, numbers within 1e-6)', () => {
    const expected = [{ name: 'lookup', arguments: { q: 'Paris', n: 1 } }]
    expect(schemaMetrics(call('lookup', { q: ' paris', n: 1.0000001 }), expected, tools).parameter_accuracy).toBe(true)
    expect(schemaMetrics(call('lookup', { q: 'Lyon', n: 1 }), expected, tools).parameter_accuracy).toBe(false)
    expect(schemaMetrics(call('lookup', { q: 'Paris' }), expected, tools).parameter_accuracy).toBe(false)
  })

  test('no call, malformed arguments, rightful abstention', () => {
    expect(schemaMetrics([], [{ name: 'get_weather' }], tools)).toMatchObject({ tool_selection: false, overall: 0 })
    const malformed = parseToolCalls('<tool_call>{"name": "get_weather", "arguments": "{oops"}</tool_call>')
    expect(schemaMetrics(malformed, [{ name: 'get_weather' }], tools)).toMatchObject({ tool_selection: true, parameter_accuracy: false })
    expect(schemaMetrics([], [], tools)).toMatchObject({ tool_selection: true, parameter_accuracy: true, overall: 1 })
    expect(schemaMetrics(call('now', {}), [], tools).tool_selection).toBe(false)
  })

  test('weights are configurable', () => {
    const m = schemaMetrics(call('get_weather', { days: 3 }), [{ name: 'get_weather' }], tools, {
      weights: { tool_selection: 0.5, parameter_accuracy: 0.5, execution_success: 0 },
    })
    expect(m.overall).toBeCloseTo(0.5)
  })
})

describe('aggregation', () => {
  test('means over every sample (errored ones count 0), and shards merge exactly', async () => {
    const scorer = schemaScorer.configure(true, { cached: (p) => p })!
    const values = await Promise.all(
      [
        [call('get_weather', { city: 'P' }), [{ name: 'get_weather' }]],
        [call('get_weather', {}), [{ name: 'get_weather', arguments: { city: 'P' } }]],
        [call('now', {}), [{ name: 'get_weather' }]],
      ].map(async ([calls, expected]) => (await scorer.score({ sample: { id: 's', messages: [], tools, expected: expected as never }, calls: calls as ToolCall[] }))!.value),
    )
    const samples = [...values.map((v) => ({ v, errored: false })), { v: scorer.errored(undefined)!, errored: true }]
    const { accumulator } = schemaScorer
    const whole = accumulator.create()
    for (const s of samples) accumulator.add(whole, s.v, s.errored)
    const a = accumulator.create()
    const b = accumulator.create()
    samples.slice(0, 1).forEach((s) => accumulator.add(a, s.v, s.errored))
    samples.slice(1).forEach((s) => accumulator.add(b, s.v, s.errored))
    expect(accumulator.merge(a, b)).toEqual(whole)
    const summary = accumulator.finish(whole)
    expect(summary.details).toEqual({ samples: 4, tool_selection: 2, parameter_accuracy: 2, execution_success: 1 })
    expect(summary.metrics).toMatchObject({ schema_tool_selection: 0.5, schema_parameter_accuracy: 0.5, schema_execution_success: 0.25 })
    // The overall is the mean of the per-sample weighted sums.
    expect(summary.metrics['schema_overall']).toBeCloseTo((1 + 0.4 + 0.35 + 0) / 4)
    expect(accumulator.finish(accumulator.create()).metrics['schema_overall']).toBeNull()
  })
})
