import { parseJson } from './json.js'
import type { JsonValue } from './types.js'

/**
 * Walking a JSON-lines text: one visit per non-blank line, with its 1-based line number (blank lines still count, so
 * error messages point at the right line). A leading BOM and `\r\n` endings are accepted. The content is handed over
 * untouched otherwise, so column numbers in decode errors stay the file's. The visitor returns `false` to stop.
 */
export function forEachJsonlLine(text: string, visit: (content: string, line: number) => boolean | void): void {
  let start = text.charCodeAt(0) === 0xfeff ? 1 : 0
  let line = 0
  while (start < text.length) {
    let end = text.indexOf('\n', start)
    if (end < 0) end = text.length
    line++
    let content = text.slice(start, end)
    if (content.endsWith('\r')) content = content.slice(0, -1)
    start = end + 1
    // `false` from the visitor stops the walk (a line limit reached).
    if (content.trim().length > 0 && visit(content, line) === false) return
  }
}

/**
 * One JSONL line decoded. A line that the native `JSON.parse` accepts is decoded by it directly: `parseJson` would
 * give the same value (it hands bracketed values to `JSON.parse` too), after a scan of its own that costs as much
 * again on large lines. Anything else goes to `parseJson`, which accepts a little more (Unicode spaces around the
 * value) and words its errors as the loaders report them. Integral-float paths are not needed at line level.
 */
export function decodeJsonLine(content: string): { ok: true; value: JsonValue } | { ok: false; error: string; at: number } {
  try {
    return { ok: true, value: JSON.parse(content) as JsonValue }
  } catch {
    return parseJson(content)
  }
}
