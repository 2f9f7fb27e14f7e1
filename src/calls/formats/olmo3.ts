/**
 * OLMo 3: `<function_calls>get_weather(city='SF')\nregister(name='x')</function_calls>`: pythonic calls without list
 * brackets, one a line (a bracketed list or comma-separated calls are accepted too), with the JSON literals `true`,
 * `false`, `null` read as constants. A missing `</function_calls>` at the end of the output still gives the complete
 * calls before it; a call that does not parse ends the block (the calls before it are kept).
 */
import { parsePythonCallAt, parsePythonCallListAt, renderPythonCall } from '../../python/index.js'
import type { FormatParser, ToolCall } from '../types.js'
import { toolCallFromPython } from '../pythonic-calls.js'
import { forEachBlock } from '../scan.js'
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
function callsInBlock(block: string, out: ToolCall[]): void {
  let i = skipSeparators(block, 0, block.length)
  while (i < block.length) {
    const r = block.charCodeAt(i) === 91 /* [ */
      ? parsePythonCallListAt(block, i, { jsonLiterals: true })
      : parsePythonCallAt(block, i, { jsonLiterals: true })
    if (!r.ok) return
    for (const c of r.calls) out.push(toolCallFromPython(c, FORMAT))
    i = skipSeparators(block, r.end, block.length)
  }
}

function parse(text: string): ToolCall[] {
  const out: ToolCall[] = []
  forEachBlock(text, OPEN, CLOSE, (body) => callsInBlock(body, out))
  return out
}

export const olmo3: FormatParser = {
  name: FORMAT,
  aliases: ['olmo'],
  ...markedBy(OPEN),
  parse,
  render: (calls) => OPEN + calls.map((c) => renderPythonCall(c.name, c.arguments)).join('\n') + CLOSE,
}
