/**
 * Values as the leaderboard's Python checker sees them. JSON loses two facts the checker depends on: whether a
 * number is an int or a float (`3.0` is a float, so not an `integer`), and whether a sequence is a list or a tuple
 * (`(1, 2) != [1, 2]` in Python). PyValue keeps both, and dicts are Maps so key order survives (JavaScript objects
 * put integer-like keys first).
 *
 * - `null` None, `boolean` bool, `string` str
 * - `number`: an int when integral, else a float (non-integral, inf, nan)
 * - `PyFloat`: a float whose value is integral (`3.0`, `1e3`)
 * - `PyValue[]` list, `PyTuple` tuple, `PyDict` (a Map) dict
 *
 * Every function here recurses at most MAX_DEPTH levels: values deeper than that are refused when they are built.
 */
import { pyFloatRepr, pyStrRepr } from '../../calls/python.js'
import type { JsonValue } from '../../calls/types.js'

export { pyFloatRepr, pyStrRepr }

export class PyFloat {
  constructor(readonly value: number) {}
}

export class PyTuple {
  constructor(readonly items: PyValue[]) {}
}

export type PyKey = string | number | boolean | null
export type PyDict = Map<PyKey, PyValue>
export type PyValue = null | boolean | number | string | PyFloat | PyTuple | PyValue[] | PyDict

export type PyTypeName = 'NoneType' | 'bool' | 'int' | 'float' | 'str' | 'list' | 'tuple' | 'dict'

/** Deepest nesting accepted in decoded values (Python's own json and ast modules refuse far less than 1,000). */
export const MAX_DEPTH = 200

/**
 * What Python would raise where the reference checker crashes on malformed data (a TypeError, KeyError,
 * AttributeError). The leaderboard stops the whole run there; we turn it into a failing entry instead.
 */
export class PyCrash extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'PyCrash'
  }
}

export function isPyDict(v: unknown): v is PyDict {
  return v instanceof Map
}

export function pyType(v: PyValue): PyTypeName {
  if (v === null) return 'NoneType'
  switch (typeof v) {
    case 'boolean':
      return 'bool'
    case 'string':
      return 'str'
    case 'number':
      return Number.isInteger(v) ? 'int' : 'float'
  }
  if (v instanceof PyFloat) return 'float'
  if (Array.isArray(v)) return 'list'
  if (v instanceof PyTuple) return 'tuple'
  return 'dict'
}

/** The numeric value of a bool, int or float (Python compares them by value); undefined for anything else. */
function numericValue(v: PyValue): number | undefined {
  if (typeof v === 'number') return v
  if (typeof v === 'boolean') return v ? 1 : 0
  if (v instanceof PyFloat) return v.value
  return undefined
}

/** Python's `a == b` on these values: numbers (bool included) by value, list != tuple, dicts by key and value. */
export function pyEq(a: PyValue, b: PyValue): boolean {
  if (a === b) return typeof a !== 'number' || !Number.isNaN(a)
  const na = numericValue(a)
  if (na !== undefined) {
    const nb = numericValue(b)
    return nb !== undefined && na === nb
  }
  if (typeof a === 'string' || a === null) return false
  if (Array.isArray(a)) return Array.isArray(b) && seqEq(a, b)
  if (a instanceof PyTuple) return b instanceof PyTuple && seqEq(a.items, b.items)
  if (isPyDict(a)) {
    if (!isPyDict(b) || a.size !== b.size) return false
    for (const [k, va] of a) {
      if (!b.has(k)) return false
      if (!pyEq(va, b.get(k)!)) return false
    }
    return true
  }
  return false
}

