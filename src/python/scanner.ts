/**
 * The character level of the Python parser: position, the first failure, whitespace and comments, and the tokens
 * (identifiers, string and number literals). The grammar (parser.ts) extends it.
 */
import { MAX_INT_BITS, MAX_INT_DIGITS, MAX_PY_DEPTH, type PyNode, type PyParseOptions } from './types.js'

export const enum C {
  TAB = 9,
  LF = 10,
  CR = 13,
  SPACE = 32,
  HASH = 35,
  DQUOTE = 34,
  SQUOTE = 39,
  LPAREN = 40,
  RPAREN = 41,
  STAR = 42,
  PLUS = 43,
  COMMA = 44,
  MINUS = 45,
  DOT = 46,
  SLASH = 47,
  ZERO = 48,
  NINE = 57,
  COLON = 58,
  EQUALS = 61,
  LBRACKET = 91,
  BACKSLASH = 92,
  RBRACKET = 93,
  UNDERSCORE = 95,
  LBRACE = 123,
  RBRACE = 125,
  TILDE = 126,
  PERCENT = 37,
  FORMFEED = 12,
}


export const STRING_PREFIXES = new Set(['r', 'u', 'b', 'br', 'rb', 'f', 'fr', 'rf', 't', 'tr', 'rt'])

const ID_START = /[\p{L}\p{Nl}_]/u
const ID_CONTINUE = /[\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]/u

function isAsciiIdStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === C.UNDERSCORE
}

export function isDigit(c: number): boolean {
  return c >= C.ZERO && c <= C.NINE
}

/** BigInt of a safe integer; the most common ones (0 to 1023) come from a table. */
function smallBigInt(n: number): bigint {
  return n < SMALL_BIGINTS.length ? SMALL_BIGINTS[n]! : BigInt(n)
}

const SMALL_BIGINTS: bigint[] = Array.from({ length: 1024 }, (_, k) => BigInt(k))

/** What a failing parser method returns. Callers test `Parser.failed`, never this node. */
export const FAILED: PyNode = { kind: 'none', start: 0, end: 0, depth: 0 }

export class PyScanner {
  pos = 0
  /** Furthest index read, for `scanned`. */
  furthest = 0
  readonly end: number
  /**
   * The first failure. Failing does not throw: every method returns as soon as `failed` is set, and the callers up
   * the chain do the same. (A throw from deep in the recursion costs time per frame it unwinds, which made text
   * full of unclosed calls slow to reject.)
   */
  failed = false
  error = ''
  errorAt = 0
  /** How far the parser had read when it failed. */
  scanned = 0

  constructor(
    readonly text: string,
    readonly options: PyParseOptions,
  ) {
    this.end = text.length
  }

  /** Record the first failure; returns the placeholder node that failing methods return. */
  fail(message: string, at = this.pos): PyNode {
    if (!this.failed) {
      if (at > this.furthest) this.furthest = at
      this.failed = true
      this.error = message
      this.errorAt = at
      this.scanned = Math.max(this.furthest, this.pos)
    }
    return FAILED
  }

  /** `fail` for the string-reading methods. */
  failText(message: string, at: number): string {
    this.fail(message, at)
    return ''
  }

  peek(offset = 0): number {
    const i = this.pos + offset
    return i < this.end ? this.text.charCodeAt(i) : -1
  }

  /**
   * Skip whitespace, newlines, comments and backslash line continuations. Each level of the expression grammar
   * skips before looking for its operator, so the same position is skipped from several times in a row: the last
   * answer is kept (`furthest` was updated when it was first computed).
   */
  skip(): void {
    if (this.pos === this.skippedFrom) {
      this.pos = this.skippedTo
      return
    }
    const from = this.pos
    this.skipSpace()
    this.skippedFrom = from
    this.skippedTo = this.pos
  }

  private skippedFrom = -1
  private skippedTo = -1

  private skipSpace(): void {
    const t = this.text
    while (this.pos < this.end) {
      const c = t.charCodeAt(this.pos)
      if (c === C.SPACE || c === C.TAB || c === C.LF || c === C.CR || c === C.FORMFEED || c === 0xa0 || c === 0xfeff) {
        this.pos++
      } else if (c === C.HASH) {
        const nl = t.indexOf('\n', this.pos)
        this.pos = nl < 0 ? this.end : nl + 1
      } else if (c === C.BACKSLASH && (this.peek(1) === C.LF || this.peek(1) === C.CR)) {
        this.pos += 2
      } else break
    }
    if (this.pos > this.furthest) this.furthest = this.pos
  }

  /** False (after failing) when `depth` is past the limit. */
  checkDepth(depth: number): boolean {
    if (depth <= MAX_PY_DEPTH) return true
    this.fail(`nesting deeper than ${MAX_PY_DEPTH} levels`)
    return false
  }

  // -- tokens ----------------------------------------------------------------------------------------------

