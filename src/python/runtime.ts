/**
 * The little of Python's runtime that BFCL's simulated APIs rely on: int/float arithmetic kept apart (results are
 * compared as the strings Python prints), sets, exceptions, equality, `str()` / `json.dumps()` of results, the
 * Mersenne Twister behind `random.Random(seed).randint/uniform`, and Python 3.12's compensated float `sum()`.
 *
 * Values are PyValue (see operations.ts) plus a few objects that Python would print through their own `__repr__`
 * (sets, file-system nodes, Decimal): those implement PyObject.
 */
import { pyJsonDumps, pyJsonString, pyRepr } from './index.js'
import { PyFloat, PyTuple, dictKey, pyStrRepr, type PyDict, type PyKey, type PyValue } from './operations.js'

/** An object with Python's `__repr__` and `__eq__`, stored inside PyValue containers. */
export interface PyObject {
  pyRepr(): string
  pyEquals(other: unknown): boolean
  /** json.dumps of it fails (TypeError), as for any non-JSON object. */
  readonly pyTypeName: string
}

export function isPyObject(v: unknown): v is PyObject {
  return typeof v === 'object' && v !== null && typeof (v as PyObject).pyRepr === 'function'
}

/** A Python exception: the executor reports it as `Error during execution: <message>`. */
export class PyExc extends Error {
  /** The Python exception class, for where the checker reports an exception the reference would raise. */
  constructor(
    message: string,
    readonly pyType = 'Exception',
  ) {
    super(message)
    this.name = 'PyExc'
  }
}

/** `set()` of hashable values, insertion-ordered (CPython's order for small ints; never compared by order). */
export class PySet implements PyObject {
  readonly pyTypeName = 'set'
  readonly items = new Map<PyKey, PyValue>()
  constructor(values: Iterable<PyValue> = []) {
    for (const v of values) this.add(v)
  }
  add(v: PyValue): void {
    this.items.set(dictKey(v), v)
  }
  has(v: PyValue): boolean {
    return this.items.has(dictKey(v))
  }
  pyRepr(): string {
    return this.items.size === 0 ? 'set()' : '{' + [...this.items.values()].map(repr).join(', ') + '}'
  }
  pyEquals(other: unknown): boolean {
    if (!(other instanceof PySet) || other.items.size !== this.items.size) return false
    for (const k of this.items.keys()) if (!other.items.has(k)) return false
    return true
  }
}

/** Any value the simulated APIs hold: PyValue, or a PyObject stored as one. */
export type Val = PyValue

export function asVal(o: PyObject): Val {
  return o as unknown as Val
}

// ---------------------------------------------------------------------------------------------------------------
// Numbers: a JS number is an int when integral, a float otherwise; PyFloat marks integral floats.

/** A float result (integral values marked, so they print as `3.0`). */
export function fl(x: number): Val {
  return Number.isInteger(x) ? new PyFloat(x) : x
}

export function isFloat(v: unknown): boolean {
  return v instanceof PyFloat || (typeof v === 'number' && !Number.isInteger(v))
}

/** int, float or bool (Python's numbers). */
export function isNumber(v: unknown): v is number | boolean | PyFloat {
  return typeof v === 'number' || typeof v === 'boolean' || v instanceof PyFloat
}

/** `isinstance(v, (int, float))` (bool is an int). */
export const isIntOrFloat = isNumber

export function num(v: unknown): number {
  if (typeof v === 'number') return v
  if (typeof v === 'boolean') return v ? 1 : 0
  if (v instanceof PyFloat) return v.value
  throw new PyExc(`must be real number, not ${typeName(v)}`)
}

export function typeName(v: unknown): string {
  if (v === null || v === undefined) return 'NoneType'
  if (typeof v === 'boolean') return 'bool'
  if (typeof v === 'string') return 'str'
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float'
  if (v instanceof PyFloat) return 'float'
  if (Array.isArray(v)) return 'list'
  if (v instanceof PyTuple) return 'tuple'
  if (v instanceof Map) return 'dict'
  if (isPyObject(v)) return v.pyTypeName
  return 'object'
}

function arith(a: unknown, b: unknown, op: string, f: (x: number, y: number) => number, intResult: boolean): Val {
  if (!isNumber(a) || !isNumber(b)) {
    if (op === '+' && typeof a === 'string' && typeof b === 'string') return a + b
    if (op === '+' && Array.isArray(a) && Array.isArray(b)) return [...a, ...b]
    throw new PyExc(`unsupported operand type(s) for ${op}: '${typeName(a)}' and '${typeName(b)}'`)
  }
  const r = f(num(a), num(b))
  return intResult && !isFloat(a) && !isFloat(b) ? r : fl(r)
}

