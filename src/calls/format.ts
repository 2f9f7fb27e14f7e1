/**
 * How calls are shown: in matcher messages, the reporter's worst samples, annotations and summaries. One form
 * everywhere, so a call reads the same in a failing test and in the report.
 */
import { isPlainObject } from './call-object.js'
import { parseJson } from './json.js'
import type { ToolCall } from './types.js'

/** A call's arguments as an object: a ToolCall's own, or an expected call's (decoded when written as JSON text). */
export function argumentsOf(call: { arguments?: unknown }): Record<string, unknown> | undefined {
  const a = call.arguments
  if (a === undefined) return undefined
  if (isPlainObject(a)) return a
  if (typeof a === 'string') {
    const r = parseJson(a)
    if (r.ok && isPlainObject(r.value)) return r.value
  }
  return undefined
}

/** The part of a call worth showing in a diff: name and arguments, and the fact its arguments were malformed. */
export interface CallView {
  name: string
  arguments?: unknown
  argumentsValid?: false
}

export function callView(call: { name: string; arguments?: unknown; argumentsValid?: boolean }): CallView {
  const view: CallView = { name: call.name }
  if (call.arguments !== undefined) view.arguments = argumentsOf(call) ?? call.arguments
  if (call.argumentsValid === false) view.argumentsValid = false
  return view
}

/** `get_weather({"city":"Paris"})`: one short line per call, for lists and summaries. */
export function callLine(call: { name: string; arguments?: unknown; argumentsValid?: boolean }, max = 200): string {
  const args = call.argumentsValid === false ? '<malformed arguments>' : safeJson(argumentsOf(call) ?? call.arguments ?? {})
  const line = `${call.name || '<no name>'}(${args})`
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

/** The received calls as an indented list for failure messages. */
export function callList(calls: readonly ToolCall[]): string {
  if (calls.length === 0) return '  (no tool call)'
  return calls.map((c) => `  ${callLine(c)}`).join('\n')
}
