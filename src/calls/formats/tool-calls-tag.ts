/**
 * `<tool_calls>[{"name": ..., "arguments": {...}}]</tool_calls>`: Tencent Hunyuan-A13B, AI21 Jamba 1.5/1.6 and
 * ServiceNow Apriel 1.5/1.6 all write a JSON list of call objects between these tags.
 *
 * Quirks: Jamba puts a space before the tag; Hunyuan wraps answers in `<answer>…</answer>` and vLLM drops text after
 * the block (here text around the block is simply not a call); Apriel 1.6 reasons first and starts its answer with
 * `[BEGIN FINAL RESPONSE]`, so a block before that marker is reasoning, not a call.
 *
 * This file also holds the small scanning helpers the other JSON-in-tags formats share (LongCat, Nemotron v2,
 * Apertus, GigaChat, Command R): finding tokens in one pass, decoding a JSON list item by item, and cutting out
 * reasoning blocks.
 */
import { callFromObject } from '../call-object.js'
import { parseJsonAt, skipSpace } from '../json.js'
import type { FormatParser, JsonValue, ToolCall } from '../types.js'

/**
 * Successive occurrences of one token. Each search resumes where the previous one stopped, so as long as callers
 * ask with non-decreasing `from` the text is scanned at most once per token, however many times it is asked.
 */
export class TokenFinder {
  private found = -1
  private searchedFrom = -1
  private exhausted = false
  constructor(
    private readonly text: string,
    private readonly token: string,
  ) {}

  /** Index of the first occurrence at or after `from`, or -1. */
  next(from: number): number {
    if (from >= this.searchedFrom && this.searchedFrom >= 0) {
      if (this.exhausted) return -1
      if (this.found >= from) return this.found
    }
    this.searchedFrom = from
    this.found = this.text.indexOf(this.token, from)
    this.exhausted = this.found < 0
    return this.found
  }
}

/** One decoded item of a JSON list (or the single value when the text holds an object, not a list). */
export interface JsonItem {
  value: JsonValue
  raw: string
  floatPaths?: string[]
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
 * item loses only itself and what follows, never the calls before it. Each item is scanned once: linear.
 */
export function parseJsonItems(text: string, start: number, limit = text.length): JsonItems {
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
    if (!r.ok) return { items, complete: false, end: s }
    items.push(item(text, s, r.end, r.value, r.floatPaths))
    i = skipSpace(text, r.end, limit)
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


/**
 * Calls from every `open`…`close` block whose content is a JSON list of call objects (or one object), converted by
 * `toCall`. A block whose JSON does not decode is still a call attempt when the block is closed: it gives one call
 * with an unknown name and invalid arguments (NeMo's rule for Hermes tags). An unclosed block that does not decode
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
  const opens = new TokenFinder(text, open)
  const closes = new TokenFinder(text, close)
  const calls: ToolCall[] = []
  let o = opens.next(from)
  while (o >= 0) {
    const contentStart = o + open.length
    const nextOpen = opens.next(contentStart)
    const limit = nextOpen < 0 ? text.length : nextOpen
    const c = closes.next(contentStart)
    const closed = c >= 0 && c < limit
    const decoded = parseJsonItems(text, skipFenceOpen(text, contentStart, limit), limit)
    for (const it of decoded.items) {
      const call = toCall(it)
      if (call) calls.push(call)
    }
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

const OPEN = '<tool_calls>'
const CLOSE = '</tool_calls>'
/** Apriel 1.6 Thinker: everything before this marker is reasoning. */
const FINAL_RESPONSE = '[BEGIN FINAL RESPONSE]'

export const toolCallsTag: FormatParser = {
  name: 'tool_calls_tag',
  aliases: ['hunyuan', 'jamba', 'apriel'],
  markers: [OPEN],
  detect: (text) => text.includes(OPEN),
  parse(text) {
    const marker = text.indexOf(FINAL_RESPONSE)
    const from = marker < 0 ? 0 : marker + FINAL_RESPONSE.length
    return callsInBlocks(text, OPEN, CLOSE, 'tool_calls_tag', standardCall('tool_calls_tag'), from)
  },
  render: (calls) => `${OPEN}${renderJsonList(calls)}${CLOSE}`,
}
