/**
 * BFCL's Java and JavaScript type converters (REFERENCE: gorilla `ast_eval/type_convertor/{java,js}_type_converter.py`):
 * a function-calling model gives every Java/JavaScript argument as a string (`"new int[]{1, 2}"`, `"[1, 2]"`,
 * `"42L"`), and the checker converts it by the schema's type with the leaderboard's regular expressions before the
 * usual type and value checks. Where a pattern does not match, the string stays a string (and then usually fails the
 * type check). Nothing is evaluated: numbers go through Python's `int()` / `float()` rules (python/number.ts).
 *
 * The number patterns are the reference's, anchored and linear, written for JavaScript's engine with Python's
 * meanings kept: `.` excludes only `\n`, `$` also matches before a final `\n`, and `\s`, `\w`, `\d` are Python's
 * Unicode classes. The collection patterns backtrack super-linearly, so lang-scan.ts gives their exact matches by
 * linear scans instead (the reference's patterns are quoted there, and are the oracle of its tests).
 */
import {
  javaAddArgs,
  javaAddBlockBody,
  javaArrayBody,
  javaAsListBody,
  javaHasEmptyArrayList,
  javaHasEmptyHashMap,
  javaHashMapBody,
  javaPutPairs,
  jsArray2dPrefix,
  jsArrayBody,
  jsDictBody,
  jsInnerArrays,
  jsPairs,
} from './lang-scan.js'
import { pyFloatFromString, pyIntFromString, pyStrip, pyStripChars } from '../../python/number.js'
import { PyCrash, PyFloat, type PyDict, type PyTypeName, type PyValue } from '../../python/operations.js'

const D = '\\p{Nd}'
/** Python's `$` without MULTILINE: the end, or just before a final newline. */
const END = '(?=\\n?$)'

function re(source: string, flags = ''): RegExp {
  return new RegExp(source, 'u' + flags)
}

/** BFCL's Java type names and the Python type each converts to (`JAVA_TYPE_CONVERSION`). */
export const JAVA_TYPES: Readonly<Record<string, PyTypeName | 'set'>> = {
  byte: 'int',
  short: 'int',
  integer: 'int',
  float: 'float',
  double: 'float',
  long: 'int',
  boolean: 'bool',
  char: 'str',
  Array: 'list',
  ArrayList: 'list',
  Set: 'set',
  HashMap: 'dict',
  Hashtable: 'dict',
  Queue: 'list',
  Stack: 'list',
  String: 'str',
  any: 'str',
}

/** BFCL's JavaScript type names and their Python types (`JS_TYPE_CONVERSION`). */
export const JS_TYPES: Readonly<Record<string, PyTypeName>> = {
  String: 'str',
  integer: 'int',
  float: 'float',
  Bigint: 'int',
  Boolean: 'bool',
  dict: 'dict',
  array: 'list',
  any: 'str',
}

/** The types whose items the checker converts with the schema's `items.type` (`NESTED_CONVERSION_TYPE_LIST`). */
export const NESTED_CONVERSION_TYPES = new Set(['Array', 'ArrayList', 'array'])

/** Python `int(s)`; a crash where Python raises. */
function pyInt(s: string): number {
  const n = pyIntFromString(s)
  if (n === undefined) throw new PyCrash(`ValueError: invalid literal for int() with base 10: ${JSON.stringify(s)}`)
  return n
}

/** Python `float(s)` as a PyValue (integral floats are PyFloat); a crash where Python raises. */
function pyFloat(s: string): PyValue {
  const x = pyFloatFromString(s)
  if (x === undefined) throw new PyCrash(`ValueError: could not convert string to float: ${JSON.stringify(s)}`)
  return asFloat(x)
}

function asFloat(x: number): PyValue {
  return Number.isInteger(x) ? new PyFloat(x) : x
}

/** `int(s)`, else `float(s)`, else the string itself. */
function intOrFloatOrString(s: string): PyValue {
  const n = pyIntFromString(s)
  if (n !== undefined) return n
  const x = pyFloatFromString(s)
  return x === undefined ? s : asFloat(x)
}

