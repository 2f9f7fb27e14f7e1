import type { FormatParser } from '../types.js'

// Placeholder: not yet implemented.
export const functionaryV32: FormatParser = {
  name: 'functionary_v3_2',
  detect: () => false,
  parse: () => [],
}
