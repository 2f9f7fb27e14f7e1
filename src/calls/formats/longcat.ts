/**
 * Meituan LongCat-Flash: Hermes-like, one JSON call object per `<longcat_tool_call>…</longcat_tool_call>` block.
 *
 * Contested choice: a closed block whose object has a name but non-object arguments (`"arguments": "not a dict"`)
 * is a call with invalid arguments, as NeMo treats Hermes blocks: the model did call `func`, so name accuracy gets
 * credit and `args_json_valid` records the failure (vLLM's test only asserts no exception). A truncated, unclosed
 * block that does not decode is no call.
 */
import type { FormatParser } from '../types.js'
import { callsInBlocks, standardCall } from '../json-blocks.js'
import { markedBy } from '../marker-scan.js'

const OPEN = '<longcat_tool_call>'
const CLOSE = '</longcat_tool_call>'

export const longcat: FormatParser = {
  name: 'longcat',
  ...markedBy(OPEN),
  parse: (text) => callsInBlocks(text, OPEN, CLOSE, 'longcat', standardCall('longcat')),
  render: (calls) =>
    calls.map((c) => `${OPEN}${JSON.stringify({ name: c.name, arguments: c.arguments })}${CLOSE}`).join('\n'),
}
