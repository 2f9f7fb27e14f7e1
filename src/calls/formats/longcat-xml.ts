/**
 * Meituan LongCat's XML variant (LongCat-Flash-Thinking / -Lite): the call's name, then key/value pairs, in one
 * `<longcat_tool_call>` block:
 *
 * ```
 * <longcat_tool_call>get_weather
 * <longcat_arg_key>city</longcat_arg_key>
 * <longcat_arg_value>Paris</longcat_arg_value>
 * </longcat_tool_call>
 * ```
 *
 * Source: mlx-lm's `tool_parsers/longcat.py` (name = the text before the first `<longcat_arg_key>`, pairs read in
 * order, values JSON-decoded unless the tool's schema says string). Values are typed as in `../arg-pairs.ts`. A
 * block whose content is a JSON object is the JSON variant's (`longcat.ts`) and gives nothing here; this format is
 * tried first.
 */
import { argPairCalls, renderArgPairs, type ArgPairTags } from '../arg-pairs.js'
import type { FormatParser } from '../types.js'
import { markedBy } from '../marker-scan.js'

const FORMAT = 'longcat_xml'
const TAGS: ArgPairTags = {
  open: '<longcat_tool_call>',
  close: '</longcat_tool_call>',
  key: '<longcat_arg_key>',
  keyEnd: '</longcat_arg_key>',
  value: '<longcat_arg_value>',
  valueEnd: '</longcat_arg_value>',
}

export const longcatXml: FormatParser = {
  name: FORMAT,
  aliases: ['longcat-xml', 'longcat_flash_thinking'],
  ...markedBy(TAGS.open),
  parse: (text, options) => argPairCalls(text, options, FORMAT, TAGS),
  render: (calls) => renderArgPairs(calls, TAGS),
}
