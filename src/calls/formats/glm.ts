import type { FormatParser } from '../types.js'

// Placeholder: not yet implemented.
export const glm: FormatParser = {
  name: 'glm45',
  detect: () => false,
  parse: () => [],
}
