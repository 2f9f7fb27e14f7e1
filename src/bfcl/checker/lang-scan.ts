/**
 * Linear-time stand-ins for the regular expressions of BFCL's Java and JavaScript type converters (lang-convert.ts).
 * The leaderboard's patterns (unanchored searches with lazy `.+?` / `.*?` and overlapping `\s*` runs, a repeated
 * group of lazy items) backtrack super-linearly, and they run on model output. Each function here gives exactly the
 * match and captures Python's `re.search` / `re.match` / `re.findall` gives for its pattern (quoted above it), with
 * Python's meanings: `.` is any character but `\n`, `$` is the end or just before a final `\n`, `\s` is Python's
 * Unicode whitespace and `\w` a Unicode letter, digit or `_`. test/unit/bfcl/bfcl-lang-scan.test.ts checks each against the
 * pattern itself.
 *
 * How they stay linear: the backtracking of each pattern is worked out once (which run is forced to be maximal, which
 * lazy part ends at the first delimiter after it), what remains are searches for the next delimiter from positions
 * that only move forward, and those searches remember their last answer (`Ahead`), so overlapping attempts share
 * one pass. The one pattern with a repeated lazy group (the 2-D array) is a right-to-left table over positions.
 */
import { PY_S } from '../../python/number.js'

// Python's whitespace is all in the BMP: one code unit each, looked up in a table built from the same class.
const SPACE_TABLE = (() => {
  const re = new RegExp(`^${PY_S}$`, 'u')
  const table = new Uint8Array(0x3001)
  for (let c = 0; c < table.length; c++) table[c] = re.test(String.fromCharCode(c)) ? 1 : 0
  return table
})()

function isSpace(s: string, i: number): boolean {
  const c = s.charCodeAt(i)
  return c < SPACE_TABLE.length && SPACE_TABLE[c] === 1
}

/** The end of the run of whitespace starting at i. */
function skipSpaces(s: string, i: number): number {
  while (i < s.length && isSpace(s, i)) i++
  return i
}

/** The start of the run of whitespace ending at f, not below lo. */
function spaceRunStart(s: string, f: number, lo: number): number {
  while (f > lo && isSpace(s, f - 1)) f--
  return f
}

// One word character (`\w`) at lastIndex; ASCII ones are looked up in a table built from the same class.
const WORD_CHAR = /[\p{L}\p{N}_]/uy
const ASCII_WORD = Uint8Array.from({ length: 128 }, (_, c) => (/[\p{L}\p{N}_]/u.test(String.fromCharCode(c)) ? 1 : 0))

/** The end of the run of word characters (`\w*`) starting at i (a code point boundary). */
function skipWord(s: string, i: number): number {
  while (i < s.length) {
    const c = s.charCodeAt(i)
    if (c < 128) {
      if (ASCII_WORD[c] !== 1) return i
      i++
      continue
    }
    WORD_CHAR.lastIndex = i
    if (!WORD_CHAR.test(s)) return i
    i = WORD_CHAR.lastIndex
  }
  return i
}

/**
 * The first position ≥ from where a search succeeds, remembered: an answer found from `from` is the answer for every
 * later query up to it (and a miss for every later query), so queries that move forward cost one pass in all.
 */
class Ahead {
  private lo = -1
  private hit = -1
  constructor(private readonly search: (from: number) => number) {}

  next(from: number): number {
    if (this.lo >= 0 && from >= this.lo && (this.hit < 0 || from <= this.hit)) return this.hit
    this.lo = from
    this.hit = this.search(from)
    return this.hit
  }
}

const ahead = (s: string, needle: string) => new Ahead((from) => s.indexOf(needle, from))

/** Whether [from, to) holds no `\n`, asked of a newline search whose queries move forward. */
function noNewline(newline: Ahead, from: number, to: number): boolean {
  const n = newline.next(from)
  return n < 0 || n >= to
}

/** The end of `new\s+<name>` at i, or -1. (The scans try each `new` in turn; two cannot overlap.) */
function afterNew(s: string, i: number, name: string): number {
  if (!s.startsWith('new', i)) return -1
  const j = skipSpaces(s, i + 3)
  return j > i + 3 && s.startsWith(name, j) ? j + name.length : -1
}

/** The end of `new\s+ArrayList<\w*>` at i, or -1 (every run is followed by a character outside it: no choices). */
function afterArrayListType(s: string, i: number): number {
  const j = afterNew(s, i, 'ArrayList<')
  if (j < 0) return -1
  const k = skipWord(s, j)
  return s[k] === '>' ? k + 1 : -1
}

// ---------------------------------------------------------------------------------------------------------------
// Java

