import type { FormatParser } from '../types.js'

// Placeholder: not yet implemented.
export const internlm2: FormatParser = {
  name: 'internlm2',
  detect: () => false,
  parse: () => [],
}
