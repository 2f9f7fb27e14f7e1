/**
 * Spellings serving stacks read that lost arguments or calls (PLaMo 3's constraint prefix, XML entities in Kimi K3
 * and Xinference's MiniMax M3, an argument value holding its own end tag, hyphenated pythonic names, the name under
 * `function`, Sarashina's Python-literal list), and complete calls followed by text that could not hold an argument.
 * Written from vLLM's, SGLang's and smg's parsers and tests; the strings are our own. The last block: spellings that
 * ollama's, Xinference's and mlx-lm's tests read and this parser lost (JSON-quoted Gemma strings, DSML without its
 * prefix, a Python-literal call dict, quoted Qwen3-Coder names, GLM's key=value words, MiniMax M3's repeated lists).
 */
import { describe, expect, it } from 'vitest'
import { parseToolCalls } from '../../../src/calls/index.js'
import type { ToolDefinition } from '../../../src/calls/types.js'

type Call = { name: string; arguments: Record<string, unknown>; argumentsValid: boolean; format: string }
const shape = (calls: Call[]) => calls.map((c) => [c.format, c.name, c.arguments, c.argumentsValid])
const tools: ToolDefinition[] = [
  {
    type: 'function',
    function: {
      name: 'search',
      parameters: {
        type: 'object',
        properties: {
          query: { type: 'string' },
          tags: { type: 'array', items: { type: 'string' } },
          filters: { type: 'object', properties: { cities: { type: 'array', items: { type: 'string' } }, n: { type: 'integer' } } },
        },
      },
    },
  },
]

describe('complete calls stay valid whatever follows them that could not hold an argument', () => {
  it("an older template's closing tag, prose, a stray bracket", () => {
    const tz = { tz: 'UTC' }
    expect(shape(parseToolCalls('[TOOL_CALLS] [{"name": "get_time", "arguments": {"tz": "UTC"}}][/TOOL_CALLS]'))).toEqual([['mistral', 'get_time', tz, true]])
    expect(shape(parseToolCalls('[TOOL_CALLS]get_time[ARGS]{"tz": "UTC"} Done.'))).toEqual([['mistral', 'get_time', tz, true]])
    expect(shape(parseToolCalls('[{"name": "get_time", "arguments": {"tz": "UTC"}}]]'))).toEqual([['json', 'get_time', tz, true]])
    expect(shape(parseToolCalls('<tool_call>\n{"name": "get_time", "arguments": {"tz": "UTC"}}}\n</tool_call>'))).toEqual([['hermes', 'get_time', tz, true]])
    expect(shape(parseToolCalls('<tool_call>\n{"name": "get_time", "arguments": {"tz": "UTC"}} I\'ll wait.\n</tool_call>'))).toEqual([['hermes', 'get_time', tz, true]])
    expect(shape(parseToolCalls("<|python_start|>[get_time(tz='UTC')] ok<|python_end|>"))).toEqual([['llama4_pythonic', 'get_time', tz, true]])
  })
  it('text that could hold an argument still makes the call invalid', () => {
    const invalid = (text: string) => expect(parseToolCalls(text).map((c) => c.argumentsValid), text).toEqual([false])
    invalid('[TOOL_CALLS]get_time[ARGS]{"tz": "UTC"}}, "city": "Oslo"}')
    invalid('<tool_call>\n{"name": "get_time", "arguments": {"tz": "UTC"}}\n"city": "Oslo"}}\n</tool_call>')
    invalid('<tool_call>\n{"name": "get_time", "arguments": {"tz": "U"}}\n</tool_call>TC", "city": "Oslo"}}\n</tool_call>')
    invalid('[{"name": "get_time", "arguments": {"tz": "U"}}]TC"}}]')
  })
})

