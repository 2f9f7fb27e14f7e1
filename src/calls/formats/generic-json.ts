/**
 * The last-resort format: tool calls written as plain JSON, with no wire-format marker around them.
 *
 * - OpenAI-shaped objects: `{"tool_calls": [{"id", "type": "function", "function": {"name", "arguments"}}]}`, a lone
 *   `{"type": "function", "function": {...}}`, and llama.cpp's generic `{"tool_call": {...}}` / `{"tool_calls": [...]}`.
 * - A JSON array of call objects (xLAM, sglang's constrained `tool_choice=required` output), bare, in a ```json fence,
 *   after `[TOOL_CALLS]` when the Mistral parser did not take it.
 * - NeMo's fallback: any balanced top-level JSON object in the text with a string `name`.
 *
 * Deliberate differences from NeMo's fallback:
 * - String state is tracked only inside brackets, so an unmatched `"` in prose cannot hide later JSON; a string also
 *   ends at a raw newline (JSON strings cannot hold one), so a stray quote inside a stray brace spoils one line only.
 * - Bare JSON must look like a call: `arguments` or `parameters` that decode to an object, or a name that is one of
 *   the offered tools. So prose data objects (`{"name": "Ada", "age": 36}`) are not calls, nor are objects whose
 *   arguments are not an object (`{"name": "f", "arguments": "text"}`), as in vLLM and sglang; NeMo takes both.
 * - A bracketed span that is not valid JSON is not given up: the balanced spans inside it are tried, and the balanced
 *   spans inside a bracket that never closes are top level (a truncated wrapper, a stray `{` in prose). Re-parsing
 *   nested spans is bounded by a budget of characters (RETRY_BUDGET_*), so adversarial nesting stays linear.
 * - The helpers here are shared by the other JSON formats of this folder (Hermes, Llama 3, Mistral, Granite, ...).
 */
import { callFromObject, decodeArguments, isPlainObject, makeCall, subPaths } from '../call-object.js'
import { parseJsonAt, scanBracketEnd, skipSpace, type JsonResult } from '../json.js'
import type { FormatParser, JsonValue, ParseOptions, ToolCall } from '../types.js'

const QUOTE = 34 // "
const BACKSLASH = 92 // \
const NEWLINE = 10
const OPEN_BRACE = 123 // {
const CLOSE_BRACE = 125 // }
const OPEN_BRACKET = 91 // [
const CLOSE_BRACKET = 93 // ]
const COMMA = 44

/** How much a flat `{"name": ...}` object must show to count as a call. */
export interface CallRules {
  /**
   * True where nothing but the JSON itself says "this is a call" (bare JSON in prose): the object must have
   * `arguments` or `parameters` that decode to an object, or name one of the offered tools. False inside a format's
   * own marker (`<tool_call>`, `functools[`, ...), where NeMo's rules apply: a name alone is a call with `{}`, and
   * arguments that are not an object give the call with invalid arguments.
   */
  bare: boolean
}

const MARKED: CallRules = { bare: false }
const BARE: CallRules = { bare: true }

function offersTool(options: ParseOptions, name: string): boolean {
  return (options.tools ?? []).some((t) => t?.function?.name === name)
}

function hasArgumentsKey(obj: Record<string, unknown>): boolean {
  return 'arguments' in obj || 'parameters' in obj
}

/** One call object (flat `{name, arguments}` or OpenAI `{id, type, function: {...}}`), or undefined. */
function callFromElement(
  el: unknown,
  format: string,
  floatPaths: string[] | undefined,
  raw: string | undefined,
  options: ParseOptions,
  rules: CallRules,
): ToolCall | undefined {
  if (!isPlainObject(el)) return undefined
  const fn = el['function']
  if (isPlainObject(fn) && typeof fn['name'] === 'string') {
    // OpenAI shape: the wrapper is the marker, so a function without arguments is still a call.
    const call = callFromObject(fn, format, raw, subPaths(floatPaths, '/function'))
    if (call && typeof el['id'] === 'string') call.id = el['id']
    return call
  }
  const call = callFromObject(el, format, raw, floatPaths)
  // Bare JSON must look like a call: arguments that decode to an object, or the name of an offered tool.
  if (call && rules.bare && !(call.argumentsValid && hasArgumentsKey(el)) && !offersTool(options, call.name)) return undefined
  return call
}

