/**
 * The special-token and JSON-in-tags formats: Harmony, Kimi K2, DeepSeek V3 / R1 / V3.1 / V3.2 (DSML), the
 * `<tool_calls>` tag (Hunyuan, Jamba, Apriel), LongCat, Nemotron v2, Apertus, GigaChat 3 / 3.1, Command R7B / R+.
 * Every clean corpus case with the format hint and without it; the contested cases pinned to the behaviour chosen
 * (reasons in each format's file); the forms NeMo misses; Kimi's calls inside `<think>`; adversarial inputs; render
 * round trips.
 */
import { describe, expect, it } from 'vitest'
import { detectFormat, getFormat, parseToolCalls } from '../../../src/calls/index.js'
import { apertus } from '../../../src/calls/formats/apertus.js'
import { commandRPlus } from '../../../src/calls/formats/command-r-plus.js'
import { commandR7b } from '../../../src/calls/formats/command-r7b.js'
import { deepseekV3 } from '../../../src/calls/formats/deepseek-v3.js'
import { deepseekV31 } from '../../../src/calls/formats/deepseek-v31.js'
import { deepseekV32 } from '../../../src/calls/formats/deepseek-v32.js'
import { gigachat3 } from '../../../src/calls/formats/gigachat3.js'
import { gigachat31 } from '../../../src/calls/formats/gigachat31.js'
import { harmony, recipientFunction } from '../../../src/calls/formats/harmony.js'
import { kimiK2, nameFromCallId } from '../../../src/calls/formats/kimi-k2.js'
import { longcat } from '../../../src/calls/formats/longcat.js'
import { nemotronV2 } from '../../../src/calls/formats/nemotron-v2.js'
import { toolCallsTag } from '../../../src/calls/formats/tool-calls-tag.js'
import { parseJsonItems } from '../../../src/calls/json-blocks.js'
import { ForwardSearch } from '../../../src/calls/scan.js'
import { removeReasoningBlocks } from '../../../src/calls/reasoning.js'
import type { FormatParser, ToolCall } from '../../../src/calls/types.js'
import { actualCalls, corpusAvailable, expectedCalls, loadCorpus, toolsOf, type ComparedCall, type CorpusCase } from '../../corpus.js'

/** Corpus format names these parsers cover. */
const COVERED = [
  'harmony', 'kimi_k2', 'deepseek_v3', 'deepseek_r1', 'deepseek_v31', 'deepseek_v32', 'hunyuan', 'jamba', 'apriel',
  'longcat', 'nemotron_v2', 'apertus', 'gigachat3', 'gigachat31', 'command_r7b', 'command_r_plus',
]

const PARSERS: FormatParser[] = [
  harmony, kimiK2, deepseekV3, deepseekV31, deepseekV32, toolCallsTag, longcat, nemotronV2, apertus, gigachat3,
  gigachat31, commandR7b, commandRPlus,
]

// The corpus helpers compare names, arguments and validity (string expectations as `{}`, invalid).
type Shape = ComparedCall
const shape = actualCalls
const expectedShape = expectedCalls

const valid = (name: string, args: Record<string, unknown>): Shape => ({ name, arguments: args, argumentsValid: true })
const invalid = (name: string): Shape => ({ name, arguments: {}, argumentsValid: false })

const cases = loadCorpus().filter((c) => COVERED.includes(c.format))
const clean = cases.filter((c) => !c.contested)
const contested = cases.filter((c) => c.contested)

describe.skipIf(!corpusAvailable)('corpus: clean cases of the token and tag formats', () => {
  it('covers every format named here, each reachable by its corpus name', () => {
    for (const f of COVERED) {
      expect(cases.some((c) => c.format === f), f).toBe(true)
      expect(getFormat(f), f).toBeDefined()
    }
  })

  it.for(clean.map((c) => [c.id, c] as const))('%s (format hint)', ([, c]) => {
    const calls = parseToolCalls(c.text, { format: c.format, tools: toolsOf(c) })
    expect(shape(calls)).toEqual(expectedShape(c))
    // Call ids where the case states them (Kimi `functions.NAME:IDX`, Command R7B `tool_call_id`).
    c.expected.forEach((e, i) => {
      if (e.id !== undefined) expect(calls[i]?.id).toBe(e.id)
    })
  })

  it.for(clean.map((c) => [c.id, c] as const))('%s (auto-detected)', ([, c]) => {
    expect(shape(parseToolCalls(c.text, { tools: toolsOf(c) }))).toEqual(expectedShape(c))
  })
})

