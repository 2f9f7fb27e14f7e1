import type { FormatParser } from '../types.js'

// Placeholder: not yet implemented.
export const gigachat31: FormatParser = {
  name: 'gigachat31',
  detect: () => false,
  parse: () => [],
}
