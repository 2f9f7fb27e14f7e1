/**
 * DeepFabric-style schema metrics (REFERENCE.md section 4): the first predicted call against the first expected one.
 *
 * - tool_selection: same name (and, when no call is expected, no call made);
 * - parameter_accuracy: for a tool on offer, the schema only: every required parameter present and every given
 *   parameter of its declared JSON Schema type (an integer is a number, a boolean is not; nullable unions such as
 *   `["string", "null"]` accept either; parameters outside the schema are tolerated, as DeepFabric does). For a tool
 *   not on offer, the values are compared instead (strings case-insensitively, numbers within 1e-6);
 * - execution_success: both of the above (nothing is executed);
 * - overall: 0.40 / 0.35 / 0.25 weighted (configurable).
 *
 * Deliberate differences from DeepFabric: a nullable union or a missing `type` does not crash or fail the sample; a
 * sample that rightly makes no call scores 1 on every metric; a call with malformed arguments has no valid
 * parameters. Aggregation sums counts, so sharded runs merge exactly.
 */
import type { JsonSchema, ToolCall, ToolDefinition } from '../calls/types.js'
import type { ExpectedCall } from './types.js'
import { isPlainObject } from '../calls/call-object.js'
import { parseJson } from '../calls/json.js'

export const SCHEMA_METRICS = ['tool_selection', 'parameter_accuracy', 'execution_success'] as const
export type SchemaMetric = (typeof SCHEMA_METRICS)[number]

export type SchemaWeights = Record<SchemaMetric, number>

export const DEFAULT_SCHEMA_WEIGHTS: Readonly<SchemaWeights> = Object.freeze({
  tool_selection: 0.4,
  parameter_accuracy: 0.35,
  execution_success: 0.25,
})

export interface SchemaSampleMetrics {
  tool_selection: boolean
  parameter_accuracy: boolean
  execution_success: boolean
  /** The weighted sum of the three (1 or 0 each). */
  overall: number
  /** What was wrong, for messages: `unknown tool`, `missing required parameter 'city'`, ... */
  problems: string[]
}

export interface SchemaOptions {
  weights?: Partial<SchemaWeights>
}

function weightsOf(options: SchemaOptions): SchemaWeights {
  return { ...DEFAULT_SCHEMA_WEIGHTS, ...options.weights }
}

function overallOf(m: Record<SchemaMetric, boolean | number>, w: SchemaWeights): number {
  return SCHEMA_METRICS.reduce((sum, k) => sum + Number(m[k]) * w[k], 0)
}

/** The parameter schema of the tool named `name`, if it is on offer (OpenAI-style tools, or bare functions). */
function toolSchema(tools: readonly ToolDefinition[], name: string): JsonSchema | undefined {
  for (const t of tools) {
    const fn = (isPlainObject(t) && isPlainObject(t.function) ? t.function : t) as unknown as ToolDefinition['function']
    if (fn?.name === name) return isPlainObject(fn.parameters) ? fn.parameters : {}
  }
  return undefined
}

// BFCL's type names, so its schemas (dict, float, tuple, any) check the same way.
const TYPE_ALIASES: Record<string, string> = { dict: 'object', float: 'number', tuple: 'array', any: 'any' }

/** Whether `value` is of a JSON Schema type; `isFloat` marks a number written as a float (`3.0` is not an integer). */
export function matchesJsonType(type: unknown, value: unknown, isFloat = false): boolean {
  if (Array.isArray(type)) return type.length === 0 || type.some((t) => matchesJsonType(t, value, isFloat))
  if (typeof type !== 'string') return true // no type: anything goes (JSON Schema)
  switch (TYPE_ALIASES[type] ?? type) {
    case 'string':
      return typeof value === 'string'
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value) && !isFloat
    case 'number':
      return typeof value === 'number'
    case 'boolean':
      return typeof value === 'boolean'
    case 'array':
      return Array.isArray(value)
    case 'object':
      return isPlainObject(value)
    case 'null':
      return value === null
    case 'any':
      return true
    default:
      return false // an unknown type name matches nothing, as in DeepFabric
  }
}

