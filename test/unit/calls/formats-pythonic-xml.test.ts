/**
 * Pythonic formats (pythonic, llama4_pythonic, llama3_builtin, olmo3, lfm2) and XML-style formats (qwen3_coder,
 * seed_oss, minimax_m2, step3, glm45/glm47, gemma4, functiongemma): the shared corpus, the contested and deviating
 * cases as explicit decisions, schema typing, adversarial input, and rendering.
 */
import { describe, expect, it } from 'vitest'
import { FORMATS, getFormat, parseToolCalls } from '../../../src/calls/index.js'
import { typeValue, untypedValue } from '../../../src/calls/schema-values.js'
import type { FormatParser, ToolCall, ToolDefinition } from '../../../src/calls/types.js'
import { actualCalls, corpusAvailable, expectedCalls, loadCorpus, toolsOf, type CorpusCase } from '../../corpus.js'

const MY_FORMATS = [
  'pythonic',
  'llama4_pythonic',
  'llama3_builtin',
  'olmo3',
  'lfm2',
  'qwen3_coder',
  'seed_oss',
  'minimax_m2',
  'step3',
  'glm45',
  'glm47',
  'gemma4',
  'functiongemma',
]

type Calls = { name: string; arguments: unknown }[]

/**
 * Contested cases: the choice made, documented in each format's file. Keyed by case id; the value is what the parser
 * returns (with the format hint and the case's tools).
 */
const CONTESTED: Record<string, Calls> = {
  // Streamed in chunks by the engine; the whole text here gives the call.
  'sglang-pythonic-4': [{ name: 'get_weather', arguments: { location: 'Paris' } }],
  'sglang-pythonic-12': [{ name: 'get_weather', arguments: { location: 'Tokyo', data: [1, 2, 3] } }],
  // Truncated outputs: an incomplete call is not a call.
  'sglang-pythonic-8': [],
  'llamacpp-lfm2-14': [],
  'llamacpp-seed_oss-6': [],
  'llamacpp-seed_oss-7': [],
  'sglang-qwen3_coder-11': [],
  'vllm-step3-7': [],
  // Unterminated `<arg_key>`: it may have held an argument, so the call's arguments are invalid (`{}`), not a
  // valid call missing one (issue 22's rule).
  'vllm-glm45-5': [{ name: 'get_weather', arguments: {} }],
  // Engines disagree or xfail; the lenient reading is kept.
  'sglang-qwen3_coder-5': [{ name: 'get_current_weather', arguments: { location: 'Boston', unit: 'celsius' } }],
  'vllm-step3-2': [{ name: 'get_weather', arguments: { city: 'Tokyo' } }],
  'vllm-step3-3': [
    { name: 'get_weather', arguments: { city: 'Tokyo' } },
    { name: 'get_time', arguments: { timezone: 'Asia/Tokyo' } },
  ],
  'vllm-step3-8': [{ name: 'func', arguments: {} }],
  'vllm-functiongemma-6': [{ name: 'get_weather', arguments: { city: 'NYC', unit: 'celsius' } }],
  // Reasoning-only outputs: nothing to call.
  'llamacpp-qwen3_coder-23': [],
  'llamacpp-gemma4-2': [],
}

/**
 * Clean cases where this project deliberately differs from the engine the case comes from (see the format files).
 */
const DEVIATIONS: Record<string, { calls: Calls; why: string }> = {
  'llamacpp-lfm2-13': {
    calls: [{ name: 'python', arguments: { code: "def hello():\n    print('hey')" } }],
    why: 'Python string escapes are decoded as Python does; llama.cpp keeps "\\n" literally',
  },
  'sglang-lfm2-12': {
    calls: [{ name: 'unknown_function', arguments: { arg: 'value' } }],
    why: 'calls to unknown functions are kept for the scorer; sglang drops them (no tools are given)',
  },
  'sglang-glm45-3': {
    calls: [{ name: 'invalid_func', arguments: { city: 'Beijing' } }],
    why: 'calls to unknown functions are kept for the scorer; sglang drops them (no tools are given)',
  },
  'sglang-glm47-3': {
    calls: [{ name: 'invalid_func', arguments: { city: 'Beijing' } }],
    why: 'calls to unknown functions are kept for the scorer; sglang drops them (no tools are given)',
  },
}

const cases = loadCorpus().filter((c) => MY_FORMATS.includes(c.format))
const clean = cases.filter((c) => !c.contested && !(c.id in DEVIATIONS))

/** Names and arguments only (what the tables below state). */
function brief(calls: readonly ToolCall[]): Calls {
  return calls.map((c) => ({ name: c.name, arguments: c.arguments }))
}

function hinted(c: CorpusCase): ToolCall[] {
  return parseToolCalls(c.text, { format: c.format, tools: toolsOf(c) })
}

