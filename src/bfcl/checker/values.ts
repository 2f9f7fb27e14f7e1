/**
 * One argument's value against its acceptable values, as the leaderboard's AST checker judges it: the type check
 * (with Java and JavaScript arguments converted first), strings normalised, lists, dicts and lists of dicts. The
 * verdict shapes live here too, since every rule of checker.ts builds on them.
 */
import { JAVA_TYPES, JS_TYPES, NESTED_CONVERSION_TYPES, javaConvert, jsConvert } from './lang-convert.js'
import {
  PyCrash,
  isPyDict,
  pyEq,
  pyIn,
  pyIndex,
  pyIter,
  pyLen,
  pyRepr,
  pyType,
  standardizeString,
  type PyDict,
  type PyTypeName,
  type PyValue,
} from '../../python/operations.js'

export interface BfclParam {
  type: string
  items?: { type: string; [key: string]: unknown }
  [key: string]: unknown
}

/** A failing candidate in the order-free parallel checker, as the leaderboard lists it. */
export interface ParallelSubError {
  /** Index of the model's call that was tried. */
  index: number
  sub_error: CheckError[]
  sub_error_type: string
  model_output_item: PyValue
  possible_answer_item: PyValue
}

export type CheckError = string | ParallelSubError

export interface CheckResult {
  valid: boolean
  error: CheckError[]
  /** The leaderboard's error type (`value_error:string`, ...); absent on a valid result. */
  error_type?: string
}

export const VALID: CheckResult = Object.freeze({ valid: true, error: [] }) as CheckResult

export function fail(error_type: string, ...error: CheckError[]): CheckResult {
  return { valid: false, error, error_type }
}

// BFCL's type names and the Python type each maps to.
const PYTHON_TYPE: Record<string, PyTypeName> = {
  string: 'str',
  integer: 'int',
  float: 'float',
  boolean: 'bool',
  array: 'list',
  tuple: 'list',
  dict: 'dict',
  any: 'str',
}
export const NESTED_TYPES = new Set(['array', 'tuple'])

export function pythonType(bfclType: unknown): PyTypeName {
  const t = typeof bfclType === 'string' ? PYTHON_TYPE[bfclType] : undefined
  if (t === undefined) throw new PyCrash(`KeyError: ${pyRepr(String(bfclType))} is not a known BFCL type`)
  return t
}

/** How Python prints a type object: `<class 'float'>`. */
function classRepr(t: PyTypeName): string {
  return `<class '${t}'>`
}

type Converted = { value: PyValue; expected: PyTypeName; nested: PyTypeName | undefined }

/**
 * A Java or JavaScript argument: it must be a string (`type_error:java` / `type_error:js` otherwise), converted by the
 * schema's type (and `items.type` for arrays) as the leaderboard does. Unknown types crash the reference (KeyError).
 */
export function convertForeign(
  language: 'java' | 'javascript',
  param: string,
  value: PyValue,
  description: BfclParam,
): Converted | CheckResult {
  const table: Readonly<Record<string, string>> = language === 'java' ? JAVA_TYPES : JS_TYPES
  const lookup = (t: unknown): PyTypeName => {
    if (typeof t !== 'string' || !Object.hasOwn(table, t)) throw new PyCrash(`KeyError: ${pyRepr(String(t))}`)
    return table[t] as PyTypeName
  }
  const typeName = description.type
  const expected = lookup(typeName)
  if (typeof value !== 'string') {
    return fail(
      language === 'java' ? 'type_error:java' : 'type_error:js',
      `Incorrect type for parameter ${pyRepr(param)}. Expected type String, got ${pyType(value)}. Parameter value: ${pyRepr(value)}.`,
    )
  }
  const convert = language === 'java' ? javaConvert : jsConvert
  if (!NESTED_CONVERSION_TYPES.has(typeName)) return { value: convert(value, typeName), expected, nested: undefined }
  if (description.items === undefined) throw new PyCrash("KeyError: 'items'")
  const nestedName = description.items.type
  const nested = lookup(nestedName)
  return { value: convert(value, typeName, nestedName), expected, nested }
}

/** The type of the first acceptable value that is not `""` (the "optional" marker); undefined when there is none. */
function answerType(acceptable: PyValue): PyTypeName | undefined {
  for (const a of pyIter(acceptable)) if (a !== '') return pyType(a)
  return undefined
}

interface TypeCheck {
  valid: boolean
  error: string[]
  isVariable: boolean
  error_type: string
}

/**
 * The leaderboard's type check of one value. A value whose type differs from the schema's is still accepted when it
 * has the type of the acceptable values (the answer names a variable, not a literal: `isVariable`). Lists are checked
 * one level deep against each acceptable list; any acceptable value that is not a list (such as `""`) skips that.
 */
