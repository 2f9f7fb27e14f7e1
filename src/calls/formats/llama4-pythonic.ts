import type { FormatParser } from '../types.js'

// Placeholder: not yet implemented.
export const llama4Pythonic: FormatParser = {
  name: 'llama4_pythonic',
  detect: () => false,
  parse: () => [],
}
