/**
 * Turning a decoded call object (`{"name": ..., "arguments": ...}`) into a ToolCall, with NeMo's rules: the name
 * must be a non-empty string; arguments come from `arguments`, or from `parameters` when `arguments` is absent; an
 * object is used as is, a string is JSON-decoded and must give an object, anything else gives `{}` and marks the
 * arguments invalid.
 */
import { bigIntsIn } from './big-ints.js'
import { parseJson } from './json.js'
import type { ToolCall } from './types.js'

export interface DecodedArguments {
  arguments: Record<string, unknown>
  argumentsValid: boolean
  floatPaths?: string[]
  /** Set by `decodeArguments`: the nesting depth is already checked, so `makeCall` need not walk it again. */
  depthChecked?: true
  /** Why the arguments are invalid (copied to `ToolCall.argumentsError`). */
  error?: string
}

/**
 * Invalid arguments with the reason: a block holding text its format did not read (which may have held an argument)
 * is never a valid call with fewer arguments.
 */
export function invalidArguments(error: string): DecodedArguments {
  return { arguments: {}, argumentsValid: false, error }
}

/**
 * Members of a call object that are no argument: what an OpenAI-shaped call carries beside its name and arguments
 * (`id`, `type`, `index`; engines read or drop them, and neither can lose an argument).
 */
const NON_ARGUMENT_MEMBERS = new Set(['id', 'type', 'index'])

/**
 * The first member of a call object that the format does not read: neither its name (`nameKey`), the arguments it
 * reads (`argumentsKey`) nor a known non-argument member (`also`, `id`, `type`, `index`). A damaged arguments key
 * (`"argumnts"`), arguments written beside the arguments object, or a second arguments key (`argumentsKeys`) the
 * format did not read. Undefined when there is none.
 */
export function unreadMember(
  obj: Record<string, unknown>,
  argumentsKey: string | undefined,
  nameKey = 'name',
  also?: readonly string[],
): string | undefined {
  for (const k in obj) {
    if (k === nameKey || k === argumentsKey || NON_ARGUMENT_MEMBERS.has(k) || also?.includes(k)) continue
    return k
  }
  return undefined
}