/** `re.search(r"new\s+ArrayList<\w*>\(Arrays\.asList\((.+?)\)\)", s)`: group 1, or undefined. */
export function javaAsListBody(s: string): string | undefined {
  const close = ahead(s, '))')
  const newline = ahead(s, '\n')
  for (let i = s.indexOf('new'); i >= 0; i = s.indexOf('new', i + 3)) {
    const j = afterArrayListType(s, i)
    if (j < 0 || !s.startsWith('(Arrays.asList(', j)) continue
    const c = j + '(Arrays.asList('.length
    // `.+?` takes at least one character, then stops at the first `))` on its line.
    const q = close.next(c + 1)
    if (c < s.length && q >= 0 && noNewline(newline, c, q)) return s.slice(c, q)
  }
  return undefined
}

/** `re.search(r"new\s+ArrayList<\w*>\(\)\s*\{\{\s*(.+?)\s*\}\}", s, re.DOTALL)`: group 1, or undefined. */
export function javaAddBlockBody(s: string): string | undefined {
  const close = ahead(s, '}}')
  for (let i = s.indexOf('new'); i >= 0; i = s.indexOf('new', i + 3)) {
    const j = afterArrayListType(s, i)
    if (j < 0 || !s.startsWith('()', j)) continue
    const b = skipSpaces(s, j + 2)
    if (!s.startsWith('{{', b)) continue
    const p0 = b + 2
    const p1 = skipSpaces(s, p0)
    // `\s*(.+?)\s*\}\}` ends at the first `}}` after one character past the spaces; the group gives its trailing
    // spaces to the `\s*` before `}}`.
    const f = p1 < s.length ? close.next(p1 + 1) : -1
    if (f >= 0) return s.slice(p1, spaceRunStart(s, f, p1 + 1))
    // With no `}}` later, the first `\s*` gives its last space to the group when `}}` follows the spaces directly.
    if (p1 > p0 && s.startsWith('}}', p1)) return s.slice(p1 - 1, p1)
  }
  return undefined
}

/** `re.findall(r"add\((.+?)\)", s)`. */
export function javaAddArgs(s: string): string[] {
  const close = ahead(s, ')')
  const newline = ahead(s, '\n')
  const out: string[] = []
  let i = s.indexOf('add(')
  while (i >= 0) {
    const c = i + 4
    const q = close.next(c + 1)
    if (c < s.length && q >= 0 && noNewline(newline, c, q)) {
      out.push(s.slice(c, q))
      i = s.indexOf('add(', q + 1)
    } else {
      i = s.indexOf('add(', i + 1)
    }
  }
  return out
}

/** `re.search(r"new\s+ArrayList<\w*>\(\)", s) is not None`. */
export function javaHasEmptyArrayList(s: string): boolean {
  for (let i = s.indexOf('new'); i >= 0; i = s.indexOf('new', i + 3)) {
    const j = afterArrayListType(s, i)
    if (j >= 0 && s.startsWith('()', j)) return true
  }
  return false
}

/** `re.search(r"new\s+\w+\[\]\s*\{(.*?)\}", s)`: group 1, or undefined. */
export function javaArrayBody(s: string): string | undefined {
  const close = ahead(s, '}')
  const newline = ahead(s, '\n')
  for (let i = s.indexOf('new'); i >= 0; i = s.indexOf('new', i + 3)) {
    const j = skipSpaces(s, i + 3)
    if (j === i + 3) continue
    const k = skipWord(s, j)
    if (k === j || !s.startsWith('[]', k)) continue
    const b = skipSpaces(s, k + 2)
    if (s[b] !== '{') continue
    const q = close.next(b + 1)
    if (q >= 0 && noNewline(newline, b + 1, q)) return s.slice(b + 1, q)
  }
  return undefined
}

/** The end of `\s*\(\)\s*\{` after position g, or -1. */
function afterCallBrace(s: string, g: number): number {
  const b = skipSpaces(s, g + 1)
  if (!s.startsWith('()', b)) return -1
  const c = skipSpaces(s, b + 2)
  return s[c] === '{' ? c + 1 : -1
}

/** The first `>` at or after from that is followed by `\s*\(\)`, with `\s*\{` too when `brace`. */
function typeClose(s: string, brace: boolean): Ahead {
  return new Ahead((from) => {
    for (let g = s.indexOf('>', from); g >= 0; g = s.indexOf('>', g + 1)) {
      if (brace ? afterCallBrace(s, g) >= 0 : s.startsWith('()', skipSpaces(s, g + 1))) return g
    }
    return -1
  })
}

