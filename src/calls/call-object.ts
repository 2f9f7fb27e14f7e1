/**
 * Turning a decoded call object (`{"name": ..., "arguments": ...}`) into a ToolCall, with NeMo's rules: the name
 * must be a non-empty string; arguments come from `arguments`, or from `parameters` when `arguments` is absent; an
 * object is used as is, a string is JSON-decoded and must give an object, anything else gives `{}` and marks the
 * arguments invalid.
 */
import { parseJson } from './json.js'
import type { ToolCall } from './types.js'

export interface DecodedArguments {
  arguments: Record<string, unknown>
  argumentsValid: boolean
  floatPaths?: string[]
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/**
 * Arguments from a decoded value. `floatPaths` are those of the enclosing JSON, already relative to this value
 * (see `subPaths`).
 */
export function decodeArguments(value: unknown, floatPaths?: string[]): DecodedArguments {
  if (isPlainObject(value)) return withFloatPaths({ arguments: value, argumentsValid: true }, floatPaths)
  if (typeof value === 'string') {
    const r = parseJson(value)
    if (r.ok && isPlainObject(r.value)) return withFloatPaths({ arguments: r.value, argumentsValid: true }, r.floatPaths)
  }
  return { arguments: {}, argumentsValid: false }
}

function withFloatPaths(d: DecodedArguments, floatPaths: string[] | undefined): DecodedArguments {
  if (floatPaths && floatPaths.length > 0) d.floatPaths = floatPaths
  return d
}

/** The float paths under `prefix` (a JSON Pointer), made relative to it. */
export function subPaths(floatPaths: string[] | undefined, prefix: string): string[] | undefined {
  if (!floatPaths) return undefined
  const out: string[] = []
  for (const p of floatPaths) {
    if (p.startsWith(prefix + '/')) out.push(p.slice(prefix.length))
  }
  return out.length > 0 ? out : undefined
}

/**
 * A ToolCall from a decoded `{"name", "arguments" | "parameters"}` object, or undefined when it is not one (no
 * non-empty string name). No `arguments`/`parameters` key means `{}`, valid. `floatPaths` are those of `obj` itself.
 */
export function callFromObject(
  obj: unknown,
  format: string,
  raw?: string,
  floatPaths?: string[],
): ToolCall | undefined {
  if (!isPlainObject(obj)) return undefined
  const name = obj['name']
  if (typeof name !== 'string' || name.length === 0) return undefined
  const key = 'arguments' in obj ? 'arguments' : 'parameters' in obj ? 'parameters' : undefined
  // No arguments at all is a call of a function without parameters (NeMo defaults to `{}`, valid).
  const args =
    key === undefined
      ? { arguments: {}, argumentsValid: true }
      : decodeArguments(obj[key], floatPaths ? subPaths(floatPaths, '/' + key) : undefined)
  return makeCall(name, args, format, raw, typeof obj['id'] === 'string' ? obj['id'] : undefined)
}

/** Assemble a ToolCall, leaving optional fields out when empty (keeps task meta and snapshots small). */
export function makeCall(name: string, args: DecodedArguments, format: string, raw?: string, id?: string): ToolCall {
  const call: ToolCall = { name, arguments: args.arguments, argumentsValid: args.argumentsValid, format }
  if (raw !== undefined) call.raw = raw
  if (id !== undefined) call.id = id
  if (args.floatPaths && args.floatPaths.length > 0) call.floatPaths = args.floatPaths
  return call
}
