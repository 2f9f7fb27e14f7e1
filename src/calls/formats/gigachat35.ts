/**
 * GigaChat 3.5: DeepSeek V3.2's DSML shape under the `GCML` name, bars full-width:
 *
 * ```
 * <｜GCML｜tool_calls><｜GCML｜invoke name="get_weather"><｜GCML｜parameter name="city" string="true">Paris</｜GCML｜parameter></｜GCML｜invoke></｜GCML｜tool_calls>
 * ```
 *
 * Source: vLLM's `tool_parsers/gigachat35_tool_parser.py` and its tests. Unlike DSML, a parameter without `string`
 * is a string (`string="true"` is the default); `string="false"` values are decoded as JSON, kept as text when they
 * are not JSON. Values are kept as written. The invoke body is read strictly (`../xml-invoke.ts`).
 */
import type { FormatParser } from '../types.js'
import { invokeCalls, type InvokeTags } from '../xml-invoke.js'
import { untypedValue } from '../schema-values.js'
import { markedBy } from '../marker-scan.js'

const FORMAT = 'gigachat35'
const P = '<｜GCML｜'
const C = '</｜GCML｜'
const STRING_FALSE = /(?:^|\s)string\s*=\s*"false"/i

const TAGS: InvokeTags = {
  invoke: `${P}invoke`,
  invokeEnd: `${C}invoke>`,
  parameter: `${P}parameter`,
  parameterEnd: `${C}parameter>`,
  clean: (raw) => raw,
  addValue: (args, key, raw, attrs) => {
    if (STRING_FALSE.test(attrs)) args.add(key, untypedValue(raw.trim()))
    else args.add(key, { value: raw })
  },
}

function render(calls: readonly { name: string; arguments: Record<string, unknown> }[]): string {
  let s = `${P}tool_calls>`
  for (const c of calls) {
    s += `${P}invoke name="${c.name}">`
    for (const [k, v] of Object.entries(c.arguments)) {
      const isString = typeof v === 'string'
      s += `${P}parameter name="${k}" string="${isString}">${isString ? v : JSON.stringify(v)}${C}parameter>`
    }
    s += `${C}invoke>`
  }
  return s + `${C}tool_calls>`
}

export const gigachat35: FormatParser = {
  name: FORMAT,
  aliases: ['gigachat3.5', 'gigachat-3.5', 'gcml'],
  ...markedBy(TAGS.invoke),
  parse: (text, options) => invokeCalls(text, options, FORMAT, TAGS),
  render,
}
