/**
 * Decoding recorded BFCL results into the checker's `[{name: {param: value}}]` shape, as the leaderboard's model
 * handlers do it:
 *
 * - function-calling format: `result` is a list of `{name: "json-encoded arguments"}`; each item's first key is the
 *   name and its value is JSON-decoded (integral floats such as `3.0` stay floats, see `fromJson`);
 * - prompting format: `result` is Python call syntax, `[f(a=1, b="x")]`. It is stripped of backticks, newlines and
 *   spaces at both ends, wrapped in `[...]` when it is not already, and parsed with the project's Python parser
 *   (`src/python/`); values are resolved with the reference's rules through that parser's shared walk
 *   (`foldPyValue`). Nothing is evaluated: arithmetic is
 *   computed by that parser's own constant arithmetic.
 *
 * The format is detected per entry (a list is function-calling, a string is prompting) unless one is forced.
 */
import { parseJson } from '../../calls/json.js'
import {
  computeConstant,
  foldPyValue,
  parsePythonExpression,
  unparsePython,
  type PyCallNode,
  type PyNode,
  type PyValueBuilder,
} from '../../python/index.js'
import { pythonJsonError } from '../../python/json-error.js'
import { PyFloat, PyTuple, dictKey, fromJson, isPyDict, pyType, type PyDict, type PyKey, type PyValue } from '../../python/operations.js'

export type BfclResultFormat = 'function-calling' | 'prompting'

export interface DecodeOptions {
  /** 'auto' (default): a list is function-calling output, a string is prompting output. */
  format?: BfclResultFormat | 'auto'
}

export type DecodeResult =
  | { ok: true; format: BfclResultFormat; decoded: PyValue[] }
  | { ok: false; format: BfclResultFormat; error: string }

/** Decode one entry's recorded `result` as the leaderboard's `decode_ast` would. Never throws. */
export function decodeResult(result: PyValue, options: DecodeOptions = {}): DecodeResult {
  const format = options.format && options.format !== 'auto' ? options.format : detectFormat(result)
  return format === 'prompting' ? decodePrompting(result) : decodeFunctionCalling(result)
}

function detectFormat(result: PyValue): BfclResultFormat {
  return typeof result === 'string' ? 'prompting' : 'function-calling'
}

function failed(format: BfclResultFormat, error: string): DecodeResult {
  return { ok: false, format, error }
}

// ---------------------------------------------------------------------------------------------------------------
// Function-calling format

function decodeFunctionCalling(result: PyValue): DecodeResult {
  const fc: BfclResultFormat = 'function-calling'
  if (!Array.isArray(result)) {
    // The reference iterates whatever it got and fails on the first item that is not a dict.
    if (result === '' || (isPyDict(result) && result.size === 0)) return { ok: true, format: fc, decoded: [] }
    return failed(fc, `'${typeof result === 'string' ? 'str' : pyType(result)}' object is not a list of calls`)
  }
  const decoded: PyValue[] = []
  for (const item of result) {
    if (!isPyDict(item)) return failed(fc, `'${pyType(item)}' object has no attribute 'keys'`)
    const first = item.entries().next()
    if (first.done) return failed(fc, 'list index out of range')
    const [name, encoded] = first.value
    if (typeof encoded !== 'string') {
      return failed(fc, `the JSON object must be str, bytes or bytearray, not ${pyType(encoded)}`)
    }
    const parsed = parseJson(encoded)
    // The leaderboard records Python's own json message; ours where Python would have accepted the text.
    if (!parsed.ok) return failed(fc, pythonJsonError(encoded) ?? `${parsed.error} (char ${parsed.at})`)
    const args = fromJson(parsed.value, parsed.floatPaths)
    if (args === undefined) return failed(fc, 'arguments nested too deeply')
    decoded.push(new Map([[name, args]]))
  }
  return { ok: true, format: fc, decoded }
}

// ---------------------------------------------------------------------------------------------------------------
// Prompting format (Python call syntax)

// Python's str.isspace() characters, for `str.strip()` with no argument.
const PY_SPACE = /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/

function stripChars(s: string, isStripped: (ch: string) => boolean): string {
  let start = 0
  let end = s.length
  while (start < end && isStripped(s[start]!)) start++
  while (end > start && isStripped(s[end - 1]!)) end--
  return start === 0 && end === s.length ? s : s.slice(start, end)
}

/** The text the reference hands to `ast.parse`: stripped, wrapped in brackets, stripped again (with quotes). */
export function bfclPromptingText(result: string): string {
  let s = stripChars(result, (ch) => ch === '`' || ch === '\n' || ch === ' ')
  if (!s.startsWith('[')) s = '[' + s
  if (!s.endsWith(']')) s = s + ']'
  s = stripChars(s, (ch) => PY_SPACE.test(ch))
  return stripChars(s, (ch) => ch === "'")
}

class DecodeError extends Error {}

