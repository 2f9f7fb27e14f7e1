/** The Python call-syntax model: node types, results, options and the size limits every part shares. */

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
 * `subscript` (`data['sales']`) cannot be evaluated as a constant: it becomes its `ast.unparse` text, as BFCL's
 * decoder does.
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
  | (Span & { kind: 'subscript'; value: PyNode; index: PyNode })

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
  /** JSON Pointers (relative to `args`) of values that were bare names or other expressions kept as their text. */
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
  /**
   * A called name (of a call in a list, or a statement's call) may hold `-` between its parts: tool names such as
   * MCP's `get-forecast(city='Oslo')`, which Python would read as a subtraction. Only where a tool call is expected.
   */
  hyphenatedNames?: boolean
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
export const MAX_INT_BITS = 16_384
/** Python's own limit for integer literals (`sys.get_int_max_str_digits`). */
export const MAX_INT_DIGITS = 4300
/** `'ab' * n` results longer than this are rejected. */
export const MAX_REPEAT_LENGTH = 100_000

/** A computed constant: Python's int (arbitrary precision), float or str. */
export type PyConst = { kind: 'int'; value: bigint } | { kind: 'float'; value: number } | { kind: 'str'; value: string }

/** A failure of the conversion to plain values (the parser itself records failures instead of throwing). */
export class PyError {
  constructor(
    readonly error: string,
    readonly at: number,
  ) {}
}
