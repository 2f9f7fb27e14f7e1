/**
 * Liquid LFM2: `<|tool_call_start|>[f(a=1), g(b="x")]<|tool_call_end|>`, where the inside is either a pythonic call
 * list or JSON (an array of call objects or one bare object, with `arguments` or `parameters`). Several blocks with
 * text between them all count; an empty block gives nothing; a missing end marker at the end of the output still
 * gives the complete calls before it.
 *
 * Decisions against the corpus (see test/unit/calls/formats-pythonic-xml.test.ts):
 * - Python string escapes are decoded as Python does (`"a\nb"` has a newline). llama.cpp keeps them literally
 *   (`llamacpp-lfm2-13`); the model wrote Python, so Python's reading is the one kept.
 * - Calls to functions not among the offered tools are kept (`sglang-lfm2-12`, where sglang drops them): whether a
 *   name is right is for the scorer to judge, and without tools no parser could tell.
 * - A block cut off inside a call (`[special_function(arg1=`, contested `llamacpp-lfm2-14`) gives no call.
 */
import { callFromObject, makeCall, subPaths } from '../call-object.js'
import { parseJson, skipSpace } from '../json.js'
import { parsePythonCalls } from '../../python/index.js'
import type { FormatParser, ToolCall } from '../types.js'
import { TOOL_CALL_SYNTAX, renderPythonicList, toolCallFromPython } from '../pythonic-calls.js'
import { ForwardSearch, forEachBlock } from '../scan.js'
import { unreadRunOn } from '../unread.js'
import { markedBy } from '../marker-scan.js'

const FORMAT = 'lfm2'
const START = '<|tool_call_start|>'
const END = '<|tool_call_end|>'

function jsonCalls(block: string, out: ToolCall[]): boolean {
  const r = parseJson(block)
  if (!r.ok) return false
  const items = Array.isArray(r.value) ? r.value : [r.value]
  items.forEach((item, k) => {
    const paths = Array.isArray(r.value) ? subPaths(r.floatPaths, '/' + k) : r.floatPaths
    const call = callFromObject(item, FORMAT, JSON.stringify(item), paths)
    if (call) out.push(call)
  })
  return true
}

function callsInBlock(block: string, out: ToolCall[]): boolean {
  const s = skipSpace(block, 0)
  if (s >= block.length) return true
  const c = block.charCodeAt(s)
  const second = block.charCodeAt(skipSpace(block, s + 1))
  // JSON: `{...}` or `[{...}]` (or `[]`); otherwise Python calls.
  if ((c === 123 || (c === 91 && (second === 123 || second === 93))) && jsonCalls(block, out)) return true
  const r = parsePythonCalls(block, TOOL_CALL_SYNTAX)
  if (r.ok) for (const call of r.calls) out.push(toolCallFromPython(call, FORMAT))
  return r.ok
}

function parse(text: string): ToolCall[] {
  const out: ToolCall[] = []
  const ends = new ForwardSearch(text, END)
  const starts = new ForwardSearch(text, START)
  forEachBlock(text, START, END, (body, _from, to, closed) => {
    const before = out.length
    const read = callsInBlock(body, out)
    // Issue 22: a closed block that does not read is still a call attempt (its name unknown), so that no reader of
    // the same text takes part of it as a valid call; and `<|tool_call_end|>` again before the next block means the
    // first was inside a value.
    if (!read && closed) out.push(makeCall('', { arguments: {}, argumentsValid: false, error: 'the block does not read as calls' }, FORMAT, START + body + END))
    else if (closed && out.length > before) {
      const again = ends.next(to + END.length)
      const next = starts.next(to)
      if (again >= 0 && (next < 0 || again < next)) unreadRunOn(out.slice(before), text, END, to + END.length, again)
    }
  })
  return out
}

export const lfm2: FormatParser = {
  name: FORMAT,
  aliases: ['lfm', 'liquid'],
  ...markedBy(START),
  parse,
  render: (calls) => START + renderPythonicList(calls) + END,
}
