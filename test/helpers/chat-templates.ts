/**
 * Chat templates written here from the engines' documentation, for wire formats whose real templates ship in no npm
 * package: only the parts that render messages and assistant tool calls (the tool list is left out).
 */

/** Turns around an assistant part; `CALLS` is replaced by the template's tool-call part. */
function chat(assistantCalls: string, open = '<|assistant|>\n', close = '<|end|>\n', contentWithCalls = true): string {
  const content = contentWithCalls ? "{{ m.content if m.content is string else '' }}" : "{%- if not m.tool_calls %}{{ m.content }}{%- endif %}"
  return (
    "{%- for m in messages %}{%- if m.role == 'user' %}<|user|>\n{{ m.content }}<|end|>\n" +
    `{%- elif m.role == 'assistant' %}${open}${content}` +
    `{%- if m.tool_calls %}${assistantCalls}{%- endif %}${close}{%- endif %}{%- endfor %}` +
    "{%- if add_generation_prompt %}<|assistant|>\n{%- endif %}"
  )
}

/** GLM-4.5 / 4.6: `<tool_call>NAME` then `<arg_key>`/`<arg_value>` pairs, strings as they are, the rest as JSON. */
export const GLM45 = chat(
  "{%- for tc in m.tool_calls %}{%- set f = tc.function %}{{ '\\n<tool_call>' + f.name + '\\n' }}" +
    "{%- for k, v in f.arguments | items %}{{ '<arg_key>' + k + '</arg_key>\\n<arg_value>' }}" +
    "{{- v if v is string else v | tojson }}{{ '</arg_value>\\n' }}{%- endfor %}{{ '</tool_call>' }}{%- endfor %}",
)

/** Qwen3-Coder / Qwen3.5: `<tool_call>\n<function=NAME>` then `<parameter=KEY>` blocks. */
export const QWEN3_CODER = chat(
  "{%- for tc in m.tool_calls %}{%- set f = tc.function %}{{ '\\n<tool_call>\\n<function=' + f.name + '>\\n' }}" +
    "{%- for k, v in f.arguments | items %}{{ '<parameter=' + k + '>\\n' }}" +
    "{{- v if v is string else v | tojson }}{{ '\\n</parameter>\\n' }}{%- endfor %}{{ '</function>\\n</tool_call>' }}{%- endfor %}",
  '<|im_start|>assistant\n',
  '<|im_end|>\n',
)

/** Mistral v3 (7B v0.3, Nemo): `[TOOL_CALLS]` then one JSON list of `{"name", "arguments"}` objects. */
export const MISTRAL = chat(
  "{{ '[TOOL_CALLS][' }}{%- for tc in m.tool_calls %}{{ '{\"name\": \"' + tc.function.name + '\", \"arguments\": ' }}" +
    "{{- tc.function.arguments | tojson }}{{ '}' }}{%- if not loop.last %}{{ ', ' }}{%- endif %}{%- endfor %}{{ ']' }}",
  '[/INST]',
  '</s>',
)

/**
 * Llama 3.1 JSON tool calls: a bare `{"name", "parameters"}` object, one call per turn (two raise, as Meta's does),
 * the message's text left out.
 */
export const LLAMA31_JSON = chat(
  "{%- if m.tool_calls | length != 1 %}{{ raise_exception('This model only supports single tool-calls at once!') }}{%- endif %}" +
    "{%- set f = m.tool_calls[0].function %}{{ '{\"name\": \"' + f.name + '\", \"parameters\": ' }}{{ f.arguments | tojson }}{{ '}' }}",
  '<|start_header_id|>assistant<|end_header_id|>\n\n',
  '<|eot_id|>',
  false,
)

/** LFM2: a pythonic call list between `<|tool_call_start|>` and `<|tool_call_end|>`. */
export const LFM2 = chat(
  "{{ '<|tool_call_start|>[' }}{%- for tc in m.tool_calls %}{{ tc.function.name + '(' }}" +
    "{%- for k, v in tc.function.arguments | items %}{{ k + '=' }}{{ v | tojson }}{%- if not loop.last %}{{ ', ' }}{%- endif %}{%- endfor %}" +
    "{{ ')' }}{%- if not loop.last %}{{ ', ' }}{%- endif %}{%- endfor %}{{ ']<|tool_call_end|>' }}",
)

/** A format no hand-written parser knows: name, `::`, JSON arguments, in double brackets. */
export const INVENTED_NAME_JSON = chat(
  "{%- for tc in m.tool_calls %}{{ '[[CALL]]' + tc.function.name + ' :: ' }}{{ tc.function.arguments | tojson }}{{ '[[/CALL]]' }}{%- endfor %}",
)

