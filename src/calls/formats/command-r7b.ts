import type { FormatParser } from '../types.js'

// Placeholder: not yet implemented.
export const commandR7b: FormatParser = {
  name: 'command_r7b',
  detect: () => false,
  parse: () => [],
}
