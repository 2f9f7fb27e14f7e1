/** The grammar of the Python call subset: recursive descent, every recursion counted against MAX_PY_DEPTH. */
import { C, FAILED, PyScanner, STRING_PREFIXES, isDigit } from './scanner.js'
import { MAX_PY_DEPTH, type PyBinaryOperator, type PyCallNode, type PyNode, type PyUnaryOperator } from './types.js'
import { Keywords, NO_KEYWORDS, type SeenKeywords } from './keywords.js'

/** Words that cannot be values; reaching one means an expression we do not support (or invalid syntax). */
const RESERVED = new Set([
  'and', 'as', 'assert', 'async', 'await', 'break', 'class', 'continue', 'def', 'del', 'elif', 'else', 'except',
  'finally', 'for', 'from', 'global', 'if', 'import', 'in', 'is', 'lambda', 'nonlocal', 'not', 'or', 'pass', 'raise',
  'return', 'try', 'while', 'with', 'yield',
])

/** `unexpected character "<"`; built by hand, as rejecting cut-off calls is routine (JSON.stringify costs here). */
function unexpectedCharacter(text: string, at: number): string {
  const ch = String.fromCodePoint(text.codePointAt(at)!)
  return ch === '"' || ch === '\\' || ch < ' ' ? `unexpected character ${JSON.stringify(ch)}` : `unexpected character "${ch}"`
}

/** Where `callList` hands each call as it is parsed. */
export interface PyCallSink {
  add(call: PyCallNode): void
  /** True once the sink reads no more calls (a cap reached): later calls are parsed, see `Parser.discard`. */
  readonly full?: boolean
}


/** The positional arguments of the calls that have none (most): shared, never written to. */
const NO_NODES: PyNode[] = []

const FAILED_CALL: PyCallNode = { kind: 'call', name: '', positional: [], keywords: [], start: 0, end: 0, depth: 0 }

export class Parser extends PyScanner {
  /**
   * Set by `callList` once its sink is full: calls are then built without keywords (only the names the repeat check
   * needs), which nothing the parser checks reads, so calls past a cap cost little more than reading them.
   */
  discard = false

  // -- calls ------------------------------------------------------------------------------------------------

