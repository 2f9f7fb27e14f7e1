/**
 * Python call-list syntax as models write it (`[f(a=1, b='x'), g(c={'k': [1, 2.0]})]`): a small parser for the
 * subset of Python expressions that appears in tool calls. Nothing is ever evaluated as code: literals are decoded
 * by hand and numeric constant expressions (`2**3`, `-(3+4)/2`) are computed by our own arithmetic on the parsed
 * tree, with Python's semantics (`/` gives a float, `//` floors, int `**` int stays an int) and bounded sizes.
 *
 * Guarantees: never throws; linear in the text it reads; nesting deeper than `MAX_PY_DEPTH` is an error rather than
 * a stack overflow.
 *
 * Entry points:
 * - `parsePythonCalls(text)`: the whole text is a list of calls (`[f(), g()]`), a bare call (`f()`), or a
 *   comma-separated sequence of calls (`f(), g()`, what BFCL's bracket-wrapping accepts).
 * - `parsePythonCallListAt(text, i)` / `parsePythonCallAt(text, i)`: one `[...]` list of calls / one call starting
 *   at `i`, for format parsers that find calls inside prose; they report where the parse ended.
 * - `unparsePython(node)`: a node's source as Python's `ast.unparse` writes it (BFCL turns a nested call without
 *   keyword arguments into that text).
 * - `renderPythonValue`, `renderPythonCall`: JSON-like values and calls written as Python source.
 */

// ---------------------------------------------------------------------------------------------------------------
// Public types

/** Source span of a node: `text.slice(start, end)` is what the model wrote. */
interface Span {
  start: number
  end: number
  /** Height of the node's tree (a leaf is 1); bounded by `MAX_PY_DEPTH`. */
  depth: number
}

export type PyBinaryOperator = '+' | '-' | '*' | '/' | '//' | '%' | '**'
export type PyUnaryOperator = '-' | '+' | '~'

/**
 * A parsed Python expression. Numbers keep their kind: `int` (arbitrary precision, as Python) or `float`. `name`
 * is a bare (possibly dotted) identifier such as `celsius` or `math.pi`. `tuple` is kept apart from `list` here;
 * both become arrays in plain values. `unary` and `binary` are constant expressions, computed on conversion.
 */
export type PyNode =
  | (Span & { kind: 'int'; value: bigint })
  | (Span & { kind: 'float'; value: number })
  | (Span & { kind: 'str'; value: string })
  | (Span & { kind: 'bool'; value: boolean })
  | (Span & { kind: 'none' })
  | (Span & { kind: 'ellipsis' })
  | (Span & { kind: 'name'; id: string })
  | (Span & { kind: 'list' | 'tuple'; items: PyNode[] })
  | (Span & { kind: 'dict'; keys: PyNode[]; values: PyNode[] })
  | PyCallNode
  | (Span & { kind: 'unary'; op: PyUnaryOperator; operand: PyNode })
  | (Span & { kind: 'binary'; op: PyBinaryOperator; left: PyNode; right: PyNode })

/** A call as parsed: `name(positional..., key=value...)`. `**{'k': v}` with a literal dict adds keywords. */
export interface PyCallNode extends Span {
  kind: 'call'
  /** Callee, dotted as written (`math.factorial`, `TOOL.call`). */
  name: string
  positional: PyNode[]
  keywords: { key: string; value: PyNode }[]
}

/**
 * One top-level call with plain (JSON-like) values.
 *
 * Plain values: int and float become numbers (ints beyond 2^53 lose precision as JSON numbers do; ones beyond the
 * double range are an error); strings, booleans, `None` → null; lists and tuples → arrays; dicts → objects (keys as
 * JSON would write them: `1` → `"1"`, `True` → `"true"`); `...` → `"..."`; constant expressions → their computed
 * value. Two BFCL decoder rules apply, each recorded by path so callers can choose differently:
 * - a bare name becomes its string (`unit=celsius` → `"celsius"`; path in `bareNames`), except that with
 *   `jsonLiterals` the names `true`, `false`, `null` are those constants;
 * - a nested call becomes `ast.unparse` text when it has no keyword arguments (`f(1, 2)` → `"f(1, 2)"`) and
 *   `{name: {keywords}}` otherwise (path in `nestedCalls`).
 */
export interface PyCall {
  name: string
  /** Keyword arguments, in source order. */
  args: Record<string, unknown>
  /** Positional arguments, kept apart (BFCL's decoder drops them; vLLM's pythonic parser ignores them). */
  positional: unknown[]
  /** The parsed arguments, for callers that need more than plain values. */
  node: PyCallNode
  /** The call's source text. */
  raw: string
  /** JSON Pointers (relative to `args`) of floats with an integral value (`3.0`, `1e3`, `6/2`), as in json.ts. */
  floatPaths?: string[]
  /** Same, relative to `positional`. */
  positionalFloatPaths?: string[]
  /** JSON Pointers (relative to `args`) of values that were bare names. */
  bareNames?: string[]
  /** JSON Pointers (relative to `args`) of values that were nested calls. */
  nestedCalls?: string[]
}

export interface PyParseOptions {
  /** Read the bare names `true`, `false`, `null` as JSON constants (OLMo, vLLM and LFM2 outputs use them). */
  jsonLiterals?: boolean
  /**
   * Accept a keyword given twice (`f(a=1, a=2)`; the node lists both), as Python's `ast.parse` does: only its
   * compiler rejects it. BFCL's decoder parses with `ast.parse`, so its dict keeps the last value.
   */
  repeatedKeywords?: boolean
}

export type PyCallsResult =
  | { ok: true; calls: PyCall[]; /** index just after what was parsed */ end: number }
  | {
      ok: false
      error: string
      /** Where the problem is. */
      at: number
      /** How far the parser read before giving up: resume a search for calls here to stay linear. */
      scanned: number
    }

