/**
 * Cohere Command R+ (the `tool_use` template): `Action:` followed by a fenced JSON list of
 * `{"tool_name": ..., "parameters": {...}}`. Each `Action:` is read up to the next one.
 */
import type { FormatParser, ToolCall } from '../types.js'
import { cohereCall } from '../cohere-calls.js'
import { parseJsonItems, skipFenceOpen } from '../json-blocks.js'
import { forEachMarkerRegion } from '../scan.js'
import { markedBy } from '../marker-scan.js'

const MARKER = 'Action:'
const FORMAT = 'command_r_plus'

export const commandRPlus: FormatParser = {
  name: FORMAT,
  ...markedBy(MARKER),
  parse(text) {
    const calls: ToolCall[] = []
    forEachMarkerRegion(text, MARKER, (start, limit) => {
      for (const it of parseJsonItems(text, skipFenceOpen(text, start, limit), limit).items) {
        const call = cohereCall(it, FORMAT)
        if (call) calls.push(call)
      }
    })
    return calls
  },
  render: (calls) =>
    'Action:\n```json\n' +
    JSON.stringify(calls.map((c) => ({ tool_name: c.name, parameters: c.arguments })), null, 4) +
    '\n```',
}
