/**
 * IBM Granite 3.x: a JSON list of call objects after `<|tool_call|>` (3.0, a special token) or `<tool_call>` (3.1+, a
 * plain string, no closing tag), running to the end of the output: `<|tool_call|>[{"name": ..., "arguments": {...}}]`.
 *
 * The list is read element by element, so a list cut off by the end of the output keeps its complete calls (llama.cpp
 * reports them too). Text before the marker is content; text after the list is ignored, unless glued to it
 * (`]9, "b": 2}]`: the rest of a value, so the calls are invalid; docs/FORMATS.md, no silent argument loss).
 *
 * Contested choices (vLLM's tests expect no call for these malformed outputs; each is what a user scoring the model
 * would want to see): text around the call still gives the call; a single object instead of a list is read as the
 * call it is; `arguments` that is not an object gives the call with invalid arguments (NeMo's rule); a list without
 * a marker is not this format (the generic JSON format may still read it); JSON cut off inside the first call gives
 * no call.
 *
 * Detection keys on `<|tool_call|>` only: `<tool_call>` text is read by the Hermes format, which also accepts a list
 * inside the tag and a missing `</tool_call>`, so Granite 3.1 output gives the same calls either way.
 */
import { parseJsonAt, skipSpace } from '../json.js'
import type { FormatParser, ParseOptions, ToolCall } from '../types.js'
import { callsFromList, callsFromValue } from '../json-calls.js'
import { markedBy } from '../marker-scan.js'
import { unreadTail } from '../unread.js'

const TOKEN = '<|tool_call|>'
const TAG = '<tool_call>'
const FORMAT = 'granite'

/** Positions of every occurrence of `marker`, in order. */
function positions(text: string, marker: string): number[] {
  const out: number[] = []
  for (let i = text.indexOf(marker); i >= 0; i = text.indexOf(marker, i + marker.length)) out.push(i)
  return out
}

function parseGranite(text: string, options: ParseOptions): ToolCall[] {
  const markers = [
    ...positions(text, TOKEN).map((at) => ({ at, body: at + TOKEN.length })),
    ...positions(text, TAG).map((at) => ({ at, body: at + TAG.length })),
  ].sort((a, b) => a.at - b.at)
  const out: ToolCall[] = []
  markers.forEach((m, k) => {
    const limit = k + 1 < markers.length ? markers[k + 1]!.at : text.length
    const i = skipSpace(text, m.body, limit)
    const c = text.charCodeAt(i)
    if (c === 91 /* [ */) {
      const { calls, end } = callsFromList(text, i, limit, FORMAT, options)
      out.push(...unreadTail(calls, text, end, limit))
    } else if (c === 123 /* { */) {
      const r = parseJsonAt(text, i, limit)
      if (r.ok) out.push(...unreadTail(callsFromValue(r.value, FORMAT, r.floatPaths, text.slice(i, r.end), options), text, r.end, limit))
    }
  })
  return out
}

export const granite: FormatParser = {
  name: FORMAT,
  aliases: ['granite3'],
  ...markedBy(TOKEN),
  parse: parseGranite,
  render: (calls) => TOKEN + JSON.stringify(calls.map((c) => ({ name: c.name, arguments: c.arguments }))),
}
