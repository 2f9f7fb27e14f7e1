/**
 * DeepSeek V3 / V3-0324 and R1 (+ distills):
 * `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\n```json\n{...}\n```<｜tool▁call▁end｜>…<｜tool▁calls▁end｜>`
 * (full-width bars U+FF5C and U+2581 inside the tokens). DeepSeek V3.1 drops the `function` type and the fence:
 * `<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{...}<｜tool▁call▁end｜>`. One reader handles both shapes, so a hint that names
 * the wrong generation still finds the calls; each parse is labelled by the shape of its first call.
 *
 * Tokens are recognised with `▁`, `_` or a space between their words (llama.cpp tolerates these spellings), and the
 * malformed opener `<｜tool▁calls｜>` that R1 sometimes writes counts as `<｜tool▁calls▁begin｜>`.
 *
 * Contested choices:
 * - A call whose `<｜tool▁call▁begin｜>` is missing (`<｜tool▁calls▁begin｜>function<｜tool▁sep｜>…`) is still read, as
 *   llama.cpp reads R1's `<｜tool▁calls｜>function<｜tool▁sep｜>…`: name and arguments are unambiguous (vLLM drops it).
 * - A call whose arguments do not decode (unclosed JSON) is a call with that name and invalid arguments, as for every
 *   format whose name sits outside the JSON: the model chose the tool; `args_json_valid` records the failure. vLLM
 *   reports "tools called" with no calls here.
 * R1's thinking is forced open by its template, so text before a lone `</think>` is reasoning (the dispatcher cuts
 * it); tool tokens mentioned there are not calls.
 */
import type { FormatParser } from '../types.js'
import { DEEPSEEK_TOOL_TOKEN, parseDeepSeek } from '../deepseek-calls.js'
import { markedBy } from '../marker-scan.js'

export const deepseekV3: FormatParser = {
  name: 'deepseek_v3',
  aliases: ['deepseek_r1'],
  ...markedBy(DEEPSEEK_TOOL_TOKEN),
  parse: (text) => parseDeepSeek(text),
  render: (calls) =>
    '<｜tool▁calls▁begin｜>' +
    calls
      .map(
        (c) =>
          `<｜tool▁call▁begin｜>function<｜tool▁sep｜>${c.name}\n\`\`\`json\n${JSON.stringify(c.arguments)}\n\`\`\`<｜tool▁call▁end｜>`,
      )
      .join('') +
    '<｜tool▁calls▁end｜>',
}
