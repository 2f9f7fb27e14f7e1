/**
 * Google FunctionGemma: `<start_function_call>call:NAME{key:<escape>value<escape>,k2:<escape>v<escape>}<end_function_call>`.
 * Read like Gemma 4 (`gemma4.ts`) with `<escape>` as the string delimiter. A string is typed by the tool schema,
 * and without one decoded as JSON when it is valid JSON (vLLM coerces `<escape>42<escape>` to 42 and
 * `<escape>true<escape>` to true). Commas between arguments are optional: streamed output omits them (contested
 * `vllm-functiongemma-6` gives both arguments, as vLLM does). The template prints a null argument as Python's bare
 * `None` (and booleans as `True`/`False`): read as null and booleans, since a string is always escape-wrapped.
 */
import type { FormatParser } from '../types.js'
import { callBlocks, renderCall, type CallSyntax } from '../gemma-calls.js'
import { markedBy } from '../marker-scan.js'

const FORMAT = 'functiongemma'
const OPEN = '<start_function_call>'
const CLOSE = '<end_function_call>'
const SYNTAX: CallSyntax = { quote: '<escape>', typeQuotedStrings: true, pythonConstants: true }

export const functiongemma: FormatParser = {
  name: FORMAT,
  aliases: ['function_gemma', 'functiongemma-270m'],
  ...markedBy(OPEN),
  parse: (text, options) => callBlocks(text, options, FORMAT, OPEN, CLOSE, SYNTAX),
  render: (calls) => calls.map((c) => OPEN + renderCall(c, SYNTAX.quote) + CLOSE).join(''),
}
