/**
 * Python's operations on values as the BFCL checker and simulated APIs use them (equality, iteration, membership,
 * conversion from and to JSON). The value model itself (PyFloat, PyTuple, PyDict, PyValue) and its repr live beside
 * it, in value.ts and repr.ts.
 *
 * Every function here recurses at most MAX_DEPTH levels: values deeper than that are refused when they are built.
 */
import { PyFloat, PyTuple, isPyDict, type PyDict, type PyKey, type PyValue } from './value.js'

// The value model and its repr, re-exported for the BFCL checker's modules.
export { PyFloat, PyTuple, isPyDict, type PyDict, type PyKey, type PyValue } from './value.js'
export { pyFloatRepr, pyJsonDumps, pyJsonString, pyRepr, pyStrRepr } from './repr.js'

/** JSON as `json.loads` gives it: the shape of calls' `JsonValue`, written here since this layer imports nothing. */
type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue }

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

/** Shorthand for building dicts in code: `dict([['a', 1]])`. */
export function pyDict(entries: Iterable<readonly [PyKey, PyValue]>): PyDict {
  return new Map(entries)
}