function schemaProblems(call: ToolCall, schema: JsonSchema): string[] {
  const problems: string[] = []
  const args = call.arguments
  const properties = isPlainObject(schema.properties) ? schema.properties : {}
  for (const r of Array.isArray(schema.required) ? schema.required : []) {
    if (!Object.hasOwn(args, r)) problems.push(`missing required parameter '${r}'`)
  }
  const floats = new Set(call.floatPaths ?? [])
  for (const [k, v] of Object.entries(args)) {
    const p = properties[k]
    if (!isPlainObject(p)) continue // outside the schema: tolerated
    const pointer = '/' + k.replace(/~/g, '~0').replace(/\//g, '~1')
    if (!matchesJsonType(p['type'], v, floats.has(pointer))) {
      problems.push(`parameter '${k}' is not of type ${JSON.stringify(p['type'])}`)
    }
  }
  return problems
}

function expectedArgs(e: ExpectedCall): Record<string, unknown> {
  const a = e.arguments
  if (typeof a === 'string') {
    const r = parseJson(a)
    return r.ok && isPlainObject(r.value) ? r.value : {}
  }
  return a ?? {}
}

/** DeepFabric's value comparison for tools it has no schema for. */
function valuesMatch(expected: unknown, predicted: unknown): boolean {
  if (typeof expected === 'string' && typeof predicted === 'string') {
    return expected.trim().toLowerCase() === predicted.trim().toLowerCase()
  }
  if (typeof expected === 'number' && typeof predicted === 'number') return Math.abs(expected - predicted) <= 1e-6
  return deepEqual(expected, predicted)
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]))
  if (isPlainObject(a) && isPlainObject(b)) {
    const ka = Object.keys(a)
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]))
  }
  return false
}

function argumentsMatch(expected: Record<string, unknown>, predicted: Record<string, unknown>): boolean {
  const ke = Object.keys(expected)
  if (ke.length !== Object.keys(predicted).length || !ke.every((k) => Object.hasOwn(predicted, k))) return false
  return ke.every((k) => valuesMatch(expected[k], predicted[k]))
}

/** The schema metrics of one sample. `tools`: the tools on offer (their parameter schemas are what is checked). */
export function schemaMetrics(
  calls: readonly ToolCall[],
  expected: readonly ExpectedCall[],
  tools: readonly ToolDefinition[] = [],
  options: SchemaOptions = {},
): SchemaSampleMetrics {
  const w = weightsOf(options)
  const call = calls[0]
  const want = expected[0]
  const result = (tool_selection: boolean, parameter_accuracy: boolean, problems: string[]): SchemaSampleMetrics => {
    const m = { tool_selection, parameter_accuracy, execution_success: tool_selection && parameter_accuracy }
    return { ...m, overall: overallOf(m, w), problems }
  }
  if (call === undefined) return want === undefined ? result(true, true, []) : result(false, false, ['no call'])
  const problems: string[] = []
  const selected = want !== undefined && call.name === want.name
  if (want === undefined) problems.push('a call where none was expected')
  else if (!selected) problems.push(`called ${call.name || '<no name>'} instead of ${want.name}`)

  let paramsOk: boolean
  if (!call.argumentsValid) {
    problems.push('malformed arguments')
    paramsOk = false
  } else {
    const wantArgs = want === undefined ? {} : expectedArgs(want)
    const schema = toolSchema(tools, call.name)
    if (Object.keys(wantArgs).length === 0 && Object.keys(call.arguments).length === 0) paramsOk = true
    else if (schema !== undefined) {
      const p = schemaProblems(call, schema)
      problems.push(...p)
      paramsOk = p.length === 0
    } else {
      paramsOk = want !== undefined && argumentsMatch(wantArgs, call.arguments)
      if (!paramsOk) problems.push(`unknown tool ${call.name || '<no name>'}, and its arguments differ from the expected ones`)
    }
  }
  return result(selected, paramsOk, problems)
}
