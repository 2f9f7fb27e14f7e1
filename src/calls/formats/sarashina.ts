/**
 * SoftBank Sarashina: the calls as a Python-literal list of dicts (single quotes, `True`/`False`/`None`), after the
 * special token `<|tool_calls|>` or, where detokenizing dropped it, as the output's leading list:
 *
 * ```
 * <|tool_calls|>[{'name': 'get_weather', 'arguments': {'city': 'Tokyo'}}]
 * ```
 *
 * Source: lightseekorg/smg's `sarashina.rs` and its tests. The payload is decoded as a literal, never evaluated: names
 * and calls in it are not literals. After the token, a single dict is one call, and a payload that opens a list or
 * dict but does not decode is one call of unknown name with invalid arguments (it may have held calls); without the
 * token, only a leading list whose first element is a dict, or a leading dict (Llama 3 models write their JSON call
 * so too; Xinference reads it), is read, under the bare-JSON rules (each call needs its `arguments` or `parameters`,
 * or the name of an offered tool). Tried last: a list or object that is JSON is JSON's, read before.
 */
import { parsePythonLiteralAt, renderPythonValue } from '../../python/index.js'
import { skipSpace } from '../json.js'
import { callsFromValue, unknownCall } from '../json-calls.js'
import { ForwardSearch } from '../scan.js'
import type { FormatParser, JsonValue, ParseOptions, ToolCall } from '../types.js'
import { unreadGlued } from '../unread.js'

const FORMAT = 'sarashina'
const MARKER = '<|tool_calls|>'

/** The calls of the literal at `at` (up to `limit`, the next token), or undefined when none opens there. */
function payloadCalls(text: string, at: number, limit: number, marked: boolean, options: ParseOptions): ToolCall[] | undefined {
  const s = skipSpace(text, at, limit)
  const c = text.charCodeAt(s)
  if (c !== 91 /* [ */ && c !== 123 /* { */) return undefined
  if (!marked && c === 91 && text.charCodeAt(skipSpace(text, s + 1, limit)) !== 123) return undefined
  // The payload alone (payloads of different tokens do not overlap: linear).
  const r = parsePythonLiteralAt(text.slice(s, limit), 0)
  if (!r.ok) return marked ? [unknownCall(FORMAT, text.slice(at - MARKER.length, limit))] : undefined
  const end = s + r.end
  const calls = callsFromValue(r.value as JsonValue, FORMAT, r.floatPaths, text.slice(s, end), options, { bare: !marked })
  return unreadGlued(calls, text, end, limit)
}

function parse(text: string, options: ParseOptions): ToolCall[] {
  const markers = new ForwardSearch(text, MARKER)
  let at = markers.next(0)
  if (at < 0) return payloadCalls(text, 0, text.length, false, options) ?? []
  const out: ToolCall[] = []
  while (at >= 0) {
    const next = markers.next(at + MARKER.length)
    const calls = payloadCalls(text, at + MARKER.length, next < 0 ? text.length : next, true, options)
    if (calls) out.push(...calls)
    at = next
  }
  return out
}

/** A leading `{`, or `[` then `{`: the bare shape (cheap; the parse decides). */
function detect(text: string): boolean {
  if (text.includes(MARKER)) return true
  const s = skipSpace(text, 0, text.length)
  const c = text.charCodeAt(s)
  return c === 123 || (c === 91 && text.charCodeAt(skipSpace(text, s + 1, text.length)) === 123)
}

export const sarashina: FormatParser = {
  name: FORMAT,
  aliases: ['sarashina2', 'sarashina2.2'],
  detect,
  parse,
  render: (calls) => MARKER + renderPythonValue(calls.map((c) => ({ name: c.name, arguments: c.arguments }))),
}
