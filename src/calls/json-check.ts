/**
 * Whether a span is JSON, by a scan that never throws: a failed `JSON.parse` throws, and a throw costs microseconds,
 * so a text of thousands of small spans that are not JSON is checked here first once its failure allowance is spent.
 */
import { isHexDigit, isJsonNumber, scanPrimitiveEnd, skipJsonSpace } from './json-lexemes.js'

const OPEN_BRACE = 123 // {
const CLOSE_BRACE = 125 // }
const OPEN_BRACKET = 91 // [
const CLOSE_BRACKET = 93 // ]
const QUOTE = 34 // "
const BACKSLASH = 92 // \
const COMMA = 44

/** Open containers of `isJsonText` by level: 1 an object, 0 an array. Shared, grown as needed (never in use twice). */
let containers = new Uint8Array(64)

/**
 * Whether `text[s, e)` is exactly one JSON value, as `JSON.parse` would accept it, found by one scan without
 * allocating or throwing. It never turns down what the native parser accepts (it reads the same grammar), so callers
 * may run the native parse only when it says yes.
 */
export function isJsonText(text: string, s: number, e: number): boolean {
  let depth = 0
  let i = skipJsonSpace(text, s, e)
  for (;;) {
    // A value starts at i.
    if (i >= e) return false
    const c = text.charCodeAt(i)
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (depth === containers.length) {
        const grownTo = new Uint8Array(depth * 2)
        grownTo.set(containers)
        containers = grownTo
      }
      containers[depth++] = c === OPEN_BRACE ? 1 : 0
      i = skipJsonSpace(text, i + 1, e)
      if (text.charCodeAt(i) === (c === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET)) {
        depth--
        i++
      } else if (c === OPEN_BRACE) {
        i = jsonKeyEnd(text, i, e)
        if (i < 0) return false
        continue
      } else continue
    } else if (c === QUOTE) {
      i = jsonStringEnd(text, i, e)
      if (i < 0) return false
    } else {
      const t = scanPrimitiveEnd(text, i, e)
      if (t === i) return false
      const n = t - i
      const literal =
        (n === 4 && text.startsWith('true', i)) || (n === 5 && text.startsWith('false', i)) || (n === 4 && text.startsWith('null', i))
      if (!literal && !isJsonNumber(text, i, t)) return false
      i = t
    }
    // After a value: a comma (then the next value, or key and value) or the closer of the open container.
    for (;;) {
      i = skipJsonSpace(text, i, e)
      if (depth === 0) return i === e
      const d = text.charCodeAt(i)
      const inObject = containers[depth - 1] === 1
      if (d === COMMA) {
        i = skipJsonSpace(text, i + 1, e)
        if (inObject) {
          i = jsonKeyEnd(text, i, e)
          if (i < 0) return false
        }
        break
      }
      if (d !== (inObject ? CLOSE_BRACE : CLOSE_BRACKET)) return false
      depth--
      i++
    }
  }
}

/** After `"key"` and `:` at `i` (spaces around the colon allowed): the index past them, or -1. */
function jsonKeyEnd(text: string, i: number, e: number): number {
  if (i >= e || text.charCodeAt(i) !== QUOTE) return -1
  i = jsonStringEnd(text, i, e)
  if (i < 0) return -1
  i = skipJsonSpace(text, i, e)
  if (i >= e || text.charCodeAt(i) !== 58 /* : */) return -1
  return skipJsonSpace(text, i + 1, e)
}

/** End (exclusive) of the valid JSON string literal opening at `i`, or -1 (unclosed, control character, bad escape). */
function jsonStringEnd(text: string, i: number, e: number): number {
  for (i++; i < e; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) return i + 1
    if (c < 0x20) return -1
    if (c === BACKSLASH) {
      const d = text.charCodeAt(++i)
      if (d === 117 /* u */) {
        for (let k = 1; k <= 4; k++) if (i + k >= e || !isHexDigit(text.charCodeAt(i + k))) return -1
        i += 4
      } else if (!(d === QUOTE || d === BACKSLASH || d === 47 || d === 98 || d === 102 || d === 110 || d === 114 || d === 116)) {
        return -1 // not one of " \ / b f n r t
      }
    }
  }
  return -1
}
