/**
 * Qwen3-Coder XML (also Qwen3.5, NVIDIA Nemotron-3-Nano, StepFun 3.5):
 * `<tool_call>\n<function=NAME>\n<parameter=k>\nvalue\n</parameter>\n</function>\n</tool_call>`.
 *
 * Values are raw text less one newline after `<parameter=k>` and one before `</parameter>` (vLLM, SGLang: a value's
 * own spaces and further newlines are kept), typed by the tool schema when `options.tools` is given, else decoded as
 * JSON when they are valid JSON (see `../schema-values.ts`). Where `</parameter>` is indented on a line of its own
 * (pretty-printed XML, as llama.cpp's tests write it) the layout is trimmed, as llama.cpp trims every value.
 * A value ends at a structural `</parameter>` (vLLM: one followed by the next parameter, `</function>`,
 * `</tool_call>` or the end), so a literal `</tool_call>` or `</function>` inside a value is read as text.
 * Recovered like vLLM: a missing `</parameter>` (the next `<parameter=` or the end of the function closes it), a
 * missing `<tool_call>` wrapper, a missing opener before `</tool_call>`. A function block must be closed by
 * `</function>` or `</tool_call>`: a block cut off by the end of the output is not a call (contested
 * `sglang-qwen3_coder-11` gives none). A block whose body is not parameters (`<function=f>{"a": 1}</function>`, the
 * Functionary / Hermes shape) is left to those formats, and `<tool_call>{json}</tool_call>` is Hermes': both give [].
 */
import { stripOneNewline } from '../schema-values.js'
import type { FormatParser } from '../types.js'
import { FUNCTION, functionBlockCalls, renderFunctionBlock } from '../xml-function-blocks.js'
import { markedBy } from '../marker-scan.js'

const FORMAT = 'qwen3_coder'

/** One newline each side (vLLM, SGLang); all surrounding layout where the closer is indented on its own line. */
function cleanValue(raw: string): string {
  const nl = raw.lastIndexOf('\n')
  if (nl >= 0 && nl < raw.length - 1 && /^[ \t]+$/.test(raw.slice(nl + 1))) return raw.trim()
  return stripOneNewline(raw)
}

export const qwen3Coder: FormatParser = {
  name: FORMAT,
  aliases: ['qwen3_xml', 'qwen3coder', 'qwen3_5', 'nemotron3_nano', 'step3p5', 'step-3.5'],
  ...markedBy(FUNCTION),
  parse: (text, options) => functionBlockCalls(text, options, FORMAT, ['</function>', '</tool_call>'], cleanValue),
  render: (calls) => calls.map((c) => `<tool_call>\n${renderFunctionBlock(c, true)}\n</tool_call>`).join('\n'),
}
