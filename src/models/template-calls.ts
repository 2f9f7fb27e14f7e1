/**
 * What a provider makes of the model's chat template for an output read as text: the format derived from the
 * template (`deriveFormat`) decides how the text is parsed. The hand-written format it matches becomes the output's
 * format hint (a name, so cached and replayed outputs keep it); a format only the template knows gives the calls
 * themselves. When none can be derived, a warning says why, once per template, and the parser detects the format;
 * a template that does not compile or goes over its render budget is an error instead.
 */
import { deriveFormat, parseToolCalls, type TemplateBudget, type ToolCall, type ToolDefinition } from '../calls/index.js'

const warned = new Set<string>()

export function templateCalls(
  chatTemplate: string,
  text: string,
  tools: ToolDefinition[] | undefined,
  where: string,
  budget?: TemplateBudget,
): { format?: string; calls?: ToolCall[] } {
  const derived = deriveFormat(chatTemplate, budget === undefined ? {} : { budget })
  if ('error' in derived) {
    // A template that does not compile or goes over its budget errors the sample: it is never silently bypassed.
    if (derived.invalid === 'syntax' || derived.invalid === 'budget') throw new Error(`${where}: the chat template cannot be used: ${derived.error}`)
    if (!warned.has(chatTemplate) && warned.size < 64) {
      warned.add(chatTemplate)
      console.warn(`${where}: no wire format derived from the chat template, detecting it instead: ${derived.error}`)
    }
    return {}
  }
  if (derived.matches !== undefined) return { format: derived.matches }
  return { calls: parseToolCalls(text, { chatTemplate, ...(tools && { tools }), ...(budget && { templateBudget: budget }) }) }
}
