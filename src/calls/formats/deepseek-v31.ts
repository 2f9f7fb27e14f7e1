import type { FormatParser } from '../types.js'

// Placeholder: not yet implemented.
export const deepseekV31: FormatParser = {
  name: 'deepseek_v31',
  detect: () => false,
  parse: () => [],
}
