/**
 * Text from data or model output (sample ids, suite names, tool names, calls, error messages) put into Markdown that
 * GitHub renders: the step summary and the pull-request comment. Every Markdown view goes through these two, so the
 * rule is in one place: such text stays inert, whatever it holds. No heading, list, quote, link, image, raw HTML,
 * emphasis, table cell break, math, `@` mention or `#123` reference can come from it.
 */
import { printable } from '../calls/printable.js'

// Zero-width space: invisible, and not a word character, so GitHub's mention and autolink rules stop at it.
const ZWSP = '\u200b'

// CommonMark's inline syntax is all ASCII punctuation; these are the characters that open something (code, emphasis,
// strikethrough, links and images, autolinks and HTML, entities, table cells, GitHub's math) or escape one.
const INLINE = /[\\`*_~[\]<>&|$!]/g

// What a line-start would make a block: ATX heading, quote, bullet list, setext underline; `1.` / `1)` ordered list.
const BLOCK_START = /^(\s*)([#>+=-])/
const ORDERED_START = /^(\s*\d+)([.)])/

/**
 * Text for a table cell, a list item or a sentence: one line (line breaks and control characters become visible
 * escapes, `printable`'s rule), Markdown syntax backslash-escaped, and `@`, `#123`, `://` and `www.` broken by a
 * zero-width space so GitHub pings no one and links nothing. Safe at the start of a line too.
 */
export function mdText(text: string): string {
  const escaped = printable(text)
    .replace(INLINE, (ch) => `\\${ch}`)
    .replace(/@/g, `@${ZWSP}`)
    .replace(/#(?=\d)/g, `#${ZWSP}`)
    .replace(/:(?=\/\/)/g, `:${ZWSP}`)
    .replace(/(www)(?=\.)/gi, `$1${ZWSP}`)
  return escaped.replace(BLOCK_START, '$1\\$2').replace(ORDERED_START, '$1\\$2')
}

/**
 * Inline code (for calls and arguments, shown as they are): one line (`printable`), fenced by a backtick run longer
 * than any inside, so nothing in it can close the span. Not for table cells: GitHub splits a cell at `|` even in code.
 */
export function mdCode(text: string): string {
  const flat = printable(text)
  let longest = 0
  for (const run of flat.match(/`+/g) ?? []) longest = Math.max(longest, run.length)
  const fence = '`'.repeat(longest + 1)
  // A span of spaces only is kept as it is (an empty one gets a space: "``" opens no span). Otherwise a space each
  // side when the text starts or ends with a backtick or a space, as CommonMark strips one from each side.
  if (flat.trim() === '') return `${fence}${flat || ' '}${fence}`
  const pad = /^[` ]|[` ]$/.test(flat) ? ' ' : ''
  return `${fence}${pad}${flat}${pad}${fence}`
}
