/**
 * The templates added in parser v2 (issue 13): LongCat's XML variant, Hunyuan 3, MiniMax M3, Kimi K3 and MiniCPM 5.
 * Test strings are our own, written from each template's shape (see each format file for its sources).
 */
import { describe, expect, it } from 'vitest'
import { FORMATS, parseToolCalls } from '../../../src/calls/index.js'
import type { ToolDefinition } from '../../../src/calls/types.js'

const shape = (calls: { name: string; arguments: Record<string, unknown>; argumentsValid: boolean; format: string }[]) =>
  calls.map((c) => [c.format, c.name, c.arguments, c.argumentsValid])
const tools: ToolDefinition[] = [
  { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } } } } },
]

describe('LongCat XML variant', () => {
  it('reads the name and key/value pairs of each block, typing values', () => {
    const out =
      'Let me check.\n<longcat_tool_call>get_weather\n<longcat_arg_key>city</longcat_arg_key>\n<longcat_arg_value>Paris</longcat_arg_value>\n' +
      '<longcat_arg_key>days</longcat_arg_key>\n<longcat_arg_value>3</longcat_arg_value>\n</longcat_tool_call>\n' +
      '<longcat_tool_call>get_time</longcat_tool_call>'
    expect(shape(parseToolCalls(out, { tools }))).toEqual([
      ['longcat_xml', 'get_weather', { city: 'Paris', days: 3 }, true],
      ['longcat_xml', 'get_time', {}, true],
    ])
  })
  it('leaves JSON blocks to the JSON variant', () => {
    const out = '<longcat_tool_call>{"name": "f", "arguments": {"a": 1}}</longcat_tool_call>'
    expect(shape(parseToolCalls(out))).toEqual([['longcat', 'f', { a: 1 }, true]])
  })
})

describe('Hunyuan 3', () => {
  it('reads NAME<tool_sep> and the pairs, in newline and inline layouts, zero-argument calls included', () => {
    const out =
      '<tool_calls>\n<tool_call>get_weather<tool_sep>\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>\n' +
      '<tool_call>click<tool_sep><arg_key>points</arg_key><arg_value>[[320, 640]]</arg_value></tool_call>' +
      '<tool_call>get_current_date<tool_sep></tool_call>\n</tool_calls>'
    expect(shape(parseToolCalls(out))).toEqual([
      ['hunyuan3', 'get_weather', { city: 'Paris' }, true],
      ['hunyuan3', 'click', { points: [[320, 640]] }, true],
      ['hunyuan3', 'get_current_date', {}, true],
    ])
  })
  it('an unclosed block is no call', () => {
    expect(parseToolCalls('<tool_calls><tool_call>f<tool_sep><arg_key>a</arg_key><arg_value>1')).toEqual([])
  })
})

describe('MiniMax M3', () => {
  const NS = ']<]minimax[>['
  it('reads tags named after each key, NS-prefixed, nested objects and <item> arrays', () => {
    const out =
      `Checking.\n${NS}<tool_call>\n${NS}<invoke name="get_weather">${NS}<city>Paris${NS}</city>${NS}<days>2${NS}</days>` +
      `${NS}<opts>${NS}<unit>C${NS}</unit>${NS}<hours>${NS}<item>9${NS}</item>${NS}<item>12${NS}</item>${NS}</hours>${NS}</opts>` +
      `${NS}</invoke>\n${NS}<invoke name="ping">${NS}</invoke>\n${NS}</tool_call>`
    expect(shape(parseToolCalls(out, { tools }))).toEqual([
      ['minimax_m3', 'get_weather', { city: 'Paris', days: 2, opts: { unit: 'C', hours: [9, 12] } }, true],
      ['minimax_m3', 'ping', {}, true],
    ])
  })
  it("reads Xinference's form without NS, which M2 must not read as a call without arguments", () => {
    const out = '<minimax:tool_call>\n<invoke name="search"><query>weather Paris</query><limit>6</limit></invoke>\n</minimax:tool_call>'
    expect(shape(parseToolCalls(out))).toEqual([['minimax_m3', 'search', { query: 'weather Paris', limit: 6 }, true]])
  })
  it('accepts a plain closer inside an NS value; a stray word makes the call invalid', () => {
    const ok = `${NS}<tool_call>${NS}<invoke name="search">${NS}<query>news</query>${NS}<sources>web</sources>${NS}</invoke>${NS}</tool_call>`
    expect(shape(parseToolCalls(ok))).toEqual([['minimax_m3', 'search', { query: 'news', sources: 'web' }, true]])
    const bad = `${NS}<tool_call>${NS}<invoke name="search">${NS}<query>news${NS}</query> oops ${NS}<n>1${NS}</n>${NS}</invoke>${NS}</tool_call>`
    const [call] = parseToolCalls(bad)
    expect([call!.argumentsValid, typeof call!.argumentsError]).toEqual([false, 'string'])
  })
  it('MiniMax M2 output still reads as M2', () => {
    const out = '<minimax:tool_call>\n<invoke name="f">\n<parameter name="a">x</parameter>\n</invoke>\n</minimax:tool_call>'
    expect(shape(parseToolCalls(out))).toEqual([['minimax_m2', 'f', { a: 'x' }, true]])
  })
})

