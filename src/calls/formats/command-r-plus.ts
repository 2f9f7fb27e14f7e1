import type { FormatParser } from '../types.js'

// Placeholder: not yet implemented.
export const commandRPlus: FormatParser = {
  name: 'command_r_plus',
  detect: () => false,
  parse: () => [],
}
