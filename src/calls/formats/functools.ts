/**
 * `functools[...]`: a JSON list of call objects after the word `functools` (Phi-4-mini, FireFunction v2 with a
 * leading space): `functools[{"name": ..., "arguments": {...}}, ...]`.
 *
 * The list is read with a bracket-and-string scan, so nested objects are fine (vLLM's regex fails on them), and
 * element by element, so a list cut off after complete calls keeps them. Contested choices: text around the call is
 * content and the call counts; `functools[]` or text that is not JSON gives no call; a call object without
 * `arguments` is a call with `{}` and one whose `arguments` is not an object is a call with invalid arguments (NeMo's
 * rules: the marker says the model called); `functools{...}` without the list bracket is not this format; JSON cut
 * off inside the first call gives no call.
 */
import type { FormatParser, ParseOptions, ToolCall } from '../types.js'
import { callsFromList } from '../json-calls.js'
import { forEachMarkerRegion } from '../scan.js'
import { markedBy } from '../marker-scan.js'
import { unreadTail } from '../unread.js'

const MARKER = 'functools['
const FORMAT = 'functools'

function parseFunctools(text: string, options: ParseOptions): ToolCall[] {
  const out: ToolCall[] = []
  forEachMarkerRegion(text, MARKER, (start, limit) => {
    // The list opens with the marker's own `[`.
    const { calls, end } = callsFromList(text, start - 1, limit, FORMAT, options)
    out.push(...unreadTail(calls, text, end, limit))
  })
  return out
}

export const functools: FormatParser = {
  name: FORMAT,
  aliases: ['phi4_mini_json', 'firefunction_v2'],
  ...markedBy(MARKER),
  parse: parseFunctools,
  render: (calls) => 'functools' + JSON.stringify(calls.map((c) => ({ name: c.name, arguments: c.arguments }))),
}
