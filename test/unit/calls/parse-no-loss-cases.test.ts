/**
 * Issue 22's rule on hand-written strings, family by family: text inside a call's block that the format does not read
 * makes the call invalid with a reason (`argumentsError`), never a valid call with fewer arguments; what each format
 * reads on purpose (whitespace, prose after the call, an `id` member) does not.
 */
import { describe, expect, it } from 'vitest'
import { parseToolCalls } from '../../../src/calls/index.js'
import type { ToolCall } from '../../../src/calls/types.js'

const TOOLS = [
  {
    type: 'function' as const,
    function: { name: 'f', parameters: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } } } },
  },
]

function one(text: string, format?: string): ToolCall {
  const calls = parseToolCalls(text, format ? { format, tools: TOOLS } : { tools: TOOLS })
  expect(calls.length, JSON.stringify(calls)).toBe(1)
  return calls[0]!
}

function invalid(text: string, format?: string): void {
  const c = one(text, format)
  expect(c.name).toBe('f')
  expect(c.argumentsValid, JSON.stringify(c)).toBe(false)
  expect(c.arguments).toEqual({})
  expect(c.argumentsError, 'the reason is given').toMatch(/\S/)
}

function valid(text: string, args: Record<string, unknown>, format?: string): void {
  const c = one(text, format)
  expect(c).toMatchObject({ name: 'f', arguments: args, argumentsValid: true })
  expect(c.argumentsError).toBeUndefined()
}

describe('JSON call objects', () => {
  it('a member that is neither the name nor the arguments makes the call invalid', () => {
    invalid('<tool_call>\n{"name": "f", "argumnts": {"a": 1}}\n</tool_call>', 'hermes')
    invalid('<tool_call>{"name": "f", "arguments": {"a": 1}, "b": 2}</tool_call>', 'hermes')
    invalid('[{"name": "f", "arguments": {"a": 1}, "parameters": {"b": 2}}]', 'json')
    invalid('<|python_tag|>{"name": "f", "parameters": {"a": 1}, "b": 2}', 'llama3_json')
  })
  it('an id or a type member is no argument', () => {
    valid('<tool_call>{"name": "f", "arguments": {"a": 1}, "id": "c1", "type": "function"}</tool_call>', { a: 1 }, 'hermes')
    valid('{"tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{\\"a\\": 1}"}}]}', { a: 1 })
  })
  it('text after the JSON inside a closed block makes the call invalid', () => {
    invalid('<tool_call>{"name": "f", "arguments": {"a": "V"}}qa1", "b": 2}}</tool_call>', 'hermes')
    invalid('<tool_call>{"name": "f", "arguments": {"a": 1}} b: 2\n</tool_call>', 'hermes')
  })
  it('bare JSON glued to text that continues it is invalid; prose after a space is not', () => {
    invalid('[{"name": "f", "arguments": {"a": "V"}}]qa1", "b": 2}}]', 'json')
    invalid('<|python_tag|>{"name": "f", "parameters": {"a": 735}}19, "b": 2}}', 'llama3_json')
    valid('Calling it: {"name": "f", "arguments": {"a": 1}} and done.', { a: 1 }, 'json')
  })
  it('Mistral: text glued to a call is unread; prose after a space or the next marker is not', () => {
    invalid('[TOOL_CALLS]f[ARGS]{"a": "V"}qa1", "b": 2}', 'mistral')
    invalid('[TOOL_CALLS]f[ARGS]{"a": 1},"b": 2}', 'mistral')
    invalid('[TOOL_CALLS] [{"name": "f", "arguments": {"a": 1}}]9, "b": 2}}]', 'mistral')
    valid('[TOOL_CALLS]f[ARGS]{"a": 1} and that is all.', { a: 1 }, 'mistral')
    valid('[TOOL_CALLS] [{"name": "f", "arguments": {"a": 1}}]\nextra trailing data', { a: 1 }, 'mistral')
  })
})