/** A format no hand-written parser knows: an invoke tag with the name as attribute, one `<arg k="KEY">` per argument. */
export const INVENTED_XML = chat(
  "{%- for tc in m.tool_calls %}{{ '\\n<invoke fn=\"' + tc.function.name + '\">' }}" +
    "{%- for k, v in tc.function.arguments | items %}{{ '<arg k=\"' + k + '\">' }}{{ v if v is string else v | tojson }}{{ '</arg>' }}{%- endfor %}" +
    "{{ '</invoke>' }}{%- endfor %}",
)

/** Calls written in no shape known here (`name: key=value; ...`): derivation must fail, not guess. */
export const UNKNOWN_SHAPE = chat(
  "{%- for tc in m.tool_calls %}{{ '\\nCALL ' + tc.function.name + ': ' }}{%- for k, v in tc.function.arguments | items %}{{ k + '=' }}{{ v }}{{ '; ' }}{%- endfor %}{%- endfor %}",
)

/**
 * gpt-oss (Harmony), its tool-call part as the model's template writes it: the recipient in the role header, one
 * call per assistant message (more raise), text before a call in the analysis channel, plain answers in `final`.
 */
export const GPT_OSS =
  "{%- for m in messages %}{%- if m.role == 'user' %}<|start|>user<|message|>{{ m.content }}<|end|>" +
  "{%- elif m.role == 'assistant' and m.tool_calls %}" +
  "{%- if m.tool_calls | length > 1 %}{{ raise_exception('only one tool call per message') }}{%- endif %}" +
  "{%- set tc = m.tool_calls[0].function %}" +
  "{%- if m.content %}{{ '<|start|>assistant<|channel|>analysis<|message|>' + m.content + '<|end|>' }}{%- endif %}" +
  "{{ '<|start|>assistant to=functions.' + tc.name + '<|channel|>commentary json<|message|>' }}{{ tc.arguments | tojson }}{{ '<|call|>' }}" +
  "{%- elif m.role == 'assistant' %}{{ '<|start|>assistant<|channel|>final<|message|>' + m.content + '<|end|>' }}{%- endif %}{%- endfor %}" +
  "{%- if add_generation_prompt %}<|start|>assistant{%- endif %}"

/**
 * Kimi K2: the call's id, `functions.NAME:IDX`, is the only place its name is written (the message's `id` field,
 * rendered as given), then the JSON arguments, inside the tool-calls section tokens.
 */
export const KIMI_K2 = chat(
  '<|tool_calls_section_begin|>' +
    "{%- for tc in m.tool_calls %}{{ '<|tool_call_begin|>' + tc.id + '<|tool_call_argument_begin|>' }}" +
    "{%- if tc.function.arguments is string %}{{ tc.function.arguments }}{%- else %}{{ tc.function.arguments | tojson }}{%- endif %}" +
    "{{ '<|tool_call_end|>' }}{%- endfor %}<|tool_calls_section_end|>",
  '<|im_assistant|>assistant<|im_middle|>',
  '<|im_end|>',
)

/** DeepSeek V3.2 (DSML): `string="true"` on a string parameter (written as it is), `string="false"` on JSON ones. */
export const DEEPSEEK_V32 = chat(
  '\n\n<｜DSML｜function_calls>\n' +
    "{%- for tc in m.tool_calls %}{{ '<｜DSML｜invoke name=\"' + tc.function.name + '\">\\n' }}" +
    "{%- for k, v in tc.function.arguments | items %}{{ '<｜DSML｜parameter name=\"' + k + '\" string=\"' }}" +
    "{{- 'true\">' + v if v is string else 'false\">' + (v | tojson) }}{{ '</｜DSML｜parameter>\\n' }}{%- endfor %}" +
    "{{ '</｜DSML｜invoke>\\n' }}{%- endfor %}</｜DSML｜function_calls>",
)

/** K2 Horizon's `xml_typed` dialect: an `<ifm|arg_type>` tag naming each value's JSON type. */
export const K2_HORIZON_TYPED = chat(
  '<ifm|tool_calls>' +
    "{%- for tc in m.tool_calls %}{{ '\\n<ifm|tool_call>' + tc.function.name + '\\n' }}" +
    "{%- for k, v in tc.function.arguments | items %}{{ '<ifm|arg_key>' + k + '</ifm|arg_key>\\n<ifm|arg_type>' }}" +
    "{%- if v is string %}string{%- elif v is boolean %}boolean{%- elif v is integer %}integer{%- elif v is number %}number" +
    "{%- elif v is none %}null{%- elif v is mapping %}object{%- else %}array{%- endif %}" +
    "{{ '</ifm|arg_type>\\n<ifm|arg_value>' }}{{- v if v is string else v | tojson }}{{ '</ifm|arg_value>\\n' }}{%- endfor %}" +
    "{{ '</ifm|tool_call>' }}{%- endfor %}\n</ifm|tool_calls>",
  '<|ifm|im_start|>assistant\n',
  '<|ifm|im_end|>\n',
)
