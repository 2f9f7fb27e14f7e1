/**
 * Text from data or model output (tool names, sample ids, error messages) made safe to print on a terminal or in a
 * CI log: one rule for every line this package prints. Unicode text (letters, emoji) is kept; what a terminal or a
 * log reader would act on becomes a visible escape.
 */

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' }

// C0 controls, DEL, C1 controls (U+0085 is a line break to some readers), the Unicode line and paragraph
// separators, and the bidirectional embeddings, overrides and isolates that reorder what a reader sees.
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g

function escapeChar(ch: string): string {
  const named = NAMED[ch]
  if (named !== undefined) return named
  const code = ch.charCodeAt(0)
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`
}

/**
 * `text` as one printable line: control characters (ESC, `\r`, `\n`, ...) become visible escapes (`\x1b`, `\r`,
 * `\n`), so no ANSI sequence runs and nothing starts a new line; and a leading `::` or `##[` (a GitHub Actions
 * workflow command where a line starts with it, after spaces) has its first character escaped, so the text cannot
 * start a command wherever it is put.
 */
export function printable(text: string): string {
  const flat = text.replace(UNPRINTABLE, escapeChar)
  const at = flat.length - flat.trimStart().length
  const rest = flat.slice(at)
  if (!rest.startsWith('::') && !rest.startsWith('##[')) return flat
  return `${flat.slice(0, at)}${escapeChar(rest[0] as string)}${rest.slice(1)}`
}