/** Nesting deeper than this (brackets, calls, unary chains, operator chains) is rejected. */
export const MAX_PY_DEPTH = 200
/** Integers wider than this are rejected (`9**9**9`); results stay cheap to compute. */
const MAX_INT_BITS = 16_384
/** Python's own limit for integer literals (`sys.get_int_max_str_digits`). */
const MAX_INT_DIGITS = 4300
/** `'ab' * n` results longer than this are rejected. */
const MAX_REPEAT_LENGTH = 100_000

// ---------------------------------------------------------------------------------------------------------------
// Entry points

/** Parse a whole text as calls: `[f(), g()]`, `f()`, or `f(), g()`. Surrounding whitespace is allowed. */
export function parsePythonCalls(text: string, options: PyParseOptions = {}): PyCallsResult {
  return guarded(text, (p) => {
    p.skip()
    let nodes: PyCallNode[]
    if (p.peek() === C.LBRACKET) {
      nodes = p.callList()
      if (p.failed) return []
    } else {
      nodes = [p.callExpr()]
      if (p.failed) return []
      p.skip()
      while (p.peek() === C.COMMA) {
        p.pos++
        p.skip()
        if (p.pos >= p.end) break // trailing comma
        nodes.push(p.callExpr())
        if (p.failed) return []
        p.skip()
      }
    }
    p.skip()
    if (p.pos < p.end) p.fail('unexpected text after the calls')
    return nodes
  }, options)
}

/** Parse one `[call, ...]` list whose `[` is at `start` (leading whitespace skipped). `[]` gives no calls. */
export function parsePythonCallListAt(text: string, start = 0, options: PyParseOptions = {}): PyCallsResult {
  return guarded(text, (p) => {
    p.pos = start
    p.skip()
    if (p.peek() !== C.LBRACKET) {
      p.fail("expected '['")
      return []
    }
    return p.callList()
  }, options)
}

/** Parse one call (`name(...)`, dotted names allowed) starting at `start` (leading whitespace skipped). */
export function parsePythonCallAt(text: string, start = 0, options: PyParseOptions = {}): PyCallsResult {
  return guarded(text, (p) => {
    p.pos = start
    p.skip()
    return [p.callExpr()]
  }, options)
}

/** Parse one Python expression (the whole text) into a node, for callers that need the tree. */
export function parsePythonExpression(
  text: string,
  options: PyParseOptions = {},
): { ok: true; node: PyNode } | { ok: false; error: string; at: number } {
  const p = new Parser(text, options)
  try {
    p.skip()
    const node = p.expr(0)
    if (!p.failed) {
      p.skip()
      if (p.pos < p.end) p.fail('unexpected text after the expression')
    }
    if (p.failed) return { ok: false, error: p.error, at: p.errorAt }
    return { ok: true, node }
  } catch (e) {
    const f = asFailure(e, p)
    return { ok: false, error: f.error, at: f.at }
  }
}

/**
 * A Python literal as a plain value (`{'key': 'value'}`, `[1, 2.0]`, `True`): what `ast.literal_eval` accepts plus
 * constant arithmetic. Bare names and calls are not literals.
 */
export function parsePythonLiteral(
  text: string,
): { ok: true; value: unknown; floatPaths?: string[] } | { ok: false; error: string; at: number } {
  const r = parsePythonExpression(text)
  if (!r.ok) return { ok: false, error: r.error, at: r.at }
  const paths: Paths = { floats: [], bareNames: [], nestedCalls: [] }
  let value: unknown
  try {
    value = toPlain(r.node, '', paths, {})
  } catch (e) {
    return e instanceof PyError ? { ok: false, error: e.error, at: e.at } : { ok: false, error: String(e), at: 0 }
  }
  if (paths.bareNames.length > 0 || paths.nestedCalls.length > 0) {
    return { ok: false, error: 'not a literal (names or calls)', at: r.node.start }
  }
  return paths.floats.length > 0 ? { ok: true, value, floatPaths: paths.floats } : { ok: true, value }
}

function guarded(text: string, run: (p: Parser) => PyCallNode[], options: PyParseOptions): PyCallsResult {
  const p = new Parser(text, options)
  try {
    const nodes = run(p)
    if (p.failed) return { ok: false, error: p.error, at: p.errorAt, scanned: p.scanned }
    const end = p.pos
    const calls = nodes.map((n) => toPyCall(n, text, options))
    return { ok: true, calls, end }
  } catch (e) {
    return asFailure(e, p)
  }
}

/** A failure of the conversion to plain values (the parser itself records failures instead of throwing). */
class PyError {
  constructor(
    readonly error: string,
    readonly at: number,
  ) {}
}

function asFailure(e: unknown, p: Parser): { ok: false; error: string; at: number; scanned: number } {
  const scanned = Math.max(p.furthest, p.pos)
  if (e instanceof PyError) return { ok: false, error: e.error, at: e.at, scanned }
  // Only a bug or an engine limit gets here (RangeError from BigInt, say): still never throw.
  return { ok: false, error: `internal error: ${(e as Error)?.message ?? String(e)}`, at: p.pos, scanned }
}

// ---------------------------------------------------------------------------------------------------------------
// Parser: recursive descent over characters; every recursion is counted against MAX_PY_DEPTH.

