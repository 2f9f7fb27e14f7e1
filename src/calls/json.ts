/**
 * JSON decoding for model output: never throws, linear in the text it reads, and keeps the one fact JavaScript
 * numbers lose that scoring needs (a number written as `3.0` or `1e3` is a float to the BFCL checker).
 *
 * The fast path finds the end of a value with a bracket-and-string scan and hands the slice to the native
 * `JSON.parse`; only slices that contain an integral float literal are walked again to record its path.
 */
import type { JsonValue } from './types.js'
import { isJsonText } from './json-check.js'
import { isDigit, isHexDigit, isJsonNumber, isJsonSpace, scanPrimitiveEnd, skipJsonSpace } from './json-lexemes.js'

export { isJsonSpace } from './json-lexemes.js'

/** The error of a value that does not close before the limit (callers that read on past it test for this). */
export const UNTERMINATED = 'unterminated JSON value'

export type JsonResult =
  | { ok: true; value: JsonValue; end: number; floatPaths?: string[] }
  | { ok: false; error: string; at: number }

const OPEN_BRACE = 123 // {
const CLOSE_BRACE = 125 // }
const OPEN_BRACKET = 91 // [
const CLOSE_BRACKET = 93 // ]
const QUOTE = 34 // "
const BACKSLASH = 92 // \

/** Index of the first non-whitespace character at or after `i` (JSON whitespace plus other Unicode spaces). */
export function skipSpace(text: string, i: number, end = text.length): number {
  while (i < end) {
    const c = text.charCodeAt(i)
    if (isJsonSpace(c) || c === 0xa0 || c === 0xfeff) i++
    else break
  }
  return i
}

/**
 * End (exclusive) of the string literal whose opening quote is at `start`, or -1 if it is not closed before `limit`.
 */
export function scanStringEnd(text: string, start: number, limit = text.length): number {
  // The closing quote is the first one after an even run of backslashes (each backslash escapes the next
  // character). Jumping from quote to quote with indexOf beats reading every character; each backslash run is
  // counted once, by the quote that ends it.
  let from = start + 1
  for (;;) {
    const q = text.indexOf('"', from)
    if (q < 0 || q >= limit) return -1
    let b = q - 1
    while (b > start && text.charCodeAt(b) === BACKSLASH) b--
    if ((q - 1 - b) % 2 === 0) return q + 1
    from = q + 1
  }
}

/** The ASCII characters the bracket scan acts on: `"`, `{`, `}`, `[`, `]`. */
const BRACKET_CHARS = new Uint8Array(128)
for (const c of [QUOTE, OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET]) BRACKET_CHARS[c] = 1

/**
 * End (exclusive) of the bracketed value (`{...}` or `[...]`) that opens at `start`, found by counting brackets
 * outside strings; -1 when it does not close before `limit`. Mismatched bracket kinds are left for the parser to
 * reject. Linear in the characters read.
 */
export function scanBracketEnd(text: string, start: number, limit = text.length): number {
  let depth = 0
  let i = start
  while (i < limit) {
    const c = text.charCodeAt(i)
    if (c >= 128 || !BRACKET_CHARS[c]) {
      i++ // one table read passes the characters that are none of `"{}[]`
      continue
    }
    if (c === QUOTE) {
      const e = scanStringEnd(text, i, limit)
      if (e < 0) return -1
      i = e
      continue
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--
      if (depth === 0) return i + 1
      if (depth < 0) return -1
    }
    i++
  }
  return -1
}

/** Characters a primitive token may hold: `-+0-9.eE` and lower-case letters (`true`, `false`, `null`). */
/**
 * The value of the string literal `text[s, e)` (quotes included) when it is valid JSON, else undefined. Strings
 * without escapes (the common case) are sliced, not parsed; any control character makes the literal invalid.
 */
