/**
 * Typing the raw text values of XML-style formats (Qwen3-Coder, GLM, Seed-OSS, MiniMax-M2, Step-3, FunctionGemma):
 * `<parameter=days>3</parameter>` carries the text `3`, and only the tool's schema says whether that is the number
 * 3 or the string "3". The rules:
 *
 * - The parameter's schema type decides (`type` may be a list, or the branches of `anyOf` / `oneOf`; `null` among them
 *   lets `null` / `None` through; a local `$ref` to `$defs` / `definitions` is followed one level):
 *   - string (`str`, `text`, `char`, `varchar`, `enum`): the text, verbatim (`"foo"` keeps its quotes).
 *   - integer (`int`, `long`, ...) and number (`float`, `double`, ...): a JSON or Python number literal; the number
 *     keeps its float form in `floatPaths` (`3.0`).
 *   - boolean (`bool`): `true` / `false` in any letter case (`True` from Python-minded models).
 *   - object / array (`dict`, `list`, ...): JSON; else a Python literal (`{'k': 'v'}`); else JSON that the model
 *     escaped twice (`[{\"id\": 1}]`, seen from GLM-4.6).
 *   - A non-string parameter written as a JSON string (`"42"` for a number) is read from the string's content when
 *     that fits the type.
 *   - When the text does not fit the type it is kept as a string, so nothing is lost; the scorer's schema checks
 *     report the mismatch.
 * - No schema for the parameter (no tools given, unknown tool or parameter, or a type this list does not know): the
 *   text is decoded as JSON when it is valid JSON (`30` → 30, `true` → true, `{"a": 1}` → object) and kept as a
 *   string otherwise (`"From Zero" Linkin Park` stays a string); text starting with `[` or `{` also gets the
 *   double-escaped-JSON repair. This is llama.cpp's rule for templates without a schema.
 */
import { decodeArguments, setOwn, type DecodedArguments } from './call-object.js'
import { parseJson, toPointer } from './json.js'
import { parsePythonLiteral } from '../python/index.js'
import type { JsonSchema, ParseOptions, ToolDefinition } from './types.js'

/** A typed value with the integral-float paths inside it (relative to the value). */
export interface TypedValue {
  value: unknown
  floatPaths?: string[]
}

type Kind = 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array' | 'null'

const KIND_ALIASES: Record<string, Kind> = {
  string: 'string',
  str: 'string',
  text: 'string',
  char: 'string',
  varchar: 'string',
  enum: 'string',
  integer: 'integer',
  int: 'integer',
  long: 'integer',
  short: 'integer',
  uint: 'integer',
  number: 'number',
  float: 'number',
  double: 'number',
  num: 'number',
  boolean: 'boolean',
  bool: 'boolean',
  binary: 'boolean',
  object: 'object',
  dict: 'object',
  map: 'object',
  array: 'array',
  list: 'array',
  tuple: 'array',
  null: 'null',
}

/** The known kinds a schema allows, or undefined when it names none we know (then the no-schema rule applies). */
function kindsOf(schema: JsonSchema | undefined): Kind[] | undefined {
  if (!schema || typeof schema !== 'object') return undefined
  const t = schema.type
  const names = typeof t === 'string' ? [t] : Array.isArray(t) ? t.filter((x): x is string => typeof x === 'string') : []
  const kinds: Kind[] = []
  for (const n of names) {
    const k = KIND_ALIASES[n.toLowerCase()]
    if (k && !kinds.includes(k)) kinds.push(k)
  }
  if (kinds.length === 0 && Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === 'string')) {
    return ['string'] // an enum of strings without a type
  }
  // A union written as anyOf / oneOf (`{"anyOf": [{"type": "string"}, {"type": "null"}]}`): the kinds of its branches.
  const union = kinds.length === 0 ? (schema.anyOf ?? schema.oneOf) : undefined
  if (Array.isArray(union)) {
    for (const branch of union) for (const k of kindsOf(branch as JsonSchema) ?? []) if (!kinds.includes(k)) kinds.push(k)
  }
  return kinds.length > 0 ? kinds : undefined
}

/** A local `$ref` (`#/$defs/X`, `#/definitions/X`) resolved against the parameters schema, one level deep. */
function resolveRef(schema: JsonSchema, root: JsonSchema): JsonSchema {
  const ref = schema && typeof schema === 'object' ? (schema as { $ref?: unknown }).$ref : undefined
  if (typeof ref !== 'string') return schema
  const m = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref)
  const defs = m ? (root as Record<string, unknown>)[m[1]!] : undefined
  const target = defs && typeof defs === 'object' ? (defs as Record<string, unknown>)[m![2]!] : undefined
  return target && typeof target === 'object' ? (target as JsonSchema) : schema
}