/**
 * Contested cases: the behaviour chosen, by case id. The rule behind most rows: when the format names the tool
 * outside the JSON (Harmony's recipient, Kimi's call id, DeepSeek's header), a body that does not decode still gives
 * the call, with invalid arguments; when the name sits inside the JSON (GigaChat, Command R7B), a truncated object
 * gives nothing. Each format file documents its choices.
 */
const CONTESTED: Record<string, Shape[]> = {
  // Harmony: truncated arguments after a function recipient.
  'llamacpp-harmony-1': [],
  'llamacpp-harmony-4': [invalid('special_function')],
  'llamacpp-harmony-5': [invalid('special_function')],
  // llama.cpp with tool parsing off drops it; a scorer wants the attempted call (differs from the corpus: []).
  'llamacpp-harmony-9': [invalid('special_function')],
  'llamacpp-harmony-15': [],
  // Kimi K2.
  'llamacpp-kimi_k2-21': [invalid('special_function')],
  'sglang-kimi_k2-4': [invalid('get_weather')],
  'sglang-kimi_k2-8': [valid('list-files', { path: '/home' })],
  'vllm-kimi_k2-5': [valid('valid_get_weather', { city: 'Shanghai' })],
  // DeepSeek: forced-open reasoning, tolerant openers, undecodable arguments.
  'llamacpp-deepseek_r1-2': [],
  'llamacpp-deepseek_r1-3': [valid('special_function', { arg1: 1 })],
  'llamacpp-deepseek_r1-4': [valid('special_function', { arg1: 1 })],
  'llamacpp-deepseek_v31-2': [],
  'sglang-deepseek_v3-1': [valid('get_weather', { city: 'Shanghai' }), valid('get_tourist_attractions', { city: 'Beijing' })],
  'vllm-deepseek_v3-6': [valid('get_weather', { city: 'Paris' })],
  // Unclosed JSON: the named call with invalid arguments (differs from the corpus: []).
  'vllm-deepseek_v3-8': [invalid('get_weather')],
  // Missing <｜tool▁call▁begin｜>: read anyway, as llama.cpp reads R1's malformed opener (differs from the corpus: []).
  'vllm-deepseek_v3-9': [valid('get_weather', { city: 'Tokyo' })],
  // <tool_calls>.
  'vllm-hunyuan-6': [valid('complex_tool', { level1: { level2: { level3: { value: 123 } } } })],
  'vllm-hunyuan-7': [valid('get_weather', { city: 'Boston' })],
  // LongCat.
  'vllm-longcat-6': [valid('get_weather', { city: 'Tokyo' })],
  'vllm-longcat-8': [],
  // Non-object arguments in a closed block: NeMo's rule, a call with invalid arguments (differs from the corpus: []).
  'vllm-longcat-9': [invalid('func')],
  'vllm-longcat-10': [],
  // Command R7B: thinking is reasoning; a truncated action is no call (the last differs from the corpus).
  'llamacpp-command_r7b-3': [],
  'llamacpp-command_r7b-5': [],
  'llamacpp-command_r7b-7': [],
  // GigaChat 3: truncated object, no call (differs from the corpus).
  'sglang-gigachat3-13': [],
}

describe.skipIf(!corpusAvailable)('corpus: contested cases, as chosen', () => {
  it('the table covers exactly the contested cases of these formats', () => {
    expect(Object.keys(CONTESTED).sort()).toEqual(contested.map((c) => c.id).sort())
  })
  it.for(contested.map((c) => [c.id, c] as const))('%s', ([, c]) => {
    expect(shape(parseToolCalls(c.text, { format: c.format, tools: toolsOf(c) }))).toEqual(CONTESTED[c.id])
  })
})

