import type { FormatParser } from '../types.js'

// Placeholder: not yet implemented.
export const functionaryV31: FormatParser = {
  name: 'functionary_v3_1',
  detect: () => false,
  parse: () => [],
}