// ---------------------------------------------------------------------------------------------------------------
// Java

const INT_RE = re(`^-?${D}+${END}`)
const JAVA_FLOAT_RE = re(`^-?${D}+(\\.${D}+)?([eE][+-]?${D}+)?[fF]${END}`)
const JAVA_FLOAT_SUFFIX = re(`[fF]${END}`)
const DOUBLE_RE = re(`^-?${D}+(\\.${D}+)?([eE][+-]?${D}+)?${END}`)
const LONG_RE = re(`^-?${D}+[lL]${END}`)
const LONG_SUFFIX = re(`[lL]${END}`)

/** `java_type_converter(value, expected_type, nested_type)`. */
export function javaConvert(value: string, type: string, nested?: string): PyValue {
  if (!Object.hasOwn(JAVA_TYPES, type)) throw new PyCrash(`ValueError: Unsupported type: ${type}`)
  switch (type) {
    case 'byte':
    case 'short':
    case 'integer':
      return INT_RE.test(value) ? pyInt(value) : value
    case 'float':
      return JAVA_FLOAT_RE.test(value) ? pyFloat(value.replace(JAVA_FLOAT_SUFFIX, '')) : value
    case 'double':
      return DOUBLE_RE.test(value) ? pyFloat(value) : value
    case 'long':
      return LONG_RE.test(value) ? pyInt(value.replace(LONG_SUFFIX, '')) : value
    case 'boolean':
      return value === 'true' ? true : value === 'false' ? false : value
    case 'char':
      // The reference's pattern (`^\'.$\'`) can never match: a char stays the string given.
      return value
    case 'Array':
      return parseJavaArray(value, nested)
    case 'ArrayList':
      return parseJavaArrayList(value, nested)
    case 'HashMap':
      return parseJavaHashMap(value)
    case 'Set':
    case 'Hashtable':
      throw new PyCrash('NotImplementedError: Set conversion is not implemented')
    case 'Queue':
    case 'Stack':
      throw new PyCrash(`NotImplementedError: ${type} conversion is not implemented`)
    default:
      // String, any
      return value
  }
}

/** An element of a collection whose item type is known (`char`/`String` lose their quotes, unchecked). */
function javaElement(s: string, nested: string | undefined): PyValue {
  if (nested === 'char' || nested === 'String') return pySlice1(s)
  return nested ? javaConvert(s, nested) : parseJavaValue(s)
}

/** Python's `s[1:-1]` (by code point). */
function pySlice1(s: string): string {
  return Array.from(s).slice(1, -1).join('')
}

function parseJavaArrayList(input: string, nested: string | undefined): PyValue {
  const asList = javaAsListBody(input)
  if (asList !== undefined) return asList.split(',').map((e) => javaElement(pyStrip(e), nested))
  const block = javaAddBlockBody(input)
  if (block !== undefined) return javaAddArgs(block).map((arg) => javaElement(pyStrip(arg), nested))
  if (javaHasEmptyArrayList(input)) return []
  return input
}

function parseJavaArray(input: string, nested: string | undefined): PyValue {
  const body = javaArrayBody(input)
  if (body === undefined) return input
  const out: PyValue[] = []
  for (const x of body.split(',')) {
    const item = pyStrip(x)
    if (item !== '') out.push(nested ? javaConvert(item, nested) : parseJavaValue(item))
  }
  return out
}

function parseJavaHashMap(input: string): PyValue {
  const body = javaHashMapBody(input)
  if (body !== undefined) {
    const out: PyDict = new Map()
    if (pyStrip(body) !== '') {
      for (const [key, value] of javaPutPairs(body)) out.set(key, parseJavaValue(pyStrip(value)))
    }
    return out
  }
  return javaHasEmptyHashMap(input) ? new Map() : input
}