  /**
   * `[call, call, ...]` with the `[` at `pos`. With a `sink`, each call goes to it as soon as it is parsed instead
   * (and none are returned): a list of very many calls then never holds all their trees at once.
   */
  callList(sink?: PyCallSink): PyCallNode[] {
    this.pos++ // [
    const calls: PyCallNode[] = []
    this.skip()
    while (this.peek() !== C.RBRACKET) {
      if (sink?.full) this.discard = true
      const call = this.callExpr()
      if (this.failed) return []
      if (sink) sink.add(call)
      else calls.push(call)
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
    const hyphenated = this.options.hyphenatedNames ? this.hyphenatedNameEnd(at) : -1
    let node: PyNode
    if (hyphenated > 0) {
      const name = this.text.slice(at, hyphenated)
      this.pos = hyphenated
      node = this.nameOrCall(1, name, at)
    } else node = this.expr(1)
    if (this.failed) return FAILED_CALL
    if (node.kind !== 'call') {
      this.fail('expected a function call', at)
      return FAILED_CALL
    }
    return node
  }

  /**
   * The end of a called name at `i` that holds `-` between identifier parts (`get-forecast`, `mcp.get-forecast`) and
   * is followed by `(`; -1 for any other text (a plain name is read by the grammar).
   */
  hyphenatedNameEnd(i: number): number {
    let hyphen = false
    for (;;) {
      const e = this.identifierEnd(i)
      if (e === i) return -1
      i = e
      const c = i < this.end ? this.text.charCodeAt(i) : -1
      if (c === C.MINUS) hyphen = true
      else if (c !== C.DOT) break
      i++
    }
    if (!hyphen) return -1
    let j = i
    while (j < this.end && (this.text.charCodeAt(j) === C.SPACE || this.text.charCodeAt(j) === C.TAB)) j++
    return j < this.end && this.text.charCodeAt(j) === C.LPAREN ? i : -1
  }

  // -- expressions (Python's grammar, arithmetic subset) -------------------------------------------------------

  expr(depth: number): PyNode {
    if (!this.checkDepth(depth)) return FAILED
    this.skip()
    // Most values are one atom with no operator after it: read it, and go down the precedence levels (each of which
    // would look for its operator) only when an operator follows, with the atom as their first operand.
    let atom: PyNode | undefined
    const first = this.peek()
    if (first !== C.MINUS && first !== C.PLUS && first !== C.TILDE) {
      atom = this.primary(depth)
      if (this.failed) return FAILED
      if (!this.operatorFollows()) return atom
    }
    let left = this.term(depth, atom)
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

  /** Whether the next token (after spaces) is a binary operator; `pos` is left where it was. */
  operatorFollows(): boolean {
    const save = this.pos
    this.skip()
    const c = this.peek()
    this.pos = save
    return c === C.PLUS || c === C.MINUS || c === C.STAR || c === C.SLASH || c === C.PERCENT
  }

  /** `atom`: the first operand's primary, already read by `expr`. */
  term(depth: number, atom?: PyNode): PyNode {
    let left = atom === undefined ? this.factor(depth) : this.power(depth, atom)
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

  power(depth: number, atom?: PyNode): PyNode {
    const base = atom ?? this.primary(depth)
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
    if (idEnd === this.pos) return this.fail(unexpectedCharacter(this.text, this.pos))
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
    this.pos = save
    if (name === 'True' || name === 'False') return { kind: 'bool', value: name === 'True', start, end: this.pos, depth: 1 }
    if (name === 'None') return { kind: 'none', start, end: this.pos, depth: 1 }
    if (RESERVED.has(first)) return this.fail(`unsupported Python expression (${first})`, start)
    const node: PyNode = { kind: 'name', id: name, start, end: this.pos, depth: 1 }
    return c === C.LBRACKET ? this.subscripts(depth, node) : node
  }

  /** `value[index]...` after a name, `pos` before the first `[`: kept as an expression (BFCL keeps its text). */
  subscripts(depth: number, value: PyNode): PyNode {
    let node = value
    for (;;) {
      const save = this.pos
      this.skip()
      if (this.peek() !== C.LBRACKET) {
        this.pos = save
        return node
      }
      if (!this.checkDepth(depth + node.depth)) return FAILED
      this.pos++ // [
      const index = this.expr(depth + node.depth)
      if (this.failed) return FAILED
      this.skip()
      if (this.peek() !== C.RBRACKET) return this.fail("expected ']' (only single-index subscripts are supported)")
      this.pos++
      node = { kind: 'subscript', value: node, index, start: node.start, end: this.pos, depth: Math.max(node.depth, index.depth) + 1 }
    }
  }

  /** `(args)` after a callee; `pos` at `(`. */
  callArguments(depth: number, name: string, start: number): PyCallNode {
    if (!this.checkDepth(depth + 1)) return FAILED_CALL
    this.pos++ // (
    let positional = NO_NODES
    const discard = this.discard
    const keywords = discard ? undefined : new Keywords()
    let seen: SeenKeywords | null // discard mode's keywords
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
          if (keywords) {
            if (!this.addKeyword(keywords, key.value, d.values[k]!, key.start)) return FAILED_CALL
          } else if ((seen = this.noteKeyword(seen, key.value, key.start)) === null) return FAILED_CALL
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
          if (keywords) {
            if (!this.addKeyword(keywords, keyword, value, at)) return FAILED_CALL
          } else if ((seen = this.noteKeyword(seen, keyword, at)) === null) return FAILED_CALL
          maxDepth = Math.max(maxDepth, value.depth)
        } else {
          if (keywords ? keywords.list.length > 0 : seen !== undefined) {
            this.fail('positional argument follows keyword argument', at)
            return FAILED_CALL
          }
          if (positional === NO_NODES) positional = []
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
    return { kind: 'call', name, positional, keywords: keywords ? keywords.list : NO_KEYWORDS, start, end: this.pos, depth: depthOfCall }
  }

  /** Discard mode's `addKeyword`: the keywords seen with `key` added, or null (after failing) when it repeats one. */
  noteKeyword(seen: SeenKeywords | null, key: string, at: number): SeenKeywords | null {
    if (seen === undefined || seen === null) return key
    const names = typeof seen === 'string' ? new Keywords() : seen
    if (typeof seen === 'string') names.add(seen, FAILED)
    return this.addKeyword(names, key, FAILED, at) ? names : null
  }

  /** Append a keyword argument; false (after failing) when it repeats one and that is not allowed. */
  addKeyword(keywords: Keywords, key: string, value: PyNode, at: number): boolean {
    if (!this.options.repeatedKeywords && keywords.has(key)) {
      this.fail(`keyword argument repeated: ${key}`, at)
      return false
    }
    keywords.add(key, value)
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

}
