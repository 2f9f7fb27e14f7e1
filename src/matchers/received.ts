/**
 * What the matchers accept as `received`, and how calls are shown in their messages.
 */
import { isPlainObject } from '../calls/call-object.js'
import { parseToolCalls } from '../calls/index.js'
import { parseJson } from '../calls/json.js'
import type { ToolCall } from '../calls/types.js'

/**
 * The calls in `received`: a raw output string (parsed with `parseToolCalls`), a ToolCall list, one ToolCall, or an
 * object carrying `calls` (an eval result, a ModelOutput) or only `text` (a ModelOutput to parse). `undefined` when
 * it is none of these.
 */
export function receivedCalls(received: unknown): ToolCall[] | undefined {
  if (typeof received === 'string') return parseToolCalls(received)
  if (Array.isArray(received)) return received.every(isCallLike) ? (received as ToolCall[]) : undefined
  if (!isPlainObject(received)) return undefined
  if (Array.isArray(received['calls'])) return receivedCalls(received['calls'])
  if (typeof received['text'] === 'string') {
    return parseToolCalls(received['text'], typeof received['format'] === 'string' ? { format: received['format'] } : {})
  }
  if (isCallLike(received)) return [received as unknown as ToolCall]
  return undefined
}

function isCallLike(v: unknown): boolean {
  return isPlainObject(v) && typeof v['name'] === 'string'
}

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