function stringLiteralValue(text: string, s: number, e: number): { value: string } | undefined {
  let escaped = false
  for (let i = s + 1; i < e - 1; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x20) return undefined
    if (c === BACKSLASH) {
      escaped = true
      i++ // the escaped character is checked by JSON.parse below
    }
  }
  if (!escaped) return { value: text.slice(s + 1, e - 1) }
  return validEscapes(text, s, e) ? { value: JSON.parse(text.slice(s, e)) as string } : undefined
}

/** Whether every backslash escape in the string literal `text[s, e)` is one JSON allows. */
function validEscapes(text: string, s: number, e: number): boolean {
  for (let i = s + 1; i < e - 1; i++) {
    if (text.charCodeAt(i) !== BACKSLASH) continue
    const c = text.charCodeAt(++i)
    if (c === 117 /* u */) {
      for (let k = 1; k <= 4; k++) if (!isHexDigit(text.charCodeAt(i + k)) || i + k >= e - 1) return false
      i += 4
    } else if (!(c === QUOTE || c === BACKSLASH || c === 47 || c === 98 || c === 102 || c === 110 || c === 114 || c === 116)) {
      return false // not one of " \ / b f n r t
    }
  }
  return true
}

/** Reading a value where none starts: routine when formats probe, so the message is built only when read. */
function unexpectedCharacter(text: string, at: number): JsonResult {
  return {
    ok: false,
    get error(): string {
      return `unexpected character ${JSON.stringify(text[at])}`
    },
    at,
  }
}

/**
 * A failed decode. The message is the engine's own (`JSON.parse`'s), built only when read: decoding that fails is
 * routine for the format parsers (they probe), and a thrown SyntaxError costs microseconds.
 */
function invalidJson(slice: string, at: number): JsonResult {
  return {
    ok: false,
    get error(): string {
      try {
        JSON.parse(slice)
        return 'invalid JSON'
      } catch (err) {
        return `invalid JSON: ${(err as Error).message}`
      }
    },
    at,
  }
}

/**
 * Decode one JSON value starting at `start` (leading whitespace skipped). `end` in the result is the index just
 * after the value. Never throws.
 */
export function parseJsonAt(text: string, start = 0, limit = text.length): JsonResult {
  const s = skipSpace(text, start, limit)
  if (s >= limit) return { ok: false, error: 'expected a JSON value, found end of text', at: s }
  const c = text.charCodeAt(s)
  let e: number
  if (c === OPEN_BRACE || c === OPEN_BRACKET) e = scanBracketEnd(text, s, limit)
  else if (c === QUOTE) e = scanStringEnd(text, s, limit)
  else e = scanPrimitiveEnd(text, s, limit)
  if (e < 0) return { ok: false, error: UNTERMINATED, at: s }
  if (e === s) return unexpectedCharacter(text, s)
  const slice = text.slice(s, e)
  let value: JsonValue
  if (c === OPEN_BRACE || c === OPEN_BRACKET) {
    // A throw costs microseconds: a bracket whose first token cannot be JSON (`[\"a\"]`) fails without one.
    if (!plausibleStart(text, s, e)) return invalidJson(slice, s)
    try {
      value = JSON.parse(slice) as JsonValue
    } catch (err) {
      return { ok: false, error: `invalid JSON: ${(err as Error).message}`, at: s }
    }
  } else if (c === QUOTE) {
    const str = stringLiteralValue(text, s, e)
    if (!str) return invalidJson(slice, s)
    return { ok: true, value: str.value, end: e }
  } else {
    // Primitives are decoded here rather than probed with JSON.parse: most failures are words (`celsius`).
    if (slice === 'true') value = true
    else if (slice === 'false') value = false
    else if (slice === 'null') value = null
    else if (isJsonNumber(text, s, e)) value = Number(slice)
    else return invalidJson(slice, s)
  }
  return decoded(value, e, slice)
}

/**
 * The value of the balanced span `text[start, end)` (from its `{` or `[` to just after its closer, as the bare-JSON
 * span scan finds it), or undefined when it is not JSON: what `parseJsonSpan` and then `parseJsonAt` give there, for
 * a caller that reads many spans of one text and only needs values. A failed native parse throws (microseconds), so
 * past `MAX_SPAN_FAILURES` failures counted in `tally` (the caller's, one per text: comparing texts to find the
 * last one would read a whole text per call when two equal texts alternate) a span is checked by a scan first.
 */
