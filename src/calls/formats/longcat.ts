import type { FormatParser } from '../types.js'

// Placeholder: not yet implemented.
export const longcat: FormatParser = {
  name: 'longcat',
  detect: () => false,
  parse: () => [],
}