describe('Harmony: the forms NeMo misses', () => {
  it('reads `<|constrain|>json` between the header and the message', () => {
    const out = '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"}<|call|>'
    expect(shape(parseToolCalls(out))).toEqual([valid('get_weather', { city: 'Paris' })])
    expect(detectFormat(out)).toBe('harmony')
  })
  it('reads the recipient in the role header, with a bare `json` content type', () => {
    const out = '<|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>{"city": "Oslo"}<|call|>'
    expect(shape(parseToolCalls(out))).toEqual([valid('get_weather', { city: 'Oslo' })])
    expect(shape(parseToolCalls(' to=functions.f<|channel|>commentary<|message|>{}'))).toEqual([valid('f', {})])
  })
  it('keeps dotted names whole', () => {
    const out = '<|channel|>commentary to=functions.mcp.files.read_file <|constrain|>json<|message|>{"path": "/a"}<|call|>'
    expect(shape(parseToolCalls(out))).toEqual([valid('mcp.files.read_file', { path: '/a' })])
    expect(recipientFunction('<|start|>assistant to=functions.a.b<|channel|>analysis')).toBe('a.b')
  })
  it('never takes analysis text, preambles, final output or builtin recipients for calls', () => {
    const out =
      '<|channel|>analysis<|message|>I will use to=functions.get_weather with {"city": "x"}<|end|>' +
      '<|start|>assistant<|channel|>commentary<|message|>Checking to=functions.other {"a": 1}<|end|>' +
      '<|start|>assistant to=container.exec<|channel|>commentary<|message|>ls<|call|>' +
      '<|start|>assistant<|channel|>commentary to=python <|constrain|>code<|message|>print(1)<|call|>' +
      '<|start|>assistant<|channel|>final <|constrain|>json<|message|>{"name": "get_weather", "arguments": {}}'
    expect(getFormat('harmony')!.parse(out, {})).toEqual([])
  })
  it('reads several calls, and a stop token quoted inside a value does not cut the call', () => {
    const out =
      '<|channel|>analysis<|message|>two calls<|end|>' +
      '<|start|>assistant<|channel|>commentary to=functions.a <|constrain|>json<|message|>{"s": "x<|call|>y"}<|call|>' +
      '<|start|>assistant<|channel|>commentary to=functions.b<|message|>{"n": 2.0}<|call|>'
    const calls = parseToolCalls(out)
    expect(shape(calls)).toEqual([valid('a', { s: 'x<|call|>y' }), valid('b', { n: 2 })])
    expect(calls[1]!.floatPaths).toEqual(['/n'])
  })
  it('is not confused by `<think>` inside its own channels (reasoning is kept)', () => {
    const out =
      '<|channel|>analysis<|message|>Let me <think> about it<|end|>' +
      '<|start|>assistant<|channel|>commentary to=functions.f<|message|>{"x": 1}<|call|>'
    expect(shape(parseToolCalls(out))).toEqual([valid('f', { x: 1 })])
  })
  it('answers to its aliases', () => {
    expect(getFormat('gpt-oss')).toBe(harmony)
  })
})

describe('Kimi K2: calls inside <think> are calls', () => {
  const call = '<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|>'
  const section = `<|tool_calls_section_begin|>${call}<|tool_calls_section_end|>`
  it('reads a call inside an unclosed <think>, hinted or detected', () => {
    const out = `<think>I should check the weather${section}`
    expect(shape(parseToolCalls(out, { format: 'kimi_k2' }))).toEqual([valid('get_weather', { city: 'Paris' })])
    expect(shape(parseToolCalls(out))).toEqual([valid('get_weather', { city: 'Paris' })])
  })
  it('reads a call embedded in reasoning that resumes and closes afterwards', () => {
    const out = `<think>thinking${section}still thinking</think>Here you go.`
    expect(shape(parseToolCalls(out))).toEqual([valid('get_weather', { city: 'Paris' })])
  })
  it('reads calls without section markers or end tokens, keeping ids and dotted names', () => {
    const out =
      '<|tool_call_begin|> functions.mcp.fs.read:7 <|tool_call_argument_begin|> {"p": 1}' +
      '<|tool_call_begin|>functions.list-files:8<|tool_call_argument_begin|>{}'
    const calls = parseToolCalls(out)
    expect(shape(calls)).toEqual([valid('mcp.fs.read', { p: 1 }), valid('list-files', {})])
    expect(calls.map((c) => c.id)).toEqual(['functions.mcp.fs.read:7', 'functions.list-files:8'])
  })
  it('gives a call with invalid arguments when its JSON does not decode, and drops a malformed id', () => {
    const out =
      '<|tool_call_begin|>functions.a:0<|tool_call_argument_begin|>{"x": <|tool_call_end|>' +
      '<|tool_call_begin|>functions.b.1<|tool_call_argument_begin|>{}<|tool_call_end|>' +
      '<|tool_call_begin|>functions.c:2<|tool_call_argument_begin|>{"s": "<|tool_call_end|>"}<|tool_call_end|>'
    expect(shape(parseToolCalls(out))).toEqual([invalid('a'), valid('c', { s: '<|tool_call_end|>' })])
  })
  it('parses call ids', () => {
    expect(nameFromCallId('functions.get_weather:12')).toBe('get_weather')
    expect(nameFromCallId('get_weather:0')).toBe('get_weather')
    expect(nameFromCallId('functions.get_weather.0')).toBeUndefined()
    expect(nameFromCallId('functions.:0')).toBeUndefined()
    expect(nameFromCallId('functions.a b:0')).toBeUndefined()
  })
})