const enum C {
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

/** Words that cannot be values; reaching one means an expression we do not support (or invalid syntax). */
const RESERVED = new Set([
  'and', 'as', 'assert', 'async', 'await', 'break', 'class', 'continue', 'def', 'del', 'elif', 'else', 'except',
  'finally', 'for', 'from', 'global', 'if', 'import', 'in', 'is', 'lambda', 'nonlocal', 'not', 'or', 'pass', 'raise',
  'return', 'try', 'while', 'with', 'yield',
])

const STRING_PREFIXES = new Set(['r', 'u', 'b', 'br', 'rb', 'f', 'fr', 'rf', 't', 'tr', 'rt'])

const ID_START = /[\p{L}\p{Nl}_]/u
const ID_CONTINUE = /[\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]/u

function isAsciiIdStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === C.UNDERSCORE
}

function isDigit(c: number): boolean {
  return c >= C.ZERO && c <= C.NINE
}

/**
 * The keywords of one call so far. Calls have a handful, which a look along the list checks faster than a hash set
 * is built; past `KEYWORD_SET_FROM` of them a set takes over, so a call with thousands of keywords stays linear.
 */
class KeywordSet {
  private set: Set<string> | undefined

  has(keywords: readonly { key: string }[], key: string): boolean {
    if (this.set) return this.set.has(key)
    for (const kw of keywords) if (kw.key === key) return true
    return false
  }

  /** Note `key`, about to be appended to `keywords`. */
  add(keywords: readonly { key: string }[], key: string): void {
    if (this.set) this.set.add(key)
    else if (keywords.length + 1 >= KEYWORD_SET_FROM) this.set = new Set([...keywords.map((kw) => kw.key), key])
  }
}

const KEYWORD_SET_FROM = 8

/** BigInt of a safe integer; the most common ones (0 to 1023) come from a table. */
function smallBigInt(n: number): bigint {
  return n < SMALL_BIGINTS.length ? SMALL_BIGINTS[n]! : BigInt(n)
}

const SMALL_BIGINTS: bigint[] = Array.from({ length: 1024 }, (_, k) => BigInt(k))

/** What a failing parser method returns. Callers test `Parser.failed`, never this node. */
const FAILED: PyNode = { kind: 'none', start: 0, end: 0, depth: 0 }
const FAILED_CALL: PyCallNode = { kind: 'call', name: '', positional: [], keywords: [], start: 0, end: 0, depth: 0 }

class Parser {
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

  // -- calls ------------------------------------------------------------------------------------------------

  /** `[call, call, ...]` with the `[` at `pos`. */
  callList(): PyCallNode[] {
    this.pos++ // [
    const calls: PyCallNode[] = []
    this.skip()
    while (this.peek() !== C.RBRACKET) {
      const call = this.callExpr()
      if (this.failed) return []
      calls.push(call)
      this.skip()
      const c = this.peek()
      if (c === C.COMMA) {
        this.pos++
        this.skip()
      } else if (c !== C.RBRACKET) {
        this.fail(c < 0 ? "expected ']', found end of text" : "expected ',' or ']'")
        return []
      }
    }
    this.pos++ // ]
    return calls
  }

  /** An expression that must be a call. */
  callExpr(): PyCallNode {
    this.skip()
    const at = this.pos
    const node = this.expr(1)
    if (this.failed) return FAILED_CALL
    if (node.kind !== 'call') {
      this.fail('expected a function call', at)
      return FAILED_CALL
    }
    return node
  }

  // -- expressions (Python's grammar, arithmetic subset) -------------------------------------------------------

  expr(depth: number): PyNode {
    if (!this.checkDepth(depth)) return FAILED
    this.skip()
    let left = this.term(depth)
    if (this.failed) return FAILED
    for (;;) {
      const save = this.pos
      this.skip()
      const c = this.peek()
      if (c !== C.PLUS && c !== C.MINUS) {
        this.pos = save // the expression ends at its last token, not at the space after it
        return left
      }
      this.pos++
      const right = this.term(depth)
      if (this.failed) return FAILED
      left = this.binary(c === C.PLUS ? '+' : '-', left, right)
      if (this.failed) return FAILED
    }
  }

  term(depth: number): PyNode {
    let left = this.factor(depth)
    if (this.failed) return FAILED
    for (;;) {
      const save = this.pos
      this.skip()
      const c = this.peek()
      let op: PyBinaryOperator
      if (c === C.STAR && this.peek(1) !== C.STAR) op = '*'
      else if (c === C.SLASH) op = this.peek(1) === C.SLASH ? '//' : '/'
      else if (c === C.PERCENT) op = '%'
      else {
        this.pos = save
        return left
      }
      this.pos += op.length
      const right = this.factor(depth)
      if (this.failed) return FAILED
      left = this.binary(op, left, right)
      if (this.failed) return FAILED
    }
  }

  factor(depth: number): PyNode {
    if (!this.checkDepth(depth)) return FAILED
    this.skip()
    const c = this.peek()
    if (c === C.MINUS || c === C.PLUS || c === C.TILDE) {
      const start = this.pos
      this.pos++
      const operand = this.factor(depth + 1)
      if (this.failed) return FAILED
      const op: PyUnaryOperator = c === C.MINUS ? '-' : c === C.PLUS ? '+' : '~'
      return this.node({ kind: 'unary', op, operand, start, end: operand.end, depth: operand.depth + 1 })
    }
    return this.power(depth)
  }

  power(depth: number): PyNode {
    const base = this.primary(depth)
    if (this.failed) return FAILED
    const save = this.pos
    this.skip()
    if (this.peek() === C.STAR && this.peek(1) === C.STAR) {
      this.pos += 2
      const exponent = this.factor(depth + 1) // right-associative, and `2 ** -1` is valid
      if (this.failed) return FAILED
      return this.binary('**', base, exponent)
    }
    this.pos = save
    return base
  }

  binary(op: PyBinaryOperator, left: PyNode, right: PyNode): PyNode {
    return this.node({
      kind: 'binary',
      op,
      left,
      right,
      start: left.start,
      end: right.end,
      depth: Math.max(left.depth, right.depth) + 1,
    })
  }

