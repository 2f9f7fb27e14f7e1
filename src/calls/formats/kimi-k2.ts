/**
 * Moonshot Kimi K2 (Instruct and Thinking):
 * `<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{...}<|tool_call_end|>…<|tool_calls_section_end|>`.
 * The call id is `functions.NAME:IDX` (the counter may be conversation-wide); names may hold `-`, `__` and dots.
 * Whitespace may sit between the tokens; the section markers and `<|tool_call_end|>` may be missing: a call runs to
 * the next `<|tool_call_begin|>`, the section end, or the end of the output.
 *
 * Reasoning is kept (`reasoning: 'keep'`): Kimi-K2-Thinking writes its calls INSIDE an unclosed `<think>`, and may
 * resume reasoning after the section; those are real calls (llama.cpp, sglang). The call tokens are special tokens a
 * model emits only to call, so every call anywhere in the output counts, `<think>` or not.
 *
 * Choices:
 * - Arguments that do not decode (invalid or truncated JSON) still give the call, with invalid arguments, as vLLM
 *   does (it passes the raw string through): the name sits outside the JSON and the model did choose the tool.
 * - A call id without the `:IDX` counter (`functions.x.0`) is not a call (vLLM drops it): the header is malformed and
 *   its name cannot be told from the counter.
 */
import { decodeArguments, makeCall } from '../call-object.js'
import { parseJsonAt, parseJsonSpan } from '../json.js'
import type { FormatParser, ToolCall } from '../types.js'
import { ForwardSearch } from '../scan.js'
import { markedBy } from '../marker-scan.js'
import { unreadTail } from '../unread.js'

const SECTION_BEGIN = '<|tool_calls_section_begin|>'
const SECTION_END = '<|tool_calls_section_end|>'
const CALL_BEGIN = '<|tool_call_begin|>'
const ARGUMENT_BEGIN = '<|tool_call_argument_begin|>'
const CALL_END = '<|tool_call_end|>'
const PREFIX = 'functions.'

/** The function name in a call id `functions.NAME:IDX` (prefix optional), or undefined when the id is malformed. */
export function nameFromCallId(id: string): string | undefined {
  const colon = id.lastIndexOf(':')
  if (colon < 0 || colon === id.length - 1) return undefined
  for (let i = colon + 1; i < id.length; i++) {
    const c = id.charCodeAt(i)
    if (c < 48 || c > 57) return undefined
  }
  const head = id.slice(0, colon)
  const name = head.startsWith(PREFIX) ? head.slice(PREFIX.length) : head
  return name.length > 0 && !/\s/.test(name) ? name : undefined
}

function firstOf(a: number, b: number): number {
  if (a < 0) return b
  if (b < 0) return a
  return Math.min(a, b)
}

export function parseKimi(text: string): ToolCall[] {
  const begins = new ForwardSearch(text, CALL_BEGIN)
  const argBegins = new ForwardSearch(text, ARGUMENT_BEGIN)
  const callEnds = new ForwardSearch(text, CALL_END)
  const sectionEnds = new ForwardSearch(text, SECTION_END)
  const sectionBegins = new ForwardSearch(text, SECTION_BEGIN)
  const calls: ToolCall[] = []
  let b = begins.next(0)
  while (b >= 0) {
    const idStart = b + CALL_BEGIN.length
    const nextBegin = begins.next(idStart)
    // Everything of this call lies before the next call or the end of its section.
    const limit = firstOf(firstOf(nextBegin, sectionEnds.next(idStart)), sectionBegins.next(idStart))
    const end = limit < 0 ? text.length : limit
    const a = argBegins.next(idStart)
    const hasArgs = a >= 0 && a < end
    const e = callEnds.next(idStart)
    const idEnd = hasArgs ? a : e >= 0 && e < end ? e : end
    const name = nameFromCallId(text.slice(idStart, idEnd).trim())
    if (name !== undefined) {
      const id = text.slice(idStart, idEnd).trim()
      let args = { arguments: {}, argumentsValid: false } as ReturnType<typeof decodeArguments>
      let rawEnd = idEnd
      if (hasArgs) {
        // Most arguments run exactly to `<|tool_call_end|>`: one native parse of that span first. Otherwise read
        // string-aware up to the next call, so a `<|tool_call_end|>` inside a string value does not cut them.
        const argStart = a + ARGUMENT_BEGIN.length
        const close = callEnds.next(argStart)
        const span = close >= 0 && close < end ? parseJsonSpan(text, argStart, close) : undefined
        const r = span?.ok ? span : parseJsonAt(text, argStart, end)
        if (r.ok) {
          args = decodeArguments(r.value, r.floatPaths)
          rawEnd = r.end
        } else rawEnd = end
      }
      const call = makeCall(name, args, 'kimi_k2', text.slice(b, rawEnd), id)
      // Text after the arguments, before `<|tool_call_end|>` or a second one, is unread (issue 22).
      calls.push(...(hasArgs && args.argumentsValid ? unreadTail([call], text, rawEnd, end, callEnds) : [call]))
    }
    b = nextBegin
  }
  return calls
}

export const kimiK2: FormatParser = {
  name: 'kimi_k2',
  ...markedBy(CALL_BEGIN),
  reasoning: 'keep',
  parse: (text) => parseKimi(text),
  render: (calls) =>
    SECTION_BEGIN +
    calls
      .map((c, i) => `${CALL_BEGIN}${PREFIX}${c.name}:${i}${ARGUMENT_BEGIN}${JSON.stringify(c.arguments)}${CALL_END}`)
      .join('') +
    SECTION_END,
}
