/**
 * Granite-20B-FunctionCalling: each call prefixed by `<function_call>`, no closing tag:
 * `<function_call> {"name": ..., "arguments": {...}}\n<function_call> {...}`.
 *
 * Each marker's JSON is read up to the next marker at most. Contested choices: text before the first marker is
 * content and the calls still count (vLLM's streaming parser requires the marker first); a list of call objects after
 * the marker is read as those calls; JSON cut off by the end of the output gives no call; a non-string name is not a
 * call; JSON without the marker is not this format.
 */
import { parseJsonAt, skipSpace } from '../json.js'
import type { FormatParser, ParseOptions, ToolCall } from '../types.js'
import { callsFromValue } from '../json-calls.js'
import { forEachMarkerRegion } from '../scan.js'
import { markedBy } from '../marker-scan.js'
import { unreadTail } from '../unread.js'

const MARKER = '<function_call>'
const FORMAT = 'granite_20b_fc'

function parseGranite20bFc(text: string, options: ParseOptions): ToolCall[] {
  const out: ToolCall[] = []
  forEachMarkerRegion(text, MARKER, (start, limit) => {
    const i = skipSpace(text, start, limit)
    const c = text.charCodeAt(i)
    if (c !== 123 /* { */ && c !== 91 /* [ */) return
    const r = parseJsonAt(text, i, limit)
    if (r.ok) out.push(...unreadTail(callsFromValue(r.value, FORMAT, r.floatPaths, text.slice(i, r.end), options), text, r.end, limit))
  })
  return out
}

export const granite20bFc: FormatParser = {
  name: FORMAT,
  aliases: ['granite-20b-fc', 'granite_20b'],
  ...markedBy(MARKER),
  parse: parseGranite20bFc,
  render: (calls) =>
    calls.map((c) => `${MARKER} ${JSON.stringify({ name: c.name, arguments: c.arguments })}`).join('\n'),
}
