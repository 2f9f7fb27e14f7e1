/**
 * MiniCPM 5: `<function name="NAME"><param name="k">v</param>...</function>`, one element per call (a
 * `<tool_call>` wrapper around them, if written, is ignored).
 *
 * No authoritative source (chat template or engine parser) for MiniCPM 5 was found; one client's test sample shows
 * `<function name="list_mailboxes"></function>`. This follows that and the issue's description, read with the
 * invoke/parameter reader (`../xml-invoke.ts`): values are raw text typed by the tool schema. `<function=NAME>`
 * (Qwen3-Coder) and `<parameter ...>` are not this format's tags and are skipped by the reader; an element holding
 * anything but `<param>` elements (Hermes' `<function name="f">{json}</function>`) is not this format's call.
 */
import type { FormatParser, ToolCall } from '../types.js'
import { invokeCalls, renderInvoke, type InvokeTags } from '../xml-invoke.js'
import { markedBy } from '../marker-scan.js'

const FORMAT = 'minicpm5'
const MARKER = '<function name='
const TAGS: InvokeTags = { invoke: '<function', invokeEnd: '</function>', parameter: '<param', parameterEnd: '</param>' }

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
