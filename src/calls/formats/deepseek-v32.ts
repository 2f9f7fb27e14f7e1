import type { FormatParser } from '../types.js'

// Placeholder: not yet implemented.
export const deepseekV32: FormatParser = {
  name: 'deepseek_v32',
  detect: () => false,
  parse: () => [],
}
