/**
 * `<tool_calls>[{"name": ..., "arguments": {...}}]</tool_calls>`: Tencent Hunyuan-A13B, AI21 Jamba 1.5/1.6 and
 * ServiceNow Apriel 1.5/1.6 all write a JSON list of call objects between these tags.
 *
 * Quirks: Jamba puts a space before the tag; Hunyuan wraps answers in `<answer>…</answer>` and vLLM drops text after
 * the block (here text around the block is simply not a call); Apriel 1.6 reasons first and starts its answer with
 * `[BEGIN FINAL RESPONSE]`, so a block before that marker is reasoning, not a call.
 */
import { callsInBlocks, renderJsonList, standardCall } from '../json-blocks.js'
import type { FormatParser } from '../types.js'
import { markedBy } from '../marker-scan.js'

const OPEN = '<tool_calls>'
const CLOSE = '</tool_calls>'
/** Apriel 1.6 Thinker: everything before this marker is reasoning. */
const FINAL_RESPONSE = '[BEGIN FINAL RESPONSE]'

export const toolCallsTag: FormatParser = {
  name: 'tool_calls_tag',
  aliases: ['hunyuan', 'jamba', 'apriel'],
  ...markedBy(OPEN),
  parse(text) {
    const marker = text.indexOf(FINAL_RESPONSE)
    const from = marker < 0 ? 0 : marker + FINAL_RESPONSE.length
    return callsInBlocks(text, OPEN, CLOSE, 'tool_calls_tag', standardCall('tool_calls_tag'), from)
  },
  render: (calls) => `${OPEN}${renderJsonList(calls)}${CLOSE}`,
}
