import type { FormatParser } from '../types.js'

// Placeholder: not yet implemented.
export const functools: FormatParser = {
  name: 'functools',
  detect: () => false,
  parse: () => [],
}