/**
 * The calls a decoded JSON value stands for: an array of call objects, `{"tool_calls": [...]}`,
 * `{"tool_call": {...}}`, an OpenAI tool-call object, or a flat call object. `floatPaths` are those of `value`.
 */
export function callsFromValue(
  value: JsonValue,
  format: string,
  floatPaths: string[] | undefined,
  raw: string | undefined,
  options: ParseOptions,
  rules: CallRules = MARKED,
): ToolCall[] {
  const out: ToolCall[] = []
  const each = (list: JsonValue[], prefix: string, r: CallRules): void => {
    list.forEach((el, k) => {
      const call = callFromElement(el, format, subPaths(floatPaths, `${prefix}/${k}`), raw, options, r)
      if (call) out.push(call)
    })
  }
  if (Array.isArray(value)) {
    each(value, '', rules)
    return out
  }
  if (!isPlainObject(value)) return out
  const list = value['tool_calls']
  if (Array.isArray(list)) {
    // The `tool_calls` key is the marker: its elements follow the marked rules.
    each(list, '/tool_calls', MARKED)
    return out
  }
  const one = value['tool_call']
  if (isPlainObject(one)) {
    const call = callFromElement(one, format, subPaths(floatPaths, '/tool_call'), raw, options, MARKED)
    return call ? [call] : []
  }
  const call = callFromElement(value, format, floatPaths, raw, options, rules)
  return call ? [call] : []
}

/** Work allowance for reading JSON values past the next marker of a format (see `parseJsonPast`). */
export interface Budget {
  left: number
}

export function pastMarkerBudget(text: string): Budget {
  return { left: 2 * text.length + 10_000 }
}

/**
 * A JSON value at `at`, read up to `limit` (the next marker of the format). When the value is still open at `limit`,
 * the marker was probably written inside a string value (a call that writes a file about tool calls), so the value
 * is read again up to the end of the text, as long as `budget` lasts. Retries cost at most the budget plus one text
 * length in all, so a text full of unclosed markers still takes linear time.
 */
export function parseJsonPast(text: string, at: number, limit: number, budget: Budget): JsonResult {
  const r = parseJsonAt(text, at, limit)
  if (r.ok || limit >= text.length || budget.left <= 0) return r
  const s = skipSpace(text, at, limit)
  const c = text.charCodeAt(s)
  if ((c !== OPEN_BRACE && c !== OPEN_BRACKET) || scanBracketEnd(text, s, limit) >= 0) return r
  const again = parseJsonAt(text, s, text.length)
  budget.left -= (again.ok ? again.end : text.length) - s
  return again.ok ? again : r
}

/** A call whose name could not be read (NeMo: a closed tag with invalid JSON inside is still a call). */
export function unknownCall(format: string, raw?: string): ToolCall {
  return makeCall('', { arguments: {}, argumentsValid: false }, format, raw)
}

/** A call from a name written outside the JSON and a decoded arguments value (`[TOOL_CALLS]name{...}`). */
export function namedCall(
  name: string,
  args: JsonValue,
  floatPaths: string[] | undefined,
  format: string,
  raw?: string,
  id?: string,
): ToolCall {
  return makeCall(name, decodeArguments(args, floatPaths), format, raw, id)
}

/**
 * The JSON list that opens at `at` (a `[`), read element by element so that a list cut off by the end of the output
 * still gives its complete elements (`[{...}, {` gives the first call). `limit` bounds the reading; with a `budget`, a
 * list still open at `limit` is read past it (see `parseJsonPast`). Returns the calls and the index after the last
 * value read (`at` when none).
 */