describe.skipIf(!corpusAvailable)('corpus: pythonic and XML-style formats', () => {
  it('covers every case of these formats, and every contested one is decided', () => {
    expect(cases.length).toBeGreaterThan(200)
    const contested = cases.filter((c) => c.contested).map((c) => c.id)
    expect(contested.sort()).toEqual(Object.keys(CONTESTED).sort())
    for (const id of Object.keys(DEVIATIONS)) expect(cases.find((c) => c.id === id)?.contested).toBeFalsy()
  })
  it('every corpus format name reaches its parser', () => {
    for (const f of MY_FORMATS) expect(getFormat(f), f).toBeDefined()
    expect(getFormat('glm47')).toBe(getFormat('glm45'))
  })
  it.for(clean.map((c) => [c.id, c] as const))('%s (format hint)', ([, c]) => {
    expect(actualCalls(hinted(c))).toEqual(expectedCalls(c))
  })
  it.for(clean.map((c) => [c.id, c] as const))('%s (detected)', ([, c]) => {
    expect(actualCalls(parseToolCalls(c.text, { tools: toolsOf(c) }))).toEqual(expectedCalls(c))
  })
  it.for(Object.entries(CONTESTED))('contested %s', ([id, calls]) => {
    const c = cases.find((x) => x.id === id)!
    expect(brief(hinted(c))).toEqual(calls)
  })
  it.for(Object.entries(DEVIATIONS))('deviation %s', ([id, { calls }]) => {
    const c = cases.find((x) => x.id === id)!
    expect(brief(hinted(c))).toEqual(calls)
  })
})

function parseWith(format: string, text: string, tools?: ToolDefinition[]): Calls {
  return brief(getFormat(format)!.parse(text, { tools }))
}

function tool(name: string, props: Record<string, unknown>): ToolDefinition {
  return { type: 'function', function: { name, parameters: { type: 'object', properties: props as never } } }
}

describe('pythonic formats', () => {
  it('find call lists in prose but never claim prose or JSON', () => {
    expect(parseWith('pythonic', 'See [the docs] and [1, 2] or [x for x in y].')).toEqual([])
    expect(parseWith('pythonic', '[{"name": "f", "arguments": {}}]')).toEqual([])
    expect(parseWith('pythonic', 'Use f(a=1) here')).toEqual([])
    expect(parseWith('pythonic', 'a [f(a=1)] b [broken(x=] c [g(b=True, c=null, d=2.0)]')).toEqual([
      { name: 'f', arguments: { a: 1 } },
      { name: 'g', arguments: { b: true, c: null, d: 2 } },
    ])
  })
  it('keep float forms, drop positional arguments, turn bare names into strings', () => {
    const [c] = getFormat('pythonic')!.parse("[f(1, x=3.0, unit=celsius, y=-(3+4)/2, when=dt(2024, 1, 2))]", {})
    expect(c).toMatchObject({ name: 'f', arguments: { x: 3, unit: 'celsius', y: -3.5, when: 'dt(2024, 1, 2)' }, floatPaths: ['/x'] })
  })
  it('llama3_builtin reads NAME.call(...) only', () => {
    expect(parseWith('llama3_builtin', '<|python_tag|>brave_search.call(query="x")<|eom_id|>')).toEqual([
      { name: 'brave_search', arguments: { query: 'x' } },
    ])
    expect(parseWith('llama3_builtin', '<|python_tag|>{"name": "f", "parameters": {}}')).toEqual([])
    expect(parseWith('llama3_builtin', '<|python_tag|>print("hi")')).toEqual([])
  })
  it('olmo3 keeps the calls before a broken one, and reads a block without its end tag', () => {
    expect(parseWith('olmo3', '<function_calls>f(a=1)\ng(b=\nh(c=3)</function_calls>')).toEqual([{ name: 'f', arguments: { a: 1 } }])
    expect(parseWith('olmo3', '<function_calls>f(a=true)\n[g(b=null)]')).toEqual([
      { name: 'f', arguments: { a: true } },
      { name: 'g', arguments: { b: null } },
    ])
  })
  it('llama4_pythonic reads inside the markers, also a bare call', () => {
    expect(parseWith('llama4_pythonic', 'x <|python_start|>f(a=1), g(b=2)<|python_end|> y')).toEqual([
      { name: 'f', arguments: { a: 1 } },
      { name: 'g', arguments: { b: 2 } },
    ])
  })
  it('lfm2 reads JSON with parameters and keeps its float forms', () => {
    const [c] = getFormat('lfm2')!.parse('<|tool_call_start|>[{"name": "f", "parameters": {"x": 2.0}}]<|tool_call_end|>', {})
    expect(c).toMatchObject({ name: 'f', arguments: { x: 2 }, floatPaths: ['/x'] })
  })
})

