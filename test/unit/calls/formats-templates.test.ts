/**
 * Formats derived from templates that need more than `messages` and `tools` (FireFunction's `functions` and
 * `datetime`, a thinking switch), that start the model's output inside a call (Functionary v2), that write call
 * objects back to back after text (Llama 4), and the formats those models write as detection reads them. Templates
 * are written here after the models' own (the Functionary v2 one as it ships); outputs are our own strings.
 */
import { describe, expect, it, vi } from 'vitest'
import { deriveFormat, parseDerived, parseToolCalls, type DerivedFormat } from '../../../src/calls/index.js'

const shape = (calls: { name: string; arguments: Record<string, unknown>; argumentsValid: boolean; format: string }[]) =>
  calls.map((c) => [c.format, c.name, c.arguments, c.argumentsValid])

function derived(template: string): DerivedFormat {
  const f = deriveFormat(template)
  if ('error' in f) throw new Error(f.error)
  return f
}

/** Functionary v2's template as it ships (MeetKai functionary-small-v2.x). */
const FUNCTIONARY_V2 =
  "{% for message in messages %}\n{% if message['role'] == 'user' or message['role'] == 'system' %}\n{{ '<|from|>' + message['role'] + '\n<|recipient|>all\n<|content|>' + message['content'] + '\n' }}{% elif message['role'] == 'tool' %}\n{{ '<|from|>' + message['name'] + '\n<|recipient|>all\n<|content|>' + message['content'] + '\n' }}{% else %}\n{% set contain_content='no'%}\n{% if message['content'] is not none %}\n{{ '<|from|>assistant\n<|recipient|>all\n<|content|>' + message['content'] }}{% set contain_content='yes'%}\n{% endif %}\n{% if 'tool_calls' in message and message['tool_calls'] is not none %}\n{% for tool_call in message['tool_calls'] %}\n{% set prompt='<|from|>assistant\n<|recipient|>' + tool_call['function']['name'] + '\n<|content|>' + tool_call['function']['arguments'] %}\n{% if loop.index == 1 and contain_content == \"no\" %}\n{{ prompt }}{% else %}\n{{ '\n' + prompt}}{% endif %}\n{% endfor %}\n{% endif %}\n{{ '<|stop|>\n' }}{% endif %}\n{% endfor %}\n{% if add_generation_prompt %}{{ '<|from|>assistant\n<|recipient|>' }}{% endif %}"

/** Llama 4's assistant turn: content, then `{"name": ..., "parameters": ...}` per call, back to back. */
const LLAMA4_JSON =
  "{{- bos_token }}{%- for message in messages %}{%- if message.role == 'user' %}{{- '<|header_start|>user<|header_end|>\\n\\n' + message.content + '<|eot|>' }}" +
  "{%- elif message.role == 'assistant' %}{{- '<|header_start|>assistant<|header_end|>\\n\\n' -}}{%- if message.content %}{{- message.content }}{%- endif %}" +
  "{%- for tool_call in message.tool_calls or [] %}{%- if tool_call.function is defined %}{%- set tool_call = tool_call.function %}{%- endif %}" +
  "{{- '{\"name\": \"' + tool_call.name + '\", ' }}{{- '\"parameters\": ' }}{{- tool_call.arguments | tojson }}{{- '}' }}{%- endfor %}{{- '<|eot|>' }}{%- endif %}{%- endfor %}" +
  "{%- if add_generation_prompt %}{{- '<|header_start|>assistant<|header_end|>\\n\\n' }}{%- endif %}"

/** FireFunction v2's shape: the system prompt needs `functions` and `datetime` (an undefined one raises), calls after `functools`. */
const FIREFUNCTION_LIKE =
  "{%- if functions is not defined or datetime is not defined %}{{ raise_exception('functions and datetime are required') }}{%- endif %}" +
  "{{- '<|start_header_id|>system<|end_header_id|>\\n\\nIn addition to plain text responses, you can chose to call one or more of the provided functions. Today is ' + datetime + '.\\nFunctions:\\n' + functions + '<|eot_id|>' }}" +
  "{%- for message in messages %}{%- if message.role == 'user' %}{{- '<|start_header_id|>user<|end_header_id|>\\n\\n' + message.content + '<|eot_id|>' }}" +
  "{%- elif message.role == 'assistant' %}{{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{%- if message.content %}{{- message.content }}{%- endif %}" +
  "{%- if message.tool_calls %}{{- ' functools[' }}{%- for c in message.tool_calls %}{{- '{\"name\": \"' + c.function.name + '\", \"arguments\": ' + (c.function.arguments | tojson) + '}' }}{%- if not loop.last %}{{- ', ' }}{%- endif %}{%- endfor %}{{- ']' }}{%- endif %}{{- '<|eot_id|>' }}{%- endif %}{%- endfor %}"