function decodePrompting(result: PyValue): DecodeResult {
  const pf: BfclResultFormat = 'prompting'
  if (typeof result !== 'string') return failed(pf, `'${pyType(result)}' object has no attribute 'strip'`)
  const text = bfclPromptingText(result)
  const parsed = parsePythonExpression(text, { repeatedKeywords: true })
  if (!parsed.ok) return failed(pf, `invalid syntax: ${parsed.error} (char ${parsed.at})`)
  const body = parsed.node
  try {
    if (body.kind === 'call') return { ok: true, format: pf, decoded: [resolveCall(body)] }
    if (body.kind !== 'list' && body.kind !== 'tuple') {
      return failed(pf, `'${body.kind}' expression is not a list of calls`)
    }
    const decoded: PyValue[] = []
    for (const elt of body.items) {
      // The reference asserts that every element is a call (an AssertionError, with no message).
      if (elt.kind !== 'call') return failed(pf, `element is not a call (${elt.kind})`)
      decoded.push(resolveCall(elt))
    }
    return { ok: true, format: pf, decoded }
  } catch (e) {
    if (e instanceof DecodeError) return failed(pf, e.message)
    throw e
  }
}

// Python's keywords: `ast.parse` rejects them as argument names (our parser reads them leniently).
const PYTHON_KEYWORDS = new Set([
  'False', 'None', 'True', 'and', 'as', 'assert', 'async', 'await', 'break', 'class', 'continue', 'def', 'del', 'elif',
  'else', 'except', 'finally', 'for', 'from', 'global', 'if', 'import', 'in', 'is', 'lambda', 'nonlocal', 'not', 'or',
  'pass', 'raise', 'return', 'try', 'while', 'with', 'yield',
])

/**
 * `{name: {keyword: value}}`; positional arguments are dropped and a repeated keyword keeps its last value (at its
 * first position), as the reference's dict does.
 */
function resolveCall(node: PyCallNode): PyDict {
  const args: PyDict = new Map()
  for (const { key, value } of node.keywords) {
    if (PYTHON_KEYWORDS.has(key)) throw new DecodeError(`invalid syntax: ${key} is a Python keyword`)
    args.set(key, resolveValue(value))
  }
  for (const part of node.name.split('.')) {
    if (PYTHON_KEYWORDS.has(part)) throw new DecodeError(`invalid syntax: ${part} is a Python keyword`)
  }
  return new Map([[node.name, args]])
}

function intValue(v: bigint): number {
  return Number(v)
}

function floatValue(v: number): PyValue {
  return Number.isInteger(v) ? new PyFloat(v) : v
}

/**
 * Parsed values with the reference's rules (`resolve_ast_by_type`), through the parser's shared walk
 * (`foldPyValue`): ints and floats as the checker sees them, tuples kept apart from lists, dicts as Maps.
 */
const REFERENCE_VALUES: PyValueBuilder<PyValue, PyKey> = {
  number(node) {
    switch (node.kind) {
      case 'int':
        return intValue(node.value)
      case 'float':
        return floatValue(node.value)
      case 'unary':
        return negateConstant(node.operand)
      case 'binary': {
        const c = computeConstant(node)
        if (!c.ok) throw new DecodeError(`cannot compute ${unparsePython(node)}: ${c.error}`)
        if (c.value.kind === 'int') return intValue(c.value.value)
        return c.value.kind === 'float' ? floatValue(c.value.value) : c.value.value
      }
    }
  },
  literal: (value) => value,
  none: () => null,
  ellipsis: () => '...',
  name(node) {
    // A bare name is its text; a dotted one is an attribute access, which the reference does not support.
    if (node.id.includes('.')) throw new DecodeError(`unsupported expression (attribute ${node.id})`)
    return node.id
  },
  // A subscript is kept as `ast.unparse(value) + "[" + ast.unparse(slice) + "]"`, the reference's rule.
  expression: (node) => unparsePython(node),
  list: (items) => items,
  tuple: (items) => new PyTuple(items),
  key(node, fold) {
    const key = fold(node)
    try {
      return dictKey(key)
    } catch {
      throw new DecodeError(`unhashable dict key of type '${pyType(key)}'`)
    }
  },
  keySegment: (key) => String(key),
  dict(keys, values) {
    const out: PyDict = new Map()
    for (let i = 0; i < keys.length; i++) out.set(keys[i]!, values[i]!)
    return out
  },
  // A nested call without keywords stays source text; with keywords it is a call dict.
  call: (node) => (node.keywords.length === 0 ? unparsePython(node) : resolveCall(node)),
}

function resolveValue(node: PyNode): PyValue {
  return foldPyValue(node, '', REFERENCE_VALUES)
}

/**
 * The reference resolves any unary operation as `-operand.value`: the operand must be a numeric (or bool) constant,
 * and `+x` or `~x` give `-x` too. Anything else (a nested operation, a name) makes decoding fail.
 */
function negateConstant(operand: PyNode): PyValue {
  switch (operand.kind) {
    case 'int':
      return intValue(-operand.value)
    case 'float':
      return floatValue(-operand.value)
    case 'bool':
      return operand.value ? -1 : 0
    default:
      throw new DecodeError(`bad operand for a unary operator (${operand.kind})`)
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Output shape

/** `[{name: {params}}, ...]`: a list of one-key dicts whose value is a dict (the leaderboard's format check). */
export function isFunctionCallingFormat(decoded: PyValue): decoded is PyDict[] {
  if (!Array.isArray(decoded)) return false
  for (const item of decoded) {
    if (!isPyDict(item) || item.size !== 1) return false
    if (!isPyDict(item.values().next().value!)) return false
  }
  return true
}

/** No call: `[]`, `[{}]`, or anything not in function-calling format (the relevance categories' rule). */
export function isEmptyOutput(decoded: PyValue): boolean {
  if (!isFunctionCallingFormat(decoded)) return true
  return decoded.length === 0 || (decoded.length === 1 && decoded[0]!.size === 0)
}