/** The `properties` of the named tool's parameters, if the tool is among `tools`. */
export function parameterSchemas(
  tools: readonly ToolDefinition[] | undefined,
  name: string,
): Record<string, JsonSchema> | undefined {
  if (!Array.isArray(tools)) return undefined
  for (const t of tools) {
    const fn = (t as { function?: ToolDefinition['function'] } | undefined)?.function
    if (fn && fn.name === name) {
      const props = fn.parameters?.properties
      if (!props || typeof props !== 'object') return {}
      // Properties given by local reference (`{"$ref": "#/$defs/Id"}`) are typed by what they refer to.
      if (!Object.values(props).some((p) => p && typeof p === 'object' && '$ref' in p)) return props
      const out: Record<string, JsonSchema> = {}
      for (const [k, p] of Object.entries(props)) setOwn(out, k, resolveRef(p, fn.parameters as JsonSchema))
      return out
    }
  }
  return undefined
}

function isDigitAt(text: string, i: number): boolean {
  const c = text.charCodeAt(i)
  return c >= 48 && c <= 57
}

/** Index after the run of digits and underscores from `i`. */
function skipDigitsAndUnderscores(text: string, i: number): number {
  while (i < text.length && (isDigitAt(text, i) || text.charCodeAt(i) === 95)) i++
  return i
}

/** `[-+]?\d+`: an optionally signed run of digits (one forward scan). */
function isSignedInteger(text: string): boolean {
  let i = text.charCodeAt(0) === 43 || text.charCodeAt(0) === 45 ? 1 : 0
  if (i >= text.length) return false
  while (i < text.length && isDigitAt(text, i)) i++
  return i === text.length
}

/**
 * A Python number literal with optional sign and digit underscores: `[-+]?(\d[\d_]*(\.[\d_]*)?|\.\d[\d_]*)`
 * then an optional `[eE][-+]?\d+`. Hand-written, one forward scan: the equivalent regular expression backtracks
 * quadratically on a long digit run that ends in a non-digit (two `[\d_]*` around an optional dot).
 */
function isPythonNumber(text: string): boolean {
  const n = text.length
  let i = text.charCodeAt(0) === 43 || text.charCodeAt(0) === 45 ? 1 : 0
  if (isDigitAt(text, i)) {
    i = skipDigitsAndUnderscores(text, i + 1)
    if (text.charCodeAt(i) === 46) i = skipDigitsAndUnderscores(text, i + 1)
  } else if (text.charCodeAt(i) === 46 && isDigitAt(text, i + 1)) {
    i = skipDigitsAndUnderscores(text, i + 2)
  } else return false
  if (i < n && (text.charCodeAt(i) | 0x20) === 101 /* e, E */) {
    i++
    if (text.charCodeAt(i) === 43 || text.charCodeAt(i) === 45) i++
    if (!isDigitAt(text, i)) return false
    while (i < n && isDigitAt(text, i)) i++
  }
  return i === n
}

function asNumber(text: string): TypedValue | undefined {
  const j = parseJson(text)
  if (j.ok && typeof j.value === 'number') return j.floatPaths ? { value: j.value, floatPaths: j.floatPaths } : { value: j.value }
  if (!isPythonNumber(text)) return undefined
  const clean = text.replace(/_/g, '')
  const n = Number(clean)
  if (!Number.isFinite(n)) return undefined
  const isFloat = /[.eE]/.test(clean)
  return isFloat && Number.isInteger(n) ? { value: n, floatPaths: [''] } : { value: n }
}

/** `[{\"id\": \"1\"}]`: JSON whose quotes and backslashes were escaped once more. */
function undoDoubleEscape(text: string): TypedValue | undefined {
  if (!text.includes('\\')) return undefined
  let out = ''
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (c !== '\\' || i + 1 >= text.length) {
      out += c
      continue
    }
    const e = text[++i]!
    out += e === 'n' ? '\n' : e === 't' ? '\t' : e === 'r' ? '\r' : e // \" → ", \\ → \, \/ → /
  }
  const j = parseJson(out)
  return j.ok && typeof j.value === 'object' && j.value !== null ? withPaths(j.value, j.floatPaths) : undefined
}

function withPaths(value: unknown, floatPaths: string[] | undefined): TypedValue {
  return floatPaths && floatPaths.length > 0 ? { value, floatPaths } : { value }
}

function asContainer(text: string): TypedValue | undefined {
  const j = parseJson(text)
  if (j.ok && typeof j.value === 'object' && j.value !== null) return withPaths(j.value, j.floatPaths)
  const c = text.charCodeAt(0)
  if (c !== 123 && c !== 91 && c !== 40) return undefined // { [ (
  const py = parsePythonLiteral(text)
  if (py.ok && typeof py.value === 'object' && py.value !== null) return withPaths(py.value, py.floatPaths)
  return undoDoubleEscape(text)
}

function convert(kind: Kind, text: string): TypedValue | undefined {
  switch (kind) {
    case 'string':
      return { value: text }
    case 'integer':
      if (isSignedInteger(text)) return { value: Number(text) }
      return asNumber(text)
    case 'number':
      return asNumber(text)
    case 'boolean': {
      const l = text.toLowerCase()
      return l === 'true' ? { value: true } : l === 'false' ? { value: false } : undefined
    }
    case 'object':
    case 'array':
      return asContainer(text)
    case 'null':
      return text === 'null' || text === 'None' ? { value: null } : undefined
  }
}

