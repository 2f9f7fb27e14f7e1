/** Constant arithmetic with Python semantics (`/` gives a float, `//` floors, int `**` int stays an int), bounded. */
import { MAX_INT_BITS, MAX_REPEAT_LENGTH, PyError, type PyBinaryOperator, type PyConst, type PyNode, type PyUnaryOperator } from './types.js'

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

export function compute(node: PyNode): PyConst {
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