export function callsFromList(
  text: string,
  at: number,
  limit: number,
  format: string,
  options: ParseOptions,
  budget?: Budget,
): { calls: ToolCall[]; end: number } {
  const whole = budget ? parseJsonPast(text, at, limit, budget) : parseJsonAt(text, at, limit)
  if (whole.ok) {
    return { calls: callsFromValue(whole.value, format, whole.floatPaths, text.slice(at, whole.end), options), end: whole.end }
  }
  const calls: ToolCall[] = []
  let end = at
  let i = skipSpace(text, at + 1, limit)
  while (i < limit) {
    const r = parseJsonAt(text, i, limit)
    if (!r.ok) break
    const el = callFromElement(r.value, format, r.floatPaths, text.slice(i, r.end), options, MARKED)
    if (el) calls.push(el)
    end = r.end
    i = skipSpace(text, r.end, limit)
    if (text.charCodeAt(i) !== COMMA) break
    i = skipSpace(text, i + 1, limit)
  }
  return { calls, end }
}

// ---------------------------------------------------------------------------------------------------------------
// Finding JSON in free text.

/** A balanced bracketed span of the text, with the balanced spans directly inside it (a linked list). */
interface Span {
  start: number
  end: number
  first?: Span
  last?: Span
  next?: Span
}

interface ScanResult {
  /** Top-level balanced spans, in order. */
  roots: Span[]
  /** Start of the outermost bracket that never closed, or -1. */
  unclosedAt: number
  /** Whether a string ran to the end or into a raw newline: the sign of a stray quote. */
  brokenString: boolean
}

/**
 * One left-to-right pass over [from, to) that finds the balanced `{...}` / `[...]` spans and how they nest. Quotes
 * count only inside brackets; a string ends at its closing quote or at a raw newline. A closer of the wrong kind
 * closes the nearest open bracket of its kind (the ones above it never closed, and their spans move to the bracket
 * below them); a closer with none open is prose. The open brackets live in parallel arrays (no object per bracket).
 */
function scanSpans(text: string, from: number, to: number): ScanResult {
  // Level 0 is the top level; level k > 0 is the k-th open bracket: where it opened, its closer, its child spans.
  const starts: number[] = [-1]
  const closers: number[] = [-1]
  const firsts: (Span | undefined)[] = [undefined]
  const lasts: (Span | undefined)[] = [undefined]
  let top = 0
  let openBraces = 0
  let openBrackets = 0
  let unclosedAt = -1
  let brokenString = false
  const append = (level: number, first: Span | undefined, last: Span | undefined): void => {
    if (!first) return
    const tail = lasts[level]
    if (tail) tail.next = first
    else firsts[level] = first
    lasts[level] = last
  }
  const pop = (): void => {
    if (closers[top] === CLOSE_BRACE) openBraces--
    else openBrackets--
    top--
  }
  const popUnclosed = (): void => {
    unclosedAt = unclosedAt < 0 ? starts[top]! : Math.min(unclosedAt, starts[top]!)
    const first = firsts[top]
    const last = lasts[top]
    pop()
    append(top, first, last)
  }
  let i = from
  while (i < to) {
    const c = text.charCodeAt(i)
    if (c === QUOTE && top > 0) {
      let j = i + 1
      while (j < to) {
        const d = text.charCodeAt(j)
        if (d === QUOTE || d === NEWLINE) break
        j += d === BACKSLASH ? 2 : 1
      }
      // Closed string: continue after it; broken by a newline or the end: continue there, as prose.
      if (j < to && text.charCodeAt(j) === QUOTE) i = j + 1
      else {
        brokenString = true
        i = j
      }
      continue
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      top++
      starts[top] = i
      closers[top] = c === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET
      firsts[top] = undefined
      lasts[top] = undefined
      if (c === OPEN_BRACE) openBraces++
      else openBrackets++
    } else if ((c === CLOSE_BRACE && openBraces > 0) || (c === CLOSE_BRACKET && openBrackets > 0)) {
      while (closers[top] !== c) popUnclosed()
      const span: Span = { start: starts[top]!, end: i + 1 }
      if (firsts[top]) {
        span.first = firsts[top]
        span.last = lasts[top]
      }
      pop()
      append(top, span, span)
    }
    i++
  }
  while (top > 0) popUnclosed()
  const roots: Span[] = []
  for (let s = firsts[0]; s; s = s.next) roots.push(s)
  return { roots, unclosedAt, brokenString }
}