describe('JSON after a marker or between tags', () => {
  it('a closing tag written twice: the call ran on past the first, unread', () => {
    invalid('<longcat_tool_call>{"name": "f", "arguments": {"a": 7}}</longcat_tool_call>9, "b": 2}}</longcat_tool_call>', 'longcat')
    invalid('<tool_calls>[{"name": "f", "arguments": {"a": 7}}]</tool_calls>9, "b": 2}}]</tool_calls>', 'tool_calls_tag')
    invalid('<|action_start|><|plugin|>\n{"name": "f", "parameters": {"a": 7}}<|action_end|>9, "b": 2}}<|action_end|>', 'internlm2')
    invalid('<|message_sep|>\n\nfunction call<|role_sep|>\n{"name": "f", "arguments": {"a": 7}}</s>9, "b": 2}}</s>', 'gigachat3')
    invalid('<function=f>{"a": "V"}</function>1", "b": 2}</function>', 'functionary_v3_1')
  })
  it('text between the JSON and the closing tag is unread', () => {
    invalid('<TOOLCALL>[{"name": "f", "arguments": {"a": 1}}] "b": 2}]</TOOLCALL>', 'nemotron_v2')
    invalid('<function=f>{"a": 1},"b": 2}</function>', 'functionary_v3_1')
    invalid('Action:\n```json\n[{"tool_name": "f", "parameters": {"a": 1}}]\n9, "b": 2}]\n```', 'command_r_plus')
  })
  it('text glued to JSON that runs to the end of the output is unread; prose after a space is not', () => {
    invalid('<|tool_call|>[{"name": "f", "arguments": {"a": 7}}]9, "b": 2}}]', 'granite')
    invalid('<function_call> {"name": "f", "arguments": {"a": "V"}}qa1", "b": 2}}', 'granite_20b_fc')
    invalid('functools[{"name": "f", "arguments": {"a": 7}}]9, "b": 2}}]', 'functools')
    valid('<|tool_call|>[{"name": "f", "arguments": {"a": 1}}] Done.', { a: 1 }, 'granite')
    valid('<function=f>{"a": 1}</function> and more text', { a: 1 }, 'functionary_v3_1')
  })
  it('Cohere and Inkling objects: a member that is not read makes the call invalid; tool_call_id does not', () => {
    invalid('<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "f", "paramters": {"a": 1}}]<|END_ACTION|>', 'command_r7b')
    valid('<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "f", "parameters": {"a": 1}}]<|END_ACTION|>', { a: 1 }, 'command_r7b')
    invalid('<|message_model|><|content_invoke_tool_json|>{"name": "f", "arg": {"a": 1}}<|end_message|>', 'inkling')
    valid('<|message_model|><|content_invoke_tool_json|>{"name": "f", "args": {"a": 1}}<|end_message|>', { a: 1 }, 'inkling')
  })
  it('a list that stops at an entry it cannot read keeps the entries before it', () => {
    const calls = parseToolCalls('<tool_calls>[{"name": "f", "arguments": {"a": 1}}, {"name": "g", "arguments": {"b": [}]</tool_calls>')
    expect(calls.map((c) => [c.name, c.argumentsValid])).toEqual([['f', true]])
  })
})

describe('DeepSeek and Kimi K2 tokens', () => {
  it('text after the arguments, before the call-end token, is unread', () => {
    invalid('<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{"a": 1},"b": 2}<｜tool▁call▁end｜><｜tool▁calls▁end｜>', 'deepseek_v31')
    invalid('<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{}"a": 1}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>', 'deepseek_v3')
    invalid('<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{"a": 1},"b": 2}<|tool_call_end|><|tool_calls_section_end|>', 'kimi_k2')
  })
  it('the closing fence, whitespace and a call-end token inside a string are read', () => {
    valid('<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{"a": 1}\n```\n<｜tool▁call▁end｜><｜tool▁calls▁end｜>', { a: 1 }, 'deepseek_v3')
    valid('<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{"s": "<｜tool▁call▁end｜>"} <｜tool▁call▁end｜><｜tool▁calls▁end｜>', { s: '<｜tool▁call▁end｜>' }, 'deepseek_v31')
  })
})

