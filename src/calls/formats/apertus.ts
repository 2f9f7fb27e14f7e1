import type { FormatParser } from '../types.js'

// Placeholder: not yet implemented.
export const apertus: FormatParser = {
  name: 'apertus',
  detect: () => false,
  parse: () => [],
}