/**
 * Budget for decoding spans again, in characters. The top-level spans of the first pass are disjoint and always
 * decoded (one pass over the text); retrying the spans nested in a span that failed to decode, or rescanning after a
 * bracket that never closed, can revisit the same characters once per nesting level, so that work draws on this
 * budget. Past it, nothing more is retried: the total stays within a constant factor of the text's length.
 */
const RETRY_BUDGET_FACTOR = 3
const RETRY_BUDGET_BASE = 200_000

/** Whether a span could be a JSON value worth decoding: `{` then `"` or `}`, or `[` then a value. Cheap. */
function plausibleJson(text: string, s: Span): boolean {
  const i = skipSpace(text, s.start + 1, s.end)
  const c = text.charCodeAt(i)
  if (text.charCodeAt(s.start) === OPEN_BRACE) return c === QUOTE || c === CLOSE_BRACE
  return c === OPEN_BRACE || c === OPEN_BRACKET || c === CLOSE_BRACKET
}

/**
 * Every JSON tool call written in free text, in order of appearance, under the bare rules (see CallRules). Never
 * throws; linear in the text's length.
 */
export function jsonCallsIn(text: string, format: string, options: ParseOptions): ToolCall[] {
  const to = text.length
  let budget = RETRY_BUDGET_BASE + RETRY_BUDGET_FACTOR * to
  let start = 0
  for (let pass = 0; start < to && (pass === 0 || budget > 0); pass++) {
    const { roots, unclosedAt, brokenString } = scanSpans(text, start, to)
    if (pass > 0) budget -= to - start
    const out: ToolCall[] = []
    // Depth-first over the span tree in text order; a span is decoded only if no enclosing span decoded.
    const pending: { span: Span; free: boolean }[] = roots.reverse().map((span) => ({ span, free: pass === 0 }))
    while (pending.length > 0) {
      const { span: s, free } = pending.pop()!
      const size = s.end - s.start
      if (plausibleJson(text, s) && (free || size <= budget)) {
        if (!free) budget -= size
        const r = parseJsonAt(text, s.start, s.end)
        if (r.ok) {
          out.push(...callsFromValue(r.value, format, r.floatPaths, text.slice(s.start, s.end), options, BARE))
          continue
        }
      }
      const children: Span[] = []
      for (let c = s.first; c; c = c.next) children.push(c)
      for (let k = children.length - 1; k >= 0; k--) pending.push({ span: children[k]!, free: false })
    }
    if (out.length > 0 || unclosedAt < 0 || !brokenString) return out
    // A bracket that never closed, and a string that never closed either: a stray quote in a stray bracket may have
    // swallowed the rest of the text, so read on after the bracket.
    start = unclosedAt + 1
  }
  return []
}

/** JSON array of call objects, as xLAM writes it (`[{"name": ..., "arguments": {...}}]`). */
function renderJsonCalls(calls: readonly { name: string; arguments: Record<string, unknown> }[]): string {
  return JSON.stringify(calls.map((c) => ({ name: c.name, arguments: c.arguments })))
}

export const genericJson: FormatParser = {
  name: 'json',
  aliases: ['generic', 'xlam', 'json_array', 'llamacpp_generic', 'openai'],
  detect: (text) => text.includes('{'),
  parse: (text, options) => jsonCallsIn(text, 'json', options),
  render: renderJsonCalls,
}
