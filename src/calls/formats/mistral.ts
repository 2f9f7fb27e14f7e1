/**
 * The Mistral `[TOOL_CALLS]` family:
 *
 * ```
 * pre-v11:  [TOOL_CALLS] [{"name": ..., "arguments": {...}, "id": "9charsXYZ"}, ...]   (Mistral 7B v0.3, Nemo)
 * v11:      [TOOL_CALLS]name{json}[TOOL_CALLS]name2{json}                            (Mistral Small 3.x)
 * chained:  [TOOL_CALLS]name[ARGS]{json}name2[ARGS]{json}                          (one marker, several calls)
 * v11+ids:  [TOOL_CALLS]name[CALL_ID]123456789[ARGS]{json}                           (Mistral Small 3.2)
 * v13:      [TOOL_CALLS]name[ARGS]{json}        reasoning in [THINK]...[/THINK]       (Magistral, Devstral)
 * ```
 *
 * Every `[TOOL_CALLS]` starts a segment that runs to the next one; several blocks of either form are all read
 * (vLLM raises on two pre-v11 blocks; reading both is what the model meant). A pre-v11 list is read element by
 * element: invalid JSON is skipped silently, as NeMo does, but complete calls before a cut-off are kept. Text glued
 * to a call's JSON (`{"a": 1},"b": 2}`) makes it invalid (issue 22); prose after a space does not. Junk between
 * `[TOOL_CALLS]` and the list is skipped; text before `[TOOL_CALLS]` is content. Call ids stay strings. JSON still
 * open at the next `[TOOL_CALLS]` (the marker written inside a string value) is read past it, within a budget.
 *
 * `[THINK]...[/THINK]` is reasoning (the dispatcher only knows `<think>`): a `[TOOL_CALLS]` inside it is not a call;
 * an unclosed `[THINK]` runs to the end; a lone `[/THINK]` ends reasoning that started in the prompt.
 *
 * Contested choice: a v11 call whose JSON is cut off (`[TOOL_CALLS]bash{"command": "ls`) gives no call, like every
 * truncated JSON in this folder; vLLM passes the raw partial string through.
 */
import { skipSpace } from '../json.js'
import type { FormatParser, ParseOptions, ToolCall } from '../types.js'
import { removeReasoningBlocks } from '../reasoning.js'
import { callsFromList, callsFromValue, namedCall, parseJsonPast, pastMarkerBudget, type Budget } from '../json-calls.js'
import { markedBy } from '../marker-scan.js'
import { unreadGlued, unreadUnspaced } from '../unread.js'

const MARKER = '[TOOL_CALLS]'
const ARGS = '[ARGS]'
const CALL_ID = '[CALL_ID]'
const THINK_OPEN = '[THINK]'
const THINK_CLOSE = '[/THINK]'
const FORMAT = 'mistral'

/** Text outside `[THINK]...[/THINK]` (Magistral's reasoning). */
export function stripMistralThinking(text: string): string {
  return removeReasoningBlocks(text, THINK_OPEN, THINK_CLOSE)
}

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9
}

/** End of the v11 function name at `start`: up to whitespace, a bracket, a brace or a quote. */
function nameEnd(text: string, start: number, limit: number): number {
  let i = start
  while (i < limit) {
    const c = text.charCodeAt(i)
    if (isSpace(c) || c === 91 /* [ */ || c === 123 /* { */ || c === 34 /* " */) break
    i++
  }
  return i
}

type Read = { calls: ToolCall[]; end: number }

/** The v11 form `name[CALL_ID]id[ARGS]{json}` (both tokens optional) at `at`, or undefined when it is not one. */
function v11Call(text: string, at: number, limit: number, budget: Budget): Read | undefined {
  const end = nameEnd(text, at, limit)
  if (end === at) return undefined
  const name = text.slice(at, end)
  let i = end
  let id: string | undefined
  if (text.startsWith(CALL_ID, i)) {
    const idStart = i + CALL_ID.length
    let idEnd = idStart
    while (idEnd < limit && text.charCodeAt(idEnd) !== 91 /* [ */ && text.charCodeAt(idEnd) !== 123 /* { */) idEnd++
    id = text.slice(idStart, idEnd).trim()
    i = idEnd
  }
  if (text.startsWith(ARGS, i)) i += ARGS.length
  i = skipSpace(text, i, limit)
  if (text.charCodeAt(i) !== 123 /* { */) return undefined
  const r = parseJsonPast(text, i, limit, budget)
  if (!r.ok) return { calls: [], end: i }
  return { calls: [namedCall(name, r.value, r.floatPaths, FORMAT, text.slice(at, r.end), id || undefined)], end: r.end }
}

