/**
 * K2 Horizon (IFM): GLM-like pairs in `ifm|` tags:
 *
 * ```
 * <ifm|tool_calls>
 * <ifm|tool_call>get_weather
 * <ifm|arg_key>city</ifm|arg_key>
 * <ifm|arg_value>Paris</ifm|arg_value>
 * </ifm|tool_call>
 * </ifm|tool_calls>
 * ```
 *
 * Sources: vLLM's `tool_parsers/k2_horizon_tool_parser.py` and SGLang's `function_call/k2_v3_detector.py` tests
 * (a call inside `<ifm|think>` reasoning is not cut out here: not done yet). Values are typed by the tool
 * schema; the typed template's `<ifm|arg_type>` tag is not read (a pair holding it makes the arguments invalid).
 */
import { argPairCalls, renderArgPairs, type ArgPairTags } from '../arg-pairs.js'
import type { FormatParser } from '../types.js'
import { markedBy } from '../marker-scan.js'

const FORMAT = 'k2_horizon'
const TAGS: ArgPairTags = {
  open: '<ifm|tool_call>',
  close: '</ifm|tool_call>',
  key: '<ifm|arg_key>',
  keyEnd: '</ifm|arg_key>',
  value: '<ifm|arg_value>',
  valueEnd: '</ifm|arg_value>',
}

export const k2Horizon: FormatParser = {
  name: FORMAT,
  aliases: ['k2-horizon', 'ifm', 'k2_v3'],
  ...markedBy(TAGS.open),
  parse: (text, options) => argPairCalls(text, options, FORMAT, TAGS),
  render: (calls) => `<ifm|tool_calls>\n${renderArgPairs(calls, TAGS)}\n</ifm|tool_calls>`,
}