describe('pythonic calls', () => {
  it('a list glued to text that continues it is unread', () => {
    invalid("[f(a='V')]qa1', b=2)]", 'pythonic')
    valid("[f(a='V')]. Done.", { a: 'V' }, 'pythonic')
  })
  it('a closing token written twice: the call ran on past the first', () => {
    invalid("<|python_start|>[f(a=7)]<|python_end|>9, b='x')]<|python_end|>", 'llama4_pythonic')
    invalid("<function_calls>f(a='V')</function_calls>qa1', b=2)</function_calls>", 'olmo3')
    invalid("<|python_tag|>f.call(a='V')<|eom_id|>qa1', b=2)<|eom_id|>", 'llama3_builtin')
    invalid("<|python_tag|>f.call(a='V')a1', b=2)<|eom_id|>", 'llama3_builtin')
  })
  it('OLMo 3: text glued to a call is unread; the next call on its own line is not', () => {
    invalid("<function_calls>f(a='V')qa1', b=2)</function_calls>", 'olmo3')
    const calls = parseToolCalls("<function_calls>f(a=1)\ng(b=2)</function_calls>", { format: 'olmo3' })
    expect(calls.map((c) => [c.name, c.argumentsValid])).toEqual([['f', true], ['g', true]])
  })
})

describe('Functionary v3.2', () => {
  it('text glued to the JSON of a call is unread', () => {
    invalid('f\n{"a": 1},"b": 2}', 'functionary_v3_2')
    invalid('f\n{"a": 7}9, "b": 2}', 'functionary_v3_2')
    valid('f\n{"a": 1}>>>all\nDone.', { a: 1 }, 'functionary_v3_2')
  })
  it('an end-of-turn token glued to the call is content; another special token opens text that is unread', () => {
    valid('f\n{"a": "V"}<|eot_id|>', { a: 'V' }, 'functionary_v3_2')
    valid('f\n{"a": "V"}<|eom_id|>', { a: 'V' }, 'functionary_v3_2')
    invalid('f\n{"a": "V"}<|python_tag|>{"b": "2"}', 'functionary_v3_2')
    invalid('f\n{"a": "V"}<|tool_call_argument_begin|>{"b": "2"}', 'functionary_v3_2')
  })
})

describe('invoke and parameter tags (MiniMax M2, Step-3, ATEM, GigaChat 3.5, MiniCPM 5)', () => {
  it('`</invoke>` written twice before the next invoke: the call ran on past the first', () => {
    invalid('<minimax:tool_call>\n<invoke name="f">\n<parameter name="a">V</invoke>\nqa1</parameter>\n<parameter name="b">x</parameter>\n</invoke>\n</minimax:tool_call>', 'minimax_m2')
    invalid('<function name="f"><param name="a">V</function>qa1</param><param name="b">x</param></function>', 'minicpm5')
  })
  it('a damaged closing tag: the value holds part of it, or the next parameter\'s tag', () => {
    invalid('<minimax:tool_call>\n<invoke name="f">\n<parameter name="a">1</paramer name="b">x</parameter>\n</invoke>\n</minimax:tool_call>', 'minimax_m2')
    invalid('<｜tool_calls_begin｜><｜tool_call_begin｜><steptml:invoke name="f"><steptml:parameter name="a">1</stameter name="b">x</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>', 'step3')
    invalid('<function name="f"><param name="a">1b">x</param></function>', 'minicpm5')
  })
  it('text in a parameter tag besides its attributes makes the call invalid', () => {
    invalid('<minimax:tool_call>\n<invoke name="f">\n<parameter name=\n# note\n"a">1</parameter>\n</invoke>\n</minimax:tool_call>', 'minimax_m2')
  })
  it('values with markup of their own, and undeclared names in them, are still read', () => {
    valid('<minimax:tool_call>\n<invoke name="f">\n<parameter name="a"><p class="x">hi</p></parameter>\n</invoke>\n</minimax:tool_call>', { a: '<p class="x">hi</p>' }, 'minimax_m2')
    valid('<minimax:tool_call>\n<invoke name="f">\n<parameter name="a">say "c" or "b</parameter>\n<parameter name="b">x</parameter>\n</invoke>\n</minimax:tool_call>', { a: 'say "c" or "b', b: 'x' }, 'minimax_m2')
  })
})

