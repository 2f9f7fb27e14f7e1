/**
 * Upstage Solar Open 2: a name after `<|tool_call:start|>`, then one `KEY<|tool_arg:value|>VALUE` pair per argument:
 *
 * ```
 * <|tool_call:start|>get_weather
 * <|tool_arg:start|>city<|tool_arg:value|>Seoul<|tool_arg:end|>
 * <|tool_call:end|>
 * ```
 *
 * Source: vLLM's `tool_parsers/solar_open2_tool_parser.py` tests (every marker is one special token). Values are raw
 * text typed by the tool schema. Pairs are read strictly (`../arg-pairs.ts`).
 */
import { argPairCalls, renderArgPairs, type ArgPairTags } from '../arg-pairs.js'
import type { FormatParser } from '../types.js'
import { markedBy } from '../marker-scan.js'

const FORMAT = 'solar_open2'
const TAGS: ArgPairTags = {
  open: '<|tool_call:start|>',
  close: '<|tool_call:end|>',
  key: '<|tool_arg:start|>',
  keyEnd: '<|tool_arg:value|>',
  value: '',
  valueEnd: '<|tool_arg:end|>',
}

export const solarOpen2: FormatParser = {
  name: FORMAT,
  aliases: ['solar', 'solar-open2', 'solar_open'],
  ...markedBy(TAGS.open),
  parse: (text, options) => argPairCalls(text, options, FORMAT, TAGS),
  render: (calls) => renderArgPairs(calls, TAGS),
}
