import type { FormatParser } from '../types.js'

// Placeholder: not yet implemented.
export const nemotronV2: FormatParser = {
  name: 'nemotron_v2',
  detect: () => false,
  parse: () => [],
}
