/**
 * ByteDance Seed-OSS: Qwen3-Coder-like XML inside `<seed:tool_call>`, with reasoning in `<seed:think>`:
 * `<seed:think>…</seed:think><seed:tool_call>\n<function=NAME>\n<parameter=k>v</parameter>\n</function>\n</seed:tool_call>`.
 *
 * Calls inside `<seed:think>` are reasoning, not calls (an unclosed one runs to the end). Exactly one leading and one
 * trailing newline are stripped from a value (code keeps its final newline when there were two); values are typed
 * by the schema as for Qwen3-Coder. `<seed:cot_budget_reflect>` is content and ignored. Contested
 * `llamacpp-seed_oss-6` (a call cut off inside a parameter) gives no call: the function block is not closed.
 */
import { stripOneNewline } from '../schema-values.js'
import type { FormatParser } from '../types.js'
import { functionBlockCalls, renderFunctionBlock } from '../xml-function-blocks.js'
import { removeReasoningBlocks } from '../reasoning.js'
import { markedBy } from '../marker-scan.js'

const FORMAT = 'seed_oss'
const OPEN = '<seed:tool_call>'
const CLOSE = '</seed:tool_call>'

export const seedOss: FormatParser = {
  name: FORMAT,
  aliases: ['seed', 'seed-oss'],
  ...markedBy(OPEN),
  parse: (text, options) =>
    functionBlockCalls(removeReasoningBlocks(text, '<seed:think>', '</seed:think>'), options, FORMAT, ['</function>', CLOSE], stripOneNewline),
  render: (calls) => calls.map((c) => `${OPEN}\n${renderFunctionBlock(c, false)}\n${CLOSE}`).join('\n'),
}
