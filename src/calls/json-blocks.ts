/**
 * JSON calls between tags, shared by the JSON-in-tags formats (`<tool_calls>`, LongCat, Nemotron v2, Apertus,
 * Command R, DeepSeek's fenced bodies): decoding a JSON list item by item, skipping a Markdown fence opener, and
 * reading every `open`…`close` block of a text.
 */
import { callFromObject } from './call-object.js'
import { parseJsonAt, scanBracketEnd, skipSpace } from './json.js'
import { ForwardSearch } from './scan.js'
import { unreadTail } from './unread.js'
import type { JsonValue, ToolCall } from './types.js'

/** One decoded item of a JSON list (or the single value when the text holds an object, not a list). */
export interface JsonItem {
  value: JsonValue
  raw: string
  floatPaths?: string[]
  /** True for an item that is bracketed but not valid JSON (read only with `recover`): `value` is null. */
  unreadable?: boolean
}

export interface JsonItems {
  items: JsonItem[]
  /** True when the list (or value) decoded to its end; false when it was cut short or malformed part way. */
  complete: boolean
  /** Index just after the last decoded character. */
  end: number
}

/**
 * Decode the JSON list or value starting at `start` (whitespace skipped) item by item, so one malformed or truncated
 * item loses only itself and what follows, never the calls before it. With `recover`, a list item whose brackets
 * close but whose JSON is malformed (`{"a": }`) is kept as an `unreadable` item and reading goes on after it, so
 * the items that follow are not lost either. Each item is scanned once: linear.
 */
export function parseJsonItems(text: string, start: number, limit = text.length, recover = false): JsonItems {
  let i = skipSpace(text, start, limit)
  if (i >= limit || text.charCodeAt(i) !== 91 /* [ */) {
    const r = parseJsonAt(text, i, limit)
    if (!r.ok) return { items: [], complete: false, end: i }
    return { items: [item(text, i, r.end, r.value, r.floatPaths)], complete: true, end: r.end }
  }
  const items: JsonItem[] = []
  i = skipSpace(text, i + 1, limit)
  if (i < limit && text.charCodeAt(i) === 93 /* ] */) return { items, complete: true, end: i + 1 }
  while (i < limit) {
    const s = skipSpace(text, i, limit)
    const r = parseJsonAt(text, s, limit)
    let end: number
    if (r.ok) {
      items.push(item(text, s, r.end, r.value, r.floatPaths))
      end = r.end
    } else {
      const c = text.charCodeAt(s)
      end = recover && (c === 123 || c === 91) ? scanBracketEnd(text, s, limit) : -1
      if (end < 0) return { items, complete: false, end: s }
      items.push({ value: null, raw: text.slice(s, end), unreadable: true })
    }
    i = skipSpace(text, end, limit)
    const c = i < limit ? text.charCodeAt(i) : -1
    if (c === 93 /* ] */) return { items, complete: true, end: i + 1 }
    if (c !== 44 /* , */) return { items, complete: false, end: i }
    i++
  }
  return { items, complete: false, end: limit }
}

function item(text: string, s: number, e: number, value: JsonValue, floatPaths?: string[]): JsonItem {
  const it: JsonItem = { value, raw: text.slice(s, e) }
  if (floatPaths) it.floatPaths = floatPaths
  return it
}

/** Index just after an optional Markdown fence opener (```` ``` ```` or ```` ```json ````) at `i`; `i` if none. */
export function skipFenceOpen(text: string, i: number, limit = text.length): number {
  const s = skipSpace(text, i, limit)
  if (!text.startsWith('```', s)) return i
  let j = s + 3
  while (j < limit && j < s + 16 && /[A-Za-z]/.test(text[j]!)) j++
  return j
}


/** The code of the last character before `i` that is not whitespace (-1: none). */
function lastNonSpace(text: string, i: number): number {
  let j = i - 1
  while (j >= 0 && /\s/.test(text[j]!)) j--
  return j < 0 ? -1 : text.charCodeAt(j)
}

/** Index just after a Markdown fence closer at `i` (whitespace first), or `i` if none. */
function skipFenceClose(text: string, i: number, limit: number): number {
  const s = skipSpace(text, i, limit)
  return text.startsWith('```', s) ? s + 3 : i
}

/**
 * Calls from every `open`…`close` block whose content is a JSON list of call objects (or one object), converted by
 * `toCall`. A block whose JSON does not decode is still a call attempt when the block is closed: it gives one call
 * with an unknown name and invalid arguments (NeMo's rule for Hermes tags); so does each malformed entry of a list
 * whose other entries read (partial recovery: the readable calls are kept). An unclosed block that does not decode
 * (a truncated output) gives nothing. JSON is read string-aware up to the next `open`, so a closing tag inside a
 * string value does not cut the call; blocks never overlap, so the scan is linear.
 */
export function callsInBlocks(
  text: string,
  open: string,
  close: string,
  format: string,
  toCall: (item: JsonItem) => ToolCall | undefined,
  from = 0,
): ToolCall[] {
  const opens = new ForwardSearch(text, open)
  const closes = new ForwardSearch(text, close)
  const calls: ToolCall[] = []
  let o = opens.next(from)
  while (o >= 0) {
    const contentStart = o + open.length
    const nextOpen = opens.next(contentStart)
    const limit = nextOpen < 0 ? text.length : nextOpen
    const c = closes.next(contentStart)
    const closed = c >= 0 && c < limit
    const decoded = parseJsonItems(text, skipFenceOpen(text, contentStart, limit), limit, true)
    const block: ToolCall[] = []
    for (const it of decoded.items) {
      // An unreadable entry among readable ones is still a call attempt: kept, with no name and invalid arguments.
      const call = it.unreadable ? { name: '', arguments: {}, argumentsValid: false, format, raw: it.raw } : toCall(it)
      if (call) block.push(call)
    }
    // A list that stops at an entry it cannot read keeps the entries before it (partial recovery): the text left is
    // that entry's, not theirs. Otherwise text left in the block is unread (issue 22's rule).
    const nextEntry = !decoded.complete && decoded.items.length > 0 && lastNonSpace(text, decoded.end) === 44 /* , */
    calls.push(...(nextEntry ? block : unreadTail(block, text, skipFenceClose(text, decoded.end, limit), limit, closes)))
    if (decoded.items.length === 0 && !decoded.complete && closed) {
      calls.push({ name: '', arguments: {}, argumentsValid: false, format, raw: text.slice(o, c + close.length) })
    }
    o = nextOpen
  }
  return calls
}

/** The usual call object (`name` + `arguments`/`parameters`), NeMo's rules. */
export function standardCall(format: string): (it: JsonItem) => ToolCall | undefined {
  return (it) => callFromObject(it.value, format, it.raw, it.floatPaths)
}

/** A JSON list of `{"name", "arguments"}` objects, the way these models write it. */
export function renderJsonList(calls: readonly { name: string; arguments: Record<string, unknown> }[]): string {
  return JSON.stringify(calls.map((c) => ({ name: c.name, arguments: c.arguments })))
}

