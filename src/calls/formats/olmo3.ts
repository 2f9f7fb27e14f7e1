import type { FormatParser } from '../types.js'

// Placeholder: not yet implemented.
export const olmo3: FormatParser = {
  name: 'olmo3',
  detect: () => false,
  parse: () => [],
}
