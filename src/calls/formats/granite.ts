import type { FormatParser } from '../types.js'

// Placeholder: not yet implemented.
export const granite: FormatParser = {
  name: 'granite',
  detect: () => false,
  parse: () => [],
}
