/**
 * JSON at the level of characters: whitespace, numbers, hex digits. Shared by the decoder (json.ts) and the
 * non-throwing validator (json-check.ts), so neither imports the other.
 */

export function isJsonSpace(code: number): boolean {
  return code === 32 || code === 10 || code === 13 || code === 9
}

export function skipJsonSpace(text: string, i: number, end: number): number {
  while (i < end && isJsonSpace(text.charCodeAt(i))) i++
  return i
}

/** Whether `text[s, e)` is a JSON number: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?`. */
export function isJsonNumber(text: string, s: number, e: number): boolean {
  let i = s
  if (text.charCodeAt(i) === 45 /* - */) i++
  if (i >= e) return false
  let c = text.charCodeAt(i)
  if (c === 48 /* 0 */) i++
  else if (c >= 49 && c <= 57) {
    while (i < e && isDigit(text.charCodeAt(i))) i++
  } else return false
  if (i < e && text.charCodeAt(i) === 46 /* . */) {
    const d = ++i
    while (i < e && isDigit(text.charCodeAt(i))) i++
    if (i === d) return false
  }
  if (i < e && (text.charCodeAt(i) | 0x20) === 101 /* e, E */) {
    i++
    c = text.charCodeAt(i)
    if (c === 43 || c === 45) i++
    const d = i
    while (i < e && isDigit(text.charCodeAt(i))) i++
    if (i === d) return false
  }
  return i === e
}

export function isDigit(c: number): boolean {
  return c >= 48 && c <= 57
}

export function isHexDigit(c: number): boolean {
  return (c >= 48 && c <= 57) || ((c | 0x20) >= 97 && (c | 0x20) <= 102)
}

function isPrimitiveChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || c === 45 || c === 43 || c === 46 || c === 69
}

/** End (exclusive) of the primitive token (number, true, false, null) at `start`. */
export function scanPrimitiveEnd(text: string, start: number, limit: number): number {
  let i = start
  while (i < limit && isPrimitiveChar(text.charCodeAt(i))) i++
  return i
}