describe('DeepSeek', () => {
  it('tolerates token spellings with `_` or spaces for `▁`', () => {
    const out = '<｜tool_calls_begin｜><｜tool call begin｜>function<｜tool_sep｜>f\n```json\n{"a": 1}\n```<｜tool_call_end｜>'
    expect(shape(parseToolCalls(out))).toEqual([valid('f', { a: 1 })])
  })
  it('reads either generation whatever the hint, labelled by the shape written', () => {
    const v31 = '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_time<｜tool▁sep｜>{"city": "Tokyo"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>'
    expect(parseToolCalls(v31, { format: 'deepseek_v3' }).map((c) => [c.name, c.format])).toEqual([['get_time', 'deepseek_v31']])
    expect(detectFormat(v31)).toBe('deepseek_v31')
    expect(detectFormat(deepseekV3.render!([{ name: 'f', arguments: {} }]))).toBe('deepseek_v3')
  })
  it('does not cut a call at a token quoted inside a value', () => {
    const out = '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{"s": "a<｜tool▁call▁end｜>b"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>'
    expect(shape(parseToolCalls(out))).toEqual([valid('f', { s: 'a<｜tool▁call▁end｜>b' })])
  })
  it('treats tool tokens in reasoning before a later </think> as reasoning', () => {
    const out = 'I could write <｜tool▁call▁begin｜>x<｜tool▁sep｜>{}</think>No call needed.'
    expect(parseToolCalls(out, { format: 'deepseek_r1' })).toEqual([])
  })
})

describe('DeepSeek V3.2 DSML', () => {
  const wrap = (inner: string) => `<｜DSML｜function_calls>\n<｜DSML｜invoke name="f">\n${inner}</｜DSML｜invoke>\n</｜DSML｜function_calls>`
  it('types values by the string attribute, and by the schema when it is missing', () => {
    const out = wrap(
      '<｜DSML｜parameter name="s" string="true">42</｜DSML｜parameter>\n' +
        '<｜DSML｜parameter name="n" string="false">42</｜DSML｜parameter>\n' +
        '<｜DSML｜parameter name="t">7</｜DSML｜parameter>\n' +
        '<｜DSML｜parameter name="u">7</｜DSML｜parameter>\n',
    )
    const tools = [{ function: { name: 'f', parameters: { properties: { t: { type: 'string' } } } } }]
    expect(shape(parseToolCalls(out, { tools }))).toEqual([valid('f', { s: '42', n: 42, t: '7', u: 7 })])
  })
  it('records integral floats written by the model', () => {
    const calls = parseToolCalls(wrap('<｜DSML｜parameter name="x" string="false">{"a": 3.0}</｜DSML｜parameter>\n'))
    expect(calls[0]!.floatPaths).toEqual(['/x/a'])
  })
  it('keeps a non-JSON value of a string="false" parameter as text', () => {
    const out = wrap('<｜DSML｜parameter name="city" string="false">Paris</｜DSML｜parameter>\n')
    expect(shape(parseToolCalls(out))).toEqual([valid('f', { city: 'Paris' })])
  })
  it('marks arguments invalid when a parameter is cut off, or a JSON body does not decode', () => {
    expect(shape(parseToolCalls('<｜DSML｜invoke name="f">\n<｜DSML｜parameter name="a" string="true">Par'))).toEqual([invalid('f')])
    expect(shape(parseToolCalls(wrap('{"a": ')))).toEqual([invalid('f')])
  })
})

