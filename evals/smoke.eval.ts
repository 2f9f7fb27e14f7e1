// A few in-memory samples held to a stricter standard: every sample must be exactly right (`strict`), and every
// call must be valid against its tool's schema (an `assert` callback using the package's matchers).
import { expect } from 'vitest'
import { describeEval, replay } from 'vitest-tool-evals'

const weatherTools = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
        required: ['city'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'get_forecast',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1, maximum: 14 } },
        required: ['city', 'days'],
      },
    },
  },
]

const user = (content: string) => [{ role: 'user', content }]

describeEval('smoke', {
  data: [
    { id: 's1', messages: user('Weather in Madrid, in celsius?'), tools: weatherTools, expected: [{ name: 'get_weather', arguments: { city: 'Madrid', unit: 'celsius' } }] },
    { id: 's2', messages: user('Two-day forecast for Lima.'), tools: weatherTools, expected: [{ name: 'get_forecast', arguments: { city: 'Lima', days: 2 } }] },
    { id: 's3', messages: user('Hi there!'), tools: weatherTools, expected: [] },
  ],
  model: replay('fixtures/smoke.outputs.jsonl'),
  strict: true,
  assert(result, sample) {
    if (sample.expected.length === 0) {
      expect(result).toHaveNoToolCall()
      return
    }
    expect(result).toHaveValidArgs(sample.tools ?? [])
    expect(result).toCallTool(sample.expected[0]!.name, { city: expect.any(String) })
  },
})
