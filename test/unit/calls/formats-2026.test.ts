/**
 * Issue 22: formats read from the engines' parsers (Muse Glimmer's ATEM, PLaMo 3, Inkling, Solar Open 2, K2 Horizon,
 * GigaChat 3.5, Hunyuan 4) and the GLM-pair defect. Test strings are our own.
 */
import { describe, expect, it } from 'vitest'
import { parseToolCalls } from '../../../src/calls/index.js'
import type { ToolDefinition } from '../../../src/calls/types.js'

const shape = (calls: { name: string; arguments: Record<string, unknown>; argumentsValid: boolean; format: string }[]) =>
  calls.map((c) => [c.format, c.name, c.arguments, c.argumentsValid])
const tools: ToolDefinition[] = [
  { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } } } } },
]
const W = (format: string) => [[format, 'get_weather', { city: 'Oslo', days: 4 }, true]]

describe('issue 22 formats', () => {
  it('atem: tool-channel invokes only, values JSON-decoded', () => {
    const out =
      ' to=self<|message|>maybe <atem:invoke name="nope"></atem:invoke><|eom|>' +
      '<|start|>assistant to=get_weather<|message|><atem:function_calls>\n<atem:invoke name="get_weather">\n' +
      '<atem:parameter name="city">Oslo</atem:parameter>\n<atem:parameter name="days">4</atem:parameter>\n</atem:invoke>\n</atem:function_calls><|eom|>'
    expect(shape(parseToolCalls(out))).toEqual(W('atem'))
  })
  it('plamo3: JSON arguments after the arguments token', () => {
    const t = (s: string) => `<|plamo:${s}:plamo|>`
    const out = `${t('begin_tool_requests')}${t('begin_tool_request')}${t('begin_tool_name')}get_weather${t('end_tool_name')}${t('begin_tool_arguments')}<|plamo:msg|>{"city": "Oslo", "days": 4}${t('end_tool_arguments')}${t('end_tool_request')}${t('end_tool_requests')}`
    expect(shape(parseToolCalls(out))).toEqual(W('plamo3'))
  })
  it('inkling: name and args in one JSON object', () => {
    const out = '<|message_model|><|content_thinking|>hm<|end_message|><|message_model|><|content_invoke_tool_json|>{"name": "get_weather", "args": {"city": "Oslo", "days": 4}}<|end_message|>'
    expect(shape(parseToolCalls(out))).toEqual(W('inkling'))
  })
  it('solar_open2: key then value token', () => {
    const out = '<|tool_call:start|>get_weather\n<|tool_arg:start|>city<|tool_arg:value|>Oslo<|tool_arg:end|>\n<|tool_arg:start|>days<|tool_arg:value|>4<|tool_arg:end|>\n<|tool_call:end|>'
    expect(shape(parseToolCalls(out, { tools }))).toEqual(W('solar_open2'))
  })
  it('k2_horizon: ifm pairs', () => {
    const out = '<ifm|tool_calls>\n<ifm|tool_call>get_weather\n<ifm|arg_key>city</ifm|arg_key>\n<ifm|arg_value>Oslo</ifm|arg_value>\n<ifm|arg_key>days</ifm|arg_key>\n<ifm|arg_value>4</ifm|arg_value>\n</ifm|tool_call>\n</ifm|tool_calls>'
    expect(shape(parseToolCalls(out, { tools }))).toEqual(W('k2_horizon'))
  })
  it('gigachat35: string by default, string="false" decoded', () => {
    const out = '<｜GCML｜tool_calls><｜GCML｜invoke name="get_weather"><｜GCML｜parameter name="city">Oslo</｜GCML｜parameter><｜GCML｜parameter name="days" string="false">4</｜GCML｜parameter></｜GCML｜invoke></｜GCML｜tool_calls>'
    expect(shape(parseToolCalls(out))).toEqual(W('gigachat35'))
  })
  it('hunyuan4: any token suffix', () => {
    const out = '<tool_calls:6124c78e><tool_call:6124c78e>get_weather<arg_key:6124c78e>city</arg_key:6124c78e><arg_value:6124c78e>Oslo</arg_value:6124c78e><arg_key:6124c78e>days</arg_key:6124c78e><arg_value:6124c78e>4</arg_value:6124c78e></tool_call:6124c78e></tool_calls:6124c78e>'
    expect(shape(parseToolCalls(out, { tools }))).toEqual(W('hunyuan4'))
  })
  it("Hy3's released template (:opensource on every token, <tool_sep…> after the name, one pair per line) is read", () => {
    const h = (t: string) => t.replace(/<(\/?)(\w+)>/g, '<$1$2:opensource>')
    const out = h('No need to think further.</think><tool_calls>\n<tool_call>get_weather<tool_sep>\n<arg_key>city</arg_key>\n<arg_value>Oslo</arg_value>\n<arg_key>days</arg_key>\n<arg_value>4</arg_value>\n</tool_call>\n<tool_call>get_time<tool_sep>\n</tool_call>\n</tool_calls>')
    expect(shape(parseToolCalls(out, { tools }))).toEqual([...W('hunyuan4'), ['hunyuan4', 'get_time', {}, true]])
    // The Hy3 hint (hunyuan3, unsuffixed tokens) does not lose them either.
    expect(shape(parseToolCalls(out, { tools, format: 'hy3' }))).toEqual(shape(parseToolCalls(out, { tools })))
  })
  it('hunyuan4: a JSON object after <tool_sep…>, ended by <end_of_tool_call…> (a serving stack\'s Hy3 wire)', () => {
    const call = (args: string) => `<tool_call:opensource>get_weather<tool_sep:opensource>${args}<end_of_tool_call:opensource>`
    const two = 'Checking.\n' + call('{"city": "Oslo", "days": 4}') + call('{"city": "a <end_of_tool_call:opensource> b"}')
    expect(shape(parseToolCalls(two, { tools }))).toEqual([
      ['hunyuan4', 'get_weather', { city: 'Oslo', days: 4 }, true],
      ['hunyuan4', 'get_weather', { city: 'a <end_of_tool_call:opensource> b' }, true],
    ])
    expect(shape(parseToolCalls(two, { tools, format: 'hy_v4' }))).toEqual(shape(parseToolCalls(two, { tools })))
    // Text left between the JSON and the end token, or JSON that does not decode: an invalid call, never a valid one.
    const [glued] = parseToolCalls(call('{"city": "Oslo"} "days": 4'), { tools })
    expect([glued!.argumentsValid, glued!.argumentsError]).toEqual([false, expect.stringContaining('did not read')])
    expect(parseToolCalls(call('{"city": '), { tools }).map((c) => c.argumentsValid)).toEqual([false])
    // Never ended: no call.
    expect(parseToolCalls('<tool_call:opensource>get_weather<tool_sep:opensource>{"city": "Oslo"}', { tools })).toEqual([])
  })
})

