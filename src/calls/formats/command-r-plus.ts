/**
 * Cohere Command R+ (the `tool_use` template): `Action:` followed by a fenced JSON list of
 * `{"tool_name": ..., "parameters": {...}}`. Each `Action:` is read up to the next one.
 */
import type { FormatParser, ToolCall } from '../types.js'
import { cohereCall } from '../cohere-calls.js'
import { parseJsonItems, skipFenceOpen } from '../json-blocks.js'
import { ForwardSearch } from '../scan.js'
import { markedBy } from '../marker-scan.js'

const MARKER = 'Action:'
const FORMAT = 'command_r_plus'

export const commandRPlus: FormatParser = {
  name: FORMAT,
  ...markedBy(MARKER),
  parse(text) {
    const markers = new ForwardSearch(text, MARKER)
    const calls: ToolCall[] = []
    let m = markers.next(0)
    while (m >= 0) {
      const start = m + MARKER.length
      const next = markers.next(start)
      const limit = next < 0 ? text.length : next
      for (const it of parseJsonItems(text, skipFenceOpen(text, start, limit), limit).items) {
        const call = cohereCall(it, FORMAT)
        if (call) calls.push(call)
      }
      m = next
    }
    return calls
  },
  render: (calls) =>
    'Action:\n```json\n' +
    JSON.stringify(calls.map((c) => ({ tool_name: c.name, parameters: c.arguments })), null, 4) +
    '\n```',
}
