import type { FormatParser } from '../types.js'

// Placeholder: not yet implemented.
export const gemma4: FormatParser = {
  name: 'gemma4',
  detect: () => false,
  parse: () => [],
}
