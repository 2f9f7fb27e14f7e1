/**
 * The BFCL checker for one eval sample: a model's calls (ToolCalls from any wire format, or a raw BFCL result)
 * against a BFCL possible answer. This is what the `toMatchBfclAnswer` matcher and an eval's per-sample scorer use.
 */
import type { JsonValue, ToolCall } from '../../calls/types.js'
import { isPlainObject } from '../../calls/call-object.js'
import { categoryInfo, unsupportedReason } from './categories.js'
import type { BfclFunction } from './checker.js'
import { decodeResult, type DecodeResult } from './decode.js'
import { fromJson, type PyValue } from '../../python/operations.js'
import { scoreDecoded, type BfclScoreOptions, type BfclVerdict } from './score.js'

/**
 * A BFCL possible answer as it travels with an eval sample (`sample.bfcl`): plain JSON, with the JSON Pointers
 * of its integral floats so that `[1.0, 3.0]` stays a list of floats.
 */
export interface BfclAnswer {
  /** BFCL category (`simple_python`, `live_multiple`, ...). Inferred from the answer when absent. */
  category?: string
  /** `ground_truth`: `[{name: {param: [acceptable values]}}]`; `[]` or absent when no call is expected. */
  ground_truth?: readonly unknown[]
  /** JSON Pointers (relative to `ground_truth`) of integral floats. */
  floatPaths?: readonly string[]
  /** The functions on offer: BFCL descriptions, or OpenAI-style tools (their JSON Schema types are mapped). */
  functions: readonly unknown[]
  /**
   * The model saw dotted names with underscores (BFCL's function-calling tools): a called `math_factorial` is
   * `math.factorial` when the functions have that name and not this one.
   */
  underscoreToDot?: boolean
}

/**
 * What may be checked: ToolCalls, or a raw BFCL result as plain JSON (a list of `{name: "json args"}`, or a
 * Python-syntax string).
 */
export type BfclReceived = readonly ToolCall[] | unknown

// JSON Schema type names as BFCL's: the leaderboard's own mapping, reversed where it is ambiguous.
const FROM_JSON_SCHEMA: Record<string, string> = { object: 'dict', number: 'float' }

/** BFCL function descriptions from BFCL descriptions or OpenAI-style tools. */
export function bfclFunctions(functions: readonly unknown[]): BfclFunction[] {
  return functions.map((f) => {
    const fn = isPlainObject(f) && isPlainObject(f['function']) ? f['function'] : f
    if (!isPlainObject(fn) || typeof fn['name'] !== 'string') return { name: '', parameters: { properties: {} } }
    const params = isPlainObject(fn['parameters']) ? fn['parameters'] : {}
    const props = isPlainObject(params['properties']) ? params['properties'] : {}
    const properties: Record<string, BfclFunction['parameters']['properties'][string]> = {}
    for (const [k, p] of Object.entries(props)) {
      if (!isPlainObject(p)) continue
      const copy: Record<string, unknown> = { ...p }
      if (typeof p['type'] === 'string') copy['type'] = FROM_JSON_SCHEMA[p['type']] ?? p['type']
      if (isPlainObject(p['items']) && typeof p['items']['type'] === 'string') {
        copy['items'] = { ...p['items'], type: FROM_JSON_SCHEMA[p['items']['type']] ?? p['items']['type'] }
      }
      properties[k] = copy as BfclFunction['parameters']['properties'][string]
    }
    const required = Array.isArray(params['required']) ? params['required'].filter((r): r is string => typeof r === 'string') : []
    return { ...fn, name: fn['name'], parameters: { ...params, properties, required } } as BfclFunction
  })
}

function isToolCallList(v: unknown): v is readonly ToolCall[] {
  return Array.isArray(v) && v.every((c) => isPlainObject(c) && typeof c['name'] === 'string' && 'argumentsValid' in c)
}

/**
 * ToolCalls in the decoded form the checker takes. A call whose arguments were not a well-formed object fails
 * decoding, as the leaderboard's JSON decoding of that call would.
 */
export function decodeToolCalls(calls: readonly ToolCall[]): DecodeResult {
  const decoded: PyValue[] = []
  for (let i = 0; i < calls.length; i++) {
    const c = calls[i]!
    if (!c.argumentsValid) {
      return { ok: false, format: 'function-calling', error: `call ${i} (${c.name || 'no name'}): arguments are not a well-formed object` }
    }
    const args = fromJson(c.arguments as JsonValue, c.floatPaths)
    if (args === undefined) return { ok: false, format: 'function-calling', error: `call ${i}: arguments nested too deeply` }
    decoded.push(new Map([[c.name, args]]))
  }
  return { ok: true, format: 'function-calling', decoded }
}

/** A raw BFCL result given as plain JSON (or already as PyValues). */
function decodeRaw(received: unknown, options: BfclScoreOptions): DecodeResult {
  if (typeof received === 'string') return decodeResult(received, options)
  if (received instanceof Map || (Array.isArray(received) && received.some((x) => x instanceof Map))) {
    return decodeResult(received as PyValue, options) // already PyValues
  }
  const py = fromJson(received as JsonValue)
  if (py === undefined) return { ok: false, format: 'function-calling', error: 'result nested too deeply' }
  return decodeResult(py, options)
}

/** Calls to a dotted function by its underscored name, renamed back (only where no function has the called name). */
function dottedNames(decoded: DecodeResult, functions: readonly BfclFunction[]): DecodeResult {
  if (!decoded.ok) return decoded
  const names = new Set(functions.map((f) => f.name))
  const back = new Map(functions.filter((f) => f.name.includes('.')).map((f) => [f.name.replace(/\./g, '_'), f.name]))
  const rename = (v: PyValue): PyValue => {
    if (!(v instanceof Map)) return v
    return new Map([...v].map(([k, x]) => [typeof k === 'string' && !names.has(k) && back.has(k) ? back.get(k)! : k, x]))
  }
  return { ...decoded, decoded: decoded.decoded.map(rename) }
}

/** The category the leaderboard would file this answer under, when none is given. */
function inferCategory(answers: readonly PyValue[], functions: readonly BfclFunction[]): string {
  if (answers.length === 0) return 'irrelevance'
  if (answers.length > 1) return 'parallel_multiple'
  return functions.length === 1 ? 'simple_python' : 'multiple'
}

/**
 * Check a model's calls against a BFCL answer with the leaderboard's rules. `received` is ToolCalls (any wire
 * format, as `parseToolCalls` gives them) or a raw BFCL result (a list of `{name: "json args"}`, or Python call
 * syntax as a string). Never throws.
 */
export function checkBfclAnswer(received: BfclReceived, answer: BfclAnswer, options: BfclScoreOptions = {}): BfclVerdict {
  const functions = bfclFunctions(answer.functions)
  const gt = fromJson((answer.ground_truth ?? []) as JsonValue, answer.floatPaths as string[] | undefined)
  const groundTruth = Array.isArray(gt) ? gt : []
  const category = answer.category ?? inferCategory(groundTruth, functions)
  const unsupported = unsupportedReason(category)
  if (unsupported !== undefined) {
    return { id: '', valid: false, error: [unsupported], error_type: 'unsupported_category', format: 'function-calling' }
  }
  let decoded = isToolCallList(received) ? decodeToolCalls(received) : decodeRaw(received, options)
  if (answer.underscoreToDot === true && options.underscoreToDot !== true) decoded = dottedNames(decoded, functions)
  const info = categoryInfo(category)
  return scoreDecoded({ category, id: '', functions, groundTruth: info.kind === 'ast' ? groundTruth : undefined }, decoded, options)
}