/** `invalidArguments` for an unread member (see `unreadMember`). */
export function unreadMemberArguments(member: string): DecodedArguments {
  return invalidArguments(`the call object has a member the format does not read: ${JSON.stringify(member)}`)
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/**
 * The deepest nesting of objects and arrays an arguments value may have (the arguments object itself is level 1).
 * Deeper arguments make an invalid call (`argumentsValid` false, arguments `{}`): recursive consumers downstream
 * (`JSON.stringify`, `structuredClone`, deep equality) overflow the stack a few thousand levels down, and real
 * arguments are never more than a few levels deep.
 */
export const MAX_ARGUMENT_DEPTH = 512

/** Whether `value` nests objects and arrays at most `max` levels deep. Iterative, and stops at the first too-deep one. */
export function nestingWithin(value: unknown, max = MAX_ARGUMENT_DEPTH): boolean {
  if (typeof value !== 'object' || value === null) return true
  if (!holdsContainer(value)) return true // most arguments: no walk, no allocation
  const stack: unknown[] = [value]
  const depths: number[] = [1]
  while (stack.length > 0) {
    const v = stack.pop() as object
    const d = depths.pop()!
    if (d > max) return false
    const children = Array.isArray(v) ? v : Object.values(v)
    for (const c of children) {
      if (typeof c === 'object' && c !== null) {
        stack.push(c)
        depths.push(d + 1)
      }
    }
  }
  return true
}

// `setOwn` lives in the Python layer below, which builds objects from parsed keys too; the parser's helpers take it from here.
export { setOwn } from '../python/to-plain.js'

/** Whether an object or array has an object or array directly inside it. */
function holdsContainer(value: object): boolean {
  if (Array.isArray(value)) {
    for (const c of value) if (typeof c === 'object' && c !== null) return true
    return false
  }
  for (const k in value) {
    const c = (value as Record<string, unknown>)[k]
    if (typeof c === 'object' && c !== null) return true
  }
  return false
}

const INVALID: () => DecodedArguments = () => ({ arguments: {}, argumentsValid: false })

/**
 * Arguments from a decoded value. `floatPaths` are those of the enclosing JSON, already relative to this value
 * (see `subPaths`). `sourceLength`, when known, is the length of the text the value was decoded from: every level
 * of nesting takes a bracket there, so a source no longer than MAX_ARGUMENT_DEPTH needs no walk to check the depth.
 */
export function decodeArguments(value: unknown, floatPaths?: string[], sourceLength?: number): DecodedArguments {
  const shallow = sourceLength !== undefined && sourceLength <= MAX_ARGUMENT_DEPTH
  if (isPlainObject(value)) {
    return shallow || nestingWithin(value)
      ? withFloatPaths({ arguments: value, argumentsValid: true, depthChecked: true }, floatPaths)
      : INVALID()
  }
  if (typeof value === 'string') {
    const r = parseJson(value)
    if (r.ok && isPlainObject(r.value) && (shallow || nestingWithin(r.value))) {
      return withFloatPaths({ arguments: r.value, argumentsValid: true, depthChecked: true }, r.floatPaths)
    }
  }
  return INVALID()
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
 * A ToolCall from a decoded `{"name", "arguments" | "parameters"}` object (the name under `nameKey`), or undefined
 * when it is not one (no non-empty string name). No `arguments`/`parameters` key means `{}`, valid; a member the format does not read (see
 * `unreadMember`) makes the arguments invalid. `floatPaths` are those of `obj` itself.
 */
export function callFromObject(
  obj: unknown,
  format: string,
  raw?: string,
  floatPaths?: string[],
  nameKey = 'name',
): ToolCall | undefined {
  if (!isPlainObject(obj)) return undefined
  const name = obj[nameKey]
  if (typeof name !== 'string' || name.length === 0) return undefined
  const key = 'arguments' in obj ? 'arguments' : 'parameters' in obj ? 'parameters' : undefined
  // No arguments at all is a call of a function without parameters (NeMo defaults to `{}`, valid).
  const unread = unreadMember(obj, key, nameKey)
  const args =
    unread !== undefined
      ? unreadMemberArguments(unread)
      : key === undefined
        ? { arguments: {}, argumentsValid: true }
        : decodeArguments(obj[key], floatPaths ? subPaths(floatPaths, '/' + key) : undefined, raw?.length)
  return makeCall(name, args, format, raw, typeof obj['id'] === 'string' ? obj['id'] : undefined)
}

/**
 * Assemble a ToolCall, leaving optional fields out when empty (keeps task meta and snapshots small). Every format
 * builds its calls here, so this is where arguments nested past MAX_ARGUMENT_DEPTH become invalid.
 */
export function makeCall(name: string, args: DecodedArguments, format: string, raw?: string, id?: string): ToolCall {
  if (args.argumentsValid && !args.depthChecked && !nestingWithin(args.arguments)) args = INVALID()
  // With `raw` in the literal (same key order as adding it after): an added property would cost the object a second
  // allocation for its property store, per call.
  const call: ToolCall =
    raw !== undefined
      ? { name, arguments: args.arguments, argumentsValid: args.argumentsValid, format, raw }
      : { name, arguments: args.arguments, argumentsValid: args.argumentsValid, format }
  if (id !== undefined) call.id = id
  if (args.floatPaths && args.floatPaths.length > 0) call.floatPaths = args.floatPaths
  if (args.error !== undefined && !args.argumentsValid) call.argumentsError = args.error
  if (raw !== undefined && args.argumentsValid) {
    const big = bigIntsIn(args.arguments, raw)
    if (big) call.bigInts = big
  }
  return call
}
