/**
 * Pythonic call lists: `[get_weather(city='Paris'), search(query="x")]` (Llama 3.2 pythonic template, Llama 4 without
 * its markers, LFM2.5, ToolACE-style models, BFCL prompting). Read with our own Python-literal parser
 * (`../python/`); nothing is evaluated.
 *
 * Rules: every `[` followed by a dotted name and `(` starts a candidate list; a candidate that parses completely as a
 * list of calls gives its calls, anything else is prose (so `[1, 2]`, `[see above]`, a JSON array, and text with a
 * broken list such as `[A(A=\t)` give nothing). Several lists in one output all count (sglang). The JSON literals
 * `true`, `false`, `null` are read as constants (vLLM and OLMo accept them); another bare name becomes its string and
 * a nested call its source text (BFCL's decoder rules); positional arguments are dropped (vLLM and BFCL drop them).
 * A failed candidate is skipped up to where its parse stopped, so scanning stays linear.
 *
 * Contested cases: `sglang-pythonic-4` and `-12` (streamed, whole text here) give their calls; `sglang-pythonic-8`
 * (`Let's try this: [`) gives none.
 */
import { makeCall } from '../call-object.js'
import { parsePythonCallListAt, renderPythonCall, type PyCall } from '../python/index.js'
import type { FormatParser, ToolCall } from '../types.js'
import { ForwardSearch } from '../scan.js'

const FORMAT = 'pythonic'

/** A ToolCall from a parsed Python call (keyword arguments only). */
export function toolCallFromPython(call: PyCall, format: string): ToolCall {
  return makeCall(call.name, { arguments: call.args, argumentsValid: true, floatPaths: call.floatPaths }, format, call.raw)
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13
}

function isNameChar(c: number, first: boolean): boolean {
  const letter = (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c >= 128
  return first ? letter : letter || (c >= 48 && c <= 57)
}

/**
 * Whether `[` at `i` is followed by `name(` or `dotted.name(` (whitespace allowed): the cheap test before a parse.
 * Reads only the name, which no other candidate's test reads again.
 */
function startsCallList(text: string, i: number, end: number): boolean {
  let j = i + 1
  while (j < end && isSpace(text.charCodeAt(j))) j++
  for (;;) {
    if (j >= end || !isNameChar(text.charCodeAt(j), true)) return false
    while (j < end && isNameChar(text.charCodeAt(j), false)) j++
    if (text.charCodeAt(j) !== 46 /* . */) break
    j++
  }
  while (j < end && isSpace(text.charCodeAt(j))) j++
  return text.charCodeAt(j) === 40 /* ( */
}

/**
 * The calls of every complete call list in `text[from, to)`. Callers that read several ranges of one text in order
 * pass one `brackets` finder for all of them, so that no search for `[` runs over the same text twice.
 */
export function pythonicListsIn(
  text: string,
  format: string,
  from = 0,
  to = text.length,
  brackets = new ForwardSearch(text, '['),
): ToolCall[] {
  const out: ToolCall[] = []
  let i = from
  while (i < to) {
    const b = brackets.next(i)
    if (b < 0 || b >= to) break
    if (!startsCallList(text, b, to)) {
      i = b + 1
      continue
    }
    const r = parsePythonCallListAt(text, b, { jsonLiterals: true })
    if (r.ok && r.end <= to) {
      for (const c of r.calls) out.push(toolCallFromPython(c, format))
      i = r.end
    } else i = Math.max(b + 1, r.ok ? r.end : r.scanned)
  }
  return out
}

/** `[f(a=1), g(b='x')]`. */
export function renderPythonicList(calls: readonly { name: string; arguments: Record<string, unknown> }[]): string {
  return '[' + calls.map((c) => renderPythonCall(c.name, c.arguments)).join(', ') + ']'
}

export const pythonic: FormatParser = {
  name: FORMAT,
  aliases: ['python', 'llama3_2_pythonic', 'bfcl_prompting'],
  detect: (text) => text.includes('[') && text.includes('('),
  parse: (text) => pythonicListsIn(text, FORMAT),
  render: renderPythonicList,
}
