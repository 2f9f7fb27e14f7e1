import type { FormatParser } from '../types.js'

// Placeholder: not yet implemented.
export const step3: FormatParser = {
  name: 'step3',
  detect: () => false,
  parse: () => [],
}
