/** GigaChat's JSON call after a marker, shared by GigaChat 3 and 3.1. */
import { decodeArguments, isPlainObject, makeCall, subPaths, unreadMember } from './call-object.js'
import { parseJsonAt } from './json.js'
import type { ToolCall } from './types.js'
import { ForwardSearch, forEachMarkerRegion } from './scan.js'
import { unreadTail, unreadText } from './unread.js'

/**
 * The strict GigaChat call object at `start` (JSON read up to `limit`), or undefined. Shared with GigaChat 3.1.
 */
export function strictCallAt(text: string, start: number, limit: number, format: string, close?: ForwardSearch): ToolCall | undefined {
  const r = parseJsonAt(text, start, limit)
  if (!r.ok || !isPlainObject(r.value)) return undefined
  const { name } = r.value
  if (typeof name !== 'string' || name.length === 0 || !('arguments' in r.value)) return undefined
  const args = decodeArguments(r.value['arguments'], subPaths(r.floatPaths, '/arguments'))
  if (!args.argumentsValid) return undefined
  const call = makeCall(name, args, format, text.slice(start, r.end).trim())
  // `arguments` and `name` are all it reads: any other member is unread; so is text after the object.
  const unread = unreadMember(r.value, 'arguments')
  if (unread !== undefined) unreadText([call], `the call object has a member the format does not read: ${JSON.stringify(unread)}`)
  return unreadTail([call], text, r.end, limit, close)[0]
}

/**
 * Every strict call object that follows an occurrence of `marker`; each JSON is read up to the next marker, and
 * `close` (GigaChat 3's `</s>`) may end it.
 */
export function strictCallsAfter(text: string, marker: string, format: string, close?: string): ToolCall[] {
  const calls: ToolCall[] = []
  const closes = close === undefined ? undefined : new ForwardSearch(text, close)
  forEachMarkerRegion(text, marker, (start, limit) => {
    const call = strictCallAt(text, start, limit, format, closes)
    if (call) calls.push(call)
  })
  return calls
}
