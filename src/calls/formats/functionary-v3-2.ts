/**
 * Functionary v3.2: the output is a series of `>>>RECIPIENT\nCONTENT` blocks whose first `>>>` is part of the
 * prompt, so the output starts with the first recipient: `all\nHello!>>>get_weather\n{"city": "Paris"}`.
 *
 * The recipient `all` carries text for the user; any other recipient is a function and its content the JSON
 * arguments, except that the `python` tool may carry raw code, which becomes `{"code": ...}` (llama.cpp). A block
 * whose JSON does not decode gives no call. JSON still open at the next `>>>` (a doctest prompt inside a string value)
 * is read past it, within a budget; raw python code ends at the next `>>>`.
 *
 * There is no marker token, so detection asks for the shape at the very start of the output: `all` or `python` alone
 * on the first line, `>>>`, or a name alone on the first line followed by a JSON object.
 */
import { skipSpace } from '../json.js'
import { isPlainObject, makeCall } from '../call-object.js'
import type { FormatParser, ToolCall } from '../types.js'
import { namedCall, parseJsonPast, pastMarkerBudget, type Budget } from '../json-calls.js'
import { unreadUnspaced } from '../unread.js'

const SEP = '>>>'
const FORMAT = 'functionary_v3_2'
const RECIPIENT = /^[A-Za-z_][A-Za-z0-9_.-]*$/
const START = /^(?:>>>|all\n|python\n|[A-Za-z_][A-Za-z0-9_.-]*\n[ \t\r\n]*\{)/

function parseFunctionaryV32(text: string): ToolCall[] {
  const out: ToolCall[] = []
  const budget = pastMarkerBudget(text)
  let newline = -2 // the next newline at or after the current block (-1: none left; -2: not searched yet)
  let start = text.startsWith(SEP) ? SEP.length : 0
  while (start <= text.length) {
    let sep = text.indexOf(SEP, start)
    const end = sep < 0 ? text.length : sep
    if (newline === -2 || (newline >= 0 && newline < start)) newline = text.indexOf('\n', start)
    if (newline >= 0 && newline < end) {
      const recipient = text.slice(start, newline).trim()
      const block = recipient === 'all' || !RECIPIENT.test(recipient) ? undefined : blockCall(text, recipient, newline + 1, end, budget)
      if (block) {
        out.push(block.call)
        // JSON read past the next `>>>` holds it in a string (`>>> ` of a doctest): the next block is after it.
        if (block.end > end) sep = text.indexOf(SEP, block.end)
      }
    }
    if (sep < 0) break
    start = sep + SEP.length
  }
  return out
}

function blockCall(text: string, recipient: string, start: number, end: number, budget: Budget): { call: ToolCall; end: number } | undefined {
  const i = skipSpace(text, start, end)
  if (text.charCodeAt(i) === 123 /* { */) {
    const r = parseJsonPast(text, i, end, budget)
    if (r.ok && isPlainObject(r.value)) {
      const call = namedCall(recipient, r.value, r.floatPaths, FORMAT, text.slice(i, r.end))
      // Text glued to the JSON (`{"a": 7}9, "b": 2}`) is the rest of it, unread (issue 22).
      return { call: unreadUnspaced([call], text, r.end, end)[0]!, end: r.end }
    }
  }
  if (recipient !== 'python') return undefined
  const code = text.slice(start, end).trimEnd()
  if (code.length === 0) return undefined
  return { call: makeCall('python', { arguments: { code }, argumentsValid: true }, FORMAT, code), end }
}

export const functionaryV32: FormatParser = {
  name: FORMAT,
  aliases: ['functionary', 'functionary_v3'],
  detect: (text) => START.test(text),
  parse: parseFunctionaryV32,
  render: (calls) =>
    calls.map((c, k) => `${k === 0 ? '' : SEP}${c.name}\n${JSON.stringify(c.arguments)}`).join(''),
}
