/**
 * Moonshot Kimi K3: an "XTML" tag stream built from the special tokens `<|open|>`, `<|close|>` and `<|sep|>`:
 *
 * ```
 * <|open|>tools<|sep|>
 * <|open|>call tool="get_weather" index="0"<|sep|>
 * <|open|>argument key="city" type="string"<|sep|>Paris<|close|>argument<|sep|>
 * <|close|>call<|sep|>
 * <|close|>tools<|sep|>
 * ```
 *
 * Sources: sglang's K3 detector tests and a K3 parser's description of the checkpoint's `encoding_k3.py` (no
 * template file itself was at hand). An argument's `type` is one of string, number, boolean, null, object, array:
 * a string value is its text as written; any other is decoded as JSON (text that does not decode is typed by the
 * tool schema, or kept as text). An argument without a type is typed by the schema. A call body that is a JSON
 * object instead of arguments is read as the arguments. A call ends at `<|close|>call`, the next call, or the end
 * of the tools section; `<|sep|>` after a closing tag is optional (seen missing in engines' samples). A call body
 * must be closed arguments and whitespace (issue 22): other text, a header that is not attributes, an argument
 * without its `<|close|>argument`, or a token inside a value makes the call's arguments invalid, with the reason.
 * Attribute values (the tool's name, an argument's key) are XML attribute values: `&amp;`, `&quot;`, `&lt;` are
 * decoded; a value's text is kept as written.
 */
import { invalidArguments, makeCall } from '../call-object.js'
import { blankBetween, quoted } from '../unread.js'
import { parseJson } from '../json.js'
import { ArgumentsBuilder, renderRawValue } from '../schema-values.js'
import { ForwardSearch } from '../scan.js'
import type { FormatParser, ParseOptions, ToolCall } from '../types.js'
import { markedBy } from '../marker-scan.js'
import { decodeXmlEntities } from '../xml-entities.js'

const FORMAT = 'kimi_k3'
const TOOLS_OPEN = '<|open|>tools<|sep|>'
const TOOLS_CLOSE = '<|close|>tools'
const CALL_OPEN = '<|open|>call'
const CALL_CLOSE = '<|close|>call'
const ARG_OPEN = '<|open|>argument'
const ARG_CLOSE = '<|close|>argument'
const SEP = '<|sep|>'

const ATTRIBUTE = /([A-Za-z_]+)\s*=\s*"([^"]*)"/g

// A header of attributes and whitespace only: other text in it (a damaged token) was not read.
const HEADER = /^(?:\s*[A-Za-z_]+\s*=\s*"[^"]*")*\s*$/

/** The attributes of a tag's header, or undefined when it holds anything else. */
function attributes(header: string): Record<string, string> | undefined {
  if (!HEADER.test(header)) return undefined
  const out: Record<string, string> = Object.create(null) as Record<string, string>
  // An exec loop rather than matchAll, which copies the pattern on every call.
  ATTRIBUTE.lastIndex = 0
  // Values are XML attribute values: `tool="a&amp;b"` names the tool `a&b`.
  for (let m = ATTRIBUTE.exec(header); m !== null; m = ATTRIBUTE.exec(header)) out[m[1]!] = decodeXmlEntities(m[2]!)
  return out
}

function parse(text: string, options: ParseOptions): ToolCall[] {
  const out: ToolCall[] = []
  const section = text.indexOf(TOOLS_OPEN)
  if (section < 0) return out
  const calls = new ForwardSearch(text, CALL_OPEN)
  const callEnds = new ForwardSearch(text, CALL_CLOSE)
  const toolsEnds = new ForwardSearch(text, TOOLS_CLOSE)
  const args = new ForwardSearch(text, ARG_OPEN)
  const argEnds = new ForwardSearch(text, ARG_CLOSE)
  const seps = new ForwardSearch(text, SEP)
  let at = calls.next(section)
  while (at >= 0) {
    const headerEnd = seps.next(at + CALL_OPEN.length)
    if (headerEnd < 0) break
    const next = calls.next(headerEnd)
    const bounds = [callEnds.next(headerEnd), next, toolsEnds.next(headerEnd)].filter((p) => p >= 0)
    const end = bounds.length > 0 ? Math.min(...bounds) : text.length
    const header = text.slice(at + CALL_OPEN.length, headerEnd)
    const name = attributes(header)?.['tool']?.trim()
    if (name && headerEnd < end) {
      out.push(makeCall(name, callArguments(text, headerEnd + SEP.length, end, name, options, { args, argEnds, seps }), FORMAT, text.slice(at, end)))
    }
    at = next
  }
  return out
}