export const add = (a: unknown, b: unknown): Val => arith(a, b, '+', (x, y) => x + y, true)
export const sub = (a: unknown, b: unknown): Val => arith(a, b, '-', (x, y) => x - y, true)
export function mul(a: unknown, b: unknown): Val {
  if (typeof a === 'string' && (typeof b === 'number' || typeof b === 'boolean') && Number.isInteger(num(b))) return a.repeat(Math.max(0, num(b)))
  return arith(a, b, '*', (x, y) => x * y, true)
}
export function truediv(a: unknown, b: unknown): Val {
  if (isNumber(b) && num(b) === 0 && isNumber(a)) throw new PyExc(isFloat(a) || isFloat(b) ? 'float division by zero' : 'division by zero')
  return arith(a, b, '/', (x, y) => x / y, false)
}
export function pow(a: unknown, b: unknown): Val {
  if (!isNumber(a) || !isNumber(b)) throw new PyExc(`unsupported operand type(s) for ** or pow(): '${typeName(a)}' and '${typeName(b)}'`)
  const x = num(a)
  const y = num(b)
  if (!isFloat(a) && !isFloat(b) && y >= 0) return x ** y
  if (x === 0 && y < 0) throw new PyExc('0.0 cannot be raised to a negative power')
  if (x < 0 && !Number.isInteger(y)) throw new PyExc('complex results are not supported here')
  return fl(x ** y)
}
export function neg(a: unknown): Val {
  if (!isNumber(a)) throw new PyExc(`bad operand type for unary -: '${typeName(a)}'`)
  return isFloat(a) ? fl(-num(a)) : -num(a)
}
export function abs(a: unknown): Val {
  if (!isNumber(a)) throw new PyExc(`bad operand type for abs(): '${typeName(a)}'`)
  return isFloat(a) ? fl(Math.abs(num(a))) : Math.abs(num(a))
}
/** `float(x)` for numbers and numeric strings. */
export function toFloat(v: unknown): Val {
  if (isNumber(v)) return fl(num(v))
  if (typeof v === 'string') {
    const s = v.trim()
    if (/^[+-]?(\d+(_\d+)*\.?\d*(_\d+)*|\.\d+)([eE][+-]?\d+)?$/.test(s)) return fl(Number(s.replace(/_/g, '')))
    if (/^[+-]?(inf|infinity)$/i.test(s)) return s.startsWith('-') ? -Infinity : Infinity
    if (/^[+-]?nan$/i.test(s)) return NaN
    throw new PyExc(`could not convert string to float: ${pyStrRepr(v)}`)
  }
  throw new PyExc(`float() argument must be a string or a real number, not '${typeName(v)}'`)
}
/** `int(x)`. */
export function toInt(v: unknown): number {
  if (isNumber(v)) return Math.trunc(num(v))
  if (typeof v === 'string' && /^\s*[+-]?\d+(_\d+)*\s*$/.test(v)) return Number(v.trim().replace(/_/g, ''))
  if (typeof v === 'string') throw new PyExc(`invalid literal for int() with base 10: ${pyStrRepr(v)}`)
  throw new PyExc(`int() argument must be a string, a bytes-like object or a real number, not '${typeName(v)}'`)
}

/** Python's ordering comparison (`<`) of two values: numbers with numbers, str with str, else TypeError. */
export function cmp(a: unknown, b: unknown, op: '<' | '<=' | '>' | '>='): boolean {
  let x: number | string
  let y: number | string
  if (isNumber(a) && isNumber(b)) {
    x = num(a)
    y = num(b)
  } else if (typeof a === 'string' && typeof b === 'string') {
    x = a
    y = b
  } else if (Array.isArray(a) && Array.isArray(b)) {
    return cmpSeq(a, b, op)
  } else {
    throw new PyExc(`'${op}' not supported between instances of '${typeName(a)}' and '${typeName(b)}'`)
  }
  switch (op) {
    case '<':
      return x < y
    case '<=':
      return x <= y
    case '>':
      return x > y
    case '>=':
      return x >= y
  }
}

function cmpSeq(a: unknown[], b: unknown[], op: '<' | '<=' | '>' | '>='): boolean {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (!eq(a[i], b[i])) return cmp(a[i], b[i], op)
  }
  return cmp(a.length, b.length, op)
}

/** Python truthiness. */
export function truthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false) return false
  if (typeof v === 'number') return v !== 0
  if (v instanceof PyFloat) return v.value !== 0
  if (typeof v === 'string' || Array.isArray(v)) return v.length > 0
  if (v instanceof PyTuple) return v.items.length > 0
  if (v instanceof Map) return v.size > 0
  if (v instanceof PySet) return v.items.size > 0
  return true
}

