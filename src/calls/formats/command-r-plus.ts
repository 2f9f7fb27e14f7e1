/**
 * Cohere Command R+ (the `tool_use` template): `Action:` followed by a fenced JSON list of
 * `{"tool_name": ..., "parameters": {...}}`. Each `Action:` is read up to the next one.
 */
import type { FormatParser, ToolCall } from '../types.js'
import { cohereCall } from '../cohere-calls.js'
import { parseJsonItems, skipFenceOpen } from '../json-blocks.js'
import { unreadTail } from '../unread.js'
import { ForwardSearch, forEachMarkerRegion } from '../scan.js'
import { markedBy } from '../marker-scan.js'

const MARKER = 'Action:'
const FORMAT = 'command_r_plus'

export const commandRPlus: FormatParser = {
  name: FORMAT,
  ...markedBy(MARKER),
  parse(text) {
    const calls: ToolCall[] = []
    const fences = new ForwardSearch(text, '```')
    forEachMarkerRegion(text, MARKER, (start, limit) => {
      const from = skipFenceOpen(text, start, limit)
      const read = parseJsonItems(text, from, limit)
      const block: ToolCall[] = []
      for (const it of read.items) {
        const call = cohereCall(it, FORMAT)
        if (call) block.push(call)
      }
      // A fenced list ends at its closing fence; an unfenced one may be followed by prose.
      calls.push(...unreadTail(block, text, read.end, limit, from > start ? fences : undefined))
    })
    return calls
  },
  render: (calls) =>
    'Action:\n```json\n' +
    JSON.stringify(calls.map((c) => ({ tool_name: c.name, parameters: c.arguments })), null, 4) +
    '\n```',
}