/**
 * `re.search(r"new\s+HashMap<.*?>\s*\(\)\s*\{\s*\{?\s*(.*?)\s*\}?\s*\}", s, re.DOTALL)`: group 1, or undefined.
 * The tail after `{` matches wherever a `}` follows, so a start matches at its first `>` that has `() {` after it
 * when a `}` comes later (a later `>` would only leave fewer); the group then runs from the spaces and optional `{`
 * to the spaces before the first `}`.
 */
export function javaHashMapBody(s: string): string | undefined {
  const closeType = typeClose(s, true)
  const brace = ahead(s, '}')
  for (let i = s.indexOf('new'); i >= 0; i = s.indexOf('new', i + 3)) {
    const h = afterNew(s, i, 'HashMap<')
    if (h < 0) continue
    const g = closeType.next(h)
    if (g < 0) continue
    const b = afterCallBrace(s, g)
    if (brace.next(b) < 0) continue
    const a1 = skipSpaces(s, b)
    const a3 = skipSpaces(s, s[a1] === '{' ? a1 + 1 : a1)
    const f = s.indexOf('}', a3)
    return s.slice(a3, Math.max(a3, spaceRunStart(s, f, a3)))
  }
  return undefined
}

/** `re.findall(r"put\(\"(.*?)\",\s*(.*?)\)", s)`. */
export function javaPutPairs(s: string): [string, string][] {
  const close = ahead(s, ')')
  const valueNewline = ahead(s, '\n')
  const keyNewline = ahead(s, '\n')
  // Whether a `",` at e is followed by `\s*` and a value that reaches `)` on its line: then a key ending at e wins
  // (backing off the `\s*` never helps: it would only start the value at a space before the same `)`).
  const closes = (e: number) => {
    const v = skipSpaces(s, e + 2)
    const q = close.next(v)
    return q >= 0 && noNewline(valueNewline, v, q)
  }
  const keyEnd = new Ahead((from) => {
    for (let e = s.indexOf('",', from); e >= 0; e = s.indexOf('",', e + 1)) if (closes(e)) return e
    return -1
  })
  const out: [string, string][] = []
  let i = s.indexOf('put("')
  while (i >= 0) {
    const c = i + 5
    const e = keyEnd.next(c)
    if (e >= 0 && noNewline(keyNewline, c, e)) {
      const v = skipSpaces(s, e + 2)
      const q = s.indexOf(')', v)
      out.push([s.slice(c, e), s.slice(v, q)])
      i = s.indexOf('put("', q + 1)
    } else {
      i = s.indexOf('put("', i + 1)
    }
  }
  return out
}

/** `re.search(r"new\s+HashMap<.*?>\s*\(\)", s) is not None`. */
export function javaHasEmptyHashMap(s: string): boolean {
  const closeType = typeClose(s, false)
  const newline = ahead(s, '\n')
  for (let i = s.indexOf('new'); i >= 0; i = s.indexOf('new', i + 3)) {
    const h = afterNew(s, i, 'HashMap<')
    if (h < 0) continue
    const g = closeType.next(h)
    if (g >= 0 && noNewline(newline, h, g)) return true
  }
  return false
}

// ---------------------------------------------------------------------------------------------------------------
// JavaScript

const [COMMA, OPEN_SQUARE, CLOSE_SQUARE, NEWLINE] = [',', '[', ']', '\n'].map((c) => c.charCodeAt(0)) as [number, number, number, number]

/**
 * `re.match(r"\[\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\]|new\s+Array\(\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\)", s)`: the
 * matched text, or undefined. Only the end of the match matters, and after an inner array closes at a `]` the rest
 * depends on that position alone, so a table filled right to left gives, for each `]`, where the match ends if the
 * inner array closes there (-1: nowhere), and for each position the first `]` from it that works.
 */
