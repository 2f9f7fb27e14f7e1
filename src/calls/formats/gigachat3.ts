import type { FormatParser } from '../types.js'

// Placeholder: not yet implemented.
export const gigachat3: FormatParser = {
  name: 'gigachat3',
  detect: () => false,
  parse: () => [],
}
