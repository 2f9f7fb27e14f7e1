/**
 * The JSON-based wire formats: Hermes / Qwen (and Granite 4), Llama 3 JSON, Mistral, Granite 3.x, Granite-20B-FC,
 * functools, InternLM2, Functionary v3.1 / v3.2 and the generic JSON fallback (xLAM, constrained arrays, llama.cpp
 * generic, OpenAI-shaped objects). Corpus cases with and without the format hint, the choices made for contested
 * cases, NeMo's behaviours and the NeMo flaws fixed, and render round trips.
 */
import { describe, expect, it } from 'vitest'
import { getFormat, parseToolCalls } from '../../../src/calls/index.js'
import type { ToolCall, ToolDefinition } from '../../../src/calls/types.js'
import { actualCalls, corpusAvailable, expectedCalls, loadCorpus, toolsOf } from '../../corpus.js'

const FORMATS = new Set([
  'hermes', 'hermes_think', 'granite4', 'llama3_json', 'mistral', 'granite', 'granite_20b_fc', 'functools',
  'internlm2', 'xlam', 'json_array', 'functionary_v3_1', 'functionary_v3_2', 'llamacpp_generic',
])
const cases = loadCorpus().filter((c) => FORMATS.has(c.format))
const clean = cases.filter((c) => !c.contested)
const contested = cases.filter((c) => c.contested)

const nameAndArgs = (calls: ToolCall[]) => calls.map((c) => ({ name: c.name, arguments: c.arguments }))

describe.skipIf(!corpusAvailable)('corpus: clean cases of the JSON formats', () => {
  it('has the cases FORMATS.md announces', () => {
    expect(cases.length).toBe(217)
    expect(clean.length).toBe(166)
  })

  it.for(clean.map((c) => [c.id, c] as const))('%s, with the format hint', ([, c]) => {
    expect(getFormat(c.format)).toBeDefined()
    expect(actualCalls(parseToolCalls(c.text, { format: c.format, tools: toolsOf(c) }))).toEqual(expectedCalls(c))
  })

  it.for(clean.map((c) => [c.id, c] as const))('%s, auto-detected', ([, c]) => {
    expect(actualCalls(parseToolCalls(c.text, { tools: toolsOf(c) }))).toEqual(expectedCalls(c))
  })

  it('reads the ids the corpus expects, as strings', () => {
    for (const c of clean.filter((x) => x.expected.some((e) => e.id !== undefined))) {
      const ids = parseToolCalls(c.text, { format: c.format }).map((x) => x.id)
      expect(ids, c.id).toEqual(c.expected.map((e) => e.id))
    }
  })
})

type Expect = { name: string; arguments: Record<string, unknown>; argumentsValid?: boolean }[] | 'as corpus'
const call = (name: string, args: Record<string, unknown> = {}, argumentsValid = true) => ({ name, arguments: args, argumentsValid })

/**
 * The choice made for every contested case of these formats (with the format hint), each documented in its format
 * file. In short: JSON cut off before the call object closes gives no call (vLLM's clean hermes case of a missing
 * brace says so; llama.cpp would report partial arguments); complete calls before a cut-off are kept; text around a
 * marked call does not hide it; inside a marker, NeMo's call-object rules apply (a name alone is a call with `{}`,
 * non-object arguments give a call with invalid arguments); JSON without the format's marker is not that format.
 */