describe('<function=NAME> blocks (Qwen3-Coder, Seed-OSS)', () => {
  const q = (body: string) => `<tool_call>\n<function=f>\n${body}</function>\n</tool_call>`
  it('text in the function that is not a parameter, or a damaged parameter tag, makes the call invalid', () => {
    invalid(q('<parameter=a>\n1\n</parameter>\n<paameter=b>\nx\n</parameter>\n'), 'qwen3_coder')
    invalid(q('<parameter=a>\n1\n</parameter>\n<param}eter=b>\nx\n</parameter>\n'), 'qwen3_coder')
    invalid('<seed:tool_call>\n<function=f>\n<parameter=a1</parameter>\n<parameter=b>x</parameter>\n</function>\n</seed:tool_call>', 'seed_oss')
  })
  it('a damaged closing tag: the value holds the next parameter\'s tag', () => {
    invalid(q('<parameter=a>\n1\n</pater=b>\nx\n</parameter>\n'), 'qwen3_coder')
    invalid(q('<parameter=a>\n1\nrameter=b>\nx\n</parameter>\n'), 'qwen3_coder')
  })
  it('a closing tag inside a value is read as text up to the structural </parameter> (vLLM), in full', () => {
    valid(q('<parameter=a>\nV</function>\n</tool_call>qa1\n</parameter>\n<parameter=b>\nx\n</parameter>\n'), { a: 'V</function>\n</tool_call>qa1', b: 'x' }, 'qwen3_coder')
    const memo = '<tool_call>\n<function=f>\n<parameter=a>\nnote: the reply closes with </tool_call> then stops\n</parameter>\n</function>\n</tool_call>'
    for (const format of ['qwen3_coder', undefined]) valid(memo, { a: 'note: the reply closes with </tool_call> then stops' }, format)
    const code = '<tool_call>\n<function=f>\n<parameter=a>\nend the block with </function> and a newline\n</parameter>\n<parameter=b>\n2\n</parameter>\n</function>\n</tool_call>'
    for (const format of ['qwen3_coder', undefined]) valid(code, { a: 'end the block with </function> and a newline', b: '2' }, format)
    valid('<seed:tool_call>\n<function=f>\n<parameter=a>say </seed:tool_call> here</parameter>\n</function>\n</seed:tool_call>', { a: 'say </seed:tool_call> here' }, 'seed_oss')
  })
  it('a closing tag inside a value that no </parameter> follows: the call ran on past it', () => {
    invalid(q('<parameter=a>\nV</function>\n</tool_call>qa1\n'), 'qwen3_coder')
    invalid(q('<parameter=a>\nV</function>\n</tool_call>qa1 </parameter>zz\n'), 'qwen3_coder')
  })
  it('markup of the value\'s own is read as text', () => {
    valid(q('<parameter=a>\n<svg><path d="M0"></path></svg>\n</parameter>\n'), { a: '<svg><path d="M0"></path></svg>' }, 'qwen3_coder')
  })
})

describe('Gemma 4 and FunctionGemma', () => {
  it('text after the call in its block, or the closer written twice, is unread', () => {
    invalid('<|tool_call>call:f{a:<|"|>V<|"|>}qa1,b:2}<tool_call|>', 'gemma4')
    invalid('<|tool_call>call:f{a:<|"|>V<|"|>}<tool_call|>qa1,b:2}<tool_call|>', 'gemma4')
    invalid('<start_function_call>call:f{a:<escape>V<escape>}<end_function_call>1,b:2}<end_function_call>', 'functiongemma')
    valid('<|tool_call>call:f{a:<|"|>V<|"|>}<tool_call|> Done.', { a: 'V' }, 'gemma4')
  })
})

