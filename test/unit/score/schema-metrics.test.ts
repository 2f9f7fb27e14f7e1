// DeepFabric-style schema metrics: both semantics. Parity with DeepFabric's own numbers,
// class by class, is in schema-deepfabric-parity.test.ts.
import { describe, expect, test } from 'vitest'
import { parseToolCalls } from '../../../src/calls/index.js'
import { activeScorers, applyScorers } from '../../../src/eval/scorers.js'
import type { SampleRecord } from '../../../src/score/types.js'
import type { ToolCall, ToolDefinition } from '../../../src/calls/types.js'
import { checkSchemaOptions, matchesJsonType, schemaMetrics } from '../../../src/score/schema.js'
import { schemaScorer } from '../../../src/score/scorers/schema.js'

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

// Our corrected reading; the tools above carry a nullable union, on which DeepFabric itself crashes.
const J = { semantics: 'jsonschema' } as const

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
    expect(missing.problems).toContain("missing required parameter 'city'")
    expect(schemaMetrics(call('get_weather', { days: 3 }), expected, tools, J).problems).toEqual(["missing required parameter 'city'"])
    const wrongType = schemaMetrics(call('get_weather', { city: 'Paris', days: '3' }), expected, tools, J)
    expect(wrongType.problems).toEqual(['parameter \'days\' is not of type "integer"'])
    expect(schemaMetrics(call('get_weather', { city: 'Paris', days: '3' }), expected, tools).problems[0]).toBe(
      'parameter \'days\' is not of type "integer"',
    )
    // Where DeepFabric's type table changes the reading, the message says so.
    const floatTool = [{ type: 'function', function: { name: 'scale', parameters: { properties: { r: { type: 'float' }, n: {} } } } }]
    expect(schemaMetrics(call('scale', { r: 0.5 }), [{ name: 'scale' }], floatTool).problems).toEqual([
      'parameter \'r\' is not a str (DeepFabric\'s reading of type "float")',
    ])
    expect(schemaMetrics(call('scale', { n: 1 }), [{ name: 'scale' }], floatTool).problems).toEqual([
      "parameter 'n' is not a str (DeepFabric's reading of no type)",
    ])
  })

  test.each([['deepfabric'], ['jsonschema']] as const)(
    '%s: an integer is a number, a boolean is not, 3.0 is not an integer, nullable unions accept either',
    (semantics) => {
      const o = { semantics }
      const expected = [{ name: 'get_weather' }]
      expect(schemaMetrics(call('get_weather', { city: 'P', lat: 3 }), expected, tools, o).parameter_accuracy).toBe(true)
      expect(schemaMetrics(call('get_weather', { city: 'P', lat: true }), expected, tools, o).parameter_accuracy).toBe(false)
      // The raw text says 3.0: a float, as DeepFabric's Python sees it.
      const floatDays = parseToolCalls('<tool_call>{"name": "get_weather", "arguments": {"city": "P", "days": 3.0}}</tool_call>')
      expect(schemaMetrics(floatDays, expected, tools, o).parameter_accuracy).toBe(false)
      // DeepFabric crashes on ["string", "null"]; both semantics accept either member (the default marks the crash).
      expect(schemaMetrics(call('get_weather', { city: 'P', units: null }), expected, tools, o).parameter_accuracy).toBe(true)
      expect(schemaMetrics(call('get_weather', { city: 'P', units: 'metric' }), expected, tools, o).parameter_accuracy).toBe(true)
      expect(schemaMetrics(call('get_weather', { city: 'P', units: 5 }), expected, tools, o).parameter_accuracy).toBe(false)
    },
  )

  test('JSON Schema and BFCL type names (jsonschema semantics)', () => {
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

  test('no call, malformed arguments, abstention: DeepFabric by default, our corrections with jsonschema', () => {
    expect(schemaMetrics([], [{ name: 'get_weather' }], tools)).toMatchObject({ tool_selection: false, overall: 0 })
    const malformed = parseToolCalls('<tool_call>{"name": "get_weather", "arguments": "{oops"}</tool_call>')
    // DeepFabric drops the call; we keep it (right name, wrong arguments).
    expect(schemaMetrics(malformed, [{ name: 'get_weather' }], tools)).toMatchObject({ tool_selection: false, parameter_accuracy: false })
    expect(schemaMetrics(malformed, [{ name: 'get_weather' }], tools, J)).toMatchObject({ tool_selection: true, parameter_accuracy: false })
    // A call without a name is dropped too (DeepFabric's ToolCall requires one): the named call after it is scored.
    const nameless = parseToolCalls('<tool_call>{"arguments": {"city": "P"}}</tool_call>\n<tool_call>{"name": "get_weather", "arguments": {"city": "P"}}</tool_call>')
    expect(nameless[0]?.name).toBe('')
    expect(schemaMetrics(nameless, [{ name: 'get_weather' }], tools)).toMatchObject({ tool_selection: true, parameter_accuracy: true })
    expect(schemaMetrics(nameless, [{ name: 'get_weather' }], tools, J)).toMatchObject({ tool_selection: false })
    // DeepFabric scores a sample that expects no call 0; a right abstention is 1 for us.
    expect(schemaMetrics([], [], tools)).toMatchObject({ tool_selection: false, parameter_accuracy: false, overall: 0 })
    expect(schemaMetrics([], [], tools, J)).toMatchObject({ tool_selection: true, parameter_accuracy: true, overall: 1 })
    expect(schemaMetrics(call('now', {}), [], tools, J).tool_selection).toBe(false)
  })

  test('weights: given ones replace the defaults, one left out counts 0, so the overall stays within [0, 1]', () => {
    const m = schemaMetrics(call('get_weather', { days: 3 }), [{ name: 'get_weather' }], tools, {
      weights: { tool_selection: 0.5, parameter_accuracy: 0.5, execution_success: 0 },
    })
    expect(m.overall).toBeCloseTo(0.5)
    const right = call('get_weather', { city: 'P' })
    // Before: the missing weights came from the defaults, 0.9 + 0.35 + 0.25 = 1.5.
    for (const semantics of ['deepfabric', 'jsonschema'] as const) {
      const partial = schemaMetrics(right, [{ name: 'get_weather' }], tools, { semantics, weights: { tool_selection: 0.9 } })
      expect(partial.overall).toBeCloseTo(0.9)
    }
    expect(schemaMetrics(right, [{ name: 'get_weather' }], tools, { weights: {} }).overall).toBe(0)
  })

  test('options that would take the overall out of [0, 1] are refused with the field named', () => {
    const right = call('get_weather', { city: 'P' })
    expect(() => schemaMetrics(right, [{ name: 'get_weather' }], tools, { weights: { tool_selection: 0.9, parameter_accuracy: 0.35 } })).toThrow(
      /schema\.weights must sum to at most 1/,
    )
    expect(() => checkSchemaOptions({ weights: { execution_success: -0.1 } })).toThrow(/schema\.weights\.execution_success must be a number >= 0/)
    expect(() => checkSchemaOptions({ weights: { overall: 1 } as never })).toThrow(/schema\.weights\.overall is not a schema metric/)
    expect(() => checkSchemaOptions({ semantics: 'python' as never })).toThrow(/schema\.semantics must be one of 'deepfabric', 'jsonschema'/)
    expect(() => checkSchemaOptions({ weights: { tool_selection: 0.4, parameter_accuracy: 0.35, execution_success: 0.25 } })).not.toThrow()
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
    const samples = [...values.map((v) => ({ v, errored: false })), { v: scorer.errored(undefined as never)!, errored: true }]
    const { accumulator } = schemaScorer
    const whole = accumulator.create()
    for (const s of samples) accumulator.add(whole, s.v, s.errored)
    const a = accumulator.create()
    const b = accumulator.create()
    samples.slice(0, 1).forEach((s) => accumulator.add(a, s.v, s.errored))
    samples.slice(1).forEach((s) => accumulator.add(b, s.v, s.errored))
    expect(accumulator.merge(a, b)).toEqual(whole)
    const summary = accumulator.finish(whole)
    // The tools carry a nullable union: DeepFabric would crash on each scored sample; they are counted.
    expect(summary.details).toEqual({ samples: 4, tool_selection: 2, parameter_accuracy: 2, execution_success: 1, deepfabric_crashed: 3 })
    expect(summary.metrics).toMatchObject({ schema_tool_selection: 0.5, schema_parameter_accuracy: 0.5, schema_execution_success: 0.25 })
    // The overall is the mean of the per-sample weighted sums: the weighted sum of the means.
    expect(summary.metrics['schema_overall']).toBeCloseTo(0.4 * 0.5 + 0.35 * 0.5 + 0.25 * 0.25)
    expect(accumulator.finish(accumulator.create()).metrics['schema_overall']).toBeNull()
  })
})

describe('in the sample record (describeEval)', () => {
  test('the default semantics mark a sample DeepFabric would reject; the jsonschema option reaches the metrics', async () => {
    const sample = { id: 's', messages: [{ role: 'user' as const, content: 'Weather?' }], tools, expected: [{ name: 'get_weather', arguments: { city: 'P', days: null } }] }
    const record = {} as SampleRecord
    await applyScorers(record, sample, call('get_weather', { city: 'P' }), {}, activeScorers({ schema: true }))
    expect(record.scores?.schema).toEqual({ tool_selection: 0, parameter_accuracy: 0, execution_success: 0, overall: 0, deepfabric: 'rejected' })
    await applyScorers(record, sample, call('get_weather', { city: 'P' }), {}, activeScorers({ schema: { semantics: 'jsonschema' } }))
    expect(record.scores?.schema).toEqual({ tool_selection: 1, parameter_accuracy: 1, execution_success: 1, overall: 1 })
  })
})
