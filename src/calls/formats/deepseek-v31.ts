/**
 * DeepSeek V3.1 / V3.1-Terminus: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{...}<｜tool▁call▁end｜>…`,
 * with no `function` type and no fence (unlike V3). The reader is shared with V3 (deepseek-v3.ts), which comes first
 * in detection and labels calls by their shape, so auto-detected V3.1 calls already carry `deepseek_v31`; this entry
 * serves the format hint and rendering.
 *
 * Reasoning: with thinking forced open by the template, a call before a later `</think>` is reasoning (the dispatcher
 * cuts it); when `</think>` never comes, the text is read as is and a call in it counts (as llama.cpp does for a
 * complete output).
 */
import type { FormatParser } from '../types.js'
import { DEEPSEEK_TOOL_TOKEN, parseDeepSeek } from '../deepseek-calls.js'
import { markedBy } from '../marker-scan.js'

export const deepseekV31: FormatParser = {
  name: 'deepseek_v31',
  ...markedBy(DEEPSEEK_TOOL_TOKEN),
  parse: (text) => parseDeepSeek(text),
  render: (calls) =>
    '<｜tool▁calls▁begin｜>' +
    calls.map((c) => `<｜tool▁call▁begin｜>${c.name}<｜tool▁sep｜>${JSON.stringify(c.arguments)}<｜tool▁call▁end｜>`).join('') +
    '<｜tool▁calls▁end｜>',
}
