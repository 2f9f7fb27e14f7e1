/**
 * Tencent Hunyuan 3 (Hy3, `hy_v3`): GLM-like pairs after the name and a `<tool_sep>` token, in a `<tool_calls>`
 * wrapper:
 *
 * ```
 * <tool_calls>
 * <tool_call>get_weather<tool_sep>
 * <arg_key>city</arg_key>
 * <arg_value>Paris</arg_value>
 * </tool_call>
 * </tool_calls>
 * ```
 *
 * Sources: vLLM's `hy_v3` tool-parser tests (zero-argument calls `NAME<tool_sep></tool_call>`, newline or inline
 * layout) and the model card's template description; no parser source was at hand. Values are typed as in
 * `../arg-pairs.ts`. Tried before GLM and Hermes, which share `<tool_call>` (on this shape GLM reads no name and
 * Hermes would report an unreadable call). The released checkpoints suffix every token (`<tool_sep:opensource>`):
 * `hunyuan4` reads that, and the JSON-body spelling one MLX server writes (`<end_of_tool_call…>`; see docs/FORMATS.md).
 */
import { argPairCalls, renderArgPairs, type ArgPairTags } from '../arg-pairs.js'
import type { FormatParser } from '../types.js'
import { markedBy } from '../marker-scan.js'

const FORMAT = 'hunyuan3'
const SEP = '<tool_sep>'
const TAGS: ArgPairTags = {
  open: '<tool_call>',
  close: '</tool_call>',
  sep: SEP,
  key: '<arg_key>',
  keyEnd: '</arg_key>',
  value: '<arg_value>',
  valueEnd: '</arg_value>',
}

export const hunyuan3: FormatParser = {
  name: FORMAT,
  aliases: ['hy3', 'hy_v3'],
  ...markedBy(SEP),
  parse: (text, options) => argPairCalls(text, options, FORMAT, TAGS),
  render: (calls) => `<tool_calls>\n${renderArgPairs(calls, TAGS)}\n</tool_calls>`,
}