export function typeCheck(
  param: string,
  value: PyValue,
  acceptable: PyValue,
  expectedDescription: string,
  expected: PyTypeName,
  nested: PyTypeName | undefined,
): TypeCheck {
  const result: TypeCheck = { valid: true, error: [], isVariable: false, error_type: 'type_error:simple' }
  const accType = answerType(acceptable)
  const isVariable = accType !== undefined && accType !== expected

  if (pyType(value) === expected) {
    if (nested === undefined) {
      result.isVariable = isVariable
      return result
    }
    for (const candidate of pyIter(acceptable)) {
      let ok = true
      if (Array.isArray(candidate)) {
        for (const item of pyIter(value)) {
          if (!typeCheck(param, item, candidate, classRepr(nested), nested, undefined).valid) {
            ok = false
            break
          }
        }
      }
      if (ok) return { valid: true, error: [], isVariable, error_type: 'type_error:simple' }
    }
    result.valid = false
    result.error = [
      `Nested type checking failed for parameter ${pyRepr(param)}. Expected outer type ${expectedDescription} with inner type ${classRepr(nested)}. Parameter value: ${pyRepr(value)}.`,
    ]
    result.error_type = 'type_error:nested'
  }

  // The value may stand for a variable: then it has the acceptable values' type.
  if (accType !== undefined && pyType(value) === accType) {
    result.isVariable = true
    return result
  }
  result.valid = false
  result.error.push(
    `Incorrect type for parameter ${pyRepr(param)}. Expected type ${expectedDescription}, got ${pyType(value)}. Parameter value: ${pyRepr(value)}.`,
  )
  result.error_type = 'type_error:simple'
  return result
}

export function stringCheck(param: string, value: string, acceptable: PyValue): CheckResult {
  const normalised = standardizeString(value)
  for (const a of pyIter(acceptable)) {
    if (typeof a === 'string' && standardizeString(a) === normalised) return VALID
  }
  return fail(
    'value_error:string',
    `Invalid value for parameter ${pyRepr(param)}: ${pyRepr(value)}. Expected one of ${pyRepr(acceptable)}. Case insensitive.`,
  )
}

function normaliseIfString(v: PyValue): PyValue {
  return typeof v === 'string' ? standardizeString(v) : v
}

export function listCheck(param: string, value: PyValue, acceptable: PyValue): CheckResult {
  // Strings at the top level of the list are normalised; nested values are compared as they are.
  const normalised = pyIter(value).map(normaliseIfString)
  // Every candidate is normalised before any is compared (a malformed one fails the entry even after a match).
  const candidates = pyIter(acceptable).map((candidate) => {
    const out: PyValue[] = []
    const n = pyLen(candidate)
    for (let j = 0; j < n; j++) out.push(normaliseIfString(pyIndex(candidate, j)))
    return out
  })
  if (candidates.some((c) => pyEq(normalised, c))) return VALID
  return fail(
    'value_error:list/tuple',
    `Invalid value for parameter ${pyRepr(param)}: ${pyRepr(value)}. Expected one of ${pyRepr(acceptable)}.`,
  )
}

export function asDict(v: PyValue, what: string): PyDict {
  if (isPyDict(v)) return v
  throw new PyCrash(`AttributeError: '${pyType(v)}' object has no attribute '${what}'`)
}

/** `key in candidate` and `candidate[key]` where the candidate should be a dict of acceptable-value lists. */
function candidateHas(candidate: PyValue, key: PyValue): boolean {
  return pyIn(key, candidate)
}

function candidateGet(candidate: PyValue, key: PyValue): PyValue {
  if (isPyDict(candidate)) return candidate.get(key as string)!
  if (typeof key === 'number') return pyIndex(candidate, key)
  throw new PyCrash(`TypeError: ${pyType(candidate)} indices must be integers`)
}

/**
 * A dict value against each acceptable dict (`""` candidates skipped): every given key must be in the candidate with
 * an acceptable value, and every candidate key without `""` among its values must be given. The error of the last
 * candidate tried is reported; a missing key overwrites a value error's type, as in the reference.
 */
export function dictCheck(value: PyValue, acceptable: PyValue): CheckResult {
  let result: CheckResult = fail('dict_checker:unclear')
  for (const candidate of pyIter(acceptable)) {
    if (candidate === '') continue
    result = fail('dict_checker:unclear')
    let ok = true
    for (const [key, v] of asDict(value, 'items')) {
      if (!candidateHas(candidate, key)) {
        result.error.push(`Unexpected dict key parameter: '${String(key)}'.`)
        result.error_type = 'value_error:dict_key'
        ok = false
        break
      }
      const normalised = normaliseIfString(v)
      const normalisedAcceptable = pyIter(candidateGet(candidate, key)).map(normaliseIfString)
      if (!pyIn(normalised, normalisedAcceptable)) {
        result.error.push(
          `Invalid value for parameter ${pyRepr(key)}: ${pyRepr(v)}. Expected one of ${pyRepr(normalisedAcceptable)}.`,
        )
        result.error_type = 'value_error:dict_value'
        ok = false
        break
      }
    }
    for (const [key, values] of asDict(candidate, 'items')) {
      if (!asDict(value, 'items').has(key) && !pyIn('', values)) {
        result.error.push(`Missing dict key parameter: '${String(key)}'.`)
        result.error_type = 'value_error:dict_key'
        ok = false
        break
      }
    }
    if (ok) return VALID
  }
  return result
}

/** A list of dicts against each acceptable list: same length, and dict i checked against the candidate's dict i. */
export function listDictCheck(value: PyValue, acceptable: PyValue): CheckResult {
  let result: CheckResult = fail('list_dict_checker:unclear')
  const items = pyIter(value)
  for (const candidate of pyIter(acceptable)) {
    if (items.length !== pyLen(candidate)) {
      result = fail('value_error:list_dict_count', 'Wrong number of dictionaries in the list.')
      continue
    }
    let ok = true
    for (let i = 0; i < items.length; i++) {
      result = dictCheck(items[i]!, [pyIndex(candidate, i)])
      if (!result.valid) {
        ok = false
        break
      }
    }
    if (ok) return VALID
  }
  return result
}
