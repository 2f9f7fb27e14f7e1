import type { FormatParser } from '../types.js'

// Placeholder: not yet implemented.
export const genericJson: FormatParser = {
  name: 'json',
  detect: () => false,
  parse: () => [],
}