  identifierEnd(i: number): number {
    const t = this.text
    if (i >= this.end) return i
    let c = t.charCodeAt(i)
    if (c < 128) {
      if (!isAsciiIdStart(c)) return i
      i++
    } else {
      const cp = t.codePointAt(i)!
      if (!ID_START.test(String.fromCodePoint(cp))) return i
      i += cp > 0xffff ? 2 : 1
    }
    while (i < this.end) {
      c = t.charCodeAt(i)
      if (c < 128) {
        if (isAsciiIdStart(c) || isDigit(c)) i++
        else break
      } else {
        const cp = t.codePointAt(i)!
        if (!ID_CONTINUE.test(String.fromCodePoint(cp))) break
        i += cp > 0xffff ? 2 : 1
      }
    }
    return i
  }

  /** One or more adjacent string literals, concatenated as Python does. */
  strings(): PyNode {
    const start = this.pos
    let value = ''
    for (;;) {
      value += this.stringLiteral()
      if (this.failed) return FAILED
      const save = this.pos
      this.skip()
      const c = this.peek()
      let next = -1
      if (c === C.SQUOTE || c === C.DQUOTE) next = this.pos
      else {
        const e = this.identifierEnd(this.pos)
        const q = e < this.end ? this.text.charCodeAt(e) : -1
        if (e > this.pos && (q === C.SQUOTE || q === C.DQUOTE) && STRING_PREFIXES.has(this.text.slice(this.pos, e).toLowerCase())) {
          next = this.pos
        }
      }
      if (next < 0) {
        this.pos = save
        return { kind: 'str', value, start, end: this.pos, depth: 1 }
      }
    }
  }

  /** One literal with its optional prefix, `pos` at the prefix or quote. */
  stringLiteral(): string {
    const t = this.text
    const start = this.pos
    let prefixEnd = this.pos
    while (prefixEnd < this.end && t.charCodeAt(prefixEnd) !== C.SQUOTE && t.charCodeAt(prefixEnd) !== C.DQUOTE) prefixEnd++
    let raw = false
    if (prefixEnd > start) {
      const prefix = t.slice(start, prefixEnd).toLowerCase()
      if (prefix.includes('f') || prefix.includes('t')) return this.failText('f-strings are not supported', start)
      if (prefix.includes('b')) return this.failText('bytes literals are not supported', start)
      raw = prefix.includes('r')
    }
    const q = t.charCodeAt(prefixEnd)
    const triple = t.charCodeAt(prefixEnd + 1) === q && t.charCodeAt(prefixEnd + 2) === q
    let i = prefixEnd + (triple ? 3 : 1)
    let out = ''
    let chunk = i // start of the run of plain characters not yet copied to `out`
    for (;;) {
      if (i >= this.end) {
        this.furthest = Math.max(this.furthest, i)
        return this.failText('unterminated string', start)
      }
      const c = t.charCodeAt(i)
      if (c === q && (!triple || (t.charCodeAt(i + 1) === q && t.charCodeAt(i + 2) === q))) {
        out += t.slice(chunk, i)
        this.pos = i + (triple ? 3 : 1)
        if (this.pos > this.furthest) this.furthest = this.pos
        return out
      }
      if ((c === C.LF || c === C.CR) && !triple) {
        this.furthest = Math.max(this.furthest, i)
        return this.failText('unterminated string (a quoted string cannot span lines)', start)
      }
      if (c !== C.BACKSLASH) {
        i++
        continue
      }
      if (i + 1 >= this.end) {
        i++
        continue // reported as unterminated above
      }
      if (raw) {
        i += 2 // the escaped character is kept and cannot close the string
        continue
      }
      out += t.slice(chunk, i)
      const r = this.escape(i)
      if (this.failed) return ''
      out += r.text
      i = r.next
      chunk = i
    }
  }

  /** A backslash escape at `i` in a non-raw string. */
  escape(i: number): { text: string; next: number } {
    const t = this.text
    const e = t[i + 1]!
    switch (e) {
      case '\n':
        return { text: '', next: i + 2 }
      case '\r':
        return { text: '', next: t[i + 2] === '\n' ? i + 3 : i + 2 }
      case '\\':
      case "'":
      case '"':
        return { text: e, next: i + 2 }
      case 'a':
        return { text: '\x07', next: i + 2 }
      case 'b':
        return { text: '\b', next: i + 2 }
      case 'f':
        return { text: '\f', next: i + 2 }
      case 'n':
        return { text: '\n', next: i + 2 }
      case 'r':
        return { text: '\r', next: i + 2 }
      case 't':
        return { text: '\t', next: i + 2 }
      case 'v':
        return { text: '\v', next: i + 2 }
      case 'x':
        return this.hexEscape(i, 2)
      case 'u':
        return this.hexEscape(i, 4)
      case 'U':
        return this.hexEscape(i, 8)
      case 'N':
        this.fail('\\N{...} escapes are not supported', i)
        return { text: '', next: i }
      default:
        if (e >= '0' && e <= '7') {
          let j = i + 1
          let v = 0
          while (j < i + 4 && j < this.end && t[j]! >= '0' && t[j]! <= '7') v = v * 8 + (t.charCodeAt(j++) - C.ZERO)
          return { text: String.fromCodePoint(v), next: j }
        }
        // Unknown escapes keep the backslash, as Python does.
        return { text: '\\' + e, next: i + 2 }
    }
  }

