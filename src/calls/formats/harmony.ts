import type { FormatParser } from '../types.js'

// Placeholder: not yet implemented.
export const harmony: FormatParser = {
  name: 'harmony',
  detect: () => false,
  parse: () => [],
}