describe('Kimi K3', () => {
  it('reads calls and typed arguments of the <|open|>tools<|sep|> section', () => {
    const out =
      'I will look.<|open|>tools<|sep|>' +
      '<|open|>call tool="get_weather" index="0"<|sep|>' +
      '<|open|>argument key="city" type="string"<|sep|>42<|close|>argument<|sep|>' +
      '<|open|>argument key="days" type="number"<|sep|>3<|close|>argument<|sep|>' +
      '<|open|>argument key="opts" type="object"<|sep|>{"metric": true}<|close|>argument<|sep|>' +
      '<|close|>call<|sep|>' +
      '<|open|>call tool="ping" index="1"<|sep|><|close|>call<|sep|>' +
      '<|close|>tools<|sep|>'
    expect(shape(parseToolCalls(out))).toEqual([
      ['kimi_k3', 'get_weather', { city: '42', days: 3, opts: { metric: true } }, true],
      ['kimi_k3', 'ping', {}, true],
    ])
  })
  it('tolerates closing tags without <|sep|> and a JSON body', () => {
    const out =
      '<|open|>tools<|sep|><|open|>call tool="get_weather"<|sep|><|open|>argument key="city"<|sep|>Paris<|close|>argument<|close|>call' +
      '<|open|>call tool="f"<|sep|>{"a": [1, 2]}<|close|>call'
    expect(shape(parseToolCalls(out))).toEqual([
      ['kimi_k3', 'get_weather', { city: 'Paris' }, true],
      ['kimi_k3', 'f', { a: [1, 2] }, true],
    ])
  })
})

describe('MiniCPM 5', () => {
  it('reads <function name=...> elements with <param name=...> values', () => {
    const out =
      '<tool_call><function name="get_weather"><param name="city">Paris</param><param name="days">5</param></function></tool_call>\n' +
      '<function name="list_mailboxes"></function>'
    expect(shape(parseToolCalls(out, { tools }))).toEqual([
      ['minicpm5', 'get_weather', { city: 'Paris', days: 5 }, true],
      ['minicpm5', 'list_mailboxes', {}, true],
    ])
  })
  it('unwraps CDATA and trims values', () => {
    const out = '<function name="get_weather"><param name="city"><![CDATA[北\n京]]></param><param name="days"> 3 </param></function>'
    expect(shape(parseToolCalls(out, { tools }))).toEqual([['minicpm5', 'get_weather', { city: '北\n京', days: 3 }, true]])
  })
  it('does not claim Qwen3-Coder XML', () => {
    const out = '<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>'
    expect(parseToolCalls(out)[0]!.format).toBe('qwen3_coder')
  })
})

describe('format names and hints', () => {
  it('every name and alias names one format', () => {
    const seen = new Map<string, string>()
    for (const f of FORMATS) {
      for (const n of [f.name, ...(f.aliases ?? [])]) {
        expect(seen.get(n), `${n} is declared by ${seen.get(n)} and ${f.name}`).toBeUndefined()
        seen.set(n, f.name)
      }
    }
  })

  it('a wrong hint that reads a block as one unnamed call gives way to detection', () => {
    // Hunyuan 3 output hinted as Hunyuan-A13B's `<tool_calls>` list: that format reads one call with no name.
    const out =
      '<tool_calls>\n<tool_call>get_weather<tool_sep>\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>\n</tool_calls>'
    const detected = parseToolCalls(out)
    expect(detected.map((c) => [c.format, c.name])).toEqual([['hunyuan3', 'get_weather']])
    expect(FORMATS.find((f) => f.name === 'tool_calls_tag')!.parse(out, {}).map((c) => c.name)).toEqual([''])
    expect(parseToolCalls(out, { format: 'hunyuan' })).toEqual(detected)
  })
})

describe('Seed-OSS reasoning', () => {
  it('a call inside <seed:think> is no call for any format', () => {
    const call = '<seed:tool_call>\n<function=f>\n<parameter=a>1</parameter>\n</function>\n</seed:tool_call>'
    expect(parseToolCalls(`<seed:think>I could call ${call}</seed:think>Answer.`)).toEqual([])
    expect(parseToolCalls(`<seed:think>Let me call it.</seed:think>${call}`).map((c) => [c.format, c.name])).toEqual([['seed_oss', 'f']])
  })
})

describe('Apriel reasoning', () => {
  it('a call before [BEGIN FINAL RESPONSE] is reasoning for every format', () => {
    const block = '<tool_calls>[{"name": "f", "arguments": {"x": 1}}]</tool_calls>'
    expect(parseToolCalls(`${block} thinking it over... [BEGIN FINAL RESPONSE] No tool needed.`)).toEqual([])
    const after = parseToolCalls(`I'm thinking\n[BEGIN FINAL RESPONSE]\n${block}`)
    expect(after.map((c) => [c.format, c.name, c.arguments])).toEqual([['tool_calls_tag', 'f', { x: 1 }]])
  })
})