describe('GLM pairs: no valid call that lost an argument', () => {
  it('an <arg_value> holding </tool_call> makes the call invalid, with a reason', () => {
    const out = '<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>see </tool_call> here</arg_value>\n</tool_call>'
    const [call] = parseToolCalls(out, { tools })
    expect([call!.name, call!.argumentsValid, call!.arguments]).toEqual(['get_weather', false, {}])
    expect(call!.argumentsError).toMatch(/not closed/)
  })
  it('a stray word between pairs makes the call invalid', () => {
    const out = '<tool_call>get_weather\n<arg_key>city</arg_key><arg_value>Oslo</arg_value> junk <arg_key>days</arg_key><arg_value>4</arg_value>\n</tool_call>'
    expect(parseToolCalls(out, { tools })[0]!.argumentsValid).toBe(false)
  })
})

describe('k2_horizon: reasoning, typed values, json dialect', () => {
  const call = (body: string) => `<ifm|tool_calls>\n<ifm|tool_call>get_weather\n${body}</ifm|tool_call>\n</ifm|tool_calls>`
  const pair = (k: string, v: string, t?: string) =>
    `<ifm|arg_key>${k}</ifm|arg_key>\n${t === undefined ? '' : `<ifm|arg_type>${t}</ifm|arg_type>\n`}<ifm|arg_value>${v}</ifm|arg_value>\n`
  it('a call inside <ifm|think> (any effort) is reasoning; the one after it is the call', () => {
    for (const tag of ['think', 'think_fast', 'think_faster']) {
      const out = `<ifm|${tag}>maybe ${call(pair('city', 'Rome'))}</ifm|${tag}>\n${call(pair('city', 'Oslo') + pair('days', '4'))}`
      expect(shape(parseToolCalls(out, { tools }))).toEqual(W('k2_horizon'))
    }
    // The template opens the block in the prompt: text before a lone close tag is reasoning.
    expect(parseToolCalls(`plan ${call(pair('city', 'Rome'))}</ifm|think>${call(pair('city', 'Oslo') + pair('days', '4'))}`, { tools })).toHaveLength(1)
    // An unclosed block runs to the end: no call.
    expect(parseToolCalls(`<ifm|think>plan ${call(pair('city', 'Rome'))}`)).toEqual([])
  })
  it('<ifm|arg_type> types a value ahead of the schema, and is not text the pairs left over', () => {
    const out = call(pair('city', '12345', 'string') + pair('days', '4', 'integer') + pair('flag', 'true', 'boolean') + pair('opts', '{"a": [1]}', 'object') + pair('note', ' 7 ', 'any'))
    const [c] = parseToolCalls(out)
    expect([c!.format, c!.argumentsValid, c!.arguments]).toEqual(['k2_horizon', true, { city: '12345', days: 4, flag: true, opts: { a: [1] }, note: 7 }])
    // The type tag never closed inside the call: invalid with a reason, not a call that lost an argument.
    const broken = parseToolCalls(call('<ifm|arg_key>city</ifm|arg_key><ifm|arg_type>string<ifm|arg_value>Oslo</ifm|arg_value>'))
    expect([broken[0]!.argumentsValid, broken[0]!.argumentsError]).toEqual([false, expect.stringMatching(/arg_type/)])
  })
  it('string values are kept verbatim, surrounding newlines included', () => {
    const [c] = parseToolCalls(call(pair('city', '\nOslo\n') + pair('days', '\n4\n')), { tools })
    expect(c!.arguments).toEqual({ city: '\nOslo\n', days: 4 })
  })
  it('the json dialect: one object, or a list in one block; undecodable JSON is an invalid call', () => {
    const one = '<ifm|tool_calls><ifm|tool_call>{"name": "get_weather", "arguments": {"city": "Oslo", "days": 4}}</ifm|tool_call></ifm|tool_calls>'
    expect(shape(parseToolCalls(one))).toEqual(W('k2_horizon'))
    const list = '<ifm|tool_call>[{"name": "get_weather", "arguments": {"city": "Oslo", "days": 4}}, {"name": "get_time", "arguments": "{\\"tz\\": \\"CET\\"}"}]</ifm|tool_call>'
    expect(parseToolCalls(list).map((c) => [c.name, c.arguments])).toEqual([['get_weather', { city: 'Oslo', days: 4 }], ['get_time', { tz: 'CET' }]])
    const bad = parseToolCalls('<ifm|tool_call>{"name": "get_weather", "arguments": {"city": </ifm|tool_call>')
    expect(bad.map((c) => [c.format, c.argumentsValid])).toEqual([['k2_horizon', false]])
  })
})