const CONTESTED: Record<string, Expect> = {
  // hermes / hermes_think
  'llamacpp-hermes-1': [], // ```json + <function_call> cut after the name
  'llamacpp-hermes-2': [],
  'llamacpp-hermes-3': [],
  'llamacpp-hermes-24': [call('special_function', { arg1: 1 })], // bare JSON after text is a call, as llama.cpp reads it
  'llamacpp-hermes-30': [], // arguments cut off
  'llamacpp-hermes-33': [],
  'vllm-hermes-1': 'as corpus',
  'llamacpp-hermes_think-2': [],
  'llamacpp-hermes_think-3': [], // `{}` in a fence has no name
  // llama3_json
  'sglang-llama3_json-5': [call('get_weather')], // the well-formed object nested in a malformed one, as sglang
  // mistral
  'llamacpp-mistral-4': [],
  'vllm-mistral-21': [], // v11 JSON cut off
  // granite
  'llamacpp-granite-2': [],
  'llamacpp-granite-4': [],
  'llamacpp-granite-5': [],
  'llamacpp-granite-6': [], // the first call object itself never closes (`{"arg1": 1}, {`)
  'vllm-granite-6': [call('get_weather', { city: 'Tokyo' })],
  'vllm-granite-8': [],
  'vllm-granite-9': [call('func')], // a single object instead of a list is still the call
  'vllm-granite-10': [], // no marker
  'vllm-granite-11': [],
  // granite_20b_fc
  'vllm-granite_20b_fc-6': [call('get_weather', { city: 'Tokyo' })],
  'vllm-granite_20b_fc-8': [],
  'vllm-granite_20b_fc-9': [call('func')], // a list after the marker
  'vllm-granite_20b_fc-10': [call('func')], // no marker: detection's bare JSON call (a hint never finds fewer calls)
  'vllm-granite_20b_fc-11': [], // non-string name
  // functools
  'vllm-functools-4': 'as corpus', // nested objects: the bracket scan reads them
  'vllm-functools-6': [call('get_weather', { city: 'Tokyo' })],
  'vllm-functools-8': [],
  'vllm-functools-9': [call('func', {}, false)],
  'vllm-functools-10': [], // no list bracket
  'vllm-functools-11': [call('func')],
  'vllm-functools-12': [],
  'vllm-functools-13': [],
  // internlm2
  'vllm-internlm2-6': [call('get_weather', { city: 'Tokyo' })],
  'vllm-internlm2-8': [],
  'vllm-internlm2-9': [call('func', {}, false)],
  'vllm-internlm2-10': [],
  'vllm-internlm2-11': [],
  'vllm-internlm2-12': [], // no <|plugin|>
  // functionary_v3_1
  'llamacpp-functionary_v3_1-2': [call('special_function', { arg1: 1 })], // closing tag cut at `<`
  // json_array (sglang constrained output, streamed): complete objects count even when `]` never arrives
  'sglang-json_array-1': 'as corpus',
  'sglang-json_array-2': 'as corpus',
  'sglang-json_array-3': 'as corpus',
  'sglang-json_array-4': 'as corpus',
  'sglang-json_array-5': 'as corpus',
  'sglang-json_array-6': [],
  // llamacpp_generic partial streams
  'llamacpp-llamacpp_generic-1': [],
  'llamacpp-llamacpp_generic-2': [],
  'llamacpp-llamacpp_generic-3': [],
  'llamacpp-llamacpp_generic-4': [],
}

describe.skipIf(!corpusAvailable)('corpus: contested cases of the JSON formats (choices made)', () => {
  it('has a choice for every contested case', () => {
    expect(contested.map((c) => c.id).sort()).toEqual(Object.keys(CONTESTED).sort())
  })

  it.for(contested.map((c) => [c.id, c] as const))('%s', ([id, c]) => {
    const choice = CONTESTED[id]!
    const want = choice === 'as corpus' ? expectedCalls(c) : choice.map((x) => ({ argumentsValid: true, ...x }))
    expect(actualCalls(parseToolCalls(c.text, { format: c.format, tools: toolsOf(c) }))).toEqual(want)
  })
})

// ---------------------------------------------------------------------------------------------------------------

const hermes = (text: string, tools?: ToolDefinition[]) => parseToolCalls(text, { format: 'hermes', tools })
const generic = (text: string, tools?: ToolDefinition[]) => parseToolCalls(text, { format: 'json', tools })
const tool = (name: string): ToolDefinition => ({ type: 'function', function: { name } })