function seqEq(a: readonly PyValue[], b: readonly PyValue[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (!pyEq(a[i]!, b[i]!)) return false
  return true
}

/** The elements `for x in v` visits (a str gives its characters, a dict its keys); a crash for anything else. */
export function pyIter(v: PyValue): PyValue[] {
  if (Array.isArray(v)) return v
  if (v instanceof PyTuple) return v.items
  if (typeof v === 'string') return Array.from(v)
  if (isPyDict(v)) return [...v.keys()]
  throw new PyCrash(`TypeError: '${pyType(v)}' object is not iterable`)
}

/** `len(v)`. */
export function pyLen(v: PyValue): number {
  if (Array.isArray(v)) return v.length
  if (v instanceof PyTuple) return v.items.length
  if (typeof v === 'string') return Array.from(v).length
  if (isPyDict(v)) return v.size
  throw new PyCrash(`TypeError: object of type '${pyType(v)}' has no len()`)
}

/** `v[i]` for an int index. */
export function pyIndex(v: PyValue, i: number): PyValue {
  if (Array.isArray(v) || v instanceof PyTuple || typeof v === 'string') {
    const items = typeof v === 'string' ? Array.from(v) : Array.isArray(v) ? v : v.items
    if (i < items.length) return items[i]!
    throw new PyCrash(`IndexError: ${pyType(v)} index out of range`)
  }
  if (isPyDict(v)) {
    if (v.has(i)) return v.get(i)!
    throw new PyCrash(`KeyError: ${i}`)
  }
  throw new PyCrash(`TypeError: '${pyType(v)}' object is not subscriptable`)
}

/** `needle in container`: equality over a list or tuple, substring in a str, key in a dict. */
export function pyIn(needle: PyValue, container: PyValue): boolean {
  if (Array.isArray(container)) return container.some((x) => pyEq(needle, x))
  if (container instanceof PyTuple) return container.items.some((x) => pyEq(needle, x))
  if (typeof container === 'string') {
    if (typeof needle !== 'string') {
      throw new PyCrash(`TypeError: 'in <string>' requires string as left operand, not ${pyType(needle)}`)
    }
    return container.includes(needle)
  }
  if (isPyDict(container)) return isHashable(needle) && container.has(dictKey(needle))
  throw new PyCrash(`TypeError: argument of type '${pyType(container)}' is not iterable`)
}

function isHashable(v: PyValue): boolean {
  return v === null || typeof v !== 'object' || v instanceof PyFloat
}

/** The Map key a hashable value is stored under (an integral float and its int are the same key in Python). */
export function dictKey(v: PyValue): PyKey {
  if (v instanceof PyFloat) return v.value
  if (v !== null && typeof v === 'object') throw new PyCrash(`TypeError: unhashable type: '${pyType(v)}'`)
  return v
}

/**
 * The leaderboard's string normalisation: drop spaces and `,./-_*^`, lower-case, and turn `'` into `"`, so that
 * "April 1, 2024" equals "april 1 2024".
 */
export function standardizeString(s: string): string {
  return s.replace(/[ ,./\-_*^]/g, '').toLowerCase().replace(/'/g, '"')
}

// ---------------------------------------------------------------------------------------------------------------
// Building values

/**
 * A PyValue from decoded JSON, marking the numbers at `floatPaths` (JSON Pointers of integral floats, as
 * `parseJson` reports them) as floats. Returns undefined when the value nests deeper than MAX_DEPTH.
 */
export function fromJson(value: JsonValue, floatPaths?: readonly string[]): PyValue | undefined {
  const floats = floatPaths && floatPaths.length > 0 ? floatIndex(floatPaths) : undefined
  try {
    return convertJson(value, floats, '', 0)
  } catch (e) {
    if (e instanceof DepthError) return undefined
    throw e
  }
}

class DepthError extends Error {}

/** The float paths themselves, and every container path above one (so a walk only builds paths where needed). */
interface FloatIndex {
  leaves: Set<string>
  containers: Set<string>
}

function floatIndex(paths: readonly string[]): FloatIndex {
  const containers = new Set<string>()
  for (const p of paths) {
    for (let i = p.lastIndexOf('/'); i >= 0; i = p.lastIndexOf('/', i - 1)) {
      const prefix = p.slice(0, i)
      if (containers.has(prefix)) break
      containers.add(prefix)
      if (i === 0) break
    }
  }
  return { leaves: new Set(paths), containers }
}

function convertJson(v: JsonValue, floats: FloatIndex | undefined, path: string, depth: number): PyValue {
  if (v === null || typeof v !== 'object') {
    if (typeof v === 'number' && floats?.leaves.has(path)) return new PyFloat(v)
    return v
  }
  if (depth >= MAX_DEPTH) throw new DepthError()
  const track = floats !== undefined && floats.containers.has(path)
  if (Array.isArray(v)) {
    const out: PyValue[] = new Array(v.length)
    for (let i = 0; i < v.length; i++) out[i] = convertJson(v[i]!, track ? floats : undefined, track ? `${path}/${i}` : '', depth + 1)
    return out
  }
  const out: PyDict = new Map()
  for (const k of Object.keys(v)) {
    const sub = track ? `${path}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}` : ''
    out.set(k, convertJson(v[k]!, track ? floats : undefined, sub, depth + 1))
  }
  return out
}

/** A plain JavaScript value (numbers lose their float kind, tuples become arrays, dicts objects). */
export function toPlain(v: PyValue): unknown {
  if (v === null || typeof v !== 'object') return v
  if (v instanceof PyFloat) return v.value
  if (Array.isArray(v)) return v.map(toPlain)
  if (v instanceof PyTuple) return v.items.map(toPlain)
  const out: Record<string, unknown> = {}
  for (const [k, x] of v) out[String(k)] = toPlain(x)
  return out
}

/**
 * Plain JSON plus the JSON Pointers of its integral floats: the form that survives JSON serialisation (task meta,
 * sample files) and that `fromJson` turns back into the same PyValue (tuples come back as lists).
 */
export function toJsonWithFloatPaths(v: PyValue): { json: JsonValue; floatPaths: string[] } {
  const floatPaths: string[] = []
  const walk = (x: PyValue, path: string): JsonValue => {
    if (x === null || typeof x !== 'object') return x
    if (x instanceof PyFloat) {
      floatPaths.push(path)
      return x.value
    }
    if (Array.isArray(x)) return x.map((item, i) => walk(item, `${path}/${i}`))
    if (x instanceof PyTuple) return x.items.map((item, i) => walk(item, `${path}/${i}`))
    const out: Record<string, JsonValue> = {}
    for (const [k, item] of x) {
      const key = String(k)
      const value = walk(item, `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`)
      if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true })
      else out[key] = value
    }
    return out
  }
  return { json: walk(v, ''), floatPaths }
}

