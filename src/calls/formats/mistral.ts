import type { FormatParser } from '../types.js'

// Placeholder: not yet implemented.
export const mistral: FormatParser = {
  name: 'mistral',
  detect: () => false,
  parse: () => [],
}
