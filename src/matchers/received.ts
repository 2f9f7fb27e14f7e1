/**
 * What the matchers accept as `received`. How calls are shown is calls/format.ts (the reporter shows them too).
 */
import { isPlainObject } from '../calls/call-object.js'
import { parseToolCalls } from '../calls/index.js'
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

