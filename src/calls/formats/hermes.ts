import type { FormatParser } from '../types.js'

// Placeholder: not yet implemented.
export const hermes: FormatParser = {
  name: 'hermes',
  detect: () => false,
  parse: () => [],
}
