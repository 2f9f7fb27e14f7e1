/**
 * DeepFabric-style schema metrics: the first predicted call against the first expected one.
 *
 * - tool_selection: same name;
 * - parameter_accuracy: for a tool on offer, the schema only: every required parameter present and every given
 *   parameter of its declared type (parameters outside the schema are tolerated). For a tool not on offer, the values
 *   are compared instead (strings case-insensitively, numbers within 1e-6);
 * - execution_success: both of the above (nothing is executed);
 * - overall: 0.40 / 0.35 / 0.25 weighted (configurable; weights left out count as 0, as in DeepFabric).
 *
 * Two readings (`semantics`):
 * - 'deepfabric' (default): DeepFabric's own numbers (always-further/deepfabric, single-turn `Evaluator`), sample by
 *   sample: a sample expecting no call scores 0; types go through DeepFabric's type table; calls whose arguments
 *   are not a JSON object are dropped; samples DeepFabric rejects get its error score (0) and samples it crashes on
 *   (union types) are scored with unions read as any member; both are marked (`deepfabric`) and counted.
 * - 'jsonschema': our corrections: a right abstention scores 1, an unexpected call gets partial credit, types are
 *   read as JSON Schema (and BFCL's names) with unions, and a call with malformed arguments is kept (wrong arguments).
 * Aggregation sums counts, so sharded runs merge exactly.
 */
import type { JsonSchema, ToolCall, ToolDefinition } from '../calls/types.js'
import type { ExpectedCall } from './types.js'
import { isPlainObject } from '../calls/call-object.js'
import { parseJson } from '../calls/json.js'
import {
  deepFabricValuesMatch,
  describeTypeProblem,
  expectedCallsRejection,
  matchesDeepFabricType,
  readDeepFabricTools,
  type DeepFabricTool,
} from './schema-deepfabric.js'

export const SCHEMA_METRICS = ['tool_selection', 'parameter_accuracy', 'execution_success'] as const
export type SchemaMetric = (typeof SCHEMA_METRICS)[number]

export type SchemaWeights = Record<SchemaMetric, number>

export const DEFAULT_SCHEMA_WEIGHTS: Readonly<SchemaWeights> = Object.freeze({
  tool_selection: 0.4,
  parameter_accuracy: 0.35,
  execution_success: 0.25,
})

/** Which reading the metrics follow (see the module comment). */
export const SCHEMA_SEMANTICS = ['deepfabric', 'jsonschema'] as const
export type SchemaSemantics = (typeof SCHEMA_SEMANTICS)[number]

/** How DeepFabric itself fails on a sample: `rejected` (its error score, 0) or `crashed` (its whole run stops). */
export type DeepFabricOutcome = 'rejected' | 'crashed'

export interface SchemaSampleMetrics {
  tool_selection: boolean
  parameter_accuracy: boolean
  execution_success: boolean
  /** The weighted sum of the three (1 or 0 each). */
  overall: number
  /** What was wrong, for messages: `unknown tool`, `missing required parameter 'city'`, ... */
  problems: string[]
  /** With `semantics: 'deepfabric'`: DeepFabric would not score this sample (see DeepFabricOutcome). */
  deepfabric?: DeepFabricOutcome
}

export interface SchemaOptions {
  /** Weights of the overall; those left out count as 0 (DeepFabric's rule). Non-negative, summing to at most 1. */
  weights?: Partial<SchemaWeights>
  /** Default 'deepfabric'. */
  semantics?: SchemaSemantics
}

/** Throws a clear error for options that would give no meaningful score (the overall must stay within [0, 1]). */
export function checkSchemaOptions(options: SchemaOptions): void {
  weightsOf(options)
  semanticsOf(options)
}

function semanticsOf(options: SchemaOptions): SchemaSemantics {
  const s = options.semantics ?? 'deepfabric'
  if (!SCHEMA_SEMANTICS.includes(s)) {
    throw new Error(`schema.semantics must be one of ${SCHEMA_SEMANTICS.map((x) => `'${x}'`).join(', ')}, not ${JSON.stringify(s)}`)
  }
  return s
}

function weightsOf(options: SchemaOptions): SchemaWeights {
  if (options.weights === undefined) return { ...DEFAULT_SCHEMA_WEIGHTS }
  const w = { tool_selection: 0, parameter_accuracy: 0, execution_success: 0 }
  for (const [k, v] of Object.entries(options.weights)) {
    if (!(SCHEMA_METRICS as readonly string[]).includes(k)) {
      throw new Error(`schema.weights.${k} is not a schema metric (${SCHEMA_METRICS.join(', ')})`)
    }
    if (v === undefined) continue
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new Error(`schema.weights.${k} must be a number >= 0, not ${JSON.stringify(v)}`)
    w[k as SchemaMetric] = v
  }
  const sum = SCHEMA_METRICS.reduce((t, k) => t + w[k], 0)
  if (sum > 1 + 1e-9) throw new Error(`schema.weights must sum to at most 1 (the overall is a share), not ${sum}`)
  return w
}