describe('JSON-in-tags formats', () => {
  it('Apriel: a block in the reasoning before [BEGIN FINAL RESPONSE] is not a call', () => {
    const out =
      'Maybe <tool_calls>[{"name": "wrong", "arguments": {}}]</tool_calls>\n[BEGIN FINAL RESPONSE]\n' +
      '<tool_calls>[{"name": "right", "arguments": {"a": 1}}]</tool_calls>'
    expect(shape(parseToolCalls(out, { format: 'apriel' }))).toEqual([valid('right', { a: 1 })])
  })
  it('a closed block that does not decode is one call with an unknown name (NeMo), an unclosed one nothing', () => {
    expect(shape(parseToolCalls('<tool_calls>[{"name": oops}]</tool_calls>'))).toEqual([invalid('')])
    expect(parseToolCalls('<tool_calls>[{"name": "f", "argu', { format: 'hunyuan' })).toEqual([])
  })
  it('keeps the calls decoded before a malformed item', () => {
    const out = '<TOOLCALL>[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {]</TOOLCALL>'
    expect(shape(parseToolCalls(out))).toEqual([valid('a', {})])
  })
  it('a closing tag inside a string value does not cut the call', () => {
    const out = '<longcat_tool_call>{"name": "f", "arguments": {"s": "</longcat_tool_call>"}}</longcat_tool_call>'
    expect(shape(parseToolCalls(out))).toEqual([valid('f', { s: '</longcat_tool_call>' })])
  })
  it('Apertus: the name is the key; reasoning in inner_prefix/suffix is not a call', () => {
    const out =
      '<|inner_prefix|><|tools_prefix|>[{"no": {}}]<|tools_suffix|><|inner_suffix|>' +
      '<|tools_prefix|>[{"a": {"x": 1.0}}, {"name": "b", "arguments": {"y": 2}}]<|tools_suffix|>'
    const calls = parseToolCalls(out)
    expect(shape(calls)).toEqual([valid('a', { x: 1 }), valid('b', { y: 2 })])
    expect(calls[0]!.floatPaths).toEqual(['/x'])
  })
  it('GigaChat: strict call objects (name and object arguments required)', () => {
    const m = '<|message_sep|>\n\nfunction call<|role_sep|>\n'
    expect(parseToolCalls(`${m}{"name": "f"}`, { format: 'gigachat3' })).toEqual([])
    expect(parseToolCalls('<|function_call|>{"name": "f", "arguments": 1}', { format: 'gigachat31' })).toEqual([])
    expect(shape(parseToolCalls(`${m}{"name": "f", "arguments": "{\\"a\\": 1}"}</s>`))).toEqual([valid('f', { a: 1 })])
  })
  it('Command R7B: an action inside thinking is not a call; ids are kept', () => {
    const action = (n: string) => `<|START_ACTION|>[{"tool_call_id": "3", "tool_name": "${n}", "parameters": {}}]<|END_ACTION|>`
    const calls = parseToolCalls(`<|START_THINKING|>${action('no')}<|END_THINKING|>${action('yes')}`)
    expect(calls.map((c) => [c.name, c.id])).toEqual([['yes', '3']])
  })
  it('Command R+: each Action: block', () => {
    const out = 'Action:\n```json\n[{"tool_name": "a", "parameters": {"q": "x"}}]\n```\nAction: [{"tool_name": "b", "parameters": {}}]'
    expect(shape(parseToolCalls(out, { format: 'command_r_plus' }))).toEqual([valid('a', { q: 'x' }), valid('b', {})])
  })
})

describe('shared scanning helpers', () => {
  it('ForwardSearch gives the first occurrence at or after a position', () => {
    const f = new ForwardSearch('ab ab ab', 'ab')
    expect([f.next(0), f.next(1), f.next(3), f.next(4), f.next(7), f.next(2)]).toEqual([0, 3, 3, 6, -1, 3])
  })
  it('parseJsonItems decodes item by item', () => {
    expect(parseJsonItems('[1, {"a": 2}, x]', 0)).toMatchObject({ complete: false, items: [{ value: 1 }, { value: { a: 2 } }] })
    expect(parseJsonItems(' [ ] ', 0)).toEqual({ items: [], complete: true, end: 4 })
    expect(parseJsonItems('{"a": 1} tail', 0)).toMatchObject({ complete: true, end: 8 })
  })
  it('removeReasoningBlocks cuts reasoning spans like <think>', () => {
    expect(removeReasoningBlocks('a<s>b</s>c<s>d', '<s>', '</s>')).toBe('ac')
    expect(removeReasoningBlocks('x</s>y', '<s>', '</s>')).toBe('y')
  })
})

