/** JSON call objects found in free text or after a marker, shared by the JSON formats (generic JSON, Hermes, Mistral, Granite, Llama 3 JSON, Functionary, ...). */
import { callFromObject, decodeArguments, isPlainObject, makeCall, subPaths } from './call-object.js'
import { unreadGlued } from './unread.js'
import { bracketedValue, parseJsonAt, parseJsonSpan, skipSpace, UNTERMINATED, type JsonResult } from './json.js'
import { NoCallMemo } from './detection-pass.js'
import type { JsonValue, ParseOptions, ToolCall } from './types.js'

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

/**
 * One call object (flat `{name, arguments}`, `{function: name, arguments}`, or OpenAI `{id, type, function: {...}}`),
 * or undefined.
 */
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
  // `{"function": "get_weather", "arguments": {...}}`: the name under `function` (SGLang's gateway and LocalAI read it).
  const nameKey = typeof fn === 'string' && !('name' in el) ? 'function' : 'name'
  const call = callFromObject(el, format, raw, floatPaths, nameKey)
  // Bare JSON must look like a call: arguments that decode to an object (or made invalid only by a member beside
  // them that is not read: `argumentsError` says so), or the name of an offered tool.
  const callLike = (call?.argumentsValid || call?.argumentsError !== undefined) && hasArgumentsKey(el)
  if (call && rules.bare && !callLike && !offersTool(options, call.name)) return undefined
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
  if (Array.isArray(value)) return callsOfElements(value, '', format, floatPaths, raw, options, rules)
  if (!isPlainObject(value)) return []
  const list = value['tool_calls']
  // The `tool_calls` key is the marker: its elements follow the marked rules.
  if (Array.isArray(list)) return callsOfElements(list, '/tool_calls', format, floatPaths, raw, options, MARKED)
  const one = value['tool_call']
  if (isPlainObject(one)) {
    const call = callFromElement(one, format, subPaths(floatPaths, '/tool_call'), raw, options, MARKED)
    return call ? [call] : []
  }
  const call = callFromElement(value, format, floatPaths, raw, options, rules)
  return call ? [call] : []
}

/** The calls among the elements of `list`, a JSON array at `prefix` in a value whose float paths are `floatPaths`. */
function callsOfElements(
  list: JsonValue[],
  prefix: string,
  format: string,
  floatPaths: string[] | undefined,
  raw: string | undefined,
  options: ParseOptions,
  rules: CallRules,
): ToolCall[] {
  const out: ToolCall[] = []
  for (let k = 0; k < list.length; k++) {
    const paths = floatPaths ? subPaths(floatPaths, prefix + '/' + k) : undefined
    const call = callFromElement(list[k], format, paths, raw, options, rules)
    if (call) out.push(call)
  }
  return out
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
  // Only a bracketed value still open at `limit` is read on (parseJsonAt has already scanned it up to `limit`).
  if ((c !== OPEN_BRACE && c !== OPEN_BRACKET) || (s < limit && r.error !== UNTERMINATED)) return r
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
  // Most lists fill their region: one native parse of it first.
  const span = parseJsonSpan(text, at, limit)
  const whole = span?.ok ? span : budget ? parseJsonPast(text, at, limit, budget) : parseJsonAt(text, at, limit)
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
  /** Start of the last string that ran to the end or into a raw newline (-1: none). */
  lastBroken: number
  /** Whether a bracket that never closed was closed over by a closer of the other kind (not left open at the end). */
  poppedUnclosed: boolean
  /** The brackets open at the end, by level from 1 (index 0 unused). */
  openAt: Int32Array
  /**
   * By level from 1: whether every string read at that depth, after the bracket open there at the end was opened,
   * closed with a quote and held no bracket. Such strings read the same as prose (see `readJsonCalls`).
   */
  plain: Uint8Array
  /** How many brackets are open at the end. */
  openCount: number
}

/** The ASCII characters `scanSpans` acts on: `"`, `{`, `}`, `[`, `]`. */
const SPAN_CHARS = new Uint8Array(128)
for (const c of [QUOTE, OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET]) SPAN_CHARS[c] = 1

/**
 * One left-to-right pass over [from, to) that finds the balanced `{...}` / `[...]` spans and how they nest. Quotes
 * count only inside brackets; a string ends at its closing quote or at a raw newline. A closer of the wrong kind
 * closes the nearest open bracket of its kind (the ones above it never closed, and their spans move to the bracket
 * below them); a closer with none open is prose.
 *
 * The open brackets live in typed arrays indexed by level (no object per bracket, nothing for the collector to
 * trace: a megabyte of `{` is a million levels). Level 0 is the top level; level k > 0 is the k-th open bracket:
 * where it opened (its closer follows from the opener) and its child spans, a linked list given by the indices in
 * `spans` of its first and last element (-1: none).
 */
