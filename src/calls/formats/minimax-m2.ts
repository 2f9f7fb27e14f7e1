/**
 * MiniMax-M2: `<minimax:tool_call>\n<invoke name="NAME">\n<parameter name="k">v</parameter>\n</invoke>\n</minimax:tool_call>`.
 * Thinking is forced open by the template (text before `</think>` is reasoning, removed by the dispatcher).
 *
 * Values are raw text (one leading and one trailing newline stripped), typed by the tool schema as in
 * `../schema-values.ts`. An invoke with no parameters is a call with `{}`; an invoke not closed by `</invoke>` before
 * the next one is not a call. The same reader serves Step-3's `<steptml:invoke>` (see `step3.ts`).
 */
import type { FormatParser } from '../types.js'
import { TAGS, invokeCalls, renderInvoke } from '../xml-invoke.js'
import { markedBy } from '../marker-scan.js'

const FORMAT = 'minimax_m2'
const BLOCK_OPEN = '<minimax:tool_call>'
const BLOCK_CLOSE = '</minimax:tool_call>'

export const minimaxM2: FormatParser = {
  name: FORMAT,
  aliases: ['minimax', 'minimax-m2'],
  ...markedBy(BLOCK_OPEN),
  parse: (text, options) => invokeCalls(text, options, FORMAT, TAGS),
  render: (calls) => `${BLOCK_OPEN}\n${calls.map((c) => renderInvoke(c, TAGS, '\n')).join('\n')}\n${BLOCK_CLOSE}`,
}
