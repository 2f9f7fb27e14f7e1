/**
 * PLaMo 3: each request names the tool, then holds its arguments as JSON:
 *
 * ```
 * <|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>get_weather<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|><|plamo:msg|>{"city": "Paris"}<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|><|plamo:end_tool_requests:plamo|>
 * ```
 *
 * Source: vLLM's `tool_parsers/plamo3_tool_parser.py`, SGLang's `plamo3_detector.py` and their tests. The model
 * writes the constraint prefix `<|plamo:constrain|>json<|plamo:msg|>` before the JSON: the JSON is what follows
 * `<|plamo:msg|>` (as the engines take it); without it, any `<|plamo:…|>` tokens before the JSON are skipped. A request whose
 * name or arguments are not closed is no call; arguments that are not a JSON object give the call with invalid
 * arguments (vLLM passes the text through unchecked).
 */
import { decodeArguments, invalidArguments, makeCall } from '../call-object.js'
import { parseJson } from '../json.js'
import { ForwardSearch } from '../scan.js'
import type { FormatParser, ToolCall } from '../types.js'
import { markedBy } from '../marker-scan.js'

const FORMAT = 'plamo3'
const tag = (s: string) => `<|plamo:${s}:plamo|>`
const REQUEST = tag('begin_tool_request')
const REQUEST_END = tag('end_tool_request')
const NAME = tag('begin_tool_name')
const NAME_END = tag('end_tool_name')
const ARGS = tag('begin_tool_arguments')
const ARGS_END = tag('end_tool_arguments')
const TOKEN = '<|plamo:'
const MSG = '<|plamo:msg|>'

function parse(text: string): ToolCall[] {
  const out: ToolCall[] = []
  const request = new ForwardSearch(text, REQUEST)
  const nameEnd = new ForwardSearch(text, NAME_END)
  const argsEnd = new ForwardSearch(text, ARGS_END)
  const tokenEnd = new ForwardSearch(text, '|>')
  const msg = new ForwardSearch(text, MSG)
  let at = request.next(0)
  while (at >= 0) {
    const next = request.next(at + REQUEST.length)
    const limit = next < 0 ? text.length : next
    let p = at + REQUEST.length
    while (text.charCodeAt(p) <= 32 && p < limit) p++
    const ne = nameEnd.next(p)
    if (text.startsWith(NAME, p) && ne >= 0 && ne < limit) {
      const name = text.slice(p + NAME.length, ne).trim()
      let a = ne + NAME_END.length
      while (text.charCodeAt(a) <= 32 && a < limit) a++
      const ae = argsEnd.next(a)
      if (name && text.startsWith(ARGS, a) && ae >= 0 && ae < limit) {
        let j = a + ARGS.length
        // The JSON follows `<|plamo:msg|>` where it is written, whatever precedes it (the constraint prefix
        // `<|plamo:constrain|>json`); otherwise tokens between the opener and the JSON are skipped.
        const m = msg.next(j)
        if (m >= 0 && m < ae) j = m + MSG.length
        while (text.startsWith(TOKEN, j)) {
          const e = tokenEnd.next(j)
          if (e < 0 || e >= ae) break
          j = e + 2
        }
        const r = parseJson(text.slice(j, ae))
        const args = r.ok ? decodeArguments(r.value, r.floatPaths) : invalidArguments('arguments are not JSON')
        out.push(makeCall(name, args.argumentsValid || !r.ok ? args : invalidArguments('arguments are not a JSON object'), FORMAT, text.slice(at, ae + ARGS_END.length)))
      }
    }
    at = next
  }
  return out
}

export const plamo3: FormatParser = {
  name: FORMAT,
  aliases: ['plamo', 'plamo-3'],
  ...markedBy(REQUEST),
  parse,
  render: (calls) =>
    tag('begin_tool_requests') +
    calls.map((c) => `${REQUEST}${NAME}${c.name}${NAME_END}${ARGS}<|plamo:constrain|>json${MSG}${JSON.stringify(c.arguments)}${ARGS_END}${REQUEST_END}`).join('') +
    tag('end_tool_requests'),
}
