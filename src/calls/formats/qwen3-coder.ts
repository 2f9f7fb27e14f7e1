import type { FormatParser } from '../types.js'

// Placeholder: not yet implemented.
export const qwen3Coder: FormatParser = {
  name: 'qwen3_coder',
  detect: () => false,
  parse: () => [],
}