/** A thinking switch the template reads and raises without (a Qwen3-style `enable_thinking`). */
const THINKING_SWITCH =
  "{%- if enable_thinking is not defined %}{{ raise_exception('enable_thinking is required') }}{%- endif %}" +
  "{%- for message in messages %}{%- if message.role == 'user' %}{{- '<|im_start|>user\\n' + message.content + '<|im_end|>\\n' }}" +
  "{%- elif message.role == 'assistant' %}{{- '<|im_start|>assistant\\n' }}{%- if enable_thinking %}{{- '<think>\\n\\n</think>\\n\\n' }}{%- endif %}{{- message.content or '' }}" +
  "{%- for c in message.tool_calls or [] %}{{- '<tool_call>\\n{\"name\": \"' + c.function.name + '\", \"arguments\": ' + (c.function.arguments | tojson) + '}\\n</tool_call>' }}{%- endfor %}{{- '<|im_end|>\\n' }}{%- endif %}{%- endfor %}"

describe('templates that need variables beyond messages and tools', () => {
  it('FireFunction: functions and datetime are supplied, and the format is derived (functools)', () => {
    const f = derived(FIREFUNCTION_LIKE)
    expect(f.matches).toBe('functools')
  })
  it('a thinking switch is supplied (off): the format is derived (hermes)', () => {
    expect(derived(THINKING_SWITCH).matches).toBe('hermes')
  })
  it('a construct the JavaScript engine lacks is named in the error, not a silent fallback', () => {
    // `{% do %}` and `list.append()` are supplied (derive-python-jinja.test.ts); `{% with %}` is not.
    const t = "{%- for message in messages %}{%- set parts = [] %}{%- do parts.append(message.content) %}{% with x = 1 %}{{ x }}{% endwith %}{{- parts | join }}{%- endfor %}"
    const f = deriveFormat(t)
    expect('error' in f && f.error).toMatch(/with.*the template uses \{% with %\}, which Python's Jinja has and @huggingface\/jinja lacks/)
    expect('error' in f && f.error).not.toMatch(/append/)
    // A template the user gave that cannot be compiled is an error wherever it was given, naming the construct.
    expect(() => parseToolCalls('<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>', { chatTemplate: t })).toThrow(/\{% with %\}/)
  })
})

describe('Functionary v2: the generation prompt ends with the recipient prefix', () => {
  const out = 'get_weather\n<|content|>{"city": "Oslo"}\n<|from|>assistant\n<|recipient|>get_time\n<|content|>{"zone": "CET"}<|stop|>'
  const both = [
    ['functionary_v2', 'get_weather', { city: 'Oslo' }, true],
    ['functionary_v2', 'get_time', { zone: 'CET' }, true],
  ]
  it('detection reads it: the first call begins the output', () => {
    expect(shape(parseToolCalls(out))).toEqual(both)
    expect(shape(parseToolCalls('all\n<|content|>Checking.\n<|from|>assistant\n<|recipient|>get_weather\n<|content|>{"city": "Oslo"}<|stop|>'))).toEqual([both[0]])
    expect(parseToolCalls('all\n<|content|>Hello, how can I help?<|stop|>')).toEqual([])
    // Prose before the first content is not a recipient.
    expect(parseToolCalls('Sure thing\n<|content|>{"city": "Oslo"}<|stop|>')).toEqual([])
  })
  it('derived from its template: the format matches, and the derived reader also reads the first call', () => {
    const f = derived(FUNCTIONARY_V2)
    expect(f.openedByPrompt).toBe(true)
    expect(f.matches).toBe('functionary_v2')
    expect(parseDerived(out, f).map((c) => [c.name, c.arguments])).toEqual([
      ['get_weather', { city: 'Oslo' }],
      ['get_time', { zone: 'CET' }],
    ])
    expect(shape(parseToolCalls(out, { chatTemplate: FUNCTIONARY_V2 }))).toEqual(both)
  })
})

describe('Llama 4 and FunctionGemma spellings', () => {
  const out = 'Checking both. {"name": "get_weather", "parameters": {"city": "Oslo"}}{"name": "get_time", "parameters": {"zone": "CET"}}'
  const both = [
    ['get_weather', { city: 'Oslo' }, true],
    ['get_time', { zone: 'CET' }, true],
  ]
  it('Llama 4: call objects back to back are each read, derived and detected', () => {
    const f = derived(LLAMA4_JSON)
    expect(f.verified).toContain('text before the call')
    expect(parseDerived(out, f).map((c) => [c.name, c.arguments, c.argumentsValid])).toEqual(both)
    expect(parseToolCalls(out, { chatTemplate: LLAMA4_JSON }).map((c) => [c.name, c.arguments, c.argumentsValid])).toEqual(both)
    expect(parseToolCalls('<|python_tag|>{"name": "get_weather", "parameters": {"city": "Oslo"}}{"name": "get_time", "parameters": {"zone": "CET"}}').map((c) => [c.name, c.arguments, c.argumentsValid])).toEqual(both)
  })
  it('FunctionGemma: bare None is null (and True/False booleans); a string is escape-wrapped', () => {
    expect(shape(parseToolCalls('<start_function_call>call:get_weather{city:<escape>None<escape>,days:None,live:True}<end_function_call>'))).toEqual([
      ['functiongemma', 'get_weather', { city: 'None', days: null, live: true }, true],
    ])
  })
})