export function jsArray2dPrefix(s: string): string | undefined {
  let open: number
  let last: string
  if (s[0] === '[') {
    open = skipSpaces(s, 1)
    last = ']'
  } else {
    const j = afterNew(s, 0, 'Array(')
    if (j < 0) return undefined
    open = skipSpaces(s, j)
    last = ')'
  }
  if (s[open] !== '[') return undefined
  const n = s.length
  const lastCode = last.charCodeAt(0)
  const lineEnd = new Int32Array(n + 1) // first `\n` at or after x, else n
  const endIfClosedAt = new Int32Array(n + 1).fill(-1)
  const firstWorking = new Int32Array(n + 2).fill(-1) // first `]` at or after x with endIfClosedAt ≥ 0
  lineEnd[n] = n
  // `\s*(,\s*\[.*?\]\s*)*<last>` from p (after the spaces): another inner array first (greedy), else the last bracket.
  const rest = (p: number): number => {
    const c = s.charCodeAt(p)
    if (c === lastCode) return p + 1
    if (c !== COMMA) return -1
    const q = skipSpaces(s, p + 1)
    if (s.charCodeAt(q) !== OPEN_SQUARE) return -1
    const k = firstWorking[q + 1]!
    return k >= 0 && k < lineEnd[q + 1]! ? endIfClosedAt[k]! : -1
  }
  for (let x = n - 1; x >= open; x--) {
    const c = s.charCodeAt(x)
    lineEnd[x] = c === NEWLINE ? x : lineEnd[x + 1]!
    if (c === CLOSE_SQUARE) endIfClosedAt[x] = rest(skipSpaces(s, x + 1))
    firstWorking[x] = endIfClosedAt[x]! >= 0 ? x : firstWorking[x + 1]!
  }
  const k = firstWorking[open + 1]!
  return k >= 0 && k < lineEnd[open + 1]! ? s.slice(0, endIfClosedAt[k]!) : undefined
}

/** `re.findall(r"\[(.*?)\]", s)`. */
export function jsInnerArrays(s: string): string[] {
  const close = ahead(s, ']')
  const newline = ahead(s, '\n')
  const out: string[] = []
  let i = s.indexOf('[')
  while (i >= 0) {
    const q = close.next(i + 1)
    if (q >= 0 && noNewline(newline, i + 1, q)) {
      out.push(s.slice(i + 1, q))
      i = s.indexOf('[', q + 1)
    } else {
      i = s.indexOf('[', i + 1)
    }
  }
  return out
}

/** `re.match(r"\[(.*?)\]|new\s+Array\((.*?)\)", s)`: the group that took part, or undefined. */
export function jsArrayBody(s: string): string | undefined {
  let c: number
  let last: string
  if (s[0] === '[') {
    c = 1
    last = ']'
  } else {
    c = afterNew(s, 0, 'Array(')
    last = ')'
    if (c < 0) return undefined
  }
  const q = s.indexOf(last, c)
  return q >= 0 && !s.slice(c, q).includes('\n') ? s.slice(c, q) : undefined
}

/** `re.match(r"\{(.*?)\}", s)`: group 1, or undefined. */
export function jsDictBody(s: string): string | undefined {
  if (s[0] !== '{') return undefined
  const q = s.indexOf('}', 1)
  return q >= 0 && !s.slice(1, q).includes('\n') ? s.slice(1, q) : undefined
}

/**
 * `re.findall(r"([^:]+):\s*(.*?)(?:,\s*(?=[^,]+:)|$)", s)`. A match from i takes everything up to the next `:` as
 * the key, skips spaces, and ends the value at the first `,` on the line that a key and `:` follow (before the
 * next `,`), or at the end. When that holds only because a `:` directly follows the spaces after the `,`, the
 * `\s*` backs off one space so the lookahead sees the `:`, and the next key is that space.
 */
export function jsPairs(s: string): [string, string][] {
  const n = s.length
  const keyColon = ahead(s, ':')
  const nextComma = ahead(s, ',')
  const lookColon = ahead(s, ':')
  const newline = ahead(s, '\n')
  // Where the match ends when the value stops at the `,` at e, or -1.
  const endAfterComma = (e: number): number => {
    const t = skipSpaces(s, e + 1)
    if (t < n) {
      const c = nextComma.next(t)
      const m = lookColon.next(t + 1)
      if (m >= 0 && (c < 0 || m < c)) return t
    }
    return t > e + 1 && s[t] === ':' ? t - 1 : -1
  }
  const valueComma = new Ahead((from) => {
    for (let e = s.indexOf(',', from); e >= 0; e = s.indexOf(',', e + 1)) if (endAfterComma(e) >= 0) return e
    return -1
  })
  // `$`: the end, or a final `\n`.
  const atEnd = (from: number) => (n > 0 && s[n - 1] === '\n' && n - 1 >= from ? n - 1 : n)
  const out: [string, string][] = []
  let i = 0
  while (i < n) {
    const k = keyColon.next(i)
    if (k < 0) break
    if (k === i) {
      i++
      continue
    }
    const v = skipSpaces(s, k + 1)
    const comma = valueComma.next(v)
    const end = atEnd(v)
    const e = comma >= 0 && comma < end ? comma : end
    if (noNewline(newline, v, e)) {
      out.push([s.slice(i, k), s.slice(v, e)])
      i = e === comma ? endAfterComma(e) : e
    } else {
      // Every start up to this `:` takes the same key end and fails the same way.
      i = k + 1
    }
  }
  return out
}