/** `parse_java_value`: a literal read without knowing its type. */
export function parseJavaValue(s: string): PyValue {
  if (s === 'true') return true
  if (s === 'false') return false
  if (s.startsWith('"') && s.endsWith('"')) return pySlice1(s)
  if (LONG_RE.test(s)) return pyInt(Array.from(s).slice(0, -1).join(''))
  if (JAVA_FLOAT_RE.test(s)) return pyFloat(s.replace(JAVA_FLOAT_SUFFIX, ''))
  return intOrFloatOrString(s)
}

// ---------------------------------------------------------------------------------------------------------------
// JavaScript

const JS_FLOAT_RE = re(`^-?${D}+(\\.${D}+)?${END}`)
const BIGINT_RE = re(`^-?${D}+n${END}`)

/** `js_type_converter(value, expected_type, nested_type)`. */
export function jsConvert(value: string, type: string, nested?: string): PyValue {
  if (!Object.hasOwn(JS_TYPES, type)) throw new PyCrash(`ValueError: Unsupported type: ${type}`)
  switch (type) {
    case 'String':
      return isQuoted(value) ? pySlice1(value) : value
    case 'integer':
      return INT_RE.test(value) ? pyInt(value) : value
    case 'float':
      return JS_FLOAT_RE.test(value) ? pyFloat(value) : value
    case 'Bigint':
      return BIGINT_RE.test(value) ? pyInt(Array.from(value).slice(0, -1).join('')) : value
    case 'Boolean':
      return value === 'true' ? true : value === 'false' ? false : value
    case 'dict':
      return parseJsDict(pyStrip(value))
    case 'array':
      return parseJsArray(pyStrip(value), nested)
    default:
      // any
      return value
  }
}

function isQuoted(s: string): boolean {
  return (s.startsWith('"') && s.endsWith('"')) || (s.startsWith("'") && s.endsWith("'"))
}

/** `parse_js_collection(code, "array", nested_type)`; any error inside gives the code back, as the reference's. */
function parseJsArray(code: string, nested: string | undefined): PyValue {
  try {
    const array2d = jsArray2dPrefix(code)
    if (array2d !== undefined) {
      return jsInnerArrays(array2d).map((inner, idx) => {
        let s = pyStrip(inner)
        if (idx === 0 && s.startsWith('[')) s = s.slice(1)
        return s.split(',').map((e) => parseJsValue(pyStrip(e)))
      })
    }
    const group = jsArrayBody(code)
    if (group === undefined) return code
    const body = pyStrip(group)
    const elements = body === '' ? [] : body.split(',')
    if (!nested) return elements.map((e) => parseJsValue(pyStrip(e)))
    return elements.map((e) => {
      const item = pyStrip(e)
      return item.startsWith("'") || item.startsWith('"') ? jsConvert(item, nested, 'String') : jsConvert(item, nested)
    })
  } catch (e) {
    if (e instanceof PyCrash) return code
    throw e
  }
}

/** `parse_js_collection(code, "dict")`. */
function parseJsDict(code: string): PyValue {
  if (code === '{}') return new Map()
  const body = jsDictBody(code)
  if (body === undefined) return code
  const out: PyDict = new Map()
  for (const [rawKey, rawValue] of jsPairs(body)) {
    const key = pyStripChars(pyStrip(rawKey), '\'"')
    const value = pyStrip(rawValue)
    if (value.startsWith('[') && value.endsWith(']')) out.set(key, parseJsArray(pyStrip(value), undefined))
    else if (value.startsWith('{') && value.endsWith('}')) out.set(key, parseJsDict(pyStrip(value)))
    else out.set(key, parseJsValue(pyStripChars(value, '\'"')))
  }
  return out
}

/** `parse_js_value`: a literal read without knowing its type. */
export function parseJsValue(input: string): PyValue {
  const s = pyStrip(input)
  if (s === 'true') return true
  if (s === 'false') return false
  if (isQuoted(s)) return pySlice1(s)
  return intOrFloatOrString(s)
}
