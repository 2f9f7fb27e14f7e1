import type { FormatParser } from '../types.js'

// Placeholder: not yet implemented.
export const functiongemma: FormatParser = {
  name: 'functiongemma',
  detect: () => false,
  parse: () => [],
}
