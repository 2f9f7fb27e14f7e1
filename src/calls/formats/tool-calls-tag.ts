import type { FormatParser } from '../types.js'

// Placeholder: not yet implemented.
export const toolCallsTag: FormatParser = {
  name: 'tool_calls_tag',
  detect: () => false,
  parse: () => [],
}
