/**
 * Cohere Command R7B: `<|START_THINKING|>…<|END_THINKING|><|START_ACTION|>[{"tool_call_id": "0", "tool_name": ...,
 * "parameters": {...}}]<|END_ACTION|>`; content comes in `<|START_RESPONSE|>…<|END_RESPONSE|>`. `tool_call_id` is the
 * call id. Thinking is cut out first: an action written inside it is not a call.
 *
 * Contested choice: an action block cut off inside its JSON (a truncated stream) gives no call, even when the
 * `tool_name` was already complete (llama.cpp's streaming parser surfaces it early): the name sits inside the
 * unfinished JSON, and a call is only counted once its object is complete.
 */
import { decodeArguments, isPlainObject, makeCall, subPaths } from '../call-object.js'
import type { FormatParser, ToolCall } from '../types.js'
import { callsInBlocks, type JsonItem } from '../json-blocks.js'
import { removeReasoningBlocks } from '../reasoning.js'

const OPEN = '<|START_ACTION|>'
const CLOSE = '<|END_ACTION|>'

/** A Cohere action object (`tool_name` + `parameters`; `name` + `arguments` accepted too), or undefined. */
export function cohereCall(it: JsonItem, format: string): ToolCall | undefined {
  const obj = it.value
  if (!isPlainObject(obj)) return undefined
  const name = typeof obj['tool_name'] === 'string' ? obj['tool_name'] : obj['name']
  if (typeof name !== 'string' || name.length === 0) return undefined
  const key = 'parameters' in obj ? 'parameters' : 'arguments' in obj ? 'arguments' : undefined
  const args =
    key === undefined ? { arguments: {}, argumentsValid: true } : decodeArguments(obj[key], subPaths(it.floatPaths, '/' + key))
  const rawId = obj['tool_call_id']
  const id = typeof rawId === 'string' ? rawId : typeof rawId === 'number' ? String(rawId) : undefined
  return makeCall(name, args, format, it.raw, id)
}

export const commandR7b: FormatParser = {
  name: 'command_r7b',
  markers: [OPEN],
  detect: (text) => text.includes(OPEN),
  parse: (text) =>
    callsInBlocks(removeReasoningBlocks(text, '<|START_THINKING|>', '<|END_THINKING|>'), OPEN, CLOSE, 'command_r7b', (it) =>
      cohereCall(it, 'command_r7b'),
    ),
  render: (calls) =>
    `${OPEN}[\n${calls
      .map((c, i) => '    ' + JSON.stringify({ tool_call_id: String(i), tool_name: c.name, parameters: c.arguments }))
      .join(',\n')}\n]${CLOSE}`,
}
