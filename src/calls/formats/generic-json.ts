/**
 * The last-resort format: tool calls written as plain JSON, with no wire-format marker around them.
 *
 * - OpenAI-shaped objects: `{"tool_calls": [{"id", "type": "function", "function": {"name", "arguments"}}]}`, a lone
 *   `{"type": "function", "function": {...}}`, and llama.cpp's generic `{"tool_call": {...}}` / `{"tool_calls": [...]}`.
 * - A JSON array of call objects (xLAM, sglang's constrained `tool_choice=required` output), bare, in a ```json fence,
 *   after `[TOOL_CALLS]` when the Mistral parser did not take it.
 * - NeMo's fallback: any balanced top-level JSON object in the text with a string `name`.
 *
 * Deliberate differences from NeMo's fallback:
 * - String state is tracked only inside brackets, so an unmatched `"` in prose cannot hide later JSON; a string also
 *   ends at a raw newline (JSON strings cannot hold one), so a stray quote inside a stray brace spoils one line only.
 * - Bare JSON must look like a call: `arguments` or `parameters` that decode to an object, or a name that is one of
 *   the offered tools. So prose data objects (`{"name": "Ada", "age": 36}`) are not calls, nor are objects whose
 *   arguments are not an object (`{"name": "f", "arguments": "text"}`), as in vLLM and sglang; NeMo takes both.
 * - A bracketed span that is not valid JSON is not given up: the balanced spans inside it are tried, and the balanced
 *   spans inside a bracket that never closes are top level (a truncated wrapper, a stray `{` in prose). Re-parsing
 *   nested spans is bounded by a budget of characters (RETRY_BUDGET_*), so adversarial nesting stays linear.
 * - The helpers here are shared by the other JSON formats of this folder (Hermes, Llama 3, Mistral, Granite, ...).
 */
import type { FormatParser } from '../types.js'
import { jsonCallsIn, renderJsonCalls } from '../json-calls.js'
import { markedBy } from '../marker-scan.js'

export const genericJson: FormatParser = {
  name: 'json',
  aliases: ['generic', 'xlam', 'json_array', 'llamacpp_generic', 'openai'],
  ...markedBy('{'),
  parse: (text, options) => jsonCallsIn(text, 'json', options),
  render: renderJsonCalls,
}
