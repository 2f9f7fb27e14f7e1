import type { FormatParser } from '../types.js'

// Placeholder: not yet implemented.
export const granite20bFc: FormatParser = {
  name: 'granite_20b_fc',
  detect: () => false,
  parse: () => [],
}
