/**
 * Muse Glimmer's ATEM: a message addressed to the tool holds namespaced invoke/parameter XML:
 *
 * ```
 * <|start|>assistant to=get_weather<|message|><atem:function_calls>
 * <atem:invoke name="get_weather">
 * <atem:parameter name="city">Paris</atem:parameter>
 * </atem:invoke>
 * </atem:function_calls><|eom|>
 * ```
 *
 * Source: vLLM's `tool_parsers/muse_glimmer_tool_parser.py` (a port of the checkpoint's response schema). Values are
 * decoded as JSON when they are JSON, else kept as text; with a tool schema the schema types them. Messages addressed
 * to `self` (reasoning) or `user` (the answer) are not tool calls even when they quote an invoke: their bodies are
 * cut out before reading. vLLM also maps a doubled name (`get_weather.get_weather`) to a registered one; an evaluator
 * keeps the name as written.
 */
import type { FormatParser } from '../types.js'
import { invokeCalls, renderInvoke, type InvokeTags } from '../xml-invoke.js'
import { markedBy } from '../marker-scan.js'
import { ForwardSearch } from '../scan.js'

const FORMAT = 'atem'
const TAGS: InvokeTags = {
  invoke: '<atem:invoke',
  invokeEnd: '</atem:invoke>',
  parameter: '<atem:parameter',
  parameterEnd: '</atem:parameter>',
}
const MESSAGE = '<|message|>'
const ENDS = ['<|eom|>', '<|eot|>', '<|start|>', MESSAGE]

/** The text without the bodies of messages to `self` or `user`. One forward pass. */
function toolChannels(text: string): string {
  if (!text.includes(' to=self' + MESSAGE) && !text.includes(' to=user' + MESSAGE)) return text
  const ends = ENDS.map((e) => new ForwardSearch(text, e))
  const message = ends[ends.length - 1]!
  let out = ''
  let from = 0
  let at = message.next(0)
  while (at >= 0) {
    const body = at + MESSAGE.length
    const quiet = text.endsWith('to=self', at) || text.endsWith('to=user', at)
    let end = text.length
    for (const e of ends) {
      const i = e.next(body)
      if (i >= 0 && i < end) end = i
    }
    if (quiet) {
      out += text.slice(from, body)
      from = end
    }
    at = message.next(end)
  }
  return out + text.slice(from)
}

export const atem: FormatParser = {
  name: FORMAT,
  aliases: ['muse_glimmer', 'muse-glimmer', 'glimmer'],
  ...markedBy(TAGS.invoke),
  parse: (text, options) => invokeCalls(toolChannels(text), options, FORMAT, TAGS),
  render: (calls) =>
    calls
      .map((c) => `<|start|>assistant to=${c.name}${MESSAGE}<atem:function_calls>\n${renderInvoke(c, TAGS, '\n')}\n</atem:function_calls><|eom|>`)
      .join(''),
}
