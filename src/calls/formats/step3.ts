/**
 * StepFun Step-3: `<｜tool_calls_begin｜><｜tool_call_begin｜><steptml:invoke name="NAME"><steptml:parameter
 * name="k">v</steptml:parameter></steptml:invoke><｜tool_call_end｜>[<｜tool_sep｜>…]<｜tool_calls_end｜>` (the
 * token names use `_`, not DeepSeek's `▁`). Values are raw text (quotes, backslashes and real newlines as written),
 * typed by the tool schema as in `../schema-values.ts`.
 *
 * Contested cases (vLLM's own parser fails its tests here): the single and parallel calls (`vllm-step3-2`, `-3`)
 * are read; a missing `<｜tool_calls_begin｜>` (`vllm-step3-8`) still gives the call, since every invoke is read
 * wherever it is; an invoke cut off before `</steptml:invoke>` (`vllm-step3-7`) gives none.
 */
import type { FormatParser } from '../types.js'
import { invokeCalls, renderInvoke, type InvokeTags } from '../xml-invoke.js'
import { markedBy } from '../marker-scan.js'

const FORMAT = 'step3'
const TAGS: InvokeTags = {
  invoke: '<steptml:invoke',
  invokeEnd: '</steptml:invoke>',
  parameter: '<steptml:parameter',
  parameterEnd: '</steptml:parameter>',
}
const CALLS_BEGIN = '<｜tool_calls_begin｜>'
const CALLS_END = '<｜tool_calls_end｜>'
const CALL_BEGIN = '<｜tool_call_begin｜>'
const CALL_END = '<｜tool_call_end｜>'
const SEP = '<｜tool_sep｜>'

export const step3: FormatParser = {
  name: FORMAT,
  aliases: ['stepfun3', 'step-3'],
  ...markedBy(TAGS.invoke),
  parse: (text, options) => invokeCalls(text, options, FORMAT, TAGS),
  render: (calls) =>
    CALLS_BEGIN + calls.map((c) => CALL_BEGIN + renderInvoke(c, TAGS, '') + CALL_END).join(SEP) + CALLS_END,
}
