/** GigaChat's JSON call after a marker, shared by GigaChat 3 and 3.1. */
import { decodeArguments, isPlainObject, makeCall, subPaths } from './call-object.js'
import { parseJsonAt } from './json.js'
import type { ToolCall } from './types.js'
import { forEachMarkerRegion } from './scan.js'

/**
 * The strict GigaChat call object at `start` (JSON read up to `limit`), or undefined. Shared with GigaChat 3.1.
 */
export function strictCallAt(text: string, start: number, limit: number, format: string): ToolCall | undefined {
  const r = parseJsonAt(text, start, limit)
  if (!r.ok || !isPlainObject(r.value)) return undefined
  const { name } = r.value
  if (typeof name !== 'string' || name.length === 0 || !('arguments' in r.value)) return undefined
  const args = decodeArguments(r.value['arguments'], subPaths(r.floatPaths, '/arguments'))
  if (!args.argumentsValid) return undefined
  return makeCall(name, args, format, text.slice(start, r.end).trim())
}

/** Every strict call object that follows an occurrence of `marker`; each JSON is read up to the next marker. */
export function strictCallsAfter(text: string, marker: string, format: string): ToolCall[] {
  const calls: ToolCall[] = []
  forEachMarkerRegion(text, marker, (start, limit) => {
    const call = strictCallAt(text, start, limit, format)
    if (call) calls.push(call)
  })
  return calls
}