describe('GLM-5.x and LLM-jp: aliases of formats with the same wire bytes', () => {
  it('GLM-5.x calls (GLM-4.7 shape, after reasoning) are detected as glm45 without a hint, and the aliases hint it', () => {
    const out = '<think>the user wants Oslo</think><tool_call>get_weather<arg_key>city</arg_key><arg_value>Oslo</arg_value><arg_key>days</arg_key><arg_value>4</arg_value></tool_call>'
    expect(shape(parseToolCalls(out, { tools }))).toEqual(W('glm45'))
    for (const format of ['glm5', 'glm-5', 'glm51', 'glm52', 'glm53']) expect(shape(parseToolCalls(out, { tools, format }))).toEqual(W('glm45'))
  })
  it('LLM-jp-4.1 Harmony (a space after each special token, <|end|> between parallel calls) is detected as harmony', () => {
    const out =
      '<|channel|> analysis<|message|> Two lookups.<|end|>' +
      '<|start|> assistant to=functions.get_weather<|channel|> commentary json<|message|> {"city": "Oslo", "days": 4}<|end|>' +
      '<|start|> assistant<|channel|> commentary to=functions.get_time <|constrain|> json<|message|> {"tz": "CET"}<|call|>'
    expect(parseToolCalls(out).map((c) => [c.format, c.name, c.arguments, c.argumentsValid])).toEqual([
      ['harmony', 'get_weather', { city: 'Oslo', days: 4 }, true],
      ['harmony', 'get_time', { tz: 'CET' }, true],
    ])
    expect(parseToolCalls(out, { format: 'llmjp4' })).toHaveLength(2)
  })
  it('an empty Harmony body closed by a stop token is a call with {}; one cut off by the end stays invalid', () => {
    const closed = parseToolCalls('<|start|>assistant to=functions.get_time<|channel|>commentary json<|message|><|call|>')
    expect(closed.map((c) => [c.name, c.arguments, c.argumentsValid])).toEqual([['get_time', {}, true]])
    const cut = parseToolCalls('<|start|>assistant to=functions.get_time<|channel|>commentary json<|message|>')
    expect(cut.map((c) => [c.name, c.argumentsValid])).toEqual([['get_time', false]])
  })
  it("a call quoted in LLM-jp's spaced analysis channel is reasoning, not a Hermes call", () => {
    const out = '<|channel|> analysis<|message|> maybe <tool_call>{"name": "get_weather", "arguments": {"city": "Rome"}}</tool_call><|end|><|start|> assistant<|channel|> final<|message|> Done.'
    expect(parseToolCalls(out)).toEqual([])
  })
})