/**
 * Whether the trimmed text `t` (first character `c`) can be JSON at all: it starts a container, a string or a
 * number, or it is one of the three words. Most raw values are plain words, which are not worth decoding.
 */
function mayBeJson(t: string, c: number): boolean {
  if (c === 123 || c === 91 || c === 34 || c === 45 || (c >= 48 && c <= 57)) return true // { [ " - digit
  return t === 'true' || t === 'false' || t === 'null'
}

/** The no-schema rule: JSON when the text is valid JSON, else the text. */
export function untypedValue(text: string): TypedValue {
  const t = text.trim()
  const c = t.charCodeAt(0)
  if (mayBeJson(t, c)) {
    const j = parseJson(t)
    if (j.ok) return withPaths(j.value, j.floatPaths)
  }
  if (c === 123 || c === 91) {
    const repaired = undoDoubleEscape(t)
    if (repaired) return repaired
  }
  return { value: text }
}

/**
 * Type one raw value by its parameter schema (see the module comment). `text` is the value as the format delimits
 * it, already stripped of the format's own surrounding whitespace; non-string kinds ignore surrounding whitespace.
 */
export function typeValue(text: string, schema: JsonSchema | undefined): TypedValue {
  const kinds = kindsOf(schema)
  if (!kinds) return untypedValue(text)
  const trimmed = text.trim()
  if (kinds.includes('null') && (trimmed === 'null' || trimmed === 'None')) return { value: null }
  // Non-string kinds first: in a union such as ["integer", "string"] the number is what was meant.
  for (const k of kinds) {
    if (k === 'string' || k === 'null') continue
    const v = convert(k, trimmed)
    if (v) return v
  }
  // A parameter that cannot be a string, written as a JSON string (`"42"` for a number): its content, when that
  // converts (SGLang's GLM-4.7 / GLM-5 detector does the same).
  if (!kinds.includes('string') && trimmed.charCodeAt(0) === 34) {
    const inner = parseJson(trimmed)
    if (inner.ok && typeof inner.value === 'string' && inner.value !== trimmed) {
      for (const k of kinds) {
        if (k === 'null') continue
        const v = convert(k, inner.value.trim())
        if (v) return v
      }
    }
  }
  return { value: text }
}

/** Strip exactly one leading and one trailing newline (`\n` or `\r\n`), as vLLM and llama.cpp do for Seed-OSS. */
export function stripOneNewline(text: string): string {
  let s = 0
  let e = text.length
  if (text.startsWith('\r\n')) s = 2
  else if (text.startsWith('\n')) s = 1
  if (e - s >= 2 && text.endsWith('\r\n')) e -= 2
  else if (e - s >= 1 && text.endsWith('\n')) e -= 1
  return text.slice(s, e)
}

/**
 * Collects one call's typed arguments: keys in order (a repeated key keeps its last value), `__proto__` as an own
 * key, and float paths prefixed by their key.
 */
export class ArgumentsBuilder {
  private readonly args: Record<string, unknown> = {}
  private readonly floatPaths: string[] = []
  private readonly schemas: Record<string, JsonSchema> | undefined

  constructor(name: string, options: ParseOptions) {
    this.schemas = parameterSchemas(options.tools, name)
  }

  /** The schema of a parameter of this tool, if known. */
  schemaOf(key: string): JsonSchema | undefined {
    const s = this.schemas?.[key]
    return s && typeof s === 'object' ? s : undefined
  }

  /** Add a raw text value, typed by the parameter's schema. */
  addText(key: string, text: string): void {
    this.add(key, typeValue(text, this.schemaOf(key)))
  }

  /** Add an already typed value. A repeated key keeps its last value. */
  add(key: string, typed: TypedValue): void {
    // The key's pointer is needed only where float paths are (most values have none).
    if (this.floatPaths.length > 0 && Object.prototype.hasOwnProperty.call(this.args, key)) {
      const prefix = toPointer([key])
      const kept = this.floatPaths.filter((p) => p !== prefix && !p.startsWith(prefix + '/'))
      this.floatPaths.length = 0
      this.floatPaths.push(...kept)
    }
    setOwn(this.args, key, typed.value)
    if (typed.floatPaths && typed.floatPaths.length > 0) {
      const prefix = toPointer([key])
      for (const p of typed.floatPaths) this.floatPaths.push(prefix + p)
    }
  }

  /** The parameters the tool declares that no value was added for (none when the tool is not known). */
  missing(): string[] {
    if (!this.schemas) return []
    return Object.keys(this.schemas).filter((k) => !Object.prototype.hasOwnProperty.call(this.args, k))
  }

  result(): DecodedArguments {
    return decodeArguments(this.args, this.floatPaths.length > 0 ? this.floatPaths : undefined)
  }
}

/** How XML-style formats write a value back: strings verbatim, everything else as JSON. */
export function renderRawValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value) ?? 'null'
}
