/**
 * Llama 4 pythonic: `<|python_start|>[f(a=1), g(b="x")]<|python_end|>`. The end marker may be missing and text may
 * surround the block; without the start marker the output is read as a plain pythonic list (vLLM's Llama 4 parser
 * accepts both). Inside the markers a bare call (`f(a=1)`) or a comma sequence of calls is accepted too.
 */
import { parsePythonCalls } from '../../python/index.js'
import type { FormatParser, ParseOptions, ToolCall } from '../types.js'
import { callLimit } from '../call-limit.js'
import { TOOL_CALL_SYNTAX, listFinders, pythonicListsIn, readPythonicLists, renderPythonicList, toolCallFromPython } from '../pythonic-calls.js'
import { markedBy } from '../marker-scan.js'
import { ForwardSearch } from '../scan.js'
import { unreadAfter, unreadRunOn } from '../unread.js'

const FORMAT = 'llama4_pythonic'
const START = '<|python_start|>'
const END = '<|python_end|>'

/** Whether `text[from, to)` starts, after whitespace, with `[`. */
function opensList(text: string, from: number, to: number): boolean {
  let i = from
  while (i < to && /\s/.test(text[i]!)) i++
  return text.charCodeAt(i) === 91
}

function parse(text: string, options: ParseOptions): ToolCall[] {
  const limit = callLimit(options)
  let start = text.indexOf(START)
  if (start < 0) return pythonicListsIn(text, FORMAT, 0, text.length, undefined, limit)
  const out: ToolCall[] = []
  const finders = listFinders(text)
  const ends = new ForwardSearch(text, END)
  let end = -2 // the next END at or after the current block (-1: none left); searched forward only
  while (start >= 0) {
    const from = start + START.length
    const next = text.indexOf(START, from)
    if (end !== -1 && end < from) end = text.indexOf(END, from)
    const to = end >= 0 && (next < 0 || end < next) ? end : next >= 0 ? next : text.length
    const { calls: lists, end: listsEnd } = readPythonicLists(text, FORMAT, from, to, finders, Math.max(0, limit - out.length))
    // Inside the markers, text after the last list is unread (`[f(a='V')]<|python_ena1', b=2)]`), issue 22.
    if (lists.length > 0 && to === end) unreadAfter(lists, text, listsEnd, to)
    // `<|python_end|>` written twice before the next block: the first was inside a value, the rest is unread.
    if (to === end && lists.length > 0) {
      const again = ends.next(end + END.length)
      if (again >= 0 && (next < 0 || again < next)) unreadRunOn(lists, text, END, end + END.length, again)
    }
    if (lists.length > 0) out.push(...lists)
    else if (!opensList(text, from, to)) {
      // Bare calls (`f(a=1), g()`). A block that opens with `[` was just read as a list, with the same grammar,
      // and failed: parsing it again as calls would fail again (and double the cost of cut-off blocks).
      const r = parsePythonCalls(text.slice(from, to), TOOL_CALL_SYNTAX)
      if (r.ok) for (const c of r.calls) out.push(toolCallFromPython(c, FORMAT))
    }
    start = next
  }
  return out
}

export const llama4Pythonic: FormatParser = {
  name: FORMAT,
  aliases: ['llama4'],
  ...markedBy(START),
  parse,
  render: (calls) => START + renderPythonicList(calls) + END,
}