export function bracketedValue(
  text: string,
  start: number,
  end: number,
  tally: { failures: number },
): (JsonResult & { ok: true }) | undefined {
  if (!plausibleStart(text, start, end)) return undefined
  if (tally.failures >= MAX_SPAN_FAILURES && !isJsonText(text, start, end)) return undefined
  const slice = text.slice(start, end)
  let value: JsonValue
  try {
    value = JSON.parse(slice) as JsonValue
  } catch {
    tally.failures++
    return undefined
  }
  return decoded(value, end, slice) as JsonResult & { ok: true }
}

/**
 * The object or array that fills `text[start, end)` (whitespace around it allowed), decoded by one native
 * `JSON.parse` of the whole span. The fast path for a body whose end is already known (a closing tag, a balanced
 * span): callers run the bracket scan of `parseJsonAt` only when this does not succeed. Undefined, without a parse,
 * when the span does not start and end with matching brackets (a failed parse throws, which costs microseconds).
 */
export function parseJsonSpan(text: string, start: number, end: number): JsonResult | undefined {
  const s = skipSpace(text, start, end)
  let e = end
  while (e > s && isJsonSpace(text.charCodeAt(e - 1))) e--
  const open = text.charCodeAt(s)
  const close = text.charCodeAt(e - 1)
  if (!((open === OPEN_BRACE && close === CLOSE_BRACE) || (open === OPEN_BRACKET && close === CLOSE_BRACKET))) return undefined
  if (!plausibleStart(text, s, e)) return undefined
  if (text === failedText && failures >= MAX_SPAN_FAILURES) return undefined
  const slice = text.slice(s, e)
  let value: JsonValue
  try {
    value = JSON.parse(slice) as JsonValue
  } catch {
    if (text !== failedText) {
      failedText = text
      failures = 0
    }
    failures++
    return invalidJson(slice, s)
  }
  return decoded(value, e, slice)
}

/**
 * A failed native parse throws, and a throw costs microseconds whatever the span's size: a text made of thousands of
 * small bracketed spans that are not JSON (`[TOOL_CALLS]` repeated) would cost a throw every few bytes. So each text
 * gets a few failed attempts; past them, its spans go straight to the scan. Only the last text is remembered.
 */
const MAX_SPAN_FAILURES = 8
let failedText: string | undefined
let failures = 0

/**
 * Whether the first token after the opening bracket(s) at `s` can be JSON: exact for what it reads, so it never
 * turns valid JSON down, and cheap (it rules out `[TOOL_CALLS]` and double-escaped `[{\"id\": ...}]` before a
 * native parse would throw). Follows at most a few nested openers.
 */
function plausibleStart(text: string, s: number, e: number): boolean {
  let open = text.charCodeAt(s)
  for (let depth = 0; depth < 4; depth++) {
    s = skipJsonSpace(text, s + 1, e)
    const c = text.charCodeAt(s)
    if (open === OPEN_BRACE) return c === QUOTE || c === CLOSE_BRACE
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      open = c
      continue
    }
    return c === QUOTE || c === CLOSE_BRACKET || c === 45 || (c >= 48 && c <= 57) || c === 116 || c === 102 || c === 110
  }
  return true
}

/** Decode `text` as exactly one JSON value (surrounding whitespace allowed). */
export function parseJson(text: string): JsonResult {
  // An object or array filling the text goes to the native parser whole. If that parse fails, the text is not one
  // JSON value: the scan would fail too, so it runs only if the error is read (for its more precise message).
  const whole = parseJsonSpan(text, 0, text.length)
  if (whole) return whole.ok ? whole : scannedFailure(text)
  return parseJsonScanned(text)
}