describe('Hermes: NeMo behaviours', () => {
  it('reads an object, with arguments or parameters, in either key order', () => {
    expect(actualCalls(hermes('<tool_call>{"arguments": {"a": 1}, "name": "f"}</tool_call>'))).toEqual([call('f', { a: 1 })])
    expect(actualCalls(hermes('<tool_call>{"name": "f", "parameters": {"a": 1}}</tool_call>'))).toEqual([call('f', { a: 1 })])
  })
  it('reads a list of objects inside one tag, and comma-separated objects', () => {
    const list = '<tool_call>[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {"x": 1}}]</tool_call>'
    expect(actualCalls(hermes(list))).toEqual([call('a'), call('b', { x: 1 })])
    const commas = '<tool_call>{"name": "a", "arguments": {}}, {"name": "b", "arguments": {}}</tool_call>'
    expect(actualCalls(hermes(commas))).toEqual([call('a'), call('b')])
  })
  it('makes a closed tag with invalid JSON a call with an unknown name and invalid arguments', () => {
    const calls = hermes('<tool_call>{"name": "f", "arguments": {oops}}</tool_call>')
    expect(actualCalls(calls)).toEqual([call('', {}, false)])
    expect(calls[0]!.raw).toBe('<tool_call>{"name": "f", "arguments": {oops}}</tool_call>')
  })
  it('gives no call for invalid JSON without a closing tag, and none for non-JSON content (another format)', () => {
    expect(hermes('<tool_call>{"name": "f", "arguments": {"a": 1}')).toEqual([])
    // The Hermes reader alone: with a hint, detection's GLM call would be returned (a hint never finds fewer calls).
    expect(getFormat('hermes')!.parse('<tool_call>get_weather\n<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>', {})).toEqual([])
  })
  it('accepts a missing </tool_call> at the end when the JSON is complete', () => {
    expect(actualCalls(hermes('<tool_call>\n{"name": "f", "arguments": {"a": true}}'))).toEqual([call('f', { a: true })])
  })
  it('decodes string-encoded arguments once, only when they hold exactly one object', () => {
    expect(actualCalls(hermes('<tool_call>{"name": "f", "arguments": "{\\"a\\": 1}"}</tool_call>'))).toEqual([call('f', { a: 1 })])
    expect(actualCalls(hermes('<tool_call>{"name": "f", "arguments": "{\\"a\\": 1} tail"}</tool_call>'))).toEqual([call('f', {}, false)])
    expect(actualCalls(hermes('<tool_call>{"name": "f", "arguments": 3}</tool_call>'))).toEqual([call('f', {}, false)])
  })
  it('records integral floats in the arguments', () => {
    expect(hermes('<tool_call>{"name": "f", "arguments": {"a": 3.0, "b": [1e2]}}</tool_call>')[0]!.floatPaths).toEqual(['/a', '/b/0'])
    expect(parseToolCalls('[TOOL_CALLS]f[ARGS]{"a": 2.0}')[0]!.floatPaths).toEqual(['/a'])
  })
  it('does not read calls written inside <think> reasoning', () => {
    const text = 'Maybe <tool_call>{"name": "a", "arguments": {}}</tool_call></think><tool_call>{"name": "b", "arguments": {}}</tool_call>'
    expect(actualCalls(parseToolCalls(text))).toEqual([call('b')])
  })
})

