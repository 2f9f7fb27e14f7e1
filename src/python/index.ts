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
 * - `parsePythonLiteral(text)` / `parsePythonLiteralAt(text, i)`: a literal (`[{'name': 'f'}]`) as a plain value.
 * - `unparsePython(node)`: a node's source as Python's `ast.unparse` writes it (BFCL turns a nested call without
 *   keyword arguments into that text).
 * - `renderPythonValue`, `renderPythonCall`: JSON-like values and calls written as Python source.
 * - `foldPyValue`: the walk from a parsed value to a value of the caller's model (plain values here, the BFCL
 *   checker's Python values in bfcl/checker/decode.ts).
 *
 * One concern a file: types.ts (nodes, results, limits), scanner.ts (characters and tokens), parser.ts (grammar), keywords.ts (a call's keyword arguments as they are read),
 * interpret.ts (the walk over values), to-plain.ts (plain values), constant.ts (arithmetic), repr.ts (Python's
 * repr and ast.unparse), render.ts (values as Python source), value.ts (the BFCL checker's value model).
 */
import { Parser, type PyCallSink } from './parser.js'
import { C } from './scanner.js'
import { pyCallOf, plainValue } from './to-plain.js'
import { PyError, type PyCall, type PyCallNode, type PyCallsResult, type PyNode, type PyParseOptions } from './types.js'

export type {
  PyBinaryOperator,
  PyCall,
  PyCallNode,
  PyCallsResult,
  PyConst,
  PyNode,
  PyParseOptions,
  PyUnaryOperator,
} from './types.js'
export { MAX_PY_DEPTH } from './types.js'
export { computeConstant } from './constant.js'
export { foldPyValue, type PyValueBuilder } from './interpret.js'
export { pyFloatRepr, pyJsonDumps, pyJsonFloat, pyJsonString, pyRepr, pyStrRepr, unparsePython } from './repr.js'
export { PyFloat, PyTuple, isPyDict, type PyDict, type PyKey, type PyValue } from './value.js'
export { renderPythonCall, renderPythonValue } from './render.js'

/** Parse a whole text as calls: `[f(), g()]`, `f()`, or `f(), g()`. Surrounding whitespace is allowed. */
export function parsePythonCalls(text: string, options: PyParseOptions = {}): PyCallsResult {
  return guarded(text, 0, wholeCalls, options)
}

function wholeCalls(p: Parser): PyCallNode[] {
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
}

/** Parse one `[call, ...]` list whose `[` is at `start` (leading whitespace skipped). `[]` gives no calls. */
export function parsePythonCallListAt(text: string, start = 0, options: PyParseOptions = {}): PyCallsResult {
  return parsePythonCallListMap(text, start, options, identity)
}

const identity = <T>(x: T): T => x

/**
 * `parsePythonCallListAt` with each call passed through `convert` as soon as it is parsed: a list of very many calls
 * never holds every call's tree and `PyCall` at once (the garbage collector would copy them all while the list
 * grows). Same results, in the same cases, as converting the calls after the parse. With a `limit`, only the first
 * `limit` calls are converted and returned; the rest of the list is still parsed (it must be well-formed) but not
 * converted, so a conversion failure past the limit goes unseen.
 */
export function parsePythonCallListMap<T>(
  text: string,
  start: number,
  options: PyParseOptions,
  convert: (call: PyCall) => T,
  limit = Infinity,
): { ok: true; calls: T[]; end: number } | Extract<PyCallsResult, { ok: false }> {
  const p = new Parser(text, options)
  p.pos = start
  const sink = new Converted(text, options, convert, limit)
  try {
    p.skip()
    if (p.peek() !== C.LBRACKET) p.fail("expected '['")
    else p.callList(sink)
    // A parse failure wins over a conversion failure, as when the calls were converted after the parse.
    if (p.failed) return { ok: false, error: p.error, at: p.errorAt, scanned: p.scanned }
    if (sink.failed) return asFailure(sink.error, p)
    return { ok: true, calls: sink.calls, end: p.pos }
  } catch (e) {
    return asFailure(e, p)
  }
}

/**
 * The calls of one list, converted as they are parsed; after the first conversion failure, or once `limit` calls are
 * converted, the rest are only parsed (a caller's cap on calls: see ParseOptions.maxCalls).
 */
class Converted<T> implements PyCallSink {
  calls: T[] = []
  failed = false
  error: unknown

  constructor(
    readonly text: string,
    readonly options: PyParseOptions,
    readonly convert: (call: PyCall) => T,
    readonly limit: number,
  ) {}

  get full(): boolean {
    return this.failed || this.calls.length >= this.limit
  }

  add(node: PyCallNode): void {
    if (this.full) return
    let call: PyCall
    try {
      call = pyCallOf(node, this.text, this.options)
    } catch (e) {
      this.failed = true
      this.error = e
      return
    }
    this.calls.push(this.convert(call))
  }
}

/** Parse one call (`name(...)`, dotted names allowed) starting at `start` (leading whitespace skipped). */
export function parsePythonCallAt(text: string, start = 0, options: PyParseOptions = {}): PyCallsResult {
  return guarded(text, start, callAt, options)
}

function callAt(p: Parser): PyCallNode[] {
  p.skip()
  return [p.callExpr()]
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
  let value: unknown
  let paths
  try {
    ;({ value, paths } = plainValue(r.node))
  } catch (e) {
    return e instanceof PyError ? { ok: false, error: e.error, at: e.at } : { ok: false, error: String(e), at: 0 }
  }
  if (paths.bareNames.length > 0 || paths.nestedCalls.length > 0) {
    return { ok: false, error: 'not a literal (names or calls)', at: r.node.start }
  }
  return paths.floats.length > 0 ? { ok: true, value, floatPaths: paths.floats } : { ok: true, value }
}

/**
 * `parsePythonLiteral` for the one expression starting at `start` (leading whitespace skipped), which may be followed
 * by other text: the value and the index just after it.
 */
export function parsePythonLiteralAt(
  text: string,
  start: number,
): { ok: true; value: unknown; floatPaths?: string[]; end: number } | { ok: false; error: string; at: number } {
  const p = new Parser(text, {})
  p.pos = start
  try {
    p.skip()
    const node = p.expr(0)
    if (p.failed) return { ok: false, error: p.error, at: p.errorAt }
    const { value, paths } = plainValue(node)
    if (paths.bareNames.length > 0 || paths.nestedCalls.length > 0) return { ok: false, error: 'not a literal (names or calls)', at: node.start }
    return paths.floats.length > 0 ? { ok: true, value, floatPaths: paths.floats, end: p.pos } : { ok: true, value, end: p.pos }
  } catch (e) {
    const f = asFailure(e, p)
    return { ok: false, error: f.error, at: f.at }
  }
}

/** Run one of the entry points above from `start`; the runs are module functions, so a parse allocates no closure. */
function guarded(text: string, start: number, run: (p: Parser) => PyCallNode[], options: PyParseOptions): PyCallsResult {
  const p = new Parser(text, options)
  p.pos = start
  try {
    const nodes = run(p)
    if (p.failed) return { ok: false, error: p.error, at: p.errorAt, scanned: p.scanned }
    const end = p.pos
    const calls = nodes.map((n) => pyCallOf(n, text, options))
    return { ok: true, calls, end }
  } catch (e) {
    return asFailure(e, p)
  }
}

function asFailure(e: unknown, p: Parser): { ok: false; error: string; at: number; scanned: number } {
  const scanned = Math.max(p.furthest, p.pos)
  if (e instanceof PyError) return { ok: false, error: e.error, at: e.at, scanned }
  // Only a bug or an engine limit gets here (RangeError from BigInt, say): still never throw.
  return { ok: false, error: `internal error: ${(e as Error)?.message ?? String(e)}`, at: p.pos, scanned }
}