describe('spellings serving stacks read', () => {
  it('plamo3: the constraint prefix between the arguments token and the JSON', () => {
    const t = (s: string) => `<|plamo:${s}:plamo|>`
    const call = (name: string, json: string) =>
      `${t('begin_tool_request')}${t('begin_tool_name')}${name}${t('end_tool_name')}${t('begin_tool_arguments')}<|plamo:constrain|>json<|plamo:msg|>${json}${t('end_tool_arguments')}${t('end_tool_request')}`
    const out = `Checking.${t('begin_tool_requests')}${call('search', '{"query": "fjords"}')}\n${call('search', '{"query": "glaciers", "tags": ["ice"]}')}${t('end_tool_requests')}`
    expect(shape(parseToolCalls(out))).toEqual([
      ['plamo3', 'search', { query: 'fjords' }, true],
      ['plamo3', 'search', { query: 'glaciers', tags: ['ice'] }, true],
    ])
  })
  it('kimi_k3: XML entities in the tool name and keys are decoded; values stay as written', () => {
    const out =
      '<|open|>tools<|sep|><|open|>call tool="q&amp;a" index="0"<|sep|>' +
      '<|open|>argument key="say &quot;hi&quot;" type="string"<|sep|>R&amp;D<|close|>argument<|sep|>' +
      '<|open|>argument key="a&lt;b" type="number"<|sep|>3<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>'
    expect(shape(parseToolCalls(out))).toEqual([['kimi_k3', 'q&a', { 'say "hi"': 'R&amp;D', 'a<b': 3 }, true]])
  })
  it("minimax_m3 as Xinference writes it: entities decoded, nested lists read", () => {
    const out =
      '<minimax:tool_call>\n<invoke name="search">\n<query>R&amp;D &lt;2026&gt; &#228;</query>\n' +
      '<tags><item>a&amp;b</item><item>c</item></tags>\n' +
      '<filters><cities><item>Oslo</item><item>Bergen</item></cities><n>3</n></filters>\n</invoke>\n</minimax:tool_call>'
    expect(shape(parseToolCalls(out, { tools }))).toEqual([
      ['minimax_m3', 'search', { query: 'R&D <2026> ä', tags: ['a&b', 'c'], filters: { cities: ['Oslo', 'Bergen'], n: 3 } }, true],
    ])
  })
  it('glm45 / laguna: an <arg_value> holding its own end tag as text; a stray end tag after one', () => {
    const out =
      '<tool_call>search\n<arg_key>query</arg_key>\n<arg_value>close it with </arg_value> then stop</arg_value>\n' +
      '<arg_key>tags</arg_key>\n<arg_value>["x"]</arg_value></arg_value>\n</tool_call>'
    expect(shape(parseToolCalls(out, { tools }))).toEqual([['glm45', 'search', { query: 'close it with </arg_value> then stop', tags: ['x'] }, true]])
    expect(shape(parseToolCalls(out, { tools, format: 'laguna' }))).toEqual([['glm45', 'search', { query: 'close it with </arg_value> then stop', tags: ['x'] }, true]])
  })
  it('pythonic: tool names with - and .', () => {
    expect(shape(parseToolCalls("[get-forecast(city='Oslo'), mcp.weather.get-alerts(region='north', level=2)]"))).toEqual([
      ['pythonic', 'get-forecast', { city: 'Oslo' }, true],
      ['pythonic', 'mcp.weather.get-alerts', { region: 'north', level: 2 }, true],
    ])
    expect(shape(parseToolCalls("<|tool_call_start|>[get-forecast(city='Oslo')]<|tool_call_end|>"))).toEqual([['lfm2', 'get-forecast', { city: 'Oslo' }, true]])
    // Inside a value, `a-b(...)` is still Python's subtraction, not a call of a hyphenated name.
    expect(parseToolCalls("[f(x=a-b(1))]").map((c) => c.name)).not.toContain('a-b')
  })
  it('the name under "function" as a string', () => {
    expect(shape(parseToolCalls('{"function": "search", "arguments": {"query": "fjords"}}'))).toEqual([['json', 'search', { query: 'fjords' }, true]])
    expect(shape(parseToolCalls('<tool_call>\n{"function": "search", "arguments": {"query": "fjords"}}\n</tool_call>'))).toEqual([['hermes', 'search', { query: 'fjords' }, true]])
  })
  it('sarashina: a Python-literal list of call dicts, with or without <|tool_calls|>', () => {
    expect(shape(parseToolCalls("<|tool_calls|>[{'name': 'search', 'arguments': {'query': 'it\\'s [done]', 'tags': ['a']}}]"))).toEqual([
      ['sarashina', 'search', { query: "it's [done]", tags: ['a'] }, true],
    ])
    expect(shape(parseToolCalls("[{'name': 'search', 'arguments': {'query': 'x'}}, {'name': 'flags', 'arguments': {'a': True, 'b': None}}]"))).toEqual([
      ['sarashina', 'search', { query: 'x' }, true],
      ['sarashina', 'flags', { a: true, b: null }, true],
    ])
    expect(shape(parseToolCalls("Sure.<|tool_calls|>{'name': 'search', 'arguments': {'query': 'x'}}"))).toEqual([['sarashina', 'search', { query: 'x' }, true]])
    // A payload after the token that does not decode (a call is not a literal) may have held calls: one invalid call.
    expect(shape(parseToolCalls("<|tool_calls|>[{'name': 'search', 'arguments': {'query': run('x')}}]"))).toEqual([['sarashina', '', {}, false]])
    // Without the token: only a leading list of dicts, each with its arguments.
    expect(parseToolCalls('[1, 2, 3]')).toEqual([])
    expect(parseToolCalls("Here: [{'name': 'search', 'arguments': {}}]")).toEqual([])
  })
})

