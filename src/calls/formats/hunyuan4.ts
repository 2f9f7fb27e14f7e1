/**
 * Tencent Hunyuan 4 (HY V4, `hy_v4`): GLM-like pairs after the name, every structural token carrying the
 * checkpoint's suffix (`:opensource` in the released checkpoints, another `:xxxx` in others):
 *
 * ```
 * <tool_calls:opensource>
 * <tool_call:opensource>get_weather
 * <arg_key:opensource>city</arg_key:opensource>
 * <arg_value:opensource>Paris</arg_value:opensource>
 * </tool_call:opensource>
 * </tool_calls:opensource>
 * ```
 *
 * Source: vLLM's `tool_parsers/hy_v4_tool_parser.py` (the suffix is read from the tokenizer there; here from the
 * first suffixed `<tool_call…>` tag in the text) and its tests. Values are trimmed and typed by the tool schema.
 * Hunyuan 3's `<tool_sep…>` after the name is accepted too. The unsuffixed spelling is GLM-4.7's shape and is read by
 * `glm45`. Pairs are read strictly (`../arg-pairs.ts`).
 */
import { argPairCalls, renderArgPairs, type ArgPairTags } from '../arg-pairs.js'
import type { FormatParser } from '../types.js'
import { markedBy } from '../marker-scan.js'

const FORMAT = 'hunyuan4'
const MARKER = '<tool_call:'
const SUFFIX = /^:[^\s<>]{1,64}>/

function tagsFor(suffix: string): ArgPairTags {
  return {
    open: `<tool_call${suffix}>`,
    close: `</tool_call${suffix}>`,
    sep: `<tool_sep${suffix}>`,
    key: `<arg_key${suffix}>`,
    keyEnd: `</arg_key${suffix}>`,
    value: `<arg_value${suffix}>`,
    valueEnd: `</arg_value${suffix}>`,
    trimValues: true,
  }
}

export const hunyuan4: FormatParser = {
  name: FORMAT,
  aliases: ['hy4', 'hy_v4', 'hyv4'],
  ...markedBy(MARKER),
  parse: (text, options, at) => {
    const i = text.indexOf(MARKER, at ?? 0)
    if (i < 0) return []
    const m = SUFFIX.exec(text.slice(i + MARKER.length - 1, i + MARKER.length + 65))
    return m ? argPairCalls(text, options, FORMAT, tagsFor(m[0].slice(0, -1))) : []
  },
  render: (calls) => `<tool_calls:opensource>\n${renderArgPairs(calls, tagsFor(':opensource')).replaceAll('<tool_sep:opensource>', '')}\n</tool_calls:opensource>`,
}