describe('DeepSeek V3.2 DSML', () => {
  const dsml = (body: string) => `<｜DSML｜function_calls>\n<｜DSML｜invoke name="f">\n${body}</｜DSML｜invoke>\n</｜DSML｜function_calls>`
  const p = (k: string, v: string) => `<｜DSML｜parameter name="${k}" string="true">${v}</｜DSML｜parameter>\n`
  it('a damaged tag, or text between parameters, makes the call invalid', () => {
    invalid(dsml(p('a', '1') + '<｜DSML｜param}eter name="b" string="true">x</｜DSML｜parameter>\n'), 'deepseek_v32')
    invalid(dsml(p('a', '1') + '<｜DSML｜parameter namzq je="b" string="true">x</｜DSML｜parameter>\n'), 'deepseek_v32')
    invalid(dsml(p('a', '1') + 'stray\n' + p('b', 'x')), 'deepseek_v32')
    invalid(dsml('<｜DSML｜parameter name="a" string="true">1</｜DSML｜paraeter name="b" string="true">x</｜DSML｜parameter>\n'), 'deepseek_v32')
  })
  it('an invoke closer written inside a value: the call ran on past it', () => {
    invalid(dsml('<｜DSML｜parameter name="a" string="true">V</｜DSML｜invoke>\n</1</｜DSML｜parameter>\n' + p('b', 'x')), 'deepseek_v32')
  })
  it('well-formed parameters are read', () => {
    valid(dsml(p('a', '1') + p('b', 'x')), { a: '1', b: 'x' }, 'deepseek_v32')
  })
})

describe('Kimi K3 XTML', () => {
  const k3 = (body: string) => `<|open|>tools<|sep|><|open|>call tool="f" index="0"<|sep|>${body}<|close|>call<|sep|><|close|>tools<|sep|>`
  const arg = (k: string, v: string) => `<|open|>argument key="${k}" type="string"<|sep|>${v}<|close|>argument<|sep|>`
  it('a damaged argument tag, text between arguments, or a token in a value makes the call invalid', () => {
    invalid(k3(arg('a', '1') + '<|open|>argu\n# note\nment key="b" type="string"<|sep|>x<|close|>argument<|sep|>'), 'kimi_k3')
    invalid(k3(arg('a', '1') + '<|opn|>argument key="b" type="string"<|sep|>x<|close|>argument<|sep|>'), 'kimi_k3')
    invalid(k3('<|open|>argument key="a" type="string"<|sep|>1<|close|>argunt key="b" type="string"<|sep|>x<|close|>argument<|sep|>'), 'kimi_k3')
    invalid(k3(arg('a', '1') + 'stray' + arg('b', 'x')), 'kimi_k3')
  })
  it('well-formed arguments are read, with or without <|sep|> after a closer', () => {
    valid(k3(arg('a', '1') + '<|open|>argument key="b" type="string"<|sep|>x<|close|>argument'), { a: '1', b: 'x' }, 'kimi_k3')
  })
})

describe('holes found by longer runs of the property', () => {
  it('a call object closed early, then a comma and a member name: the rest of the object is unread', () => {
    invalid('[{"name": "f"},"arguments": {"a": 1}}]', 'json')
    invalid('<function_call> {"name": "f"},"arguments": {"a": 1}}', 'granite_20b_fc')
    valid('{"name": "f", "arguments": {"a": 1}}, then more.', { a: 1 }, 'json')
  })
  it('Hermes and Inkling: the closing tag written twice', () => {
    invalid('<tool_call>\n{"name": "f", "arguments": {"a": 7}}\n</tool_call>9, "b": 2}}\n</tool_call>', 'hermes')
    invalid('<|message_model|><|content_invoke_tool_json|>{"name": "f", "args": {"a": "V"}}<|end_message|>1", "b": 2}}<|end_message|>', 'inkling')
  })
  it('a damaged closing token right after a pythonic call', () => {
    invalid("<function_calls>f(a='V')</fa1', b=2)</function_calls>", 'olmo3')
    invalid("<|python_start|>[f(a='V')]<|python_ena1', b=2)]<|python_end|>", 'llama4_pythonic')
    const calls = parseToolCalls("<function_calls>f(a=1)\ng(b=\n</function_calls>", { format: 'olmo3' })
    expect(calls.map((c) => [c.name, c.argumentsValid])).toEqual([['f', true]])
  })
  it('DSML: a damaged parameter closer that swallowed a declared parameter\'s tag', () => {
    invalid('<｜DSML｜function_calls>\n<｜DSML｜invoke name="f">\n<｜DSML｜parameter name="a" string="true">1</｜DSM"b" string="true">x</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>', 'deepseek_v32')
  })
})