// ---------------------------------------------------------------------------------------------------------------
// Python's repr() and json.dumps(ensure_ascii=False), for messages and score files identical to the reference's

function pyIntRepr(x: number): string {
  return Number.isSafeInteger(x) ? String(x) : BigInt(x).toString()
}

/** Python's `repr()` (and `str()` of containers) of a value. */
export function pyRepr(v: PyValue): string {
  if (v === null) return 'None'
  switch (typeof v) {
    case 'boolean':
      return v ? 'True' : 'False'
    case 'string':
      return pyStrRepr(v)
    case 'number':
      return Number.isInteger(v) ? pyIntRepr(v) : pyFloatRepr(v)
  }
  if (v instanceof PyFloat) return pyFloatRepr(v.value)
  if (Array.isArray(v)) return '[' + v.map(pyRepr).join(', ') + ']'
  if (v instanceof PyTuple) {
    return v.items.length === 1 ? `(${pyRepr(v.items[0]!)},)` : '(' + v.items.map(pyRepr).join(', ') + ')'
  }
  const parts: string[] = []
  for (const [k, x] of v) parts.push(`${pyRepr(k)}: ${pyRepr(x)}`)
  return '{' + parts.join(', ') + '}'
}

/** A JSON string literal as Python's `json.dumps(..., ensure_ascii=False)` writes it. */
export function pyJsonString(s: string): string {
  let out = '"'
  let start = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0x20 && c !== 0x22 && c !== 0x5c) continue
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

function pyJsonFloat(x: number): string {
  if (Number.isNaN(x)) return 'NaN'
  if (x === Infinity) return 'Infinity'
  if (x === -Infinity) return '-Infinity'
  return pyFloatRepr(x)
}

function pyJsonKey(k: PyKey): string {
  if (typeof k === 'string') return pyJsonString(k)
  if (k === null) return '"null"'
  if (typeof k === 'boolean') return k ? '"true"' : '"false"'
  return `"${Number.isInteger(k) ? pyIntRepr(k) : pyJsonFloat(k)}"`
}

/** Python's `json.dumps(v, ensure_ascii=False)` (default separators `, ` and `: `; tuples as lists). */
export function pyJsonDumps(v: PyValue): string {
  if (v === null) return 'null'
  switch (typeof v) {
    case 'boolean':
      return v ? 'true' : 'false'
    case 'string':
      return pyJsonString(v)
    case 'number':
      return Number.isInteger(v) ? pyIntRepr(v) : pyJsonFloat(v)
  }
  if (v instanceof PyFloat) return pyJsonFloat(v.value)
  if (Array.isArray(v)) return '[' + v.map(pyJsonDumps).join(', ') + ']'
  if (v instanceof PyTuple) return '[' + v.items.map(pyJsonDumps).join(', ') + ']'
  const parts: string[] = []
  for (const [k, x] of v) parts.push(`${pyJsonKey(k)}: ${pyJsonDumps(x)}`)
  return '{' + parts.join(', ') + '}'
}

/** Shorthand for building dicts in code: `dict([['a', 1]])`. */
export function pyDict(entries: Iterable<readonly [PyKey, PyValue]>): PyDict {
  return new Map(entries)
}
