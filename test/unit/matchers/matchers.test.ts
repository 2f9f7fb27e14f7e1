import { stripVTControlCharacters } from 'node:util'
import { describe, expect, it } from 'vitest'
import '../../../src/setup.js'
import type { ToolCall } from '../../../src/calls/types.js'
import { parseToolCalls } from '../../../src/calls/index.js'
import { perfectMatching } from '../../../src/matchers/matchers.js'
import { argumentProblems, toJsonSchema, validatorFor } from '../../../src/matchers/argument-schema.js'

const call = (name: string, args: Record<string, unknown>, valid = true): ToolCall => ({ name, arguments: args, argumentsValid: valid, format: 'test' })
const hermes = (name: string, args: unknown) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`

/** The failure message of an assertion, without colours. */
function failure(assertion: () => void): string {
  try {
    assertion()
  } catch (err) {
    return stripVTControlCharacters((err as Error).message)
  }
  throw new Error('expected the assertion to fail')
}

describe('what the matchers accept', () => {
  const weather = call('get_weather', { city: 'Paris' })

  it('a raw output string, a ToolCall list, one ToolCall, an eval result, a ModelOutput', () => {
    expect(hermes('get_weather', { city: 'Paris' })).toCallTool('get_weather')
    expect([weather]).toCallTool('get_weather')
    expect(weather).toCallTool('get_weather')
    expect({ calls: [weather], score: {} }).toCallTool('get_weather')
    expect({ text: hermes('get_weather', { city: 'Paris' }) }).toCallTool('get_weather')
  })

  it('anything else is a clear type error', () => {
    expect(() => expect(42).toCallTool('x')).toThrow(/raw output string, a ToolCall list or an eval result/)
  })
})

describe('toCallTool', () => {
  const calls = [call('get_weather', { city: 'Paris', unit: 'celsius' }), call('get_time', { tz: 'CET' })]

  it('passes on any call of that name, with arguments containing the given ones', () => {
    expect(calls).toCallTool('get_time')
    expect(calls).toCallTool('get_weather', { city: 'Paris' })
    expect(calls).toCallTool('get_weather', { city: expect.stringMatching(/^Par/) })
    expect(calls).not.toCallTool('get_weather', { city: 'Rome' })
    expect(calls).not.toCallTool('send_email')
  })

  it('ignores calls whose arguments were malformed', () => {
    expect([call('f', {}, false)]).not.toCallTool('f', {})
  })

  it('fails with the expected call, the received calls and an arguments diff', () => {
    const message = failure(() => expect(calls).toCallTool('get_weather', { city: 'Rome' }))
    expect(message).toContain('toCallTool')
    expect(message).toContain('Expected a call of "get_weather" with arguments containing {"city": "Rome"}')
    expect(message).toContain('get_weather({"city":"Paris","unit":"celsius"})')
    expect(message).toContain('get_time({"tz":"CET"})')
    expect(message).toMatch(/- +"city": "Rome"/)
    expect(message).toMatch(/\+ +"city": "Paris"/)
  })

  it('.not failure names the call it did not want', () => {
    const message = failure(() => expect(calls).not.toCallTool('get_time'))
    expect(message).toContain('Expected no call of "get_time"')
    expect(message).toContain('get_time({"tz":"CET"})')
  })

  it('says when there was no call at all', () => {
    expect(failure(() => expect('Just text.').toCallTool('f'))).toContain('(no tool call)')
  })
})

describe('toHaveArgs', () => {
  const one = [call('book', { city: 'Oslo', nights: 2, extras: { breakfast: true } })]

  it("'exact' by default, 'subset' on request; asymmetric matchers inside", () => {
    expect(one).toHaveArgs({ city: 'Oslo', nights: 2, extras: { breakfast: true } })
    expect(one).not.toHaveArgs({ city: 'Oslo' })
    expect(one).toHaveArgs({ city: 'Oslo' }, { match: 'subset' })
    expect(one).toHaveArgs({ extras: {} }, { match: 'subset' }) // nested objects compared as subsets too
    expect(one).toHaveArgs({ city: expect.any(String), nights: expect.any(Number), extras: expect.anything() })
    expect(one).not.toHaveArgs({ nights: expect.any(String) }, { match: 'subset' })
  })

  it('fails with a diff against the only call', () => {
    const message = failure(() => expect(one).toHaveArgs({ city: 'Oslo', nights: 3, extras: { breakfast: true } }))
    expect(message).toContain('Expected a call whose arguments equal')
    expect(message).toMatch(/- +"nights": 3/)
    expect(message).toMatch(/\+ +"nights": 2/)
  })

  it('works as an asymmetric matcher', () => {
    expect({ result: one }).toEqual({ result: expect.toHaveArgs({ city: 'Oslo' }, { match: 'subset' }) })
  })
})

describe('toMatchToolCalls', () => {
  const two = [call('get_weather', { city: 'Oslo' }), call('get_weather', { city: 'Lisbon' })]

  it("'strict' order by default, 'any' order on request; arguments left out match any", () => {
    expect(two).toMatchToolCalls([
      { name: 'get_weather', arguments: { city: 'Oslo' } },
      { name: 'get_weather', arguments: '{"city": "Lisbon"}' },
    ])
    const swapped = [
      { name: 'get_weather', arguments: { city: 'Lisbon' } },
      { name: 'get_weather', arguments: { city: 'Oslo' } },
    ]
    expect(two).not.toMatchToolCalls(swapped)
    expect(two).toMatchToolCalls(swapped, { order: 'any' })
    expect(two).toMatchToolCalls([{ name: 'get_weather' }, { name: 'get_weather', arguments: { city: expect.any(String) } }])
    expect(two).not.toMatchToolCalls([{ name: 'get_weather' }])
  })

  it('order-free matching is a true one-to-one pairing, not a greedy one', () => {
    // Greedy would give the first call to the catch-all and then find no call for the specific one.
    const calls = [call('f', { a: 1 }), call('f', { a: 2 })]
    expect(calls).toMatchToolCalls([{ name: 'f' }, { name: 'f', arguments: { a: 1 } }], { order: 'any' })
  })

  it('fails with a diff of expected against received calls', () => {
    const message = failure(() =>
      expect(two).toMatchToolCalls([
        { name: 'get_weather', arguments: { city: 'Oslo' } },
        { name: 'get_weather', arguments: { city: 'Rome' } },
      ]),
    )
    expect(message).toContain('Expected exactly 2 call(s) in this order, received 2')
    expect(message).toMatch(/- +"city": "Rome"/)
    expect(message).toMatch(/\+ +"city": "Lisbon"/)
  })

  it('shows a missing call in the diff', () => {
    const message = failure(() => expect([two[0]]).toMatchToolCalls([{ name: 'get_weather', arguments: { city: 'Oslo' } }, { name: 'get_time' }], { order: 'any' }))
    expect(message).toContain('in any order, received 1')
    expect(message).toMatch(/-\s+"name": "get_time"/)
  })

  it('marks malformed arguments in the received calls', () => {
    const message = failure(() => expect([call('f', {}, false)]).toMatchToolCalls([{ name: 'f', arguments: {} }]))
    expect(message).toContain('"argumentsValid": false')
  })
})

describe('toHaveNoToolCall', () => {
  it('passes on text, fails listing the calls made', () => {
    expect('The capital of Australia is Canberra.').toHaveNoToolCall()
    expect([]).toHaveNoToolCall()
    const message = failure(() => expect(hermes('get_weather', { city: 'Cloud City' })).toHaveNoToolCall())
    expect(message).toContain('Expected no tool call, received:')
    expect(message).toContain('get_weather({"city":"Cloud City"})')
    expect(failure(() => expect('text').not.toHaveNoToolCall())).toContain('Expected a tool call, received none')
  })
})

describe('toHaveValidArgs', () => {
  const tools = [
    {
      type: 'function',
      function: {
        name: 'get_weather',
        parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } }, required: ['city'] },
      },
    },
  ]
  // BFCL's dialect, bare function document.
  const bfclTools = [
    {
      name: 'calc_area',
      parameters: {
        type: 'dict',
        properties: {
          base: { type: 'integer' },
          height: { type: 'float' },
          point: { type: 'tuple', items: { type: 'integer' } },
          options: { type: 'dict', properties: { precise: { type: 'boolean' } } },
          anything: { type: 'any' },
        },
        required: ['base', 'height'],
      },
    },
  ]

  it('checks every call against its tool schema', () => {
    expect([call('get_weather', { city: 'Paris', unit: 'c' })]).toHaveValidArgs(tools)
    expect([call('get_weather', { unit: 'c' })]).not.toHaveValidArgs(tools)
    expect([call('get_weather', { city: 3 })]).not.toHaveValidArgs(tools)
    expect([call('get_weather', { city: 'Paris' }, false)]).not.toHaveValidArgs(tools)
    expect([call('send_email', {})]).not.toHaveValidArgs(tools)
    expect([]).not.toHaveValidArgs(tools)
  })

  it("maps BFCL's dict / float / tuple / any types", () => {
    expect([call('calc_area', { base: 3, height: 2.5, point: [1, 2], options: { precise: true }, anything: 'x' })]).toHaveValidArgs(bfclTools)
    expect([call('calc_area', { base: 3, height: 2 })]).toHaveValidArgs(bfclTools) // an integer is a float
    expect([call('calc_area', { base: 3.5, height: 2 })]).not.toHaveValidArgs(bfclTools)
    expect([call('calc_area', { base: 3, height: 2, point: [1.5] })]).not.toHaveValidArgs(bfclTools)
    expect([call('calc_area', { base: 3, height: 2, options: 'yes' })]).not.toHaveValidArgs(bfclTools)
  })

  it('fails naming each call and what is wrong with it', () => {
    const message = failure(() => expect([call('get_weather', { city: 3 }), call('nope', {})]).toHaveValidArgs(tools))
    expect(message).toContain('call 1 get_weather: /city must be string')
    expect(message).toContain('call 2 nope: no tool named "nope" is on offer')
    expect(failure(() => expect('text').toHaveValidArgs(tools))).toContain('received no tool call')
  })
})

describe('schema helpers', () => {
  it('toJsonSchema maps types at every depth, including unions, and drops types it does not know', () => {
    expect(
      toJsonSchema({
        type: 'dict',
        properties: { a: { type: 'array', items: { type: 'float' } }, b: { type: ['string', 'null'] }, c: { type: 'String' }, type: { type: 'tuple', items: [{ type: 'integer' }] } },
        required: ['a'],
        description: 'kept',
      }),
    ).toEqual({
      type: 'object',
      properties: { a: { type: 'array', items: { type: 'number' } }, b: { type: ['string', 'null'] }, c: {}, type: { type: 'array', prefixItems: [{ type: 'integer' }] } },
      required: ['a'],
      description: 'kept',
    })
  })

  it('caches compiled validators by schema object and by content', () => {
    const schema = { type: 'object', properties: { x: { type: 'string' } } }
    expect(validatorFor(schema)).toBe(validatorFor(schema))
    expect(validatorFor(structuredClone(schema))).toBe(validatorFor(schema))
  })

  it('a schema that does not compile is reported, not thrown', () => {
    const tools = [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { x: { type: 'string', minLength: 'three' } } } } }]
    expect(argumentProblems(call('f', { x: 'a' }), tools)[0]).toMatch(/does not compile/)
  })
})

describe('perfectMatching', () => {
  it('finds a one-to-one pairing when there is one', () => {
    expect(perfectMatching([[true, true], [true, false]], 2)).toEqual([1, 0])
    expect(perfectMatching([[true, false], [true, false]], 2)).toBeUndefined()
    expect(perfectMatching([], 0)).toEqual([])
  })

  it('handles long augmenting chains without recursion', () => {
    const n = 300
    // Expected i fits calls i and i+1; greedy (each takes its first) would strand the last one.
    const fits = Array.from({ length: n }, (_, e) => Array.from({ length: n }, (_, c) => c === e || c === e + 1))
    fits[n - 1] = Array.from({ length: n }, (_, c) => c === 0)
    const pairing = perfectMatching(fits, n)
    expect(pairing).toBeDefined()
    expect(new Set(pairing).size).toBe(n)
  })
})

describe('an output over maxCalls', () => {
  // 10,001 calls: the one after the cap was not read, so no matcher can say it is (or is not) there.
  const list = '[' + Array.from({ length: 10_000 }, () => 'f(a=1)').join(',') + ',secret()]'

  it('fails every matcher, `.not` included, naming the cap', () => {
    expect(() => expect(list).not.toCallTool('secret')).toThrow(/too many calls.*raise maxCalls/s)
    expect(() => expect(list).toCallTool('f')).toThrow(/too many calls/)
    expect(() => expect(list).not.toHaveNoToolCall()).toThrow(/too many calls/)
  })

  it('reads the calls when the user raises the cap', () => {
    const calls = parseToolCalls(list, { maxCalls: Infinity })
    expect(calls).toHaveLength(10_001)
    expect(calls).toCallTool('secret')
  })
})
