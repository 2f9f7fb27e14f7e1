/**
 * Qwen3-Coder XML (also Qwen3.5, NVIDIA Nemotron-3-Nano, StepFun 3.5):
 * `<tool_call>\n<function=NAME>\n<parameter=k>\nvalue\n</parameter>\n</function>\n</tool_call>`.
 *
 * Values are raw text, trimmed of surrounding whitespace (llama.cpp; inner indentation kept) and typed by the tool
 * schema when `options.tools` is given, else decoded as JSON when they are valid JSON (see `../schema-values.ts`).
 * Recovered like vLLM: a missing `</parameter>` (the next `<parameter=` or the end of the function closes it), a
 * missing `<tool_call>` wrapper, a missing opener before `</tool_call>`. A function block must be closed by
 * `</function>` or `</tool_call>`: a block cut off by the end of the output is not a call (contested
 * `sglang-qwen3_coder-11` gives none). A block whose body is not parameters (`<function=f>{"a": 1}</function>`, the
 * Functionary / Hermes shape) is left to those formats, and `<tool_call>{json}</tool_call>` is Hermes': both give [].
 */
import type { FormatParser } from '../types.js'
import { FUNCTION, functionBlockCalls, renderFunctionBlock } from '../xml-function-blocks.js'
import { markedBy } from '../marker-scan.js'

const FORMAT = 'qwen3_coder'

export const qwen3Coder: FormatParser = {
  name: FORMAT,
  aliases: ['qwen3_xml', 'qwen3coder', 'qwen3_5', 'nemotron3_nano', 'step3p5', 'step-3.5'],
  ...markedBy(FUNCTION),
  parse: (text, options) => functionBlockCalls(text, options, FORMAT, ['</function>', '</tool_call>'], (s) => s.trim()),
  render: (calls) => calls.map((c) => `<tool_call>\n${renderFunctionBlock(c, true)}\n</tool_call>`).join('\n'),
}
