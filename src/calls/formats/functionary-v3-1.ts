/**
 * Functionary v3.1 (Llama 3.1 based): `<function=NAME>{json arguments}</function>`, one tag per call.
 *
 * Qwen3-Coder writes `<function=NAME>` too, followed by `<parameter=...>` lines: only a tag whose content starts with
 * a JSON object is claimed here. The closing `</function>` is optional (a stream cut at `<` still shows the call);
 * JSON that does not decode gives no call. llama.cpp's Hermes-2-Pro parser also accepts `<function name="NAME">`,
 * read by `functionTagCalls` for the Hermes format.
 */
import type { FormatParser } from '../types.js'
import { EQ_TAG, functionTagCalls } from '../function-tags.js'
import { markedBy } from '../marker-scan.js'

export const functionaryV31: FormatParser = {
  name: 'functionary_v3_1',
  aliases: ['functionary_v3_llama_3_1'],
  ...markedBy(EQ_TAG),
  parse: (text) => functionTagCalls(text, 'functionary_v3_1'),
  render: (calls) => calls.map((c) => `<function=${c.name}>${JSON.stringify(c.arguments)}</function>`).join(''),
}
