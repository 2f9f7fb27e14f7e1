import type { FormatParser } from '../types.js'

// Placeholder: not yet implemented.
export const llama3Json: FormatParser = {
  name: 'llama3_json',
  detect: () => false,
  parse: () => [],
}