/** A failure whose error and position are those of `parseJsonScanned`, computed when first read. */
function scannedFailure(text: string): JsonResult {
  let scanned: JsonResult | undefined
  const get = (): { error: string; at: number } => {
    scanned ??= parseJsonScanned(text)
    return scanned.ok ? { error: 'invalid JSON', at: 0 } : scanned
  }
  return {
    ok: false,
    get error() {
      return get().error
    },
    get at() {
      return get().at
    },
  }
}

function parseJsonScanned(text: string): JsonResult {
  const r = parseJsonAt(text, 0)
  if (!r.ok) return r
  const rest = skipSpace(text, r.end)
  if (rest < text.length) return { ok: false, error: `unexpected text after JSON value`, at: rest }
  return r
}

/** A decoded value ending at `end`, with the paths of integral floats its JSON text `slice` writes, if any. */
function decoded(value: JsonValue, end: number, slice: string): JsonResult {
  const floatPaths = mayHaveIntegralFloat(slice) ? collectFloatPaths(slice) : undefined
  return floatPaths && floatPaths.length > 0 ? { ok: true, value, end, floatPaths } : { ok: true, value, end }
}

// A digit followed by '.', 'e' or 'E': cheap pre-check (it may match inside strings; the walk below is exact).
const FLOAT_HINT = /[0-9][.eE]/

function mayHaveIntegralFloat(slice: string): boolean {
  return FLOAT_HINT.test(slice)
}

/** Deeper paths are not recorded: keeps pointer building linear; real arguments are never this deep. */
const MAX_FLOAT_PATH_DEPTH = 32

/**
 * Walk a JSON text that is known to be valid and return the JSON Pointers of numbers written in float form whose
 * value is an integer.
 */
export function collectFloatPaths(json: string): string[] {
  // Most texts that get here hold only non-integral floats (2.5) or digits and dots inside strings: a cheap scan
  // for an integral float comes first, and the paths are built only when there is one.
  if (!hasIntegralFloat(json)) return []
  const out: string[] = []
  // One frame per open container: whether it is an array, and the current key (object) or index (array).
  const frames: { array: boolean; key: string | number }[] = []
  const n = json.length
  let i = 0
  while (i < n) {
    const c = json.charCodeAt(i)
    const top = frames[frames.length - 1]
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      frames.push({ array: c === OPEN_BRACKET, key: c === OPEN_BRACKET ? 0 : '' })
      i++
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      frames.pop()
      i++
    } else if (c === QUOTE) {
      const e = scanStringEnd(json, i)
      const after = skipSpace(json, e)
      // A string followed by ':' inside an object is a key.
      if (top && !top.array && json.charCodeAt(after) === 58 /* : */) {
        top.key = JSON.parse(json.slice(i, e)) as string
        i = after + 1
      } else i = e
    } else if (c === 44 /* , */) {
      if (top?.array) top.key = (top.key as number) + 1
      i++
    } else if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
      const e = scanPrimitiveEnd(json, i, n)
      const tok = json.slice(i, e)
      if (isIntegralFloat(tok) && frames.length <= MAX_FLOAT_PATH_DEPTH) {
        out.push(toPointer(frames.map((f) => f.key)))
      }
      i = e
    } else i++
  }
  return out
}

/** Whether a JSON text known to be valid holds, outside strings, a number in float form with an integral value. */
function hasIntegralFloat(json: string): boolean {
  const n = json.length
  let i = 0
  while (i < n) {
    const c = json.charCodeAt(i)
    if (c === QUOTE) {
      i = scanStringEnd(json, i)
      if (i < 0) return true // not valid JSON after all: let the full walk decide
    } else if (c === 45 /* - */ || isDigit(c)) {
      const e = scanPrimitiveEnd(json, i, n)
      if (isIntegralFloat(json.slice(i, e))) return true
      i = e
    } else i++
  }
  return false
}

function isIntegralFloat(token: string): boolean {
  return /[.eE]/.test(token) && Number.isInteger(Number(token))
}

/** RFC 6901 JSON Pointer from path segments. */
export function toPointer(segments: readonly (string | number)[]): string {
  let p = ''
  for (const k of segments) p += '/' + String(k).replace(/~/g, '~0').replace(/\//g, '~1')
  return p
}