describe("spellings from more serving stacks' tests (ollama, Xinference, mlx-lm)", () => {
  it('gemma4 / functiongemma: a value or key in JSON double quotes is a JSON string, its , } ] are text', () => {
    const out = '<|tool_call>call:search{query:"fjords, lakes}",tags:["north]", "a \\"b\\""],"filters":{cities:["Bergen"]}}<tool_call|>'
    expect(shape(parseToolCalls(out))).toEqual([
      ['gemma4', 'search', { query: 'fjords, lakes}', tags: ['north]', 'a "b"'], filters: { cities: ['Bergen'] } }, true],
    ])
    // Mixed with the dialect's own quote token; a number in JSON quotes stays a string without a schema.
    expect(shape(parseToolCalls('<|tool_call>call:f{a:<|"|>x, y<|"|>,b:"7"}<tool_call|>'))).toEqual([['gemma4', 'f', { a: 'x, y', b: '7' }, true]])
    expect(shape(parseToolCalls('<start_function_call>call:f{b:"7",c:"p, q"}<end_function_call>'))).toEqual([['functiongemma', 'f', { b: '7', c: 'p, q' }, true]])
    // Never closed, or a bad escape: the arguments are not read (invalid), never cut at the comma.
    expect(shape(parseToolCalls('<|tool_call>call:f{a:"x, b:1}<tool_call|>'))).toEqual([['gemma4', 'f', {}, false]])
    expect(shape(parseToolCalls('<|tool_call>call:f{a:"x\\q"}<tool_call|>'))).toEqual([['gemma4', 'f', {}, false]])
    expect(parseToolCalls('<|tool_call>call:f{a:"x, b:1}<tool_call|>')[0]?.argumentsError).toMatch(/unterminated string/)
  })
  it('deepseek_v32: plain tags where the DSML prefix was dropped, inside <function_calls> only', () => {
    const plain =
      'Checking.\n<function_calls>\n<invoke name="search">\n<parameter name="query" string="true">Tromsø</parameter>\n' +
      '<parameter name="filters" string="false">{"n": 2}</parameter>\n</invoke>\n<invoke name="clock">\n</invoke>\n</function_calls>'
    expect(shape(parseToolCalls(plain))).toEqual([
      ['deepseek_v32', 'search', { query: 'Tromsø', filters: { n: 2 } }, true],
      ['deepseek_v32', 'clock', {}, true],
    ])
    expect(shape(parseToolCalls(plain, { format: 'deepseek_v32' }))).toHaveLength(2)
    // No string attribute: the schema decides; a tag outside the block is prose; OLMo 3's block is still OLMo 3's.
    expect(shape(parseToolCalls('<function_calls><invoke name="search"><parameter name="tags">["a"]</parameter></invoke></function_calls>', { tools }))).toEqual([
      ['deepseek_v32', 'search', { tags: ['a'] }, true],
    ])
    expect(parseToolCalls('Write <invoke name="search"> in the docs.')).toEqual([])
    expect(shape(parseToolCalls("<function_calls>search(query='x')</function_calls>"))).toEqual([['olmo3', 'search', { query: 'x' }, true]])
    // A parameter that never closes before the end: the call is not trusted.
    expect(shape(parseToolCalls('<function_calls><invoke name="search"><parameter name="query" string="true">fj'))).toEqual([['deepseek_v32', 'search', {}, false]])
  })
  it('minimax_m3: a repeated tag is the list of its values, a first value that is a list included', () => {
    const NS = ']<]minimax[>['
    expect(shape(parseToolCalls('<minimax:tool_call><invoke name="route"><stop><item>Oslo</item></stop><stop><item>Bergen</item><item>Voss</item></stop><stop>Flåm</stop></invoke></minimax:tool_call>'))).toEqual([
      ['minimax_m3', 'route', { stop: [['Oslo'], ['Bergen', 'Voss'], 'Flåm'] }, true],
    ])
    const tag = (t: string, v: string) => `${NS}<${t}>${v}${NS}</${t}>`
    const out = `${NS}<tool_call>${NS}<invoke name="route">${tag('leg', tag('item', '1'))}${tag('leg', tag('item', '2'))}${tag('via', 'a')}${tag('via', 'b')}${NS}</invoke>${NS}</tool_call>`
    expect(shape(parseToolCalls(out))).toEqual([['minimax_m3', 'route', { leg: [[1], [2]], via: ['a', 'b'] }, true]])
  })
  it('qwen3_coder / seed_oss: a quoted function or parameter name is kept, quotes and all, never dropped', () => {
    const out = '<tool_call>\n<function="search">\n<parameter="query">\nfjords\n</parameter>\n</function>\n</tool_call>'
    expect(shape(parseToolCalls(out))).toEqual([['qwen3_coder', '"search"', { '"query"': 'fjords' }, true]])
    expect(shape(parseToolCalls('<seed:tool_call><function="search"><parameter=query>x</parameter></function></seed:tool_call>'))).toEqual([
      ['seed_oss', '"search"', { query: 'x' }, true],
    ])
  })
  it('glm45: a name then key=value words; other text after a name, or no name, is an invalid call, not nothing', () => {
    expect(shape(parseToolCalls('<tool_call>search query="north cape" limit=3 tag=\'a b\'</tool_call>'))).toEqual([
      ['glm45', 'search', { query: 'north cape', limit: 3, tag: 'a b' }, true],
    ])
    // Typed by the schema like <arg_value> text: a string parameter keeps digits as text.
    expect(shape(parseToolCalls('<tool_call>search query=1905</tool_call>', { tools }))).toEqual([['glm45', 'search', { query: '1905' }, true]])
    expect(shape(parseToolCalls('<tool_call>search the fjords</tool_call>'))).toEqual([['glm45', 'search', {}, false]])
    expect(shape(parseToolCalls('<tool_call>search query="never closed</tool_call>'))).toEqual([['glm45', 'search', {}, false]])
    // Arguments with no name before them, or an odd name: the call is kept (LocalAI's tests write the first).
    expect(shape(parseToolCalls('<tool_call><arg_key>query</arg_key><arg_value>x</arg_value></tool_call>'))).toEqual([['glm45', '', {}, false]])
    expect(shape(parseToolCalls('<tool_call>web search<arg_key>query</arg_key><arg_value>x</arg_value></tool_call>'))).toEqual([['glm45', 'web search', { query: 'x' }, true]])
  })
  it('sarashina: a leading Python-literal call dict, with arguments or parameters', () => {
    expect(shape(parseToolCalls("{'name': 'search', 'parameters': {'query': 'x', 'exact': True, 'limit': None}}"))).toEqual([
      ['sarashina', 'search', { query: 'x', exact: true, limit: null }, true],
    ])
    expect(shape(parseToolCalls("  {'name': 'search', 'arguments': {}} and done"))).toEqual([['sarashina', 'search', {}, true]])
    // Not a call: no arguments (and no offered tool of that name), or not leading the output.
    expect(parseToolCalls("{'name': 'search'}")).toEqual([])
    expect(parseToolCalls("Like {'name': 'search', 'arguments': {}} this.")).toEqual([])
  })
})
