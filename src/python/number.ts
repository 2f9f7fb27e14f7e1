/**
 * Python's `int(str)` and `float(str)` for the strings BFCL's Java/JavaScript type converters hand them: surrounding
 * whitespace (Python's Unicode set) is ignored, a sign is allowed, any Unicode decimal digit counts as its ASCII
 * digit, single underscores may sit between digits, and `float` also reads `inf`, `infinity` and `nan` in any case.
 * Both are one left-to-right pass (linear time). Ints beyond 2^53 lose precision (PyValue ints are JS numbers).
 */

// Python's str.isspace() characters (what `str.strip()`, `int()` and `float()` ignore at the ends).
const PY_SPACE_CHARS = '\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000'
/** Regex source of one Python `\s` character. */
export const PY_S = `[${PY_SPACE_CHARS}]`
const SPACE = new RegExp(PY_S, 'u')
const ND = /^\p{Nd}$/u

/** Python's `str.strip()` with no argument. */
export function pyStrip(s: string): string {
  let start = 0
  let end = s.length
  while (start < end && SPACE.test(s[start]!)) start++
  while (end > start && SPACE.test(s[end - 1]!)) end--
  return s.slice(start, end)
}

/** Python's `str.strip(chars)`. */
export function pyStripChars(s: string, chars: string): string {
  let start = 0
  let end = s.length
  while (start < end && chars.includes(s[start]!)) start++
  while (end > start && chars.includes(s[end - 1]!)) end--
  return s.slice(start, end)
}

/**
 * The ASCII digit of a Unicode decimal digit (Nd), or undefined. Unicode keeps every Nd run contiguous, ascending
 * from zero and a multiple of ten long, so the digit is the offset from the run's start modulo ten.
 */
function digitOf(ch: string): string | undefined {
  const cp = ch.codePointAt(0)!
  if (cp >= 0x30 && cp <= 0x39) return ch
  if (cp < 0x80 || !ND.test(ch)) return undefined
  let start = cp
  // Runs are at most a few tens long (the mathematical digits: five runs of ten, back to back).
  while (start > 0 && ND.test(String.fromCodePoint(start - 1))) start--
  return String((cp - start) % 10)
}

/** The characters of `s` as code points (astral digits are one character, as in Python). */
function chars(s: string): string[] {
  return Array.from(s)
}

/**
 * Digits with optional single underscores between them, from `i`; the ASCII digits and the index after them, or
 * undefined when no digit is there or an underscore is misplaced.
 */
function readDigits(cs: string[], i: number): { digits: string; end: number } | undefined {
  let digits = ''
  while (i < cs.length) {
    const d = digitOf(cs[i]!)
    if (d !== undefined) {
      digits += d
      i++
    } else if (cs[i] === '_' && digits !== '' && i + 1 < cs.length && digitOf(cs[i + 1]!) !== undefined) {
      i++
    } else break
  }
  return digits === '' ? undefined : { digits, end: i }
}

/** Python's `int(s)` (base 10), or undefined where it raises ValueError. */
export function pyIntFromString(s: string): number | undefined {
  const cs = chars(pyStrip(s))
  let i = 0
  let sign = ''
  if (cs[i] === '+' || cs[i] === '-') sign = cs[i++] === '-' ? '-' : ''
  const r = readDigits(cs, i)
  if (r === undefined || r.end !== cs.length) return undefined
  const n = Number(sign + r.digits)
  return n === 0 ? 0 : n
}

/** Python's `float(s)`, or undefined where it raises ValueError. */
export function pyFloatFromString(s: string): number | undefined {
  const cs = chars(pyStrip(s))
  let i = 0
  let sign = ''
  if (cs[i] === '+' || cs[i] === '-') sign = cs[i++] === '-' ? '-' : ''
  const word = cs.slice(i).join('').toLowerCase()
  if (word === 'inf' || word === 'infinity') return sign === '-' ? -Infinity : Infinity
  if (word === 'nan') return NaN
  let text = sign
  const whole = readDigits(cs, i)
  if (whole !== undefined) {
    text += whole.digits
    i = whole.end
  }
  let fraction: { digits: string; end: number } | undefined
  if (cs[i] === '.') {
    fraction = readDigits(cs, i + 1)
    if (fraction !== undefined) {
      text += '.' + fraction.digits
      i = fraction.end
    } else i++
  }
  if (whole === undefined && fraction === undefined) return undefined
  if (cs[i] === 'e' || cs[i] === 'E') {
    let j = i + 1
    let expSign = ''
    if (cs[j] === '+' || cs[j] === '-') expSign = cs[j++]!
    const exp = readDigits(cs, j)
    if (exp === undefined) return undefined
    text += 'e' + expSign + exp.digits
    i = exp.end
  }
  if (i !== cs.length) return undefined
  return Number(text)
}
