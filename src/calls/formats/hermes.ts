/**
 * Hermes / Qwen JSON-in-tags: `<tool_call>{"name": ..., "arguments": ...}</tool_call>`, one block per call (Hermes 2
 * Pro / 3, Qwen2.5, Qwen3, QwQ, Granite 4, SmolLM3, Reka-Edge, ...).
 *
 * NeMo's rules, kept: the inside is JSON, an object or a list of objects; a closed block whose JSON is invalid (or
 * holds no call) is still a call whose name is unknown (`''`, arguments `{}`, not valid). Unlike NeMo, a block that
 * does not even start as JSON (`<tool_call>name\n<arg_key>...`) is left alone: it is GLM, Qwen3-Coder or another
 * format that shares the tag, and its own parser, tried first, found no call in it. Also accepted: several comma-separated
 * objects in one block (sglang), a missing `</tool_call>` at the end of the output when the JSON is complete (vLLM;
 * vLLM's `granite4` parser requires the tag, this one does not), `arguments` as a JSON-encoded string, decoded once
 * only when it holds exactly one JSON object (Granite 4 habit, vLLM's rule; `"hello"` or `'{"a": 1} tail'` are not
 * arguments and leave them invalid).
 *
 * NeMo's flaws, fixed: the JSON is read by a bracket-and-string scan, so a `</tool_call>` inside a string value does
 * not cut the call; and each block is read only up to the next `<tool_call>`, with the searches for tags moving
 * forward only, so thousands of unclosed tags take linear time (NeMo's regex is quadratic). A `<tool_call>` inside a
 * string value does not cut the call either: JSON still open at the next tag is read past it, within a budget.
 *
 * Contested choices: JSON cut off by the end of the output (`<tool_call>{"name": "f", "arguments": {"a":`) gives no
 * call, the same as vLLM's clean case of a missing closing brace; llama.cpp would report the partial call.
 *
 * With no `<tool_call>` in the text, the variants llama.cpp's Hermes-2-Pro parser accepts are read:
 * `<function=NAME>{json}</function>`, `<function name="NAME">{json}</function>`, and a call object wrapped in
 * `<tool>`, `<tools>`, `<response>`, `<json>`, `<xml>`, `<JSON>`, `<function_call>`, a code fence, or bare after text
 * (the last is contested: `This is not a tool call: {...}` is read as a call, as llama.cpp does).
 */
import { parseJsonSpan, skipSpace } from '../json.js'
import type { FormatParser, JsonValue, ParseOptions, ToolCall } from '../types.js'
import { functionTagCalls } from '../function-tags.js'
import { unreadAfter, unreadRunOn } from '../unread.js'
import { markedBy } from '../marker-scan.js'
import { callsFromValue, jsonCallsIn, parseJsonPast, pastMarkerBudget, unknownCall, type Budget } from '../json-calls.js'

const OPEN = '<tool_call>'
const CLOSE = '</tool_call>'
const FORMAT = 'hermes'
/** llama.cpp Hermes-2-Pro wrappers that are worth detecting as this format (the JSON inside is found anyway). */
const WRAPPERS = ['<function', '<tool>', '<tools>', '<response>', '<json>', '<xml>', '<JSON>']

/** A decoded value and where it was written (`text.slice(start, end)`). */
type Value = { value: JsonValue; floatPaths?: string[]; start: number; end: number }

/**
 * The values written one after another (comma-separated) starting at `at`. Read up to `limit` (the next
 * `<tool_call>`), or past it when a value is still open there (see `parseJsonPast`).
 */
function valuesAt(text: string, at: number, limit: number, budget: Budget): { values: Value[]; end: number } {
  const values: Value[] = []
  let i = at
  let end = at
  while (i < text.length) {
    const c = text.charCodeAt(i)
    if (c !== 123 /* { */ && c !== 91 /* [ */) break
    const r = parseJsonPast(text, i, Math.max(limit, end), budget)
    if (!r.ok) break
    values.push({ value: r.value, floatPaths: r.floatPaths, start: i, end: r.end })
    end = r.end
    const next = skipSpace(text, r.end, Math.max(limit, end))
    if (text.charCodeAt(next) !== 44 /* , */) break
    i = skipSpace(text, next + 1, Math.max(limit, end))
  }
  return { values, end }
}

