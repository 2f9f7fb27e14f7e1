import type { FormatParser } from '../types.js'

// Placeholder: not yet implemented.
export const minimaxM2: FormatParser = {
  name: 'minimax_m2',
  detect: () => false,
  parse: () => [],
}