describe('adversarial inputs: sane results, no throw', () => {
  const N = 100_000
  // [format, repeated text, expected number of calls, expected validity of each]
  const table: [string, string, number][] = [
    ['harmony', '<|message|>', 0],
    ['harmony', ' to=functions.', 0],
    ['harmony', '<|channel|>commentary to=functions.f<|message|>{', N],
    ['kimi_k2', '<|tool_call_begin|>', 0],
    ['kimi_k2', '<|tool_calls_section_begin|>', 0],
    ['kimi_k2', '<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{"a": "', N],
    ['deepseek_v3', '<｜tool▁calls▁begin｜>', 0],
    ['deepseek_v3', '<｜', 0],
    ['deepseek_v3', '<｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{', N],
    ['deepseek_v31', '<｜tool▁call▁begin｜>f<｜tool▁sep｜>{"', N],
    ['deepseek_v32', '<｜DSML｜function_calls>', 0],
    ['deepseek_v32', '<｜DSML｜parameter name="a" string="false">', 0],
    ['deepseek_v32', '<｜DSML｜invoke name="f">{', N],
    ['deepseek_v32', '<function_calls><invoke name="f">', N],
    ['deepseek_v32', '<function_calls><parameter name="a" string="false', 0],
    ['gemma4', '<|tool_call>call:f{a:"\\', N],
    ['sarashina', "{'name': 'f', 'arguments': {", 0],
    ['glm45', '<tool_call>f a="x</tool_call>', N],
    ['hunyuan', '<tool_calls>', 0],
    ['jamba', '<tool_calls>[{"name": "f", "arguments": {"a": "', 0],
    ['longcat', '<longcat_tool_call>', 0],
    ['nemotron_v2', '<TOOLCALL>[', 0],
    ['apertus', '<|tools_prefix|>', 0],
    ['apertus', '<|inner_prefix|>', 0],
    ['gigachat3', 'function call<|role_sep|>{', 0],
    ['gigachat31', '<|function_call|>', 0],
    ['command_r7b', '<|START_ACTION|>', 0],
    ['command_r7b', '<|START_THINKING|>', 0],
    ['command_r_plus', 'Action:', 0],
  ]
  it.for(table)('%s: %j repeated 100,000 times', ([format, unit, count]) => {
    // No cap on calls (maxCalls): every one of the N is counted.
    const calls = parseToolCalls(unit.repeat(N), { format, maxCalls: Infinity })
    expect(calls).toHaveLength(count)
    if (count > 0) expect(calls.every((c) => c.name !== '' && typeof c.argumentsValid === 'boolean')).toBe(true)
  })
  it.for(COVERED)('%s: a megabyte of open brackets and stray quotes after its marker', (format) => {
    const f = getFormat(format)!
    // The rendering up to where its JSON would start: the format's own opening tokens.
    const rendered = f.render!([{ name: 'f', arguments: {} }])
    const json = rendered.search(/[[{]/)
    const marker = json < 0 ? rendered : rendered.slice(0, json)
    for (const junk of ['{'.repeat(1_000_000), '["'.repeat(500_000), '"'.repeat(1_000_000)]) {
      const calls = parseToolCalls(marker + junk, { format })
      expect(Array.isArray(calls)).toBe(true)
      expect(calls.length).toBeLessThanOrEqual(1)
    }
  })
})

describe('render: parse(render(calls)) gives the calls back, hinted and detected', () => {
  const samples = [
    [{ name: 'get_weather', arguments: { city: 'São Paulo', unit: 'celsius' } }],
    [
      { name: 'a', arguments: {} },
      { name: 'b_2', arguments: { q: 'He said "hi" \\ <b>', n: -3.5, ok: true, none: null, list: [1, 'x', { k: [] }] } },
      { name: 'a', arguments: { nested: { deep: { deeper: 1 } } } },
    ],
    [{ name: 'f', arguments: { 'odd "key"': 'line\nbreak', lead: '\nnewline', dsml: 'DSML text' } }],
  ]
  for (const parser of PARSERS) {
    it.for(samples.map((s, i) => [`${parser.name} #${i}`, s] as const))('%s', ([, calls]) => {
      const rendered = parser.render!(calls)
      const valid = calls.map((c) => ({ ...c, argumentsValid: true }))
      expect(actualCalls(parser.parse(rendered, {}))).toEqual(valid)
      expect(actualCalls(parseToolCalls(rendered))).toEqual(valid)
    })
  }
  it('renders nothing for no calls, which parses to nothing', () => {
    for (const parser of PARSERS) expect(parser.parse(parser.render!([]), {})).toEqual([])
  })
})
