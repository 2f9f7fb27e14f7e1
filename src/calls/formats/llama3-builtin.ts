import type { FormatParser } from '../types.js'

// Placeholder: not yet implemented.
export const llama3Builtin: FormatParser = {
  name: 'llama3_builtin',
  detect: () => false,
  parse: () => [],
}
