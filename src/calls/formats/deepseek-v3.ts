import type { FormatParser } from '../types.js'

// Placeholder: not yet implemented.
export const deepseekV3: FormatParser = {
  name: 'deepseek_v3',
  detect: () => false,
  parse: () => [],
}