  /** `n`, or (after failing) the placeholder when it is nested too deep. */
  node<T extends PyNode>(n: T): T | typeof FAILED {
    if (n.depth > MAX_PY_DEPTH) return this.fail(`expression nested deeper than ${MAX_PY_DEPTH} levels`, n.start)
    return n
  }

  /** An atom with its trailers: names may be dotted and called. */
  primary(depth: number): PyNode {
    this.skip()
    const start = this.pos
    const c = this.peek()
    if (c < 0) return this.fail('expected a value, found end of text')
    if (c === C.LBRACKET) return this.sequence(depth, C.RBRACKET, 'list')
    if (c === C.LPAREN) return this.parenthesized(depth)
    if (c === C.LBRACE) return this.dictionary(depth)
    if (c === C.SQUOTE || c === C.DQUOTE) return this.strings()
    if (isDigit(c) || (c === C.DOT && isDigit(this.peek(1)))) return this.number()
    if (c === C.DOT && this.peek(1) === C.DOT && this.peek(2) === C.DOT) {
      this.pos += 3
      return { kind: 'ellipsis', start, end: this.pos, depth: 1 }
    }
    const idEnd = this.identifierEnd(this.pos)
    if (idEnd === this.pos) return this.fail(`unexpected character ${JSON.stringify(String.fromCodePoint(this.text.codePointAt(this.pos)!))}`)
    const word = this.text.slice(this.pos, idEnd)
    const next = idEnd < this.end ? this.text.charCodeAt(idEnd) : -1
    if ((next === C.SQUOTE || next === C.DQUOTE) && STRING_PREFIXES.has(word.toLowerCase())) return this.strings()
    this.pos = idEnd
    return this.nameOrCall(depth, word, start)
  }

  nameOrCall(depth: number, first: string, start: number): PyNode {
    let name = first
    // Dotted name: `a.b.c`.
    for (;;) {
      const save = this.pos
      this.skip()
      if (this.peek() !== C.DOT || this.peek(1) === C.DOT) {
        this.pos = save
        break
      }
      this.pos++
      this.skip()
      const e = this.identifierEnd(this.pos)
      if (e === this.pos) return this.fail('expected a name after "."')
      name += '.' + this.text.slice(this.pos, e)
      this.pos = e
    }
    const save = this.pos
    this.skip()
    const c = this.peek()
    if (c === C.LPAREN) {
      // Callee words are read leniently: `in(...)` is not Python, but a call is still what the model meant.
      const call = this.callArguments(depth, name, start)
      if (this.failed) return FAILED
      // `f()(x)`, `f()[0]`, `f().g` are not calls of names. Only the same line is looked at: a call that ends a
      // line may be followed by another statement (OLMo writes one call a line).
      let j = this.pos
      while (j < this.end && (this.text.charCodeAt(j) === C.SPACE || this.text.charCodeAt(j) === C.TAB)) j++
      const t = j < this.end ? this.text.charCodeAt(j) : -1
      if (t === C.LPAREN || t === C.LBRACKET || t === C.DOT) return this.fail('only calls of plain or dotted names are supported', j)
      return call
    }
    if (c === C.LBRACKET) return this.fail('subscripts are not supported')
    this.pos = save
    if (name === 'True' || name === 'False') return { kind: 'bool', value: name === 'True', start, end: this.pos, depth: 1 }
    if (name === 'None') return { kind: 'none', start, end: this.pos, depth: 1 }
    if (RESERVED.has(first)) return this.fail(`unsupported Python expression (${first})`, start)
    return { kind: 'name', id: name, start, end: this.pos, depth: 1 }
  }

  /** `(args)` after a callee; `pos` at `(`. */
  callArguments(depth: number, name: string, start: number): PyCallNode {
    if (!this.checkDepth(depth + 1)) return FAILED_CALL
    this.pos++ // (
    const positional: PyNode[] = []
    const keywords: { key: string; value: PyNode }[] = []
    const seen = new KeywordSet()
    let maxDepth = 0
    this.skip()
    while (this.peek() !== C.RPAREN) {
      const at = this.pos
      const c = this.peek()
      if (c < 0) {
        this.fail("expected ')', found end of text")
        return FAILED_CALL
      }
      if (c === C.STAR && this.peek(1) === C.STAR) {
        // `**{'key': value}`: how keys that are not identifiers can be passed as keywords.
        this.pos += 2
        const d = this.expr(depth + 1)
        if (this.failed) return FAILED_CALL
        if (d.kind !== 'dict') {
          this.fail('only a literal dict can be unpacked with **', at)
          return FAILED_CALL
        }
        for (let k = 0; k < d.keys.length; k++) {
          const key = d.keys[k]!
          if (key.kind !== 'str') {
            this.fail('keywords must be strings', key.start)
            return FAILED_CALL
          }
          if (!this.addKeyword(keywords, seen, key.value, d.values[k]!, key.start)) return FAILED_CALL
          maxDepth = Math.max(maxDepth, d.values[k]!.depth)
        }
      } else if (c === C.STAR) {
        this.fail('*args is not supported')
        return FAILED_CALL
      } else {
        const idEnd = this.identifierEnd(this.pos)
        let keyword: string | undefined
        if (idEnd > this.pos) {
          const save = this.pos
          this.pos = idEnd
          this.skip()
          if (this.peek() === C.EQUALS && this.peek(1) !== C.EQUALS) {
            keyword = this.text.slice(save, idEnd)
            this.pos++
          } else this.pos = save
        }
        const value = this.expr(depth + 1)
        if (this.failed) return FAILED_CALL
        if (keyword !== undefined) {
          if (!this.addKeyword(keywords, seen, keyword, value, at)) return FAILED_CALL
          maxDepth = Math.max(maxDepth, value.depth)
        } else {
          if (keywords.length > 0) {
            this.fail('positional argument follows keyword argument', at)
            return FAILED_CALL
          }
          positional.push(value)
          maxDepth = Math.max(maxDepth, value.depth)
        }
      }
      this.skip()
      const t = this.peek()
      if (t === C.COMMA) {
        this.pos++
        this.skip()
      } else if (t !== C.RPAREN) {
        this.fail(t < 0 ? "expected ')', found end of text" : "expected ',' or ')'")
        return FAILED_CALL
      }
    }
    this.pos++ // )
    const depthOfCall = maxDepth + 1
    if (depthOfCall > MAX_PY_DEPTH) {
      this.fail(`expression nested deeper than ${MAX_PY_DEPTH} levels`, start)
      return FAILED_CALL
    }
    return { kind: 'call', name, positional, keywords, start, end: this.pos, depth: depthOfCall }
  }

