/** Pythonic call lists (`[f(a=1), g()]`) in text, shared by the pythonic formats (pythonic, LFM2, Llama 4, OLMo 3). */
import { makeCall } from './call-object.js'
import { parsePythonCallListMap, renderPythonCall, type PyCall } from '../python/index.js'
import type { ToolCall } from './types.js'
import { ForwardSearch } from './scan.js'
import { unreadGlued } from './unread.js'

/**
 * A ToolCall from a parsed Python call (keyword arguments only). Its depth needs no walk: the parser rejects trees
 * deeper than MAX_PY_DEPTH (200), and a level of the tree is at most two of the arguments (a nested call becomes
 * `{name: {keywords}}`), well within MAX_ARGUMENT_DEPTH (512).
 */
export function toolCallFromPython(call: PyCall, format: string): ToolCall {
  return makeCall(call.name, { arguments: call.args, argumentsValid: true, floatPaths: call.floatPaths, depthChecked: true }, format, call.raw)
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13
}

function isNameChar(c: number, first: boolean): boolean {
  const letter = (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c >= 128
  return first ? letter : letter || (c >= 48 && c <= 57)
}

/**
 * Whether `[` at `i` is followed by `name(`, `dotted.name(` or `hyphen-name(` (whitespace allowed): the cheap test before a parse.
 * Reads only the name, which no other candidate's test reads again.
 */
function startsCallList(text: string, i: number, end: number): boolean {
  let j = i + 1
  while (j < end && isSpace(text.charCodeAt(j))) j++
  for (;;) {
    if (j >= end || !isNameChar(text.charCodeAt(j), true)) return false
    while (j < end && isNameChar(text.charCodeAt(j), false)) j++
    // Dotted names, and tool names with `-` (`get-forecast(`, MCP's).
    const c = text.charCodeAt(j)
    if (c !== 46 /* . */ && c !== 45 /* - */) break
    j++
  }
  while (j < end && isSpace(text.charCodeAt(j))) j++
  return text.charCodeAt(j) === 40 /* ( */
}

/** How the pythonic formats parse: JSON's literals too, and tool names with `-`. */
export const TOOL_CALL_SYNTAX = { jsonLiterals: true, hyphenatedNames: true }

/** The searches for `[` and `]` over one text, shared by the ranges a caller reads in order. */
export interface ListFinders {
  brackets: ForwardSearch
  closers: ForwardSearch
}

export function listFinders(text: string): ListFinders {
  return { brackets: new ForwardSearch(text, '['), closers: new ForwardSearch(text, ']') }
}

/**
 * The calls of every complete call list in `text[from, to)`. Callers that read several ranges of one text in order
 * pass one set of `finders` for all of them, so that no search for `[` or `]` runs over the same text twice. At most
 * `limit` calls are built (see `callLimit`): past it lists are still parsed, for where they end, but their calls are
 * not built, so that a list of a million short calls costs no more to allocate than the cap.
 */
export function pythonicListsIn(
  text: string,
  format: string,
  from = 0,
  to = text.length,
  finders: ListFinders = listFinders(text),
  limit = Infinity,
): ToolCall[] {
  return readPythonicLists(text, format, from, to, finders, limit).calls
}

/** `pythonicListsIn`, and the index just after the last list read (`from` when none). */
export function readPythonicLists(
  text: string,
  format: string,
  from: number,
  to: number,
  { brackets, closers }: ListFinders,
  limit = Infinity,
): { calls: ToolCall[]; end: number } {
  let out: ToolCall[] = []
  let end = from
  let i = from
  while (i < to) {
    const b = brackets.next(i)
    if (b < 0 || b >= to) break
    // A list closes with `]`: with none left before `to`, no candidate can succeed (an output cut off mid-list).
    const close = closers.next(b)
    if (close < 0 || close >= to) break
    if (!startsCallList(text, b, to)) {
      i = b + 1
      continue
    }
    const r = parsePythonCallListMap(text, b, TOOL_CALL_SYNTAX, (c) => toolCallFromPython(c, format), limit - out.length)
    if (r.ok && r.end <= to) {
      // A list glued to text that runs on (`[f(a='V')]qa1', b=2)]`) was cut out of a longer one (issue 22).
      unreadGlued(r.calls, text, r.end, to)
      if (out.length === 0) out = r.calls // most texts hold one list: no copy of its calls
      else for (const c of r.calls) out.push(c)
      i = r.end
      end = r.end
    } else i = Math.max(b + 1, r.ok ? r.end : r.scanned)
  }
  return { calls: out, end }
}

/** `[f(a=1), g(b='x')]`. */
export function renderPythonicList(calls: readonly { name: string; arguments: Record<string, unknown> }[]): string {
  return '[' + calls.map((c) => renderPythonCall(c.name, c.arguments)).join(', ') + ']'
}