describe('schema typing of raw values: anyOf unions and local $ref', () => {
  const out = '<tool_call>lookup<arg_key>id</arg_key><arg_value>0042</arg_value><arg_key>ref</arg_key><arg_value>77</arg_value><arg_key>n</arg_key><arg_value>null</arg_value></tool_call>'
  it('anyOf [string, null] keeps a numeric-looking string and lets null through; a $ref to a string type keeps text', () => {
    const tools: ToolDefinition[] = [
      {
        type: 'function',
        function: {
          name: 'lookup',
          parameters: {
            type: 'object',
            properties: { id: { anyOf: [{ type: 'string' }, { type: 'null' }] }, ref: { $ref: '#/$defs/Code' }, n: { oneOf: [{ type: 'integer' }, { type: 'null' }] } },
            $defs: { Code: { type: 'string' } },
          },
        },
      },
    ]
    expect(parseToolCalls(out, { tools })[0]!.arguments).toEqual({ id: '0042', ref: '77', n: null })
    // Without the tools the no-schema rule decodes JSON: the schema is what kept them strings.
    expect(parseToolCalls(out)[0]!.arguments).toEqual({ id: '0042', ref: 77, n: null })
  })
  it('a number or boolean parameter written as a JSON string is read from its content; a string parameter keeps the quotes', () => {
    const tools: ToolDefinition[] = [
      { type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { n: { type: 'number' }, b: { type: 'boolean' }, s: { type: 'string' }, x: { type: 'integer' } } } } },
    ]
    const out = '<tool_call>f<arg_key>n</arg_key><arg_value>"42"</arg_value><arg_key>b</arg_key><arg_value>"true"</arg_value><arg_key>s</arg_key><arg_value>"42"</arg_value><arg_key>x</arg_key><arg_value>"many"</arg_value></tool_call>'
    expect(parseToolCalls(out, { tools })[0]!.arguments).toEqual({ n: 42, b: true, s: '"42"', x: '"many"' })
  })
})
