/**
 * What a provider makes of the model's chat template for an output read as text: the format derived from the
 * template (`deriveFormat`) decides how the text is parsed. The hand-written format it matches becomes the output's
 * format hint (a name, so cached and replayed outputs keep it); a format only the template knows gives the calls
 * themselves. When none can be derived, a warning says why, once per template, and the parser detects the format.
 */
import { deriveFormat, parseToolCalls, type ToolCall, type ToolDefinition } from '../calls/index.js'

const warned = new Set<string>()

export function templateCalls(
  chatTemplate: string,
  text: string,
  tools: ToolDefinition[] | undefined,
  where: string,
): { format?: string; calls?: ToolCall[] } {
  const derived = deriveFormat(chatTemplate)
  if ('error' in derived) {
    if (!warned.has(chatTemplate) && warned.size < 64) {
      warned.add(chatTemplate)
      console.warn(`${where}: no wire format derived from the chat template, detecting it instead: ${derived.error}`)
    }
    return {}
  }
  if (derived.matches !== undefined) return { format: derived.matches }
  return { calls: parseToolCalls(text, tools ? { chatTemplate, tools } : { chatTemplate }) }
}
