/**
 * Python source of parsed nodes (`ast.unparse`), and Python's `repr()` and `json.dumps(ensure_ascii=False)` of
 * values (floats, strings, and the PyValue model of value.ts), for messages and score files identical to Python's.
 */
import type { PyBinaryOperator, PyNode } from './types.js'
import { PyFloat, PyTuple, type PyKey, type PyValue } from './value.js'

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
    case 'subscript':
      // BFCL's decoder: `ast.unparse(value) + "[" + ast.unparse(slice) + "]"`.
      return unparseIn(node.value, Prec.ATOM) + '[' + unparseIn(node.index, Prec.TEST) + ']'
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
// Python's repr() and json.dumps(ensure_ascii=False), for messages and score files identical to the reference's

export function pyIntRepr(x: number): string {
  return Number.isSafeInteger(x) ? String(x) : BigInt(x).toString()
}

/**
 * Python's `repr()` (and `str()` of containers) of a value. `other` writes what is not a Python value (the BFCL
 * runtime's objects, which carry their own repr); by default such a value is a TypeError.
 */
export function pyRepr(v: unknown, other: (v: unknown) => string = notAValue): string {
  if (v === null || v === undefined) return 'None'
  switch (typeof v) {
    case 'boolean':
      return v ? 'True' : 'False'
    case 'string':
      return pyStrRepr(v)
    case 'number':
      return Number.isInteger(v) ? pyIntRepr(v) : pyFloatRepr(v)
  }
  const item = (x: unknown): string => pyRepr(x, other)
  if (v instanceof PyFloat) return pyFloatRepr(v.value)
  if (Array.isArray(v)) return '[' + v.map(item).join(', ') + ']'
  if (v instanceof PyTuple) return v.items.length === 1 ? `(${item(v.items[0])},)` : '(' + v.items.map(item).join(', ') + ')'
  if (v instanceof Map) {
    const parts: string[] = []
    for (const [k, x] of v) parts.push(`${item(k)}: ${item(x)}`)
    return '{' + parts.join(', ') + '}'
  }
  return other(v)
}

function notAValue(v: unknown): never {
  throw new TypeError(`not a Python value: ${String(v)}`)
}

/**
 * A JSON string literal as Python's `json.dumps` writes it: with `ensure_ascii=False` by default, or escaping every
 * character outside printable ASCII as `json.dumps` does by default (`ensureAscii`).
 */
export function pyJsonString(s: string, ensureAscii = false): string {
  let out = '"'
  let start = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0x20 && c !== 0x22 && c !== 0x5c && !(ensureAscii && c > 0x7e)) continue
    out += s.slice(start, i)
    start = i + 1
    if (c === 0x22) out += '\\"'
    else if (c === 0x5c) out += '\\\\'
    else if (c === 0x0a) out += '\\n'
    else if (c === 0x0d) out += '\\r'
    else if (c === 0x09) out += '\\t'
    else if (c === 0x08) out += '\\b'
    else if (c === 0x0c) out += '\\f'
    else out += '\\u' + c.toString(16).padStart(4, '0')
  }
  return out + s.slice(start) + '"'
}

/** A float as Python's `json.dumps` writes it (`NaN`, `Infinity` and the shortest repr otherwise). */
export function pyJsonFloat(x: number): string {
  if (Number.isNaN(x)) return 'NaN'
  if (x === Infinity) return 'Infinity'
  if (x === -Infinity) return '-Infinity'
  return pyFloatRepr(x)
}

/** How `pyJsonDumps` writes: Python's `ensure_ascii` (default false here), and what to do with what JSON cannot hold. */
export interface PyJsonOptions {
  ensureAscii?: boolean
  /** Text for a value that is not a Python value; by default a TypeError (Python: "is not JSON serializable"). */
  other?: (v: unknown) => string
  /** Text for a dict key that is not a str, int, float, bool or None (a tuple); by default a TypeError. */
  otherKey?: (k: unknown) => string
}

function pyJsonKey(k: unknown, options: PyJsonOptions): string {
  if (typeof k === 'string') return pyJsonString(k, options.ensureAscii)
  if (k === null) return '"null"'
  if (typeof k === 'boolean') return k ? '"true"' : '"false"'
  if (typeof k === 'number') return `"${Number.isInteger(k) ? pyIntRepr(k) : pyJsonFloat(k)}"`
  return (options.otherKey ?? notAValue)(k)
}

/** Python's `json.dumps(v)` (default separators `, ` and `: `; tuples as lists); `ensure_ascii=False` by default. */
export function pyJsonDumps(v: unknown, options: PyJsonOptions = {}): string {
  if (v === null || v === undefined) return 'null'
  switch (typeof v) {
    case 'boolean':
      return v ? 'true' : 'false'
    case 'string':
      return pyJsonString(v, options.ensureAscii)
    case 'number':
      return Number.isInteger(v) ? pyIntRepr(v) : pyJsonFloat(v)
  }
  const item = (x: unknown): string => pyJsonDumps(x, options)
  if (v instanceof PyFloat) return pyJsonFloat(v.value)
  if (Array.isArray(v)) return '[' + v.map(item).join(', ') + ']'
  if (v instanceof PyTuple) return '[' + v.items.map(item).join(', ') + ']'
  if (v instanceof Map) {
    const parts: string[] = []
    for (const [k, x] of v) parts.push(`${pyJsonKey(k, options)}: ${item(x)}`)
    return '{' + parts.join(', ') + '}'
  }
  return (options.other ?? notAValue)(v)
}
