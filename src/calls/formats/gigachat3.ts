/**
 * GigaChat 3: `[content]<|message_sep|>\n\nfunction call<|role_sep|>\n{"name": ..., "arguments": {...}}[</s>]`.
 *
 * Stricter than NeMo's call-object rule, as the engines serving GigaChat are (sglang; these are clean corpus cases):
 * the object must carry both a non-empty `name` and `arguments` that are an object (or a JSON string of one);
 * otherwise, and when the JSON does not decode, there is no call. A truncated object is no call either (contested
 * case sglang-gigachat3-13: the name sits inside the unfinished JSON, so nothing complete was called).
 */
import type { FormatParser } from '../types.js'
import { strictCallsAfter } from '../gigachat-calls.js'
import { markedBy } from '../marker-scan.js'

const MARKER = 'function call<|role_sep|>'

export const gigachat3: FormatParser = {
  name: 'gigachat3',
  ...markedBy(MARKER),
  parse: (text) => strictCallsAfter(text, MARKER, 'gigachat3', '</s>'),
  render: (calls) =>
    calls
      .map((c) => `<|message_sep|>\n\n${MARKER}\n${JSON.stringify({ name: c.name, arguments: c.arguments })}</s>`)
      .join(''),
}