/** Python 3.12's `sum()` of a list: ints exactly, then floats with Neumaier compensation. */
export function pySum(items: readonly unknown[]): Val {
  let i = 0
  let intSum = 0
  for (; i < items.length; i++) {
    const v = items[i]
    if (typeof v === 'boolean' || (typeof v === 'number' && Number.isInteger(v))) intSum += num(v)
    else break
  }
  if (i === items.length) return intSum
  let f = intSum
  let c = 0
  for (; i < items.length; i++) {
    const v = items[i]
    if (!isNumber(v)) throw new PyExc(`unsupported operand type(s) for +: 'float' and '${typeName(v)}'`)
    const x = num(v)
    const t = f + x
    if (Math.abs(f) >= Math.abs(x)) c += f - t + x
    else c += x - t + f
    f = t
  }
  if (c !== 0 && Number.isFinite(c)) f += c
  return fl(f)
}

// ---------------------------------------------------------------------------------------------------------------
// Equality, repr, str, json.dumps

export function eq(a: unknown, b: unknown): boolean {
  if (a === b) return typeof a !== 'number' || !Number.isNaN(a)
  if (isNumber(a)) return isNumber(b) && num(a) === num(b)
  if (typeof a === 'string' || a === null || a === undefined) return false
  if (Array.isArray(a)) return Array.isArray(b) && seqEq(a, b)
  if (a instanceof PyTuple) return b instanceof PyTuple && seqEq(a.items, b.items)
  if (a instanceof Map) {
    if (!(b instanceof Map) || a.size !== b.size) return false
    for (const [k, va] of a) {
      if (!b.has(k)) return false
      if (!eq(va, b.get(k))) return false
    }
    return true
  }
  if (isPyObject(a)) return a.pyEquals(b)
  return false
}

function seqEq(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (!eq(a[i], b[i])) return false
  return true
}

/** `repr(v)`: repr.ts's writer; runtime objects write their own. */
export function repr(v: unknown): string {
  return pyRepr(v, objectRepr)
}

function objectRepr(v: unknown): string {
  return isPyObject(v) ? v.pyRepr() : String(v)
}

/** `str(v)`: a str is itself, everything else its repr. */
export function str(v: unknown): string {
  return typeof v === 'string' ? v : repr(v)
}

/** A JSON string as `json.dumps` writes it (ensure_ascii=True). */
export function jsonString(s: string): string {
  return pyJsonString(s, true)
}

/** `json.dumps(v)` with Python's defaults; throws PyExc where Python raises TypeError. */
export function jsonDumps(v: unknown): string {
  return pyJsonDumps(v, { ensureAscii: true, other: notSerializable, otherKey: badKey })
}

function notSerializable(v: unknown): never {
  throw new PyExc(`Object of type ${typeName(v)} is not JSON serializable`)
}

function badKey(k: unknown): never {
  throw new PyExc(`keys must be str, int, float, bool or None, not ${typeName(k)}`)
}

/** Deep copy (`copy.deepcopy`) of plain values; PyObjects are copied by their own `clone` when they have one. */
export function deepCopy<T>(v: T): T {
  if (v === null || typeof v !== 'object' || v instanceof PyFloat) return v
  if (Array.isArray(v)) return v.map(deepCopy) as T
  if (v instanceof PyTuple) return new PyTuple(v.items.map(deepCopy)) as T
  if (v instanceof Map) {
    const out: PyDict = new Map()
    for (const [k, x] of v) out.set(k, deepCopy(x))
    return out as T
  }
  if (v instanceof PySet) return new PySet(v.items.values()) as T
  return v
}

/** A dict literal from pairs. */
export function dict(entries: readonly (readonly [PyKey, unknown])[]): PyDict {
  return new Map(entries as [PyKey, PyValue][])
}

/** `key in d` / `d[key]` with Python's hashing (1 == 1.0). */
export function hasKey(d: PyDict, key: unknown): boolean {
  return isHashable(key) && d.has(dictKey(key as PyValue))
}

export function getKey(d: PyDict, key: unknown): Val | undefined {
  return isHashable(key) ? d.get(dictKey(key as PyValue)) : undefined
}

export function isHashable(v: unknown): boolean {
  return v === null || typeof v !== 'object' || v instanceof PyFloat
}

/** `needle in container` for lists and dicts (str containment raises on a non-str, as Python). */
export function contains(container: unknown, needle: unknown): boolean {
  if (Array.isArray(container)) return container.some((x) => eq(needle, x))
  if (container instanceof Map) {
    if (!isHashable(needle)) throw new PyExc(`unhashable type: '${typeName(needle)}'`)
    return container.has(dictKey(needle as PyValue))
  }
  if (typeof container === 'string') {
    if (typeof needle !== 'string') throw new PyExc(`'in <string>' requires string as left operand, not ${typeName(needle)}`)
    return container.includes(needle)
  }
  if (container instanceof PySet) return isHashable(needle) && container.has(needle as PyValue)
  throw new PyExc(`argument of type '${typeName(container)}' is not iterable`)
}