describe('XML value typing (schema-values)', () => {
  it('types by schema, keeping text that does not fit', () => {
    expect(typeValue('5123123', { type: 'string' })).toEqual({ value: '5123123' })
    expect(typeValue('42', { type: 'integer' })).toEqual({ value: 42 })
    expect(typeValue('3.0', { type: 'number' })).toEqual({ value: 3, floatPaths: [''] })
    expect(typeValue('True', { type: 'boolean' })).toEqual({ value: true })
    expect(typeValue("{'k': [1, 2.0]}", { type: 'object' })).toEqual({ value: { k: [1, 2] }, floatPaths: ['/k/1'] })
    expect(typeValue('[{\\"a\\": \\"C:\\\\\\\\x\\"}]', { type: 'array' })).toEqual({ value: [{ a: 'C:\\x' }] })
    expect(typeValue('null', { type: ['integer', 'null'] })).toEqual({ value: null })
    expect(typeValue('null', { type: 'string' })).toEqual({ value: 'null' })
    expect(typeValue('7', { type: ['integer', 'string'] })).toEqual({ value: 7 })
    expect(typeValue('seven', { type: 'integer' })).toEqual({ value: 'seven' })
    expect(typeValue('"foo"', { type: 'string' })).toEqual({ value: '"foo"' })
    expect(typeValue('celsius', { enum: ['celsius', 'fahrenheit'] })).toEqual({ value: 'celsius' })
  })
  it('without a schema decodes valid JSON and keeps other text', () => {
    expect(untypedValue('30')).toEqual({ value: 30 })
    expect(untypedValue('1.0')).toEqual({ value: 1, floatPaths: [''] })
    expect(untypedValue('"From Zero" Linkin Park')).toEqual({ value: '"From Zero" Linkin Park' })
    expect(untypedValue('True')).toEqual({ value: 'True' })
  })
  it('qwen3_coder: the same text becomes a string or a number by schema; float paths come through', () => {
    const text = '<tool_call>\n<function=f>\n<parameter=a>\n12\n</parameter>\n<parameter=b>\n2.0\n</parameter>\n</function>\n</tool_call>'
    expect(parseWith('qwen3_coder', text, [tool('f', { a: { type: 'string' }, b: { type: 'number' } })])).toEqual([
      { name: 'f', arguments: { a: '12', b: 2 } },
    ])
    expect(getFormat('qwen3_coder')!.parse(text, {})[0]).toMatchObject({ arguments: { a: 12, b: 2 }, floatPaths: ['/b'] })
  })
  it("qwen3_coder keeps a value's own whitespace: only one newline each side goes (vLLM, SGLang)", () => {
    const call = (v: string) => `<tool_call>\n<function=f>\n<parameter=a>\n${v}\n</parameter>\n</function>\n</tool_call>`
    const s = [tool('f', { a: { type: 'string' } })]
    expect(parseWith('qwen3_coder', call('   indented first line'), s)).toEqual([{ name: 'f', arguments: { a: '   indented first line' } }])
    expect(parseWith('qwen3_coder', call('poem line\n'), s)).toEqual([{ name: 'f', arguments: { a: 'poem line\n' } }])
    expect(parseWith('qwen3_coder', call('\n\tx = 1  '), s)).toEqual([{ name: 'f', arguments: { a: '\n\tx = 1  ' } }])
    // A closer indented on its own line is pretty-printed layout, trimmed as llama.cpp does.
    const pretty = '<tool_call>\n  <function=f>\n    <parameter=a>\n      spaced out\n    </parameter>\n  </function>\n</tool_call>'
    expect(parseWith('qwen3_coder', pretty, s)).toEqual([{ name: 'f', arguments: { a: 'spaced out' } }])
  })
  it('gemma4 and functiongemma: schema types quoted strings and bare scalars', () => {
    const tools = [tool('f', { n: { type: 'integer' }, s: { type: 'string' } })]
    expect(parseWith('gemma4', '<|tool_call>call:f{n:<|"|>42<|"|>,s:17}<tool_call|>', tools)).toEqual([
      { name: 'f', arguments: { n: 42, s: '17' } },
    ])
    expect(parseWith('gemma4', '<|tool_call>call:f{n:<|"|>42<|"|>}<tool_call|>')).toEqual([{ name: 'f', arguments: { n: '42' } }])
    expect(parseWith('functiongemma', '<start_function_call>call:f{n:<escape>42<escape>,s:<escape>17<escape>}<end_function_call>', tools)).toEqual([
      { name: 'f', arguments: { n: 42, s: '17' } },
    ])
  })
  it('gemma4 ignores calls in the thought channel and marks unreadable arguments invalid', () => {
    expect(parseWith('gemma4', '<|channel>thought\n<|tool_call>call:f{}<tool_call|><channel|>ok')).toEqual([])
    const [c] = getFormat('gemma4')!.parse('<|tool_call>call:f{a:<|"|>open}<tool_call|>', {})
    expect(c).toMatchObject({ name: 'f', arguments: {}, argumentsValid: false })
  })
})

