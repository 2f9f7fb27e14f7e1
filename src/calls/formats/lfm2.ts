import type { FormatParser } from '../types.js'

// Placeholder: not yet implemented.
export const lfm2: FormatParser = {
  name: 'lfm2',
  detect: () => false,
  parse: () => [],
}