  hexEscape(i: number, digits: number): { text: string; next: number } {
    const hex = this.text.slice(i + 2, i + 2 + digits)
    if (hex.length !== digits || !/^[0-9a-fA-F]+$/.test(hex)) {
      this.fail(`truncated \\${this.text[i + 1]} escape`, i)
      return { text: '', next: i }
    }
    const cp = parseInt(hex, 16)
    if (cp > 0x10ffff) {
      this.fail('illegal Unicode character in escape', i)
      return { text: '', next: i }
    }
    return { text: String.fromCodePoint(cp), next: i + 2 + digits }
  }

  number(): PyNode {
    const t = this.text
    const start = this.pos
    let i = start
    const c1 = t.charCodeAt(i + 1) | 0x20
    if (t.charCodeAt(i) === C.ZERO && (c1 === 0x78 || c1 === 0x6f || c1 === 0x62)) {
      // 0x.., 0o.., 0b..
      const base = c1 === 0x78 ? 16 : c1 === 0x6f ? 8 : 2
      const digitRe = base === 16 ? /[0-9a-fA-F_]/ : base === 8 ? /[0-7_]/ : /[01_]/
      i += 2
      const bodyStart = i
      while (i < this.end && digitRe.test(t[i]!)) i++
      const body = t.slice(bodyStart, i)
      if (!this.validUnderscores(body, true)) return this.fail('invalid number literal', start)
      const clean = body.replace(/_/g, '')
      if (clean.length * Math.log2(base) > MAX_INT_BITS) return this.fail('integer literal too large', start)
      this.pos = i
      if (!this.noTrailingName(start)) return FAILED
      const prefix = base === 16 ? '0x' : base === 8 ? '0o' : '0b'
      return { kind: 'int', value: BigInt(prefix + clean), start, end: i, depth: 1 }
    }
    i = this.digitsEnd(i)
    let isFloat = false
    if (t.charCodeAt(i) === C.DOT && !(t.charCodeAt(i + 1) === C.DOT && t.charCodeAt(i + 2) === C.DOT)) {
      isFloat = true
      i = this.digitsEnd(i + 1)
    }
    const e = t.charCodeAt(i) | 0x20
    if (e === 0x65) {
      let j = i + 1
      const sign = t.charCodeAt(j)
      if (sign === C.PLUS || sign === C.MINUS) j++
      if (isDigit(t.charCodeAt(j))) {
        isFloat = true
        i = this.digitsEnd(j)
      }
    }
    const literal = t.slice(start, i)
    this.pos = i
    if ((t.charCodeAt(i) | 0x20) === 0x6a) return this.fail('complex numbers are not supported', start)
    if (!this.noTrailingName(start)) return FAILED
    if (!this.validDecimalUnderscores(literal)) return this.fail('invalid number literal', start)
    const clean = literal.includes('_') ? literal.replace(/_/g, '') : literal
    if (isFloat) return { kind: 'float', value: Number(clean), start, end: i, depth: 1 }
    if (clean.length > 1 && clean[0] === '0' && /[1-9]/.test(clean)) {
      return this.fail('leading zeros in decimal integer literals are not permitted', start)
    }
    if (clean.length > MAX_INT_DIGITS) return this.fail(`integer literal longer than ${MAX_INT_DIGITS} digits`, start)
    // Up to 15 digits the double is exact, and converting it is much cheaper than parsing the digits as a BigInt.
    const value = clean.length <= 15 ? smallBigInt(Number(clean)) : BigInt(clean)
    return { kind: 'int', value, start, end: i, depth: 1 }
  }

  /** Index after the run of digits and underscores at `i`. */
  digitsEnd(i: number): number {
    const t = this.text
    while (i < this.end && (isDigit(t.charCodeAt(i)) || t.charCodeAt(i) === C.UNDERSCORE)) i++
    return i
  }

  /** `12abc` is not a number followed by a name: false (after failing) when a name follows. */
  noTrailingName(start: number): boolean {
    if (this.identifierEnd(this.pos) === this.pos) return true
    this.fail('invalid number literal', start)
    return false
  }

  /** Underscores only between digits. */
  validUnderscores(body: string, allowLeading: boolean): boolean {
    if (body.length === 0 || body.endsWith('_') || body.includes('__')) return false
    return allowLeading || !body.startsWith('_')
  }

  validDecimalUnderscores(literal: string): boolean {
    if (!literal.includes('_')) return true
    // Every underscore must sit between two digits.
    for (let k = 0; k < literal.length; k++) {
      if (literal[k] !== '_') continue
      if (!isDigit(literal.charCodeAt(k - 1)) || !isDigit(literal.charCodeAt(k + 1))) return false
    }
    return true
  }
}