describe('shared tags: the XML formats leave JSON-in-tags alone', () => {
  const hermesLike = [
    '<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>',
    '<tool_call> [{"name": "f", "arguments": {}}]</tool_call>',
    '<function=f>{"a": 1}</function>',
  ]
  it.for(['qwen3_coder', 'glm45', 'seed_oss', 'minimax_m2', 'step3'])('%s', (f) => {
    for (const t of hermesLike) expect(parseWith(f, t)).toEqual([])
  })
  it('qwen3_coder and glm do not claim each other', () => {
    expect(parseWith('glm45', '<tool_call>\n<function=f>\n<parameter=a>1</parameter>\n</function>\n</tool_call>')).toEqual([])
    expect(parseWith('qwen3_coder', '<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n</tool_call>')).toEqual([])
  })
})

const mine = (): FormatParser[] => FORMATS.filter((f) => MY_FORMATS.includes(f.name))

describe('adversarial input: no throw, sane results', () => {
  const big = 200_000
  const inputs: [string, string][] = [
    ['unclosed brackets', '['.repeat(big)],
    ['open parens after a name', '[f('.repeat(big / 3)],
    ['stray quotes', `[f(a='`.repeat(big / 6)],
    ['unclosed <tool_call>', '<tool_call>'.repeat(big / 11)],
    ['unclosed <function=', '<function=f>'.repeat(big / 12)],
    ['unclosed parameters', '<tool_call><function=f>' + '<parameter=a>'.repeat(big / 13)],
    ['unclosed arg keys', '<tool_call>f' + '<arg_key>k'.repeat(big / 10) + '</tool_call>'],
    ['unclosed invokes', '<minimax:tool_call>' + '<invoke name="f">'.repeat(big / 17)],
    ['unclosed steptml', '<steptml:invoke name="f">'.repeat(big / 25)],
    ['gemma nesting', '<|tool_call>call:f{a:' + '['.repeat(big) + '<tool_call|>'],
    ['gemma open strings', '<|tool_call>call:f{a:<|"|>'.repeat(big / 25)],
    ['functiongemma open', '<start_function_call>call:f{'.repeat(big / 28)],
    ['lfm2 blocks', '<|tool_call_start|>[f(a='.repeat(big / 24)],
    ['olmo blocks', '<function_calls>f(a=\'\'\''.repeat(big / 22)],
    ['python tags', '<|python_tag|>x.call(a='.repeat(big / 23)],
  ]
  it.for(inputs)('%s', ([, text]) => {
    for (const f of mine()) {
      const out = f.parse(text, {})
      expect(Array.isArray(out), f.name).toBe(true)
      for (const c of out) expect(typeof c.name).toBe('string')
    }
    expect(Array.isArray(parseToolCalls(text))).toBe(true)
  })
  it('many complete calls still all come back', () => {
    const n = 2000
    expect(parseWith('qwen3_coder', '<tool_call><function=f><parameter=a>1</parameter></function></tool_call>'.repeat(n))).toHaveLength(n)
    expect(parseWith('pythonic', '[f(a=1)] '.repeat(n))).toHaveLength(n)
    expect(parseWith('glm45', '<tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>'.repeat(n))).toHaveLength(n)
  })
})

describe('render: parse(render(calls)) gives the calls back, also through detection', () => {
  const calls = [
    { name: 'get_weather', arguments: { city: 'São Paulo', days: 3, note: 'it\'s "ok" \\ done', ratio: 0.25 } },
    { name: 'set_flags', arguments: { on: true, off: false, tags: ['a', 'b'], conf: { depth: 2, label: 'x y' } } },
    { name: 'ping', arguments: {} },
  ]
  const tools = [
    tool('get_weather', { city: { type: 'string' }, days: { type: 'integer' }, note: { type: 'string' }, ratio: { type: 'number' } }),
    tool('set_flags', { on: { type: 'boolean' }, off: { type: 'boolean' }, tags: { type: 'array' }, conf: { type: 'object' } }),
    tool('ping', {}),
  ]
  it.for(MY_FORMATS.filter((f) => f !== 'glm47'))('%s', (name) => {
    const f = getFormat(name)!
    const text = f.render!(calls)
    expect(brief(f.parse(text, { tools }))).toEqual(calls)
    expect(brief(parseToolCalls(text, { tools }))).toEqual(calls)
  })
})
