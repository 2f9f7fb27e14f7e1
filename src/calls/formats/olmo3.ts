/**
 * OLMo 3: `<function_calls>get_weather(city='SF')\nregister(name='x')</function_calls>`: pythonic calls without list
 * brackets, one a line (a bracketed list or comma-separated calls are accepted too), with the JSON literals `true`,
 * `false`, `null` read as constants. A missing `</function_calls>` at the end of the output still gives the complete
 * calls before it; a call that does not parse ends the block (the calls before it are kept).
 */
import { parsePythonCallAt, parsePythonCallListAt, renderPythonCall } from '../../python/index.js'
import type { FormatParser, ToolCall } from '../types.js'
import { TOOL_CALL_SYNTAX, toolCallFromPython } from '../pythonic-calls.js'
import { ForwardSearch, forEachBlock } from '../scan.js'
import { unreadGlued, unreadRunOn, unreadText } from '../unread.js'
import { markedBy } from '../marker-scan.js'

const FORMAT = 'olmo3'
const OPEN = '<function_calls>'
const CLOSE = '</function_calls>'

function skipSeparators(text: string, i: number, end: number): number {
  while (i < end) {
    const c = text.charCodeAt(i)
    if (c === 32 || c === 9 || c === 10 || c === 13 || c === 44 /* , */) i++
    else break
  }
  return i
}

/** The calls in one block's text (parsed on its own, so a broken block never reads past its end). */
function callsInBlock(block: string, out: ToolCall[]): ToolCall[] {
  const calls: ToolCall[] = []
  let glued = -1 // end of the last call read
  let i = skipSeparators(block, 0, block.length)
  while (i < block.length) {
    const r = block.charCodeAt(i) === 91 /* [ */
      ? parsePythonCallListAt(block, i, TOOL_CALL_SYNTAX)
      : parsePythonCallAt(block, i, TOOL_CALL_SYNTAX)
    if (!r.ok) {
      // Text that does not parse right after a call, with no separator between (`f(a='V')</fa1', b=2)`), is the
      // rest of that call, unread (issue 22); after a separator it is another entry, and the calls before it stand.
      if (i === glued) unreadText(calls, `text right after the call that could not be read: ${JSON.stringify(block.slice(i, i + 40))}`)
      break
    }
    const read = r.calls.map((c) => toolCallFromPython(c, FORMAT))
    // Text glued to a call (`f(a='V')qa1', b=2)`) is the rest of it, unread (issue 22).
    unreadGlued(read, block, r.end)
    calls.push(...read)
    glued = r.end
    i = skipSeparators(block, r.end, block.length)
  }
  out.push(...calls)
  return calls
}

function parse(text: string): ToolCall[] {
  const out: ToolCall[] = []
  const closes = new ForwardSearch(text, CLOSE)
  const opens = new ForwardSearch(text, OPEN)
  forEachBlock(text, OPEN, CLOSE, (body, _from, to, closed) => {
    const calls = callsInBlock(body, out)
    if (!closed || calls.length === 0) return
    // `</function_calls>` written twice before the next block: the first was inside a value, the rest is unread.
    const again = closes.next(to + CLOSE.length)
    const next = opens.next(to)
    if (again >= 0 && (next < 0 || again < next)) unreadRunOn(calls, text, CLOSE, to + CLOSE.length, again)
  })
  return out
}

export const olmo3: FormatParser = {
  name: FORMAT,
  aliases: ['olmo'],
  ...markedBy(OPEN),
  parse,
  render: (calls) => OPEN + calls.map((c) => renderPythonCall(c.name, c.arguments)).join('\n') + CLOSE,
}