function scanSpans(text: string, from: number, to: number): ScanResult {
  let starts: Int32Array = new Int32Array(16)
  let firsts: Int32Array = new Int32Array(16)
  let lasts: Int32Array = new Int32Array(16)
  let plain: Uint8Array = new Uint8Array(16)
  starts[0] = -1
  firsts[0] = -1
  lasts[0] = -1
  const spans: Span[] = []
  let top = 0
  let openBraces = 0
  let openBrackets = 0
  let unclosedAt = -1
  let brokenString = false
  let lastBroken = -1
  let poppedUnclosed = false
  let i = from
  while (i < to) {
    const c = text.charCodeAt(i)
    // Most characters are none of `"{}[]`: one table read passes them (the scan is per character, so this matters).
    if (c >= 128 || !SPAN_CHARS[c]) {
      i++
      continue
    }
    if (c === QUOTE && top > 0) {
      let j = i + 1
      let bracket = false
      while (j < to) {
        const d = text.charCodeAt(j)
        if (d === QUOTE || d === NEWLINE) break
        if (d < 128 && SPAN_CHARS[d]) bracket = true
        j += d === BACKSLASH ? 2 : 1
      }
      // Closed string: continue after it; broken by a newline or the end: continue there, as prose.
      if (j < to && text.charCodeAt(j) === QUOTE) {
        if (bracket) plain[top] = 0
        i = j + 1
      } else {
        brokenString = true
        lastBroken = i
        plain[top] = 0
        i = j
      }
      continue
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      top++
      if (top === starts.length) {
        starts = grown(starts)
        firsts = grown(firsts)
        lasts = grown(lasts)
        const p = new Uint8Array(plain.length * 2)
        p.set(plain)
        plain = p
      }
      starts[top] = i
      plain[top] = 1
      firsts[top] = -1
      lasts[top] = -1
      if (c === OPEN_BRACE) openBraces++
      else openBrackets++
    } else if ((c === CLOSE_BRACE && openBraces > 0) || (c === CLOSE_BRACKET && openBrackets > 0)) {
      const opener = c === CLOSE_BRACE ? OPEN_BRACE : OPEN_BRACKET
      for (;;) {
        const level = top
        const start = starts[level]!
        const isBrace = text.charCodeAt(start) === OPEN_BRACE
        if (isBrace) openBraces--
        else openBrackets--
        top--
        if (text.charCodeAt(start) === opener) {
          // Closes here: a span, with the open bracket's child spans inside it, becomes a child of the level below.
          // A span that cannot be JSON and holds no span would give nothing to decode: it is not kept. Nor is `{}`
          // or `[]` (no call, nothing inside): `{"a": {}` repeated would otherwise keep a span object per 8 bytes
          // for the collector to copy and the decoding loop to walk, about 20x the cost of ordinary text.
          if (firsts[level]! < 0 && (skipSpace(text, start + 1, i) === i || !plausibleJson(text, start, i + 1))) break
          const span: Span = { start, end: i + 1, first: undefined, last: undefined, next: undefined }
          if (firsts[level]! >= 0) {
            span.first = spans[firsts[level]!]
            span.last = spans[lasts[level]!]
          }
          spans.push(span)
          appendSpans(spans, firsts, lasts, top, spans.length - 1, spans.length - 1)
          break
        }
        // Never closed: its child spans move to the level below.
        poppedUnclosed = true
        unclosedAt = unclosedAt < 0 ? start : Math.min(unclosedAt, start)
        appendSpans(spans, firsts, lasts, top, firsts[level]!, lasts[level]!)
      }
    }
    i++
  }
  const openCount = top
  const openAt = starts.slice(0, top + 1)
  // Brackets still open never closed: their child spans move down, level by level, to the top level.
  if (top > 0) unclosedAt = unclosedAt < 0 ? starts[1]! : Math.min(unclosedAt, starts[1]!)
  for (; top > 0; top--) appendSpans(spans, firsts, lasts, top - 1, firsts[top]!, lasts[top]!)
  const roots: Span[] = []
  for (let s = firsts[0]! >= 0 ? spans[firsts[0]!] : undefined; s; s = s.next) roots.push(s)
  return { roots, unclosedAt, brokenString, lastBroken, poppedUnclosed, openAt, plain, openCount }
}

/** A copy of `a` with twice the room. */
function grown(a: Int32Array): Int32Array {
  const b = new Int32Array(a.length * 2)
  b.set(a)
  return b
}

