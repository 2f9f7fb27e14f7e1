/**
 * InternLM2 / 2.5: `<|action_start|><|plugin|>{"name": ..., "parameters": {...}}<|action_end|>`, one call per
 * action block (`<|interpreter|>` blocks carry code for the code interpreter, not a function call).
 *
 * Contested choices (vLLM raises on these): a block whose JSON is cut off, not JSON, or empty gives no call; a call
 * whose `parameters` is not an object is a call with invalid arguments (NeMo's rule); an action block without
 * `<|plugin|>` is not a function call; text before the block is content and the call counts.
 */
import { parseJsonAt, skipSpace } from '../json.js'
import type { FormatParser, ParseOptions, ToolCall } from '../types.js'
import { callsFromValue } from '../json-calls.js'
import { ForwardSearch, forEachMarkerRegion } from '../scan.js'
import { unreadTail } from '../unread.js'
import { markedBy } from '../marker-scan.js'

const MARKER = '<|action_start|><|plugin|>'
const END = '<|action_end|>'
const FORMAT = 'internlm2'

function parseInternlm2(text: string, options: ParseOptions): ToolCall[] {
  const out: ToolCall[] = []
  const ends = new ForwardSearch(text, END)
  forEachMarkerRegion(text, MARKER, (start, limit) => {
    const i = skipSpace(text, start, limit)
    if (text.charCodeAt(i) !== 123 /* { */) return
    const r = parseJsonAt(text, i, limit)
    if (r.ok) out.push(...unreadTail(callsFromValue(r.value, FORMAT, r.floatPaths, text.slice(i, r.end), options), text, r.end, limit, ends))
  })
  return out
}

export const internlm2: FormatParser = {
  name: FORMAT,
  aliases: ['internlm', 'internlm2_5'],
  ...markedBy('<|action_start|>'),
  parse: parseInternlm2,
  render: (calls) =>
    calls.map((c) => `${MARKER}\n${JSON.stringify({ name: c.name, parameters: c.arguments })}${END}`).join('\n'),
}