describe('Hermes: NeMo flaws fixed', () => {
  it('a </tool_call> inside a string value does not cut the call', () => {
    const text = '<tool_call>{"name": "echo", "arguments": {"s": "say </tool_call> now"}}</tool_call>'
    expect(actualCalls(parseToolCalls(text))).toEqual([call('echo', { s: 'say </tool_call> now' })])
  })
  it('a <tool_call> inside a string value does not cut the call either', () => {
    const text = '<tool_call>{"name": "write", "arguments": {"s": "use <tool_call> tags"}}</tool_call><tool_call>{"name": "g", "arguments": {}}</tool_call>'
    expect(actualCalls(parseToolCalls(text))).toEqual([call('write', { s: 'use <tool_call> tags' }), call('g')])
    // A cut-off block before a real one does not swallow it.
    const cut = '<tool_call>{"name": "f", "arguments": {"a": 1}\n<tool_call>{"name": "g", "arguments": {}}</tool_call>'
    expect(actualCalls(parseToolCalls(cut))).toEqual([call('g')])
  })
  it('16,000 unclosed <tool_call> tags give a sane result (each read only up to the next tag)', () => {
    expect(parseToolCalls('<tool_call>'.repeat(16_000))).toEqual([])
    const braces = '<tool_call>{"name": "f", "arguments": {'.repeat(16_000)
    expect(parseToolCalls(braces, { format: 'hermes' })).toEqual([])
    const tail = '<tool_call>'.repeat(16_000) + '<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>'
    expect(actualCalls(parseToolCalls(tail))).toEqual([call('f', { a: 1 })])
  })
  it('many tags with no closing tag at all stay cheap and read every complete call', () => {
    const text = '<tool_call>{"name": "f", "arguments": {}}\n'.repeat(5_000)
    expect(parseToolCalls(text)).toHaveLength(5_000)
  })
})

describe('Hermes: llama.cpp Hermes-2-Pro variants', () => {
  it('reads <function=NAME> and <function name="NAME"> tags', () => {
    expect(actualCalls(hermes('<function=f>{"a": 1}</function><function name="g">\n{"b": 2}\n</function>'))).toEqual([
      call('f', { a: 1 }),
      call('g', { b: 2 }),
    ])
  })
  it('reads call objects in wrappers and fences', () => {
    for (const text of ['<tools>{"name": "f", "arguments": {}}</tools>', '```json\n{"name": "f", "arguments": {}}\n```']) {
      expect(actualCalls(hermes(text))).toEqual([call('f')])
    }
  })
})

describe('Generic JSON: NeMo fallback and what it adds', () => {
  it('reads any balanced top-level object with a name and arguments, in prose', () => {
    const text = 'Sure. {"name": "f", "arguments": {"q": "a {b} [c]"}} and then {"name": "g", "parameters": {}} done'
    expect(actualCalls(generic(text))).toEqual([call('f', { q: 'a {b} [c]' }), call('g')])
  })
  it('an unmatched quote in prose does not hide a later call', () => {
    const text = 'He said "hello and left. Then: {"name": "f", "arguments": {"a": 1}}'
    expect(actualCalls(parseToolCalls(text))).toEqual([call('f', { a: 1 })])
  })
  it('a stray quote inside a stray brace does not hide a later call either', () => {
    expect(actualCalls(generic('Use {x" to start. {"name": "f", "arguments": {}}'))).toEqual([call('f')])
    expect(actualCalls(generic('Braces {like "this\n{"name": "f", "arguments": {}}'))).toEqual([call('f')])
  })
  it('reads OpenAI-shaped tool calls, with string arguments and ids', () => {
    const text = JSON.stringify({
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a": 1}' } }],
    })
    const calls = parseToolCalls(text)
    expect(actualCalls(calls)).toEqual([call('f', { a: 1 })])
    expect(calls[0]!.id).toBe('call_1')
    expect(actualCalls(generic('{"type": "function", "function": {"name": "g", "arguments": {}}}'))).toEqual([call('g')])
  })
  it('reads llama.cpp {"tool_call": ...} and ignores {"response": ...}', () => {
    expect(actualCalls(generic('{"tool_call": {"name": "f", "arguments": {"a": 1}}}'))).toEqual([call('f', { a: 1 })])
    expect(generic('{"response": "Hi {there}"}')).toEqual([])
  })
  it('reads a bare list of calls, also when the list is cut off after complete calls', () => {
    expect(actualCalls(generic('[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {}}]'))).toEqual([call('a'), call('b')])
    expect(actualCalls(generic('[{"name": "a", "arguments": {}}, {"name": "b", "argu'))).toEqual([call('a')])
  })
  it('takes a name-only or non-object-arguments object only when the name is an offered tool', () => {
    expect(generic('{"name": "Ada", "age": 36}')).toEqual([])
    expect(generic('{"name": "f", "arguments": "text"}')).toEqual([])
    expect(actualCalls(generic('{"name": "now"}', [tool('now')]))).toEqual([call('now')])
  })
  it('recovers a well-formed call nested in a malformed object', () => {
    expect(actualCalls(generic('{"oops" {"name": "f", "arguments": {}} }'))).toEqual([call('f')])
  })
  it('stays sane on adversarial nesting and quotes (a call after them is still found)', () => {
    const after = ' {"name": "f", "arguments": {}}'
    const inputs = [
      '{'.repeat(100_000),
      '['.repeat(100_000),
      '"'.repeat(100_000),
      '{"'.repeat(50_000),
      '{"a": '.repeat(20_000) + 'x' + '}'.repeat(20_000), // balanced, invalid, deep: retries hit the budget
      '}{'.repeat(50_000),
    ]
    for (const bad of inputs) {
      expect(Array.isArray(generic(bad))).toBe(true)
      expect(actualCalls(generic(bad.replace(/^/, '') + '\n' + after)).length).toBeLessThanOrEqual(1)
    }
    expect(actualCalls(generic('{'.repeat(100_000) + after))).toEqual([call('f')])
    expect(actualCalls(generic('{"a": '.repeat(20_000) + 'x' + '}'.repeat(20_000) + after))).toEqual([call('f')])
  })
})

