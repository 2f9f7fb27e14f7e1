/**
 * K2 Horizon (IFM): GLM-like pairs in `ifm|` tags, in the template's three call dialects:
 *
 * ```
 * <ifm|tool_calls>
 * <ifm|tool_call>get_weather
 * <ifm|arg_key>city</ifm|arg_key>
 * [<ifm|arg_type>string</ifm|arg_type>]          (xml_typed only)
 * <ifm|arg_value>Paris</ifm|arg_value>
 * </ifm|tool_call>
 * </ifm|tool_calls>
 * ```
 *
 * and `json`: `<ifm|tool_call>{"name": "get_weather", "arguments": {...}}</ifm|tool_call>` (or a list of such
 * objects in one block). Sources: vLLM's `tool_parsers/k2_horizon_tool_parser.py` and SGLang's `K2V3Detector` tests.
 *
 * Values are verbatim (the engines keep a string's surrounding whitespace). The type written in `<ifm|arg_type>`
 * decides a value's type ahead of the schema (`string` keeps `12345` a string); `any` or an unknown type leaves it
 * to the schema rule. Reasoning in `<ifm|think>` (and the `_fast` / `_faster` effort variants) is cut before any
 * format parses (`../reasoning.ts`): a call written there is not a call.
 */
import { NAME, PairSearches, readPairs, renderArgPairs, valueCleaner, type ArgPairTags } from '../arg-pairs.js'
import { invalidArguments, makeCall } from '../call-object.js'
import { callsFromValue, unknownCall } from '../json-calls.js'
import { parseJsonAt, parseJsonSpan, skipSpace } from '../json.js'
import { ArgumentsBuilder } from '../schema-values.js'
import { forEachBlock } from '../scan.js'
import type { FormatParser, ParseOptions, ToolCall } from '../types.js'
import { markedBy } from '../marker-scan.js'

const FORMAT = 'k2_horizon'
const TAGS: ArgPairTags = {
  open: '<ifm|tool_call>',
  close: '</ifm|tool_call>',
  key: '<ifm|arg_key>',
  keyEnd: '</ifm|arg_key>',
  type: '<ifm|arg_type>',
  typeEnd: '</ifm|arg_type>',
  value: '<ifm|arg_value>',
  valueEnd: '</ifm|arg_value>',
  exactValues: true,
}

function parse(text: string, options: ParseOptions): ToolCall[] {
  const out: ToolCall[] = []
  const pairs = new PairSearches(text, TAGS)
  const clean = valueCleaner(TAGS)
  // Only closed blocks are calls; the pair searches move forward across blocks, so the pass is linear.
  forEachBlock(text, TAGS.open, TAGS.close, (_body, from, end, closed) => {
    if (!closed) return
    const raw = text.slice(from - TAGS.open.length, end + TAGS.close.length)
    const first = text.charCodeAt(skipSpace(text, from, end))
    if (first === 123 || first === 91) {
      // The json dialect: a call object (or a list of them). A closed block whose JSON does not decode is still a
      // call, unnamed and invalid, as Hermes' is: the model did call something.
      const span = parseJsonSpan(text, from, end)
      const r = span?.ok ? span : parseJsonAt(text, from, end)
      const calls = r.ok ? callsFromValue(r.value, FORMAT, r.floatPaths, raw, options) : []
      out.push(...(calls.length > 0 ? calls : [unknownCall(FORMAT, raw)]))
      return
    }
    let k = pairs.key.next(from)
    if (k >= end) k = -1
    const name = text.slice(from, k < 0 ? end : k).trim()
    if (!NAME.test(name)) return
    const args = new ArgumentsBuilder(name, options)
    const error = k < 0 ? undefined : readPairs(text, k, end, pairs, args, clean)
    out.push(makeCall(name, error === undefined ? args.result() : invalidArguments(error), FORMAT, raw))
  })
  return out
}

export const k2Horizon: FormatParser = {
  name: FORMAT,
  aliases: ['k2-horizon', 'ifm', 'k2_v3'],
  ...markedBy(TAGS.open),
  parse,
  render: (calls) => `<ifm|tool_calls>\n${renderArgPairs(calls, { ...TAGS, type: undefined })}\n</ifm|tool_calls>`,
}