function overallOf(m: Record<SchemaMetric, boolean | number>, w: SchemaWeights): number {
  return Math.min(1, SCHEMA_METRICS.reduce((sum, k) => sum + Number(m[k]) * w[k], 0))
}

/** The parameter schema of the tool named `name`, if it is on offer (tools as data/tools.ts normalises them). */
function toolSchema(tools: readonly ToolDefinition[], name: string): JsonSchema | undefined {
  for (const t of tools) {
    if (t.function?.name === name) return isPlainObject(t.function.parameters) ? t.function.parameters : {}
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

type Scored = (tool_selection: boolean, parameter_accuracy: boolean, problems: string[]) => SchemaSampleMetrics

function scorer(w: SchemaWeights): Scored {
  return (tool_selection, parameter_accuracy, problems) => {
    const m = { tool_selection, parameter_accuracy, execution_success: tool_selection && parameter_accuracy }
    return { ...m, overall: overallOf(m, w), problems }
  }
}

/**
 * The schema metrics of one sample. `tools`: the tools on offer (their parameter schemas are what is checked).
 * Throws only for invalid `options` (see checkSchemaOptions).
 */
export function schemaMetrics(
  calls: readonly ToolCall[],
  expected: readonly ExpectedCall[],
  tools: readonly ToolDefinition[] = [],
  options: SchemaOptions = {},
): SchemaSampleMetrics {
  const result = scorer(weightsOf(options))
  return semanticsOf(options) === 'deepfabric'
    ? deepFabricMetrics(calls, expected, tools, result)
    : jsonSchemaMetrics(calls, expected, tools, result)
}

/** Our corrected reading (`semantics: 'jsonschema'`). */
function jsonSchemaMetrics(calls: readonly ToolCall[], expected: readonly ExpectedCall[], tools: readonly ToolDefinition[], result: Scored): SchemaSampleMetrics {
  const call = calls[0]
  const want = expected[0]
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

/** `_validate_parameter_types`: required ones present, given ones of their DeepFabric type, others tolerated. */
function deepFabricProblems(call: ToolCall, tool: DeepFabricTool): string[] {
  for (const [name, p] of tool.params) {
    if (p.required && !Object.hasOwn(call.arguments, name)) return [`missing required parameter '${name}'`]
  }
  const floats = new Set(call.floatPaths ?? [])
  for (const [k, v] of Object.entries(call.arguments)) {
    const p = tool.params.get(k)
    if (p === undefined) continue
    const isFloat = floats.has('/' + k.replace(/~/g, '~0').replace(/\//g, '~1'))
    if (!p.types.some((t) => matchesDeepFabricType(t, v, isFloat))) return [describeTypeProblem(k, p)]
  }
  return []
}

/** DeepFabric's reading (`semantics: 'deepfabric'`, the default): its numbers, sample by sample. */
function deepFabricMetrics(calls: readonly ToolCall[], expected: readonly ExpectedCall[], tools: readonly ToolDefinition[], result: Scored): SchemaSampleMetrics {
  const rejection = expectedCallsRejection(expected)
  if (rejection !== undefined) return { ...result(false, false, [`DeepFabric rejects this sample: ${rejection}`]), deepfabric: 'rejected' }
  const read = readDeepFabricTools(tools)
  if (read.fault?.outcome === 'rejected') return { ...result(false, false, [`DeepFabric rejects this sample: ${read.fault.reason}`]), deepfabric: 'rejected' }
  const crashed = (m: SchemaSampleMetrics): SchemaSampleMetrics =>
    read.fault ? { ...m, problems: [...m.problems, `DeepFabric crashes on this sample: ${read.fault.reason}`], deepfabric: 'crashed' } : m

  const want = expected[0]
  // DeepFabric scores only samples that expect a call: any other sample keeps 0 on every metric.
  if (want === undefined) return crashed(result(false, false, [calls.length ? 'a call where none was expected' : 'no call expected (DeepFabric scores 0)']))
  // Its parsers drop a call whose arguments are not a JSON object, or whose name is missing (our '' name); the
  // first call left is the one scored.
  const call = calls.find((c) => c.argumentsValid && c.name !== '')
  if (call === undefined) return crashed(result(false, false, [calls.length ? 'no call with object arguments' : 'no call']))
  const problems: string[] = []
  const selected = call.name === want.name
  if (!selected) problems.push(`called ${call.name || '<no name>'} instead of ${want.name}`)

  const wantArgs = expectedArgs(want)
  const tool = call.name ? read.tools.find((t) => t.name === call.name) : undefined
  let paramsOk: boolean
  if (Object.keys(wantArgs).length === 0 && Object.keys(call.arguments).length === 0) paramsOk = true
  else if (tool !== undefined) {
    const p = deepFabricProblems(call, tool)
    problems.push(...p)
    paramsOk = p.length === 0
  } else {
    paramsOk = deepFabricValuesMatch(wantArgs, call.arguments)
    if (!paramsOk) problems.push(`unknown tool ${call.name || '<no name>'}, and its arguments differ from the expected ones`)
  }
  return crashed(result(selected, paramsOk, problems))
}
