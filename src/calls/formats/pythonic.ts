import type { FormatParser } from '../types.js'

// Placeholder: not yet implemented.
export const pythonic: FormatParser = {
  name: 'pythonic',
  detect: () => false,
  parse: () => [],
}