  /** Append a keyword argument; false (after failing) when it repeats one and that is not allowed. */
  addKeyword(
    keywords: { key: string; value: PyNode }[],
    seen: KeywordSet,
    key: string,
    value: PyNode,
    at: number,
  ): boolean {
    if (!this.options.repeatedKeywords && seen.has(keywords, key)) {
      this.fail(`keyword argument repeated: ${key}`, at)
      return false
    }
    seen.add(keywords, key)
    keywords.push({ key, value })
    return true
  }

  /** `[a, b]` (or a tuple), `pos` at the opening bracket. */
  sequence(depth: number, close: number, kind: 'list' | 'tuple'): PyNode {
    if (!this.checkDepth(depth + 1)) return FAILED
    const start = this.pos
    this.pos++
    return this.sequenceItems(depth, close, kind, start, [])
  }

  /** The rest of a sequence after its opening bracket and the `items` already read (and their comma). */
  sequenceItems(depth: number, close: number, kind: 'list' | 'tuple', start: number, items: PyNode[]): PyNode {
    let maxDepth = 0
    for (const item of items) maxDepth = Math.max(maxDepth, item.depth)
    this.skip()
    while (this.peek() !== close) {
      const item = this.expr(depth + 1)
      if (this.failed) return FAILED
      items.push(item)
      maxDepth = Math.max(maxDepth, item.depth)
      this.skip()
      const t = this.peek()
      if (t === C.COMMA) {
        this.pos++
        this.skip()
      } else if (t !== close) {
        const want = close === C.RBRACKET ? "']'" : "')'"
        return this.fail(t < 0 ? `expected ${want}, found end of text` : `expected ',' or ${want}`)
      }
    }
    this.pos++
    return this.node({ kind, items, start, end: this.pos, depth: maxDepth + 1 })
  }

  /** `(expr)` grouping or a tuple `()`, `(a,)`, `(a, b)`. */
  parenthesized(depth: number): PyNode {
    if (!this.checkDepth(depth + 1)) return FAILED
    const start = this.pos
    this.pos++
    this.skip()
    if (this.peek() === C.RPAREN) {
      this.pos++
      return { kind: 'tuple', items: [], start, end: this.pos, depth: 1 }
    }
    const first = this.expr(depth + 1)
    if (this.failed) return FAILED
    this.skip()
    if (this.peek() === C.RPAREN) {
      this.pos++
      return first // grouping: precedence is already in the tree
    }
    if (this.peek() !== C.COMMA) return this.fail(this.peek() < 0 ? "expected ')', found end of text" : "expected ',' or ')'")
    this.pos++ // a tuple: `(a, ...)`
    return this.sequenceItems(depth, C.RPAREN, 'tuple', start, [first])
  }

  dictionary(depth: number): PyNode {
    if (!this.checkDepth(depth + 1)) return FAILED
    const start = this.pos
    this.pos++
    const keys: PyNode[] = []
    const values: PyNode[] = []
    let maxDepth = 0
    this.skip()
    while (this.peek() !== C.RBRACE) {
      if (this.peek() === C.STAR) return this.fail('** unpacking in a dict is not supported')
      const key = this.expr(depth + 1)
      if (this.failed) return FAILED
      this.skip()
      if (this.peek() !== C.COLON) {
        const t = this.peek()
        if (t === C.COMMA || t === C.RBRACE) return this.fail('set literals are not supported', start)
        return this.fail(t < 0 ? "expected ':', found end of text" : "expected ':'")
      }
      this.pos++
      const value = this.expr(depth + 1)
      if (this.failed) return FAILED
      keys.push(key)
      values.push(value)
      maxDepth = Math.max(maxDepth, key.depth, value.depth)
      this.skip()
      const t = this.peek()
      if (t === C.COMMA) {
        this.pos++
        this.skip()
      } else if (t !== C.RBRACE) return this.fail(t < 0 ? "expected '}', found end of text" : "expected ',' or '}'")
    }
    this.pos++
    return this.node({ kind: 'dict', keys, values, start, end: this.pos, depth: maxDepth + 1 })
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
    const prefix = t.slice(this.pos, prefixEnd).toLowerCase()
    if (prefix.includes('f') || prefix.includes('t')) return this.failText('f-strings are not supported', start)
    if (prefix.includes('b')) return this.failText('bytes literals are not supported', start)
    const raw = prefix.includes('r')
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

// ---------------------------------------------------------------------------------------------------------------
// Conversion to plain values

interface Paths {
  floats: string[]
  bareNames: string[]
  nestedCalls: string[]
}

function toPyCall(node: PyCallNode, text: string, options: PyParseOptions): PyCall {
  const args: Record<string, unknown> = {}
  const paths: Paths = { floats: [], bareNames: [], nestedCalls: [] }
  for (const { key, value } of node.keywords) setOwn(args, key, toPlain(value, '/' + escapePointer(key), paths, options))
  const posPaths: Paths = { floats: [], bareNames: [], nestedCalls: [] }
  const positional = node.positional.map((v, k) => toPlain(v, '/' + k, posPaths, options))
  const call: PyCall = { name: node.name, args, positional, node, raw: text.slice(node.start, node.end) }
  if (paths.floats.length > 0) call.floatPaths = paths.floats
  if (posPaths.floats.length > 0) call.positionalFloatPaths = posPaths.floats
  if (paths.bareNames.length > 0) call.bareNames = paths.bareNames
  if (paths.nestedCalls.length > 0) call.nestedCalls = paths.nestedCalls
  return call
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1')
}

/** Define an own property even for `__proto__`, which plain assignment would treat as the prototype. */
function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true })
  else obj[key] = value
}