function callArguments(
  text: string,
  from: number,
  end: number,
  name: string,
  options: ParseOptions,
  search: { args: ForwardSearch; argEnds: ForwardSearch; seps: ForwardSearch },
) {
  const body = text.slice(from, end).trim()
  if (body.startsWith('{')) {
    const r = parseJson(body)
    if (r.ok && r.value !== null && typeof r.value === 'object' && !Array.isArray(r.value)) {
      return { arguments: r.value as Record<string, unknown>, argumentsValid: true, floatPaths: r.floatPaths }
    }
    return { arguments: {}, argumentsValid: false }
  }
  const builder = new ArgumentsBuilder(name, options)
  // Issue 22: the body must be arguments, each closed, and whitespace; anything else may have held an argument.
  let unread: string | undefined
  let read = from // end of the last argument read
  let a = search.args.next(from)
  while (a >= 0 && a < end) {
    if (!blankBetween(text, read, a)) unread ??= `text in the call that is not an argument: ${quoted(text, read, a)}`
    const headerEnd = search.seps.next(a + ARG_OPEN.length)
    if (headerEnd < 0 || headerEnd >= end) {
      unread ??= 'an argument tag that is not closed'
      read = end
      break
    }
    const close = search.argEnds.next(headerEnd)
    const nextArg = search.args.next(headerEnd)
    const valueEnd = Math.min(...[close, nextArg, end].filter((p) => p >= 0))
    const attrs = attributes(text.slice(a + ARG_OPEN.length, headerEnd))
    const key = attrs?.['key']
    const raw = text.slice(headerEnd + SEP.length, valueEnd)
    if (key === undefined) unread ??= `an argument header that could not be read: ${quoted(text, a, headerEnd)}`
    else if (valueEnd !== close) unread ??= `argument ${JSON.stringify(key)} is not closed`
    // Tokens in a value are tags that were not read (a damaged closer ran the value on over the next argument).
    else if (raw.includes('<|') || raw.includes('|>')) unread ??= `argument ${JSON.stringify(key)} holds a token that was not read: ${quoted(raw, 0, raw.length)}`
    read = valueEnd === close ? afterSep(text, close + ARG_CLOSE.length) : valueEnd
    if (key !== undefined) {
      const type = attrs?.['type']
      if (type === 'string') builder.add(key, { value: raw })
      else if (type !== undefined) {
        const r = parseJson(raw)
        if (r.ok) builder.add(key, r.floatPaths ? { value: r.value, floatPaths: r.floatPaths } : { value: r.value })
        else builder.addText(key, raw)
      } else builder.addText(key, raw)
    }
    a = nextArg
  }
  if (!blankBetween(text, read, end)) unread ??= `text in the call that is not an argument: ${quoted(text, read, end)}`
  return unread === undefined ? builder.result() : invalidArguments(unread)
}

/** Index after an optional `<|sep|>` at `i` (it may follow a closing tag). */
function afterSep(text: string, i: number): number {
  return text.startsWith(SEP, i) ? i + SEP.length : i
}

function kind(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'array'
  return typeof v === 'object' ? 'object' : typeof v
}

function render(calls: readonly { name: string; arguments: Record<string, unknown> }[]): string {
  let s = TOOLS_OPEN
  calls.forEach((c, i) => {
    s += `${CALL_OPEN} tool="${c.name}" index="${i}"${SEP}`
    for (const [k, v] of Object.entries(c.arguments)) {
      s += `${ARG_OPEN} key="${k}" type="${kind(v)}"${SEP}${renderRawValue(v)}${ARG_CLOSE}${SEP}`
    }
    s += `${CALL_CLOSE}${SEP}`
  })
  return s + `${TOOLS_CLOSE}${SEP}`
}

export const kimiK3: FormatParser = {
  name: FORMAT,
  aliases: ['kimi-k3', 'kimi_xtml'],
  ...markedBy(TOOLS_OPEN),
  parse,
  render,
}
