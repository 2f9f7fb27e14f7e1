/**
 * GigaChat 3: `[content]<|message_sep|>\n\nfunction call<|role_sep|>\n{"name": ..., "arguments": {...}}[</s>]`.
 *
 * Stricter than NeMo's call-object rule, as the engines serving GigaChat are (sglang; these are clean corpus cases):
 * the object must carry both a non-empty `name` and `arguments` that are an object (or a JSON string of one);
 * otherwise, and when the JSON does not decode, there is no call. A truncated object is no call either (contested
 * case sglang-gigachat3-13: the name sits inside the unfinished JSON, so nothing complete was called).
 */
import { decodeArguments, isPlainObject, makeCall, subPaths } from '../call-object.js'
import { parseJsonAt } from '../json.js'
import type { FormatParser, ToolCall } from '../types.js'
import { ForwardSearch } from '../scan.js'

const MARKER = 'function call<|role_sep|>'

/**
 * The strict GigaChat call object at `start` (JSON read up to `limit`), or undefined. Shared with GigaChat 3.1.
 */
export function strictCallAt(text: string, start: number, limit: number, format: string): ToolCall | undefined {
  const r = parseJsonAt(text, start, limit)
  if (!r.ok || !isPlainObject(r.value)) return undefined
  const { name } = r.value
  if (typeof name !== 'string' || name.length === 0 || !('arguments' in r.value)) return undefined
  const args = decodeArguments(r.value['arguments'], subPaths(r.floatPaths, '/arguments'))
  if (!args.argumentsValid) return undefined
  return makeCall(name, args, format, text.slice(start, r.end).trim())
}

/** Every strict call object that follows an occurrence of `marker`; each JSON is read up to the next marker. */
export function strictCallsAfter(text: string, marker: string, format: string): ToolCall[] {
  const markers = new ForwardSearch(text, marker)
  const calls: ToolCall[] = []
  let m = markers.next(0)
  while (m >= 0) {
    const start = m + marker.length
    const next = markers.next(start)
    const call = strictCallAt(text, start, next < 0 ? text.length : next, format)
    if (call) calls.push(call)
    m = next
  }
  return calls
}

export const gigachat3: FormatParser = {
  name: 'gigachat3',
  markers: [MARKER],
  detect: (text) => text.includes(MARKER),
  parse: (text) => strictCallsAfter(text, MARKER, 'gigachat3'),
  render: (calls) =>
    calls
      .map((c) => `<|message_sep|>\n\n${MARKER}\n${JSON.stringify({ name: c.name, arguments: c.arguments })}</s>`)
      .join(''),
}