/** Append the list of spans `first`..`last` (indices in `spans`; -1: empty) to the child list of `level`. */
function appendSpans(spans: Span[], firsts: Int32Array, lasts: Int32Array, level: number, first: number, last: number): void {
  if (first < 0) return
  const tail = lasts[level]!
  if (tail >= 0) spans[tail]!.next = spans[first]
  else firsts[level] = first
  lasts[level] = last
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
function plausibleJson(text: string, start: number, end: number): boolean {
  const i = skipSpace(text, start + 1, end)
  const c = text.charCodeAt(i)
  if (text.charCodeAt(start) === OPEN_BRACE) return c === QUOTE || c === CLOSE_BRACE
  return c === OPEN_BRACE || c === OPEN_BRACKET || c === CLOSE_BRACKET
}

/**
 * Every JSON tool call written in free text, in order of appearance, under the bare rules (see CallRules). Never
 * throws; linear in the text's length.
 */
export function jsonCallsIn(text: string, format: string, options: ParseOptions): ToolCall[] {
  // Hermes (without tags) and then the JSON format read the same text this way; the format only labels the calls.
  if (noBareCalls.has(text)) return []
  const calls = readJsonCalls(text, format, options)
  if (calls.length === 0) noBareCalls.record(text)
  return calls
}

const noBareCalls = new NoCallMemo()

function readJsonCalls(text: string, format: string, options: ParseOptions): ToolCall[] {
  // A call object names its function in a JSON string: text without a `"` holds none (a megabyte of `{` would
  // otherwise open a million levels of the scan below, for nothing).
  if (text.indexOf('"') < 0) return []
  // An output that is one JSON value (xLAM's list, an OpenAI-shaped object) is its only top-level span: the scan
  // below would decode just that span, so the native parser takes the whole text first.
  const s = skipSpace(text, 0)
  if (s < text.length && plausibleJson(text, s, text.length)) {
    const whole = parseJsonSpan(text, s, text.length)
    if (whole?.ok) return callsFromValue(whole.value, format, whole.floatPaths, text.slice(s, whole.end), options, BARE)
  }
  const to = text.length
  let budget = RETRY_BUDGET_BASE + RETRY_BUDGET_FACTOR * to
  let start = 0
  // Spans that failed to decode, by start: their end. A retry pass finds most of the previous pass's spans again
  // (`{"q":x }; ` repeated after a stray `{"` is one span less per pass), and a decode's outcome depends only on
  // the span, so a span known to fail is not decoded again; the budget is spent as if it were.
  let failed: Map<number, number> | undefined
  const tally = { failures: 0 }
  // A retry pass reads the text after the outermost bracket left open. When that bracket (level 1 of the last
  // scan, or level k+1 after k such passes) stayed open to the end and every string read directly inside it closed
  // with a quote and held no bracket, reading those quotes as prose changes nothing: the pass finds the last scan's
  // spans after the bracket, and the next bracket left open is the one above it. Such a pass reuses that scan
  // (`scan`, less its `level` lowest brackets) instead of scanning again: one scan for any number of them.
  let scan: ScanResult | undefined
  let level = 0
  const pending: Span[] = []
  const pendingFree: boolean[] = []
  for (let pass = 0; start < to && (pass === 0 || budget > 0); pass++) {
    if (scan && !scan.poppedUnclosed && level < scan.openCount && scan.plain[level + 1] === 1 && start === scan.openAt[level + 1]! + 1) {
      level++
    } else {
      scan = scanSpans(text, start, to)
      level = 0
    }
    const after = level > 0 ? scan.openAt[level]! : -1
    const unclosedAt = level === 0 ? scan.unclosedAt : level < scan.openCount ? scan.openAt[level + 1]! : -1
    const brokenString = level === 0 ? scan.brokenString : scan.lastBroken > after
    const roots = scan.roots
    if (pass > 0) budget -= to - start
    // Worth remembering only when another pass may follow.
    if (unclosedAt >= 0 && brokenString) failed ??= new Map()
    const out: ToolCall[] = []
    // Depth-first over the span tree in text order; a span is decoded only if no enclosing span decoded.
    for (let k = roots.length - 1; k >= 0 && roots[k]!.start > after; k--) {
      pending.push(roots[k]!)
      pendingFree.push(pass === 0)
    }
    while (pending.length > 0) {
      const s = pending.pop()!
      const free = pendingFree.pop()!
      const size = s.end - s.start
      if (plausibleJson(text, s.start, s.end) && (free || size <= budget)) {
        if (!free) budget -= size
        if (failed?.get(s.start) !== s.end) {
          // A balanced span: the native parser takes it whole. The bracket scan would find the same end (a valid
          // value closes where its span does), so it is not run.
          const r = bracketedValue(text, s.start, s.end, tally)
          if (r) {
            const calls = callsFromValue(r.value, format, r.floatPaths, text.slice(s.start, s.end), options, BARE)
            out.push(...unreadGlued(calls, text, s.end))
            continue
          }
          failed?.set(s.start, s.end)
        }
      }
      const base = pending.length
      for (let c = s.first; c; c = c.next) {
        pending.push(c)
        pendingFree.push(false)
      }
      // Children in reverse, so that the first is taken next.
      for (let a = base, b = pending.length - 1; a < b; a++, b--) {
        const t = pending[a]!
        pending[a] = pending[b]!
        pending[b] = t
      }
    }
    if (out.length > 0 || unclosedAt < 0 || !brokenString) return out
    // A bracket that never closed, and a string that never closed either: a stray quote in a stray bracket may have
    // swallowed the rest of the text, so read on after the bracket.
    start = unclosedAt + 1
  }
  return []
}

/** JSON array of call objects, as xLAM writes it (`[{"name": ..., "arguments": {...}}]`). */
export function renderJsonCalls(calls: readonly { name: string; arguments: Record<string, unknown> }[]): string {
  return JSON.stringify(calls.map((c) => ({ name: c.name, arguments: c.arguments })))
}
