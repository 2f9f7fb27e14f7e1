/**
 * Checking a call's arguments against its tool's parameter schema with ajv. Tool schemas come in two dialects: JSON
 * Schema (OpenAI tools) and BFCL's, whose types are Python's (`dict`, `float`, `tuple`, `any`); BFCL's are mapped to
 * JSON Schema first. Compiled validators are cached: a dataset repeats the same few tools on every sample.
 */
import { Ajv, type ValidateFunction } from 'ajv'
import { isPlainObject } from '../calls/call-object.js'
import type { JsonSchema, ToolCall, ToolDefinition } from '../calls/types.js'

/** BFCL / Python type names and their JSON Schema equivalents; JSON Schema's own names map to themselves. */
const TYPE_MAP: Readonly<Record<string, string>> = {
  string: 'string',
  integer: 'integer',
  number: 'number',
  boolean: 'boolean',
  array: 'array',
  object: 'object',
  null: 'null',
  dict: 'object',
  float: 'number',
  tuple: 'array',
}

/** Keywords whose value is one subschema, a map of subschemas, or a list of subschemas. */
const ONE_SCHEMA = ['items', 'additionalProperties', 'not', 'contains', 'propertyNames', 'if', 'then', 'else']
const SCHEMA_MAP = ['properties', 'patternProperties', '$defs', 'definitions']
const SCHEMA_LIST = ['anyOf', 'oneOf', 'allOf', 'prefixItems']

/** Schemas are configuration, not model output, but a guard keeps a pathological one from overflowing the stack. */
const MAX_SCHEMA_DEPTH = 64

/**
 * A JSON Schema from a tool's parameters in either dialect. Type names that are neither JSON Schema's nor BFCL's
 * Python ones (`any`, and the Java / JavaScript type names of BFCL's java and javascript categories, whose values
 * are source-code strings) put no constraint on the type.
 */
export function toJsonSchema(schema: unknown, depth = 0): Record<string, unknown> {
  if (!isPlainObject(schema) || depth > MAX_SCHEMA_DEPTH) return {}
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'type') {
      const t = mapType(value)
      if (t !== undefined) out['type'] = t
    } else if (key === 'required') {
      if (Array.isArray(value) && value.every((v) => typeof v === 'string')) out['required'] = value
    } else if (ONE_SCHEMA.includes(key)) {
      // BFCL writes tuple items as a list of schemas.
      if (key === 'items' && Array.isArray(value)) out['prefixItems'] = value.map((v) => toJsonSchema(v, depth + 1))
      else if (typeof value === 'boolean') out[key] = value
      else out[key] = toJsonSchema(value, depth + 1)
    } else if (SCHEMA_MAP.includes(key)) {
      if (!isPlainObject(value)) continue
      const m: Record<string, unknown> = {}
      for (const [k, v] of Object.entries(value)) m[k] = toJsonSchema(v, depth + 1)
      out[key] = m
    } else if (SCHEMA_LIST.includes(key)) {
      if (Array.isArray(value)) out[key] = value.map((v) => toJsonSchema(v, depth + 1))
    } else {
      out[key] = value
    }
  }
  return out
}

function mapType(value: unknown): string | string[] | undefined {
  if (typeof value === 'string') return TYPE_MAP[value]
  if (Array.isArray(value)) {
    const mapped: string[] = []
    for (const v of value) {
      const t = typeof v === 'string' ? TYPE_MAP[v] : undefined
      if (t === undefined) return undefined // one unconstrained member makes the union unconstrained
      if (!mapped.includes(t)) mapped.push(t)
    }
    return mapped
  }
  return undefined
}

// strict: false: tool schemas carry keywords ajv does not know (BFCL's `optional`, vendor extensions); formats are
// descriptive there, not constraints.
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false })

const byObject = new WeakMap<object, ValidateFunction>()
const byText = new Map<string, ValidateFunction>()
/** Distinct schemas kept compiled; past this the text cache starts over (a dataset has a handful of tools). */
const MAX_CACHED = 2000

/** A cached compiled validator for a tool's `parameters` (any dialect); `undefined` parameters accept any object. */
export function validatorFor(parameters: JsonSchema | undefined): ValidateFunction {
  const params: object = parameters ?? {}
  const cached = byObject.get(params)
  if (cached) return cached
  const schema = toJsonSchema(params)
  // A parameters schema with no type describes the arguments object.
  if (schema['type'] === undefined && (schema['properties'] !== undefined || Object.keys(schema).length === 0)) {
    schema['type'] = 'object'
  }
  const key = JSON.stringify(schema)
  let validate = byText.get(key)
  if (!validate) {
    try {
      validate = ajv.compile(schema)
    } catch (err) {
      const reason = `the tool schema does not compile: ${(err as Error).message}`
      validate = Object.assign(() => false, { errors: [{ message: reason }] }) as unknown as ValidateFunction
    }
    if (byText.size >= MAX_CACHED) byText.clear()
    byText.set(key, validate)
  }
  byObject.set(params, validate)
  return validate
}

/** What is wrong with one call against the tools on offer; [] when nothing is. */
export function argumentProblems(call: ToolCall, tools: readonly ToolDefinition[]): string[] {
  const tool = tools.find((t) => t.function.name === call.name)
  if (!tool) return [`no tool named "${call.name}" is on offer`]
  if (!call.argumentsValid) return ['the arguments are not a well-formed object']
  const validate = validatorFor(tool.function.parameters)
  if (validate(call.arguments)) return []
  return (validate.errors ?? []).map((e) => {
    const at = (e as { instancePath?: string }).instancePath
    return `${at ? at : '(arguments)'} ${e.message ?? 'is invalid'}`
  })
}
