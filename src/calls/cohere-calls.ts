/** Cohere's action objects (`tool_name`, `parameters`), shared by Command R7B and Command R+. */
import { decodeArguments, isPlainObject, makeCall, subPaths, unreadMember, unreadMemberArguments } from './call-object.js'
import type { ToolCall } from './types.js'
import { type JsonItem } from './json-blocks.js'

/** A Cohere action object (`tool_name` + `parameters`; `name` + `arguments` accepted too), or undefined. */
export function cohereCall(it: JsonItem, format: string): ToolCall | undefined {
  const obj = it.value
  if (!isPlainObject(obj)) return undefined
  const nameKey = typeof obj['tool_name'] === 'string' ? 'tool_name' : 'name'
  const name = obj[nameKey]
  if (typeof name !== 'string' || name.length === 0) return undefined
  const key = 'parameters' in obj ? 'parameters' : 'arguments' in obj ? 'arguments' : undefined
  const unread = unreadMember(obj, key, nameKey, ['tool_call_id'])
  const args =
    unread !== undefined
      ? unreadMemberArguments(unread)
      : key === undefined
        ? { arguments: {}, argumentsValid: true }
        : decodeArguments(obj[key], subPaths(it.floatPaths, '/' + key))
  const rawId = obj['tool_call_id']
  const id = typeof rawId === 'string' ? rawId : typeof rawId === 'number' ? String(rawId) : undefined
  return makeCall(name, args, format, it.raw, id)
}
