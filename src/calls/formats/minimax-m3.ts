/**
 * MiniMax M3: MiniMax M2's invoke/parameter XML with every tag in the `minimax:` namespace:
 *
 * ```
 * <minimax:tool_call>
 * <minimax:invoke name="get_weather">
 * <minimax:parameter name="city">Paris</minimax:parameter>
 * </minimax:invoke>
 * </minimax:tool_call>
 * ```
 *
 * No authoritative source (chat template or engine parser) for M3 was found: this follows the issue's description
 * ("namespaced XML") and M2's reader (`minimax-m2.ts`, values typed by the tool schema). M2's reader finds nothing
 * here (`<invoke` does not occur), so the order between the two does not matter.
 */
import type { FormatParser } from '../types.js'
import { invokeCalls, renderInvoke, type InvokeTags } from '../xml-invoke.js'
import { markedBy } from '../marker-scan.js'

const FORMAT = 'minimax_m3'
const BLOCK_OPEN = '<minimax:tool_call>'
const BLOCK_CLOSE = '</minimax:tool_call>'
const TAGS: InvokeTags = {
  invoke: '<minimax:invoke',
  invokeEnd: '</minimax:invoke>',
  parameter: '<minimax:parameter',
  parameterEnd: '</minimax:parameter>',
}

export const minimaxM3: FormatParser = {
  name: FORMAT,
  aliases: ['minimax-m3'],
  ...markedBy(TAGS.invoke),
  parse: (text, options) => invokeCalls(text, options, FORMAT, TAGS),
  render: (calls) => `${BLOCK_OPEN}\n${calls.map((c) => renderInvoke(c, TAGS, '\n')).join('\n')}\n${BLOCK_CLOSE}`,
}
