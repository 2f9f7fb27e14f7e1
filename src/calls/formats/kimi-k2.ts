import type { FormatParser } from '../types.js'

// Placeholder: not yet implemented.
export const kimiK2: FormatParser = {
  name: 'kimi_k2',
  detect: () => false,
  parse: () => [],
}
