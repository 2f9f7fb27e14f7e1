/**
 * Llama 3.1 / 3.3 built-in tools: `<|python_tag|>brave_search.call(query="...")`. The call is named by the tool
 * before `.call` (llama.cpp's mapping: `code_interpreter.call(code=...)` is the tool `code_interpreter`). Only the
 * `NAME.call(...)` shape is this format; JSON after the tag is `llama3_json`'s, tried next.
 */
import { makeCall } from '../call-object.js'
import { parsePythonCallAt, renderPythonCall } from '../../python/index.js'
import type { FormatParser, ToolCall } from '../types.js'
import { ForwardSearch, forEachMarkerRegion } from '../scan.js'
import { unreadTail } from '../unread.js'

const FORMAT = 'llama3_builtin'
const TAG = '<|python_tag|>'
const SUFFIX = '.call'
const END = '<|eom_id|>'

function parse(text: string): ToolCall[] {
  const out: ToolCall[] = []
  const ends = new ForwardSearch(text, END)
  forEachMarkerRegion(text, TAG, (from, limit) => {
    // Parsed on its own up to the next tag, so a broken call never reads past it.
    const r = parsePythonCallAt(text.slice(from, limit), 0)
    if (!r.ok) return
    const c = r.calls[0]!
    if (c.name.endsWith(SUFFIX) && c.name.length > SUFFIX.length) {
      const name = c.name.slice(0, -SUFFIX.length)
      const call = makeCall(name, { arguments: c.args, argumentsValid: true, floatPaths: c.floatPaths }, FORMAT, c.raw)
      // Text after the call, before `<|eom_id|>` or a second one, is unread (issue 22).
      out.push(...unreadTail([call], text, from + r.end, limit, ends))
    }
  })
  return out
}

export const llama3Builtin: FormatParser = {
  name: FORMAT,
  aliases: ['llama3_1_builtin', 'llama_builtin'],
  markers: [TAG],
  detect: (text) => text.includes(TAG) && text.includes(SUFFIX),
  parse,
  render: (calls) => calls.map((c) => TAG + renderPythonCall(c.name + SUFFIX, c.arguments) + END).join(''),
}