describe('Llama 3 JSON', () => {
  it('reads ;-separated calls and repeated python tags, parameters or arguments', () => {
    const text = '<|python_tag|>{"name": "a", "parameters": {"x": 1}}; {"name": "b", "arguments": {}}<|python_tag|>{"name": "c", "parameters": {}}'
    expect(actualCalls(parseToolCalls(text))).toEqual([call('a', { x: 1 }), call('b'), call('c')])
    expect(parseToolCalls(text)[0]!.format).toBe('llama3_json')
  })
  it('a name without parameters is a call only for an offered tool', () => {
    expect(parseToolCalls('{"name": "now"}', { format: 'llama3_json' })).toEqual([])
    expect(actualCalls(parseToolCalls('{"name": "now"}', { format: 'llama3_json', tools: [tool('now')] }))).toEqual([call('now')])
  })
})

describe('Mistral', () => {
  it('reads pre-v11 lists, skipping invalid JSON as NeMo does', () => {
    expect(actualCalls(parseToolCalls('[TOOL_CALLS] [{"name": "a", "arguments": {"x": 1}}]'))).toEqual([call('a', { x: 1 })])
    expect(parseToolCalls('[TOOL_CALLS] [{"name": "a", "arguments": {x}}]', { format: 'mistral' })).toEqual([])
  })
  it('reads v11 and v13 forms with call ids kept as strings', () => {
    const calls = parseToolCalls('[TOOL_CALLS]a[CALL_ID]000000001[ARGS]{"x": 1}[TOOL_CALLS]b{"y": 2}[TOOL_CALLS]c[ARGS]{}')
    expect(actualCalls(calls)).toEqual([call('a', { x: 1 }), call('b', { y: 2 }), call('c')])
    expect(calls.map((c) => c.id)).toEqual(['000000001', undefined, undefined])
  })
  it('treats [THINK]...[/THINK] as reasoning', () => {
    const text = '[THINK]maybe [TOOL_CALLS]a[ARGS]{}[/THINK][TOOL_CALLS]b[ARGS]{}'
    expect(actualCalls(parseToolCalls(text, { format: 'mistral' }))).toEqual([call('b')])
    expect(parseToolCalls('[THINK]unclosed [TOOL_CALLS]a[ARGS]{}', { format: 'mistral' })).toEqual([])
  })
  it('a [TOOL_CALLS] inside a string value does not cut the call', () => {
    const text = '[TOOL_CALLS]note[ARGS]{"s": "say [TOOL_CALLS]x{}"}[TOOL_CALLS]b[ARGS]{}'
    expect(actualCalls(parseToolCalls(text))).toEqual([call('note', { s: 'say [TOOL_CALLS]x{}' }), call('b')])
  })
  it('gives no call for a name without arguments', () => {
    expect(parseToolCalls('[TOOL_CALLS]toolname', { format: 'mistral' })).toEqual([])
  })
})