/** Plain value of a node (see `PyCall`). Recursion follows the tree, whose height the parser bounds. */
function toPlain(node: PyNode, path: string, paths: Paths, options: PyParseOptions): unknown {
  switch (node.kind) {
    case 'str':
    case 'bool':
      return node.value
    case 'none':
      return null
    case 'ellipsis':
      return '...'
    case 'int':
    case 'float':
    case 'unary':
    case 'binary':
      return plainNumberOrString(compute(node), node, path, paths)
    case 'name':
      if (options.jsonLiterals) {
        if (node.id === 'true') return true
        if (node.id === 'false') return false
        if (node.id === 'null') return null
      }
      paths.bareNames.push(path)
      return node.id
    case 'list':
    case 'tuple':
      return node.items.map((item, k) => toPlain(item, path + '/' + k, paths, options))
    case 'dict': {
      const out: Record<string, unknown> = {}
      for (let k = 0; k < node.keys.length; k++) {
        const key = dictKey(node.keys[k]!, options)
        setOwn(out, key, toPlain(node.values[k]!, path + '/' + escapePointer(key), paths, options))
      }
      return out
    }
    case 'call': {
      paths.nestedCalls.push(path)
      if (node.keywords.length === 0) return unparsePython(node)
      const inner: Record<string, unknown> = {}
      const prefix = path + '/' + escapePointer(node.name)
      for (const { key, value } of node.keywords) setOwn(inner, key, toPlain(value, prefix + '/' + escapePointer(key), paths, options))
      const out: Record<string, unknown> = {}
      setOwn(out, node.name, inner)
      return out
    }
  }
}

function plainNumberOrString(v: PyConst, node: PyNode, path: string, paths: Paths): unknown {
  if (v.kind === 'str') return v.value
  if (v.kind === 'int') {
    const n = Number(v.value)
    if (!Number.isFinite(n)) throw new PyError('integer too large for a JSON number', node.start)
    return n
  }
  if (!Number.isFinite(v.value)) throw new PyError('number out of range', node.start)
  if (Number.isInteger(v.value)) paths.floats.push(path)
  return v.value
}

