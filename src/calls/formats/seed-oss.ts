import type { FormatParser } from '../types.js'

// Placeholder: not yet implemented.
export const seedOss: FormatParser = {
  name: 'seed_oss',
  detect: () => false,
  parse: () => [],
}