/** A str argument's method call on a non-str value fails as Python's attribute lookup does. */
export function needStr(v: unknown, method: string): string {
  if (typeof v !== 'string') throw new PyExc(`'${typeName(v)}' object has no attribute '${method}'`)
  return v
}

// ---------------------------------------------------------------------------------------------------------------
// random.Random(seed): MT19937 seeded as CPython seeds from an int, randint via getrandbits, uniform via random()

export class PyRandom {
  private readonly mt = new Uint32Array(624)
  private index = 625

  /** Seeded states by seed: every entry seeds its instances with one of a few seeds, and seeding costs 1,872 steps. */
  private static readonly seeded = new Map<number, Uint32Array>()

  constructor(seed: number) {
    const cached = PyRandom.seeded.get(seed)
    if (cached !== undefined) {
      this.mt.set(cached)
      this.index = 624
      return
    }
    this.seedArray(int32Chunks(Math.abs(Math.trunc(seed))))
    if (PyRandom.seeded.size < 1024) PyRandom.seeded.set(seed, this.mt.slice())
  }

  private initGenrand(s: number): void {
    const mt = this.mt
    mt[0] = s >>> 0
    for (let i = 1; i < 624; i++) {
      const prev = mt[i - 1]! ^ (mt[i - 1]! >>> 30)
      mt[i] = (Math.imul(1812433253, prev) + i) >>> 0
    }
    this.index = 624
  }

  private seedArray(key: number[]): void {
    const mt = this.mt
    this.initGenrand(19650218)
    let i = 1
    let j = 0
    for (let k = Math.max(624, key.length); k > 0; k--) {
      const prev = mt[i - 1]! ^ (mt[i - 1]! >>> 30)
      mt[i] = ((mt[i]! ^ Math.imul(prev, 1664525)) + key[j]! + j) >>> 0
      i++
      j++
      if (i >= 624) {
        mt[0] = mt[623]!
        i = 1
      }
      if (j >= key.length) j = 0
    }
    for (let k = 623; k > 0; k--) {
      const prev = mt[i - 1]! ^ (mt[i - 1]! >>> 30)
      mt[i] = ((mt[i]! ^ Math.imul(prev, 1566083941)) - i) >>> 0
      i++
      if (i >= 624) {
        mt[0] = mt[623]!
        i = 1
      }
    }
    mt[0] = 0x80000000
  }

  private next32(): number {
    const mt = this.mt
    if (this.index >= 624) {
      for (let k = 0; k < 624; k++) {
        const y = (mt[k]! & 0x80000000) | (mt[(k + 1) % 624]! & 0x7fffffff)
        mt[k] = mt[(k + 397) % 624]! ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0)
      }
      this.index = 0
    }
    let y = mt[this.index++]!
    y ^= y >>> 11
    y ^= (y << 7) & 0x9d2c5680
    y ^= (y << 15) & 0xefc60000
    y ^= y >>> 18
    return y >>> 0
  }

  /** `getrandbits(k)` for k <= 52. */
  getrandbits(k: number): number {
    if (k <= 32) return this.next32() >>> (32 - k)
    let out = 0
    let factor = 1
    for (let left = k; left > 0; left -= 32) {
      let r = this.next32()
      if (left < 32) r >>>= 32 - left
      out += r * factor
      factor *= 2 ** 32
    }
    return out
  }

  /** `randint(a, b)`. */
  randint(a: number, b: number): number {
    const n = b - a + 1
    let bits = 0
    for (let x = n; x > 0; x = Math.floor(x / 2)) bits++
    let r = this.getrandbits(bits)
    while (r >= n) r = this.getrandbits(bits)
    return a + r
  }

  /** `random()`: 53 random bits. */
  random(): number {
    const a = this.next32() >>> 5
    const b = this.next32() >>> 6
    return (a * 67108864 + b) / 9007199254740992
  }

  /** `uniform(a, b)`. */
  uniform(a: number, b: number): number {
    return a + (b - a) * this.random()
  }
}

function int32Chunks(n: number): number[] {
  if (n === 0) return [0]
  const out: number[] = []
  while (n > 0) {
    out.push(n % 2 ** 32)
    n = Math.floor(n / 2 ** 32)
  }
  return out
}

/** `iter(v)` as the simulated APIs use it: a list, a str's characters, a dict's keys. */
export function iterate(v: Val): Val[] {
  if (Array.isArray(v)) return v
  if (typeof v === 'string') return Array.from(v)
  if (v instanceof Map) return [...v.keys()]
  throw new PyExc(`'${typeName(v)}' object is not iterable`)
}
