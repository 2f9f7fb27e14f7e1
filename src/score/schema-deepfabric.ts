/**
 * DeepFabric's own reading of a sample, for the schema metrics' default `semantics: 'deepfabric'`. Written from
 * always-further/deepfabric's evaluator as the specification (facts only, no code): `ToolDefinition.from_openai`
 * (its type table), `ToolExecution`'s argument validator, `metrics.compare_parameters` and `_validate_parameter_types`,
 * and the error handling of `Evaluator.evaluate_sample`.
 *
 * Where DeepFabric cannot score a sample this says how it fails: `rejected` (a validation error: DeepFabric records
 * the sample with its error score, 0 on every metric, and goes on) or `crashed` (a TypeError escapes
 * `evaluate_sample`'s error handler and the whole `evaluate()` stops).
 */
import { isPlainObject } from '../calls/call-object.js'
import { parseJson } from '../calls/json.js'
import type { ExpectedCall } from './types.js'

/** DeepFabric's parameter types, plus `null` for a member of a union we read where DeepFabric crashes. */
export type DeepFabricType = 'str' | 'int' | 'float' | 'bool' | 'list' | 'dict' | 'null'

// from_openai's table; any other type name (none at all, `float`, `dict`, `str`, `any`, ...) reads as `str`.
const TYPE_TABLE: Readonly<Record<string, DeepFabricType>> = {
  string: 'str',
  integer: 'int',
  number: 'float',
  boolean: 'bool',
  array: 'list',
  object: 'dict',
}

export interface DeepFabricParam {
  required: boolean
  /** One type, or the members of a union (read where DeepFabric crashes: any member matches). */
  types: DeepFabricType[]
  /** The `type` as the tool declares it (undefined: none), for messages. */
  declared: unknown
}

export interface DeepFabricTool {
  name: string
  params: Map<string, DeepFabricParam>
}

export interface DeepFabricFault {
  outcome: 'rejected' | 'crashed'
  reason: string
}

export interface DeepFabricTools {
  tools: DeepFabricTool[]
  /** The first fault DeepFabric meets reading the tools (it stops there). */
  fault?: DeepFabricFault
}

const isUnhashable = (v: unknown): boolean => Array.isArray(v) || isPlainObject(v)
/** Python truthiness of a JSON value. */
const truthy = (v: unknown): boolean =>
  !(v === null || v === undefined || v === false || v === 0 || v === '' || (Array.isArray(v) && v.length === 0) || (isPlainObject(v) && Object.keys(v).length === 0))

/** `dict.get(key, fallback)`: the fallback only when the key is absent (a present null stays null). */
const getOr = (o: Record<string, unknown>, key: string, fallback: unknown): unknown => (Object.hasOwn(o, key) ? o[key] : fallback)

function typeOf(type: unknown): DeepFabricType[] {
  if (Array.isArray(type)) return type.map((t) => (t === 'null' ? 'null' : typeof t === 'string' ? (TYPE_TABLE[t] ?? 'str') : 'str'))
  return [typeof type === 'string' ? (TYPE_TABLE[type] ?? 'str') : 'str']
}

/** `set(required or [])`, or the TypeError that makes it crash. */
function requiredOf(required: unknown): Set<unknown> | 'crash' {
  if (!truthy(required)) return new Set()
  if (typeof required === 'string') return new Set([...required])
  if (isPlainObject(required)) return new Set(Object.keys(required))
  if (!Array.isArray(required) || required.some(isUnhashable)) return 'crash'
  return new Set(required)
}

/** One tool as from_openai reads it, or the fault it meets. Bare functions (no `function` wrapper) are ours. */
function readTool(t: unknown, index: number): DeepFabricTool | DeepFabricFault {
  const where = `tools[${index}]`
  if (!isPlainObject(t)) return { outcome: 'rejected', reason: `${where} is not an object` }
  const fn = Object.hasOwn(t, 'function') ? t['function'] : typeof t['name'] === 'string' ? t : {}
  if (!isPlainObject(fn)) return { outcome: 'rejected', reason: `${where}.function is not an object` }
  const name = getOr(fn, 'name', '')
  if (typeof name !== 'string') return { outcome: 'rejected', reason: `${where} has a name that is not a string` }
  if (typeof getOr(fn, 'description', '') !== 'string') return { outcome: 'rejected', reason: `${where} has a description that is not a string` }
  const schema = getOr(fn, 'parameters', {})
  if (!isPlainObject(schema)) return { outcome: 'rejected', reason: `${where}.parameters is not an object` }
  const properties = truthy(schema['properties']) ? schema['properties'] : {}
  // DeepFabric builds the set of required names before it walks the properties.
  const required = requiredOf(schema['required'])
  if (required === 'crash') return { outcome: 'crashed', reason: `${where}.parameters.required is not a list of names` }
  if (!isPlainObject(properties)) return { outcome: 'rejected', reason: `${where}.parameters.properties is not an object` }
  const params = new Map<string, DeepFabricParam>()
  for (const [p, props] of Object.entries(properties)) {
    if (props === null) continue // skipped by DeepFabric
    if (!isPlainObject(props)) return { outcome: 'rejected', reason: `${where} parameter '${p}' is not an object` }
    const type = getOr(props, 'type', 'string')
    if (isUnhashable(type)) return { outcome: 'crashed', reason: `${where} parameter '${p}' has a union type ${JSON.stringify(type)}` }
    if (typeof getOr(props, 'description', '') !== 'string') {
      return { outcome: 'rejected', reason: `${where} parameter '${p}' has a description that is not a string` }
    }
    params.set(p, { required: required.has(p), types: typeOf(type), declared: props['type'] })
  }
  return { name, params }
}