describe('key/value tag pairs and LFM2', () => {
  it('a key holding part of a tag makes the call invalid', () => {
    invalid('<tool_calls>\n<tool_call>f<tool_sep>\n<arg_key>>a</arg_key>\n<arg_value>1</arg_value>\n</tool_call>\n</tool_calls>', 'hunyuan3')
    invalid('<|tool_call:start|>f\n<|tool_arg:start|>>a<|tool_arg:value|>1<|tool_arg:end|>\n<|tool_call:end|>', 'solar_open2')
  })
  it('LFM2: the end token written twice; a closed block that does not read is an attempt, not a bare list', () => {
    invalid("<|tool_call_start|>[f(a='Vqa1', b=7351)]<|tool_call_end|>9, c='x')]<|tool_call_end|>", 'lfm2')
    const calls = parseToolCalls("<|tool_call_start|>[f(a='V')]<|toqa1', b=2)]<|tool_call_end|>", { tools: TOOLS })
    expect(calls.map((c) => [c.name, c.argumentsValid, c.format])).toEqual([['', false, 'lfm2']])
    valid("<|tool_call_start|>[f(a='V')]<|tool_call_end|> Done.", { a: 'V' }, 'lfm2')
  })
})

describe('Harmony (gpt-oss, LLM-jp)', () => {
  const h = (body: string, stop = '<|call|>') => `<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>${body}${stop}`
  it('text after the JSON in its body, before the stop token or the next header, is unread', () => {
    invalid(h('{"a": "V"}qa1", "b": "x"}'), 'harmony')
    invalid(h('{}"a": "V", "b": "x"}'), 'harmony')
    invalid(h('{"a": "V"}<|calqa1", "b": "x"}'), 'harmony')
    invalid(`${h('{"a": "V"} and "b": "x"', '')}<|start|>assistant<|channel|>final<|message|>Done.`, 'harmony')
  })
  it('a stop token written inside a value: the stop token comes again after text, unread', () => {
    invalid(h('{"a": "V"}<|call|>qa1", "b": "x"}'), 'harmony')
    invalid(h('{"a": "V"}<|end|>1", "b": "x"}', '<|end|>'), 'harmony')
  })
  it('whitespace after the JSON, a stop token quoted in a value, and LLM-jp\'s spaced tokens are read', () => {
    valid(h('{"a": "V", "b": "x"}\n'), { a: 'V', b: 'x' }, 'harmony')
    valid(h('{"a": "x<|call|>y", "b": "z"}'), { a: 'x<|call|>y', b: 'z' }, 'harmony')
    valid('<|start|> assistant to=functions.f<|channel|> commentary json<|message|> {"a": "V"} <|call|> <|end|>', { a: 'V' }, 'harmony')
    valid(`${h('{"a": "V"}')}<|start|>assistant<|channel|>final<|message|>Done.<|return|>`, { a: 'V' }, 'harmony')
    // Prose after complete arguments could not have held one: content, the call stays valid.
    valid(`${h('{"a": "V"} and more', '')}<|start|>assistant<|channel|>final<|message|>Done.`, { a: 'V' }, 'harmony')
  })
})
