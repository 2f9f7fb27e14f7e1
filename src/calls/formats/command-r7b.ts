/**
 * Cohere Command R7B: `<|START_THINKING|>…<|END_THINKING|><|START_ACTION|>[{"tool_call_id": "0", "tool_name": ...,
 * "parameters": {...}}]<|END_ACTION|>`; content comes in `<|START_RESPONSE|>…<|END_RESPONSE|>`. `tool_call_id` is the
 * call id. Thinking is cut out first: an action written inside it is not a call.
 *
 * Contested choice: an action block cut off inside its JSON (a truncated stream) gives no call, even when the
 * `tool_name` was already complete (llama.cpp's streaming parser surfaces it early): the name sits inside the
 * unfinished JSON, and a call is only counted once its object is complete.
 */
import type { FormatParser } from '../types.js'
import { callsInBlocks } from '../json-blocks.js'
import { removeReasoningBlocks } from '../reasoning.js'
import { cohereCall } from '../cohere-calls.js'
import { markedBy } from '../marker-scan.js'

const OPEN = '<|START_ACTION|>'
const CLOSE = '<|END_ACTION|>'

export const commandR7b: FormatParser = {
  name: 'command_r7b',
  ...markedBy(OPEN),
  parse: (text) =>
    callsInBlocks(removeReasoningBlocks(text, '<|START_THINKING|>', '<|END_THINKING|>'), OPEN, CLOSE, 'command_r7b', (it) =>
      cohereCall(it, 'command_r7b'),
    ),
  render: (calls) =>
    `${OPEN}[\n${calls
      .map((c, i) => '    ' + JSON.stringify({ tool_call_id: String(i), tool_name: c.name, parameters: c.arguments }))
      .join(',\n')}\n]${CLOSE}`,
}