/**
 * Whether a block's content starts as JSON. Only then is a closed block that gives no call an unknown call: other
 * content (`<tool_call>name\n<arg_key>...`, `<function=...>`) is another format's, which found no call in it.
 */
function attemptsJson(text: string, start: number, limit: number): boolean {
  const c = text.charCodeAt(skipSpace(text, start, limit))
  return c === 123 /* { */ || c === 91 /* [ */
}

/**
 * Calls of every `<tool_call>` block. Each block is read up to the next `<tool_call>` (or past it, within a budget,
 * when its JSON is still open there); the searches for tags only move forward, so the whole is linear.
 */
function toolCallBlocks(text: string, options: ParseOptions, first: number): ToolCall[] {
  const out: ToolCall[] = []
  const budget = pastMarkerBudget(text)
  let close = -2 // the next `</tool_call>` at or after `from` below (-1: none left; -2: not searched yet)
  let open = first
  while (open >= 0) {
    const start = open + OPEN.length
    let nextOpen = text.indexOf(OPEN, start)
    const limit = nextOpen < 0 ? text.length : nextOpen
    const at = skipSpace(text, start, limit)
    if (close === -2 || (close >= 0 && close < at)) close = text.indexOf(CLOSE, at)
    // Most blocks are one JSON value up to `</tool_call>`: one native parse of the whole body, no scan.
    const whole = close >= 0 && close < limit ? parseJsonSpan(text, at, close) : undefined
    const { values, end } = whole?.ok
      ? { values: [{ value: whole.value, floatPaths: whole.floatPaths, start: at, end: whole.end }], end: whole.end }
      : valuesAt(text, at, limit, budget)
    // A value read past the next `<tool_call>` holds it in a string: the next block starts after the value.
    if (end > limit) nextOpen = text.indexOf(OPEN, end)
    const regionEnd = nextOpen < 0 ? text.length : nextOpen
    const from = Math.max(end, start)
    if (close === -2 || (close >= 0 && close < from)) close = text.indexOf(CLOSE, from)
    const closed = close >= 0 && close < regionEnd
    const rawEnd = closed ? close + CLOSE.length : from // the block's raw text, sliced only when a call needs it
    const block: ToolCall[] = []
    for (const v of values) {
      const valueRaw = text.slice(values.length === 1 ? open : v.start, values.length === 1 ? rawEnd : v.end)
      block.push(...callsFromValue(v.value, FORMAT, v.floatPaths, valueRaw, options))
    }
    const found = block.length
    out.push(...unreadAfter(block, text, from, closed ? close : regionEnd))
    // `</tool_call>` again before the next block: the first was inside a value, so the call ran on past it.
    if (closed && block.length > 0) {
      const again = text.indexOf(CLOSE, close + CLOSE.length)
      if (again >= 0 && (nextOpen < 0 || again < nextOpen)) unreadRunOn(block, text, CLOSE, close + CLOSE.length, again)
    }
    if (found === 0 && closed && attemptsJson(text, start, regionEnd)) out.push(unknownCall(FORMAT, text.slice(open, rawEnd)))
    open = nextOpen
  }
  return out
}

function parseHermes(text: string, options: ParseOptions, at = 0): ToolCall[] {
  const first = text.indexOf(OPEN, at)
  const hasTags = first >= 0
  if (hasTags) {
    const blocks = toolCallBlocks(text, options, first)
    if (blocks.length > 0) return blocks
  }
  const tagged = functionTagCalls(text, FORMAT, true)
  if (tagged.length > 0) return tagged
  // Bare JSON only where the model used no <tool_call> at all: a cut-off block's inner objects are not calls.
  return hasTags ? [] : jsonCallsIn(text, FORMAT, options)
}

export const hermes: FormatParser = {
  name: FORMAT,
  aliases: ['qwen', 'qwen2.5', 'qwen2_5', 'qwen3', 'qwq', 'hermes_think', 'hermes_2_pro', 'granite4'],
  ...markedBy(OPEN, ...WRAPPERS),
  parse: parseHermes,
  render: (calls) =>
    calls.map((c) => `${OPEN}\n${JSON.stringify({ name: c.name, arguments: c.arguments })}\n${CLOSE}`).join('\n'),
}
