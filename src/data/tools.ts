/**
 * Tools as the rest of the library reads them: OpenAI's `{type: "function", function: {...}}`. Data files and users
 * also write bare function documents (BFCL and NeMo do); this is the one place either shape becomes a
 * ToolDefinition, so scorers and the prompt renderer read `tool.function` and nothing else.
 */
import { isPlainObject } from '../calls/call-object.js'
import type { ToolDefinition } from '../calls/types.js'

/** A tool in either shape as a ToolDefinition; undefined when it is neither (no object, or no function name). */
export function toToolDefinition(tool: unknown): ToolDefinition | undefined {
  if (!isPlainObject(tool)) return undefined
  if (isPlainObject(tool['function'])) return typeof tool['function']['name'] === 'string' ? (tool as unknown as ToolDefinition) : undefined
  return typeof tool['name'] === 'string' ? { type: 'function', function: tool as ToolDefinition['function'] } : undefined
}

/** Tools in either shape as ToolDefinitions; anything that is no tool is left out. */
export function normalizeTools(tools: readonly unknown[]): ToolDefinition[] {
  const out: ToolDefinition[] = []
  for (const t of tools) {
    const def = toToolDefinition(t)
    if (def) out.push(def)
  }
  return out
}
