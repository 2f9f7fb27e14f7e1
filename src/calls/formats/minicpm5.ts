/**
 * MiniCPM 5: `<function name="NAME"><param name="k">v</param>...</function>`, one element per call (a
 * `<tool_call>` wrapper around them, if written, is ignored).
 *
 * Source: vLLM's `tool_parsers/minicpm5xml_tool_parser.py` (values trimmed, a `<![CDATA[…]]>` value unwrapped, then
 * decoded as JSON unless the schema says string), read with the invoke/parameter reader (`../xml-invoke.ts`): values
 * are typed by the tool schema. vLLM also drops calls to tools not offered and maps alias names; an evaluator keeps
 * the call as written. `<function=NAME>`
 * (Qwen3-Coder) and `<parameter ...>` are not this format's tags and are skipped by the reader; an element holding
 * anything but `<param>` elements (Hermes' `<function name="f">{json}</function>`) is not this format's call.
 */
import type { FormatParser, ToolCall } from '../types.js'
import { invokeCalls, renderInvoke, trimCdata, type InvokeTags } from '../xml-invoke.js'
import { markedBy } from '../marker-scan.js'

const FORMAT = 'minicpm5'
const MARKER = '<function name='
// Values are trimmed and a CDATA section is unwrapped, as vLLM's `minicpm5xml` parser does.
const TAGS: InvokeTags = {
  invoke: '<function',
  invokeEnd: '</function>',
  parameter: '<param',
  parameterEnd: '</param>',
  clean: trimCdata,
}

/**
 * Whether a call's element is this format's: no parameters at all, or `<param>` ones. Llama 3.x's Hermes variant
 * `<function name="f">{"a": 1}</function>` holds JSON instead and is left to Hermes.
 */
function ownElement(call: ToolCall): boolean {
  const raw = call.raw ?? ''
  const body = raw.slice(raw.indexOf('>') + 1, raw.length - TAGS.invokeEnd.length).trim()
  return body.length === 0 || body.startsWith(TAGS.parameter)
}

export const minicpm5: FormatParser = {
  name: FORMAT,
  aliases: ['minicpm', 'minicpm-5'],
  ...markedBy(MARKER),
  parse: (text, options) => invokeCalls(text, options, FORMAT, TAGS).filter(ownElement),
  render: (calls) => calls.map((c) => renderInvoke(c, TAGS, '')).join('\n'),
}