describe('the marked formats', () => {
  it('Granite keeps complete calls of a cut-off list', () => {
    const text = '<|tool_call|>[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {"x"'
    expect(actualCalls(parseToolCalls(text))).toEqual([call('a')])
  })
  it('Granite 3.1 <tool_call> lists without a closing tag read the same with or without the hint', () => {
    const text = '<tool_call> [{"name": "a", "arguments": {"x": 1}}]'
    expect(actualCalls(parseToolCalls(text, { format: 'granite' }))).toEqual([call('a', { x: 1 })])
    expect(actualCalls(parseToolCalls(text))).toEqual([call('a', { x: 1 })])
  })
  it('Functionary v3.1 does not claim Qwen3-Coder XML', () => {
    const xml = '<function=f>\n<parameter=a>\n1\n</parameter>\n</function>'
    expect(getFormat('functionary_v3_1')!.parse(xml, {})).toEqual([])
    // With the hint, detection's Qwen3-Coder call is returned: a hint never finds fewer calls than detection.
    expect(parseToolCalls(xml, { format: 'functionary_v3_1' }).map((c) => c.format)).toEqual(['qwen3_coder'])
  })
  it('Functionary v3.2 reads content, JSON and raw python blocks', () => {
    const text = 'all\nLet me see.>>>f\n{"a": 1}\n>>>python\nprint(1)\n'
    expect(actualCalls(parseToolCalls(text, { format: 'functionary_v3_2' }))).toEqual([call('f', { a: 1 }), call('python', { code: 'print(1)' })])
  })
  it('Functionary markers inside string values do not cut the call', () => {
    const v32 = 'run\n{"doc": ">>> print(1)"}\n>>>all\nDone.'
    expect(actualCalls(parseToolCalls(v32, { format: 'functionary_v3_2' }))).toEqual([call('run', { doc: '>>> print(1)' })])
    const v31 = '<function=write>{"s": "<function=f>{}</function>"}</function>'
    expect(actualCalls(parseToolCalls(v31))).toEqual([call('write', { s: '<function=f>{}</function>' })])
  })
  it('functools, InternLM2 and Granite-20B-FC read several calls', () => {
    expect(actualCalls(parseToolCalls('functools[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {}}]'))).toEqual([call('a'), call('b')])
    const internlm = '<|action_start|><|plugin|>{"name": "a", "parameters": {}}<|action_end|>\n<|action_start|><|plugin|>{"name": "b", "parameters": {}}<|action_end|>'
    expect(actualCalls(parseToolCalls(internlm))).toEqual([call('a'), call('b')])
    expect(actualCalls(parseToolCalls('<function_call> {"name": "a", "arguments": {}}\n<function_call> {"name": "b", "arguments": {}}'))).toEqual([call('a'), call('b')])
  })
})

describe('render round trips', () => {
  const sample = [
    { name: 'get_weather', arguments: { city: 'Zürich "old town"', days: 3, tags: ['a', '}{'], nested: { ok: true } } },
    { name: 'now', arguments: {} },
    { name: 'say', arguments: { text: '</tool_call> [TOOL_CALLS] >>> <|action_end|> ;' } },
  ]
  const names = [
    'hermes', 'llama3_json', 'mistral', 'granite', 'granite_20b_fc', 'functools', 'internlm2', 'functionary_v3_1',
    'functionary_v3_2', 'json',
  ]
  it.for(names)('%s', (name) => {
    const f = getFormat(name)!
    // Functionary v3.2 splits blocks at `>>>`: it stays out of the arguments there (JSON would be read past it).
    const calls = name === 'functionary_v3_2' ? sample.slice(0, 2) : sample
    const rendered = f.render!(calls)
    expect(nameAndArgs(f.parse(rendered, {}))).toEqual(calls)
    expect(nameAndArgs(parseToolCalls(rendered))).toEqual(calls)
    expect(parseToolCalls(rendered).every((c) => c.format === f.name)).toBe(true)
  })
})
