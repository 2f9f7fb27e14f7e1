/**
 * Llama 3.1 / 3.2 / 3.3 JSON tool calls: `[<|python_tag|>]{"name": "fn", "parameters": {...}}`, several separated by
 * `;`, `; `, ` ; `, `;\n`, a newline, or a repeated `<|python_tag|>`; often embedded in prose.
 *
 * `parameters` is the Llama key, `arguments` is accepted too. Following vLLM, an object with a name but neither key
 * is not a call (here: unless the name is one of the offered tools), and braces or name-less JSON in the surrounding
 * prose neither break nor add calls. The objects are found by the shared free-text JSON scan of `generic-json.ts`.
 *
 * Contested choice: `{"name": "f", "parameters": {{"name": "f", "parameters": {}}` (a malformed first object) gives
 * the well-formed object nested in it, as sglang recovers it.
 *
 * Detection keys on `<|python_tag|>` only: bare JSON without it is claimed by the generic JSON format (same calls).
 */
import type { FormatParser } from '../types.js'
import { jsonCallsIn } from '../json-calls.js'
import { markedBy } from '../marker-scan.js'

const PYTHON_TAG = '<|python_tag|>'

export const llama3Json: FormatParser = {
  name: 'llama3_json',
  aliases: ['llama', 'llama3'],
  ...markedBy(PYTHON_TAG),
  parse: (text, options) => jsonCallsIn(text, 'llama3_json', options),
  render: (calls) =>
    PYTHON_TAG + calls.map((c) => JSON.stringify({ name: c.name, parameters: c.arguments })).join('; '),
}