/** What a union-tolerant reading gives after a crash: union types read as any member, malformed parts skipped. */
function readToolLeniently(t: unknown): DeepFabricTool | undefined {
  if (!isPlainObject(t)) return undefined
  const fn = isPlainObject(t['function']) ? t['function'] : t
  const schema = isPlainObject(fn['parameters']) ? fn['parameters'] : {}
  const properties = isPlainObject(schema['properties']) ? schema['properties'] : {}
  const required = Array.isArray(schema['required']) ? schema['required'] : []
  const params = new Map<string, DeepFabricParam>()
  for (const [p, props] of Object.entries(properties)) {
    if (!isPlainObject(props)) continue
    params.set(p, { required: required.includes(p), types: typeOf(getOr(props, 'type', 'string')), declared: props['type'] })
  }
  return { name: typeof fn['name'] === 'string' ? fn['name'] : '', params }
}

/** The tools on offer as DeepFabric reads them, in order; the first fault stops its reading (not ours, after a crash). */
export function readDeepFabricTools(tools: readonly unknown[]): DeepFabricTools {
  const out: DeepFabricTool[] = []
  let fault: DeepFabricFault | undefined
  tools.forEach((t, i) => {
    if (fault === undefined) {
      const r = readTool(t, i)
      if ('outcome' in r) fault = r
      else return void out.push(r)
    }
    const lenient = readToolLeniently(t)
    if (lenient) out.push(lenient)
  })
  return fault === undefined ? { tools: out } : { tools: out, fault }
}

/**
 * Why DeepFabric's dataset validation rejects these expected calls (`ToolExecution`, then GroundTruth): an empty
 * name, arguments that are not a JSON object, or a top-level argument that is null or an empty string.
 */
export function expectedCallsRejection(expected: readonly ExpectedCall[]): string | undefined {
  for (const [i, e] of expected.entries()) {
    if (typeof e.name !== 'string' || e.name === '') return `expected call ${i} has no name`
    let args: unknown = e.arguments ?? {}
    if (typeof args === 'string') {
      const r = parseJson(args)
      if (!r.ok) return `expected call ${i} has arguments that are not JSON`
      args = r.value
    }
    if (!isPlainObject(args)) return `expected call ${i} has arguments that are not an object`
    for (const [k, v] of Object.entries(args)) {
      if (v === null) return `expected argument '${k}' is null`
      if (v === '') return `expected argument '${k}' is an empty string`
    }
  }
  return undefined
}

/** DeepFabric's type check of one value (Python's isinstance: a bool is not an int; `3.0` is a float). */
export function matchesDeepFabricType(type: DeepFabricType, value: unknown, isFloat = false): boolean {
  switch (type) {
    case 'str':
      return typeof value === 'string'
    case 'int':
      return typeof value === 'number' && Number.isInteger(value) && !isFloat
    case 'float':
      return typeof value === 'number'
    case 'bool':
      return typeof value === 'boolean'
    case 'list':
      return Array.isArray(value)
    case 'dict':
      return isPlainObject(value)
    case 'null':
      return value === null
  }
}

// Python's str.isspace() characters: JavaScript's trim() also removes U+FEFF (a byte-order mark) and keeps
// U+001C..U+001F and U+0085, which Python strips.
const PY_SPACE = '\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000'
const PY_STRIP = new RegExp(`^[${PY_SPACE}]+|[${PY_SPACE}]+$`, 'g')

/** Python's `str.strip()`. */
export function pyStrip(s: string): string {
  return s.replace(PY_STRIP, '')
}

const isPyNumber = (v: unknown): v is number | boolean => typeof v === 'number' || typeof v === 'boolean'

/** Python's `==` on JSON values: True == 1 == 1.0, dicts regardless of key order. */
export function pyEquals(a: unknown, b: unknown): boolean {
  if (isPyNumber(a) && isPyNumber(b)) return Number(a) === Number(b)
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => pyEquals(x, b[i]))
  if (isPlainObject(a) && isPlainObject(b)) {
    const ka = Object.keys(a)
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && pyEquals(a[k], b[k]))
  }
  return a === b
}

/** compare_parameters' value comparison (for a tool not on offer): same keys, then value by value. */
export function deepFabricValuesMatch(expected: Record<string, unknown>, predicted: Record<string, unknown>): boolean {
  const ke = Object.keys(expected)
  if (ke.length !== Object.keys(predicted).length || !ke.every((k) => Object.hasOwn(predicted, k))) return false
  return ke.every((k) => {
    const e = expected[k]
    const p = predicted[k]
    if (typeof e === 'string' && typeof p === 'string') return pyStrip(e.toLowerCase()) === pyStrip(p.toLowerCase())
    if (isPyNumber(e) && isPyNumber(p)) return Math.abs(Number(e) - Number(p)) <= 1e-6
    return pyEquals(e, p)
  })
}

/** A type problem as the user wrote the type, or as DeepFabric's table reads it where that changes it. */
export function describeTypeProblem(name: string, param: DeepFabricParam): string {
  const { declared, types } = param
  if (Array.isArray(declared) || (typeof declared === 'string' && Object.hasOwn(TYPE_TABLE, declared))) {
    return `parameter '${name}' is not of type ${JSON.stringify(declared)}`
  }
  const what = declared === undefined ? 'no type' : `type ${JSON.stringify(declared)}`
  return `parameter '${name}' is not a ${types.join(' | ')} (DeepFabric's reading of ${what})`
}