/**
 * Further v11 calls chained after the first in one segment (`name[ARGS]{...}name2[ARGS]{...}`, the way some
 * v11 templates join a turn's calls under one `[TOOL_CALLS]`): read while each next call reads.
 */
function chainedV11(text: string, first: Read, limit: number, budget: Budget): Read {
  let read = first
  const calls = [...first.calls]
  while (read.calls.length > 0 && read.end < limit) {
    const next = v11Call(text, skipSpace(text, read.end, limit), limit, budget)
    if (!next || next.calls.length === 0) break
    calls.push(...next.calls)
    read = next
  }
  return { calls, end: read.end }
}

/** The calls of one `[TOOL_CALLS]` segment [start, limit), and where reading stopped (past `limit` if JSON was). */
function segmentCalls(text: string, start: number, limit: number, options: ParseOptions, budget: Budget): Read {
  const i = skipSpace(text, start, limit)
  const c = text.charCodeAt(i)
  if (c === 91 /* [ */) return unreadGluedRead(callsFromList(text, i, limit, FORMAT, options, budget), text, limit)
  if (c === 123 /* { */) {
    const r = parseJsonPast(text, i, limit, budget)
    return r.ok ? unreadGluedRead({ calls: callsFromValue(r.value, FORMAT, r.floatPaths, text.slice(i, r.end), options), end: r.end }, text, limit) : { calls: [], end: i }
  }
  const v11 = v11Call(text, i, limit, budget)
  if (v11) {
    // Prose may follow the last call after a space; text glued to its JSON (`{"a": 1},"b": 2}`) is unread.
    const read = chainedV11(text, v11, limit, budget)
    return { calls: unreadUnspaced(read.calls, text, read.end, limit), end: read.end }
  }
  // Junk before a pre-v11 list: the first `[` of the segment (a later marker's `[` bounds the search), if a list
  // of objects opens there.
  const list = text.indexOf('[', i)
  if (list < 0 || list >= limit || text.charCodeAt(skipSpace(text, list + 1, limit)) !== 123 /* { */) return { calls: [], end: i }
  return unreadGluedRead(callsFromList(text, list, limit, FORMAT, options, budget), text, limit)
}

/** A pre-v11 list or object may have content after it (vLLM drops it), but not text glued to it (see `gluedAfter`). */
function unreadGluedRead(read: Read, text: string, limit: number): Read {
  return { calls: unreadGlued(read.calls, text, read.end, limit), end: read.end }
}

function parseMistral(raw: string, options: ParseOptions): ToolCall[] {
  const text = stripMistralThinking(raw)
  const budget = pastMarkerBudget(text)
  const out: ToolCall[] = []
  let at = text.indexOf(MARKER)
  while (at >= 0) {
    const next = text.indexOf(MARKER, at + MARKER.length)
    const limit = next < 0 ? text.length : next
    const { calls, end } = segmentCalls(text, at + MARKER.length, limit, options, budget)
    out.push(...calls)
    // JSON read past the next marker holds it in a string: the next segment starts after the JSON.
    at = end > limit ? text.indexOf(MARKER, end) : next
  }
  return out
}

export const mistral: FormatParser = {
  name: FORMAT,
  aliases: ['mistral_v11', 'mistral_v13', 'magistral', 'devstral'],
  ...markedBy(MARKER),
  parse: parseMistral,
  render: (calls) => calls.map((c) => `${MARKER}${c.name}${ARGS}${JSON.stringify(c.arguments)}`).join(''),
}