/** A dict key as JSON would write it (`json.dumps` turns 1 into "1", True into "true", None into "null"). */
function dictKey(node: PyNode, options: PyParseOptions): string {
  switch (node.kind) {
    case 'str':
      return node.value
    case 'bool':
      return node.value ? 'true' : 'false'
    case 'none':
      return 'null'
    case 'name':
      return options.jsonLiterals && (node.id === 'true' || node.id === 'false' || node.id === 'null') ? node.id : node.id
    case 'int':
    case 'float':
    case 'unary':
    case 'binary': {
      const v = compute(node)
      if (v.kind === 'str') return v.value
      if (v.kind === 'int') return v.value.toString()
      return pyFloatRepr(v.value)
    }
    default:
      throw new PyError('unsupported dict key', node.start)
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Constant arithmetic with Python semantics

export type PyConst = { kind: 'int'; value: bigint } | { kind: 'float'; value: number } | { kind: 'str'; value: string }

/**
 * The value of a constant expression node (`2**3`, `-(3+4)/2`, `'a' + 'b'`) with Python's semantics and bounded
 * sizes, or why it is not one. Never throws. (BFCL's decoder computes arithmetic where it meets it.)
 */
export function computeConstant(node: PyNode): { ok: true; value: PyConst } | { ok: false; error: string } {
  try {
    return { ok: true, value: compute(node) }
  } catch (e) {
    return { ok: false, error: e instanceof PyError ? e.error : String(e) }
  }
}

function compute(node: PyNode): PyConst {
  switch (node.kind) {
    case 'int':
    case 'float':
    case 'str':
      return { kind: node.kind, value: node.value } as PyConst
    case 'bool':
      return { kind: 'int', value: node.value ? 1n : 0n }
    case 'unary':
      return unaryOp(node.op, compute(node.operand), node.start)
    case 'binary':
      return binaryOp(node.op, compute(node.left), compute(node.right), node.start)
    default:
      throw new PyError(`unsupported operand in an arithmetic expression (${node.kind})`, node.start)
  }
}

function unaryOp(op: PyUnaryOperator, v: PyConst, at: number): PyConst {
  if (v.kind === 'str') throw new PyError(`bad operand type for unary ${op}: 'str'`, at)
  if (op === '+') return v
  if (op === '-') return v.kind === 'int' ? { kind: 'int', value: -v.value } : { kind: 'float', value: -v.value }
  if (v.kind === 'float') throw new PyError("bad operand type for unary ~: 'float'", at)
  return { kind: 'int', value: -(v.value + 1n) }
}

function bitLength(v: bigint): number {
  return (v < 0n ? -v : v).toString(2).length
}

function checkInt(value: bigint, at: number): PyConst {
  if (bitLength(value) > MAX_INT_BITS) throw new PyError(`integer result wider than ${MAX_INT_BITS} bits`, at)
  return { kind: 'int', value }
}

function toFloat(v: PyConst, at: number): number {
  if (v.kind === 'float') return v.value
  const n = Number(v.value as bigint)
  if (!Number.isFinite(n)) throw new PyError('int too large to convert to float', at)
  return n
}

function binaryOp(op: PyBinaryOperator, a: PyConst, b: PyConst, at: number): PyConst {
  if (a.kind === 'str' || b.kind === 'str') return stringOp(op, a, b, at)
  if (a.kind === 'int' && b.kind === 'int') return intOp(op, a.value, b.value, at)
  const x = toFloat(a, at)
  const y = toFloat(b, at)
  switch (op) {
    case '+':
      return { kind: 'float', value: x + y }
    case '-':
      return { kind: 'float', value: x - y }
    case '*':
      return { kind: 'float', value: x * y }
    case '/':
      if (y === 0) throw new PyError('float division by zero', at)
      return { kind: 'float', value: x / y }
    case '//':
      if (y === 0) throw new PyError('float floor division by zero', at)
      return { kind: 'float', value: Math.floor(x / y) }
    case '%': {
      if (y === 0) throw new PyError('float modulo by zero', at)
      let r = x % y
      if (r !== 0 && r < 0 !== y < 0) r += y
      return { kind: 'float', value: r }
    }
    case '**': {
      if (x === 0 && y < 0) throw new PyError('0.0 cannot be raised to a negative power', at)
      if (x < 0 && !Number.isInteger(y)) throw new PyError('complex results are not supported', at)
      const r = Math.pow(x, y)
      if (!Number.isFinite(r)) throw new PyError('numerical result out of range', at)
      return { kind: 'float', value: r }
    }
  }
}

function intOp(op: PyBinaryOperator, a: bigint, b: bigint, at: number): PyConst {
  switch (op) {
    case '+':
      return checkInt(a + b, at)
    case '-':
      return checkInt(a - b, at)
    case '*':
      if (bitLength(a) + bitLength(b) > MAX_INT_BITS + 1) throw new PyError(`integer result wider than ${MAX_INT_BITS} bits`, at)
      return checkInt(a * b, at)
    case '/': {
      if (b === 0n) throw new PyError('division by zero', at)
      return { kind: 'float', value: toFloat({ kind: 'int', value: a }, at) / toFloat({ kind: 'int', value: b }, at) }
    }
    case '//': {
      if (b === 0n) throw new PyError('integer division or modulo by zero', at)
      let q = a / b
      if (a % b !== 0n && a < 0n !== b < 0n) q -= 1n
      return { kind: 'int', value: q }
    }
    case '%': {
      if (b === 0n) throw new PyError('integer division or modulo by zero', at)
      let r = a % b
      if (r !== 0n && r < 0n !== b < 0n) r += b
      return { kind: 'int', value: r }
    }
    case '**': {
      if (b < 0n) {
        if (a === 0n) throw new PyError('0.0 cannot be raised to a negative power', at)
        return binaryOp('**', { kind: 'float', value: toFloat({ kind: 'int', value: a }, at) }, { kind: 'int', value: b }, at)
      }
      if (a === 0n || a === 1n) return { kind: 'int', value: b === 0n ? 1n : a }
      if (a === -1n) return { kind: 'int', value: b % 2n === 0n ? 1n : -1n }
      // Bound the result's size before computing it: |a| ** b has about bitLength(a) * b bits.
      if (b > BigInt(MAX_INT_BITS) || (bitLength(a) - 1) * Number(b) > MAX_INT_BITS) {
        throw new PyError(`integer result wider than ${MAX_INT_BITS} bits (exponent too large)`, at)
      }
      return checkInt(a ** b, at)
    }
  }
}

function stringOp(op: PyBinaryOperator, a: PyConst, b: PyConst, at: number): PyConst {
  if (op === '+' && a.kind === 'str' && b.kind === 'str') return { kind: 'str', value: a.value + b.value }
  if (op === '*' && (a.kind === 'int' || b.kind === 'int')) {
    const s = a.kind === 'str' ? a.value : b.kind === 'str' ? b.value : ''
    const n = a.kind === 'int' ? a.value : b.kind === 'int' ? b.value : 0n
    if (a.kind === 'str' && b.kind === 'str') throw new PyError("can't multiply sequence by non-int of type 'str'", at)
    if (n <= 0n || s.length === 0) return { kind: 'str', value: '' }
    if (BigInt(s.length) * n > BigInt(MAX_REPEAT_LENGTH)) throw new PyError('repeated string too long', at)
    return { kind: 'str', value: s.repeat(Number(n)) }
  }
  throw new PyError(`unsupported operand types for ${op}`, at)
}

// ---------------------------------------------------------------------------------------------------------------
// Unparsing (as Python's ast.unparse writes it)

// Precedences from Python's ast module (_Precedence); higher binds tighter.
const enum Prec {
  TEST = 0,
  ARITH = 1,
  TERM = 2,
  FACTOR = 3,
  POWER = 4,
  ATOM = 5,
}

function binaryPrecedence(op: PyBinaryOperator): Prec {
  return op === '+' || op === '-' ? Prec.ARITH : op === '**' ? Prec.POWER : Prec.TERM
}

function precedenceOf(node: PyNode): Prec {
  if (node.kind === 'binary') return binaryPrecedence(node.op)
  if (node.kind === 'unary') return Prec.FACTOR
  return Prec.ATOM
}

/** The node's source as `ast.unparse` writes it: normalised spacing, `repr` of constants, minimal parentheses. */
export function unparsePython(node: PyNode): string {
  return unparseIn(node, Prec.TEST)
}

function unparseIn(node: PyNode, context: Prec): string {
  const s = unparseBare(node)
  return context > precedenceOf(node) ? `(${s})` : s
}

function unparseBare(node: PyNode): string {
  switch (node.kind) {
    case 'int':
      return node.value.toString()
    case 'float':
      return Number.isFinite(node.value) ? pyFloatRepr(node.value) : '1e309'
    case 'str':
      return pyStrRepr(node.value)
    case 'bool':
      return node.value ? 'True' : 'False'
    case 'none':
      return 'None'
    case 'ellipsis':
      return '...'
    case 'name':
      return node.id
    case 'list':
      return '[' + node.items.map((n) => unparseIn(n, Prec.TEST)).join(', ') + ']'
    case 'tuple':
      return node.items.length === 1
        ? '(' + unparseIn(node.items[0]!, Prec.TEST) + ',)'
        : '(' + node.items.map((n) => unparseIn(n, Prec.TEST)).join(', ') + ')'
    case 'dict':
      return '{' + node.keys.map((k, i) => unparseIn(k, Prec.TEST) + ': ' + unparseIn(node.values[i]!, Prec.TEST)).join(', ') + '}'
    case 'call': {
      const parts = node.positional.map((n) => unparseIn(n, Prec.TEST))
      for (const { key, value } of node.keywords) parts.push(`${key}=${unparseIn(value, Prec.TEST)}`)
      return `${node.name}(${parts.join(', ')})`
    }
    case 'unary':
      return node.op + unparseIn(node.operand, Prec.FACTOR)
    case 'binary': {
      const p = binaryPrecedence(node.op)
      const rightAssoc = node.op === '**'
      const left = unparseIn(node.left, rightAssoc ? p + 1 : p)
      const right = unparseIn(node.right, rightAssoc ? p : p + 1)
      return `${left} ${node.op} ${right}`
    }
  }
}

/** Python's `repr(float)`: shortest round-trip digits, exponent form below 1e-4 and from 1e16. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan'
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf'
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0'
  const [mantissa, expText] = Math.abs(x).toExponential().split('e') as [string, string]
  const digits = mantissa.replace('.', '')
  const exp = Number(expText)
  const point = exp + 1 // digits before the decimal point
  let s: string
  if (point > 16 || point < -3) {
    const frac = digits.length > 1 ? '.' + digits.slice(1) : ''
    s = `${digits[0]}${frac}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`
  } else if (point <= 0) s = '0.' + '0'.repeat(-point) + digits
  else if (point >= digits.length) s = digits + '0'.repeat(point - digits.length) + '.0'
  else s = digits.slice(0, point) + '.' + digits.slice(point)
  return x < 0 ? '-' + s : s
}

const NOT_PRINTABLE = /[\p{C}\p{Z}]/u

/** Python's `repr(str)`: single quotes unless the text has one and no double quote; non-printables escaped. */
export function pyStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'"
  let out = quote
  for (const ch of s) {
    const cp = ch.codePointAt(0)!
    if (ch === quote || ch === '\\') out += '\\' + ch
    else if (ch === '\n') out += '\\n'
    else if (ch === '\r') out += '\\r'
    else if (ch === '\t') out += '\\t'
    else if (cp < 0x20 || cp === 0x7f) out += '\\x' + cp.toString(16).padStart(2, '0')
    else if (cp >= 0x80 && NOT_PRINTABLE.test(ch)) {
      out += cp <= 0xff ? '\\x' + cp.toString(16).padStart(2, '0') : cp <= 0xffff ? '\\u' + cp.toString(16).padStart(4, '0') : '\\U' + cp.toString(16).padStart(8, '0')
    } else out += ch
  }
  return out + quote
}

// ---------------------------------------------------------------------------------------------------------------
// Rendering plain values as Python source

const IDENTIFIER = /^[\p{L}\p{Nl}_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]*$/u

/**
 * A JSON-like value as a Python literal: `True`/`False`/`None`, `repr` strings, `[...]`, `{'k': v}`. Integral
 * numbers are written as ints (JavaScript cannot tell `3.0` from `3`); non-finite numbers as `None`.
 */
export function renderPythonValue(value: unknown): string {
  if (value === null || value === undefined) return 'None'
  if (value === true) return 'True'
  if (value === false) return 'False'
  if (typeof value === 'string') return pyStrRepr(value)
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return 'None'
    return Number.isSafeInteger(value) ? String(value) : pyFloatRepr(value)
  }
  if (typeof value === 'bigint') return value.toString()
  if (Array.isArray(value)) return '[' + value.map(renderPythonValue).join(', ') + ']'
  if (typeof value === 'object') {
    return (
      '{' +
      Object.entries(value as Record<string, unknown>)
        .map(([k, v]) => `${pyStrRepr(k)}: ${renderPythonValue(v)}`)
        .join(', ') +
      '}'
    )
  }
  return pyStrRepr(String(value))
}

/**
 * `name(key=value, ...)`. Keys that are not identifiers go in a trailing `**{'key': value}`, which the parser reads
 * back as keywords.
 */
export function renderPythonCall(name: string, args: Record<string, unknown>): string {
  const plain: string[] = []
  const other: string[] = []
  for (const [k, v] of Object.entries(args)) {
    if (IDENTIFIER.test(k)) plain.push(`${k}=${renderPythonValue(v)}`)
    else other.push(`${pyStrRepr(k)}: ${renderPythonValue(v)}`)
  }
  if (other.length > 0) plain.push(`**{${other.join(', ')}}`)
  return `${name}(${plain.join(', ')})`
}
