/** DeepSeek's tool tokens (`<｜tool▁call▁begin｜>` ...), shared by DeepSeek V3 and V3.1. */
import { decodeArguments, makeCall } from './call-object.js'
import { NoCallMemo } from './detection-pass.js'
import { parseJsonAt, skipSpace } from './json.js'
import type { ToolCall } from './types.js'
import { skipFenceOpen } from './json-blocks.js'
import { ForwardSearch } from './scan.js'
import { unreadAfter, unreadGlued, unreadRunOn } from './unread.js'

type Kind = 'callsBegin' | 'callsEnd' | 'callBegin' | 'callEnd' | 'sep'

interface Token {
  kind: Kind
  start: number
  end: number
}

const KINDS: Record<string, Kind> = {
  'tool calls begin': 'callsBegin',
  'tool calls': 'callsBegin',
  'tool calls end': 'callsEnd',
  'tool call begin': 'callBegin',
  'tool call end': 'callEnd',
  'tool sep': 'sep',
}

const OPEN = '<｜'
const CLOSE = '｜>'
/** Longest token inside the bars, with room for odd spellings: bounds the look-ahead at each `<｜`. */
const MAX_TOKEN = 40

/** The tokens as DeepSeek writes them (after `<｜`): recognised without building the normalised spelling. */
const CANONICAL: readonly (readonly [string, Kind])[] = [
  ['tool▁call▁begin｜>', 'callBegin'],
  ['tool▁sep｜>', 'sep'],
  ['tool▁call▁end｜>', 'callEnd'],
  ['tool▁calls▁begin｜>', 'callsBegin'],
  ['tool▁calls▁end｜>', 'callsEnd'],
  // Step-3 writes the same tokens with underscores.
  ['tool_call_begin｜>', 'callBegin'],
  ['tool_sep｜>', 'sep'],
  ['tool_call_end｜>', 'callEnd'],
  ['tool_calls_begin｜>', 'callsBegin'],
  ['tool_calls_end｜>', 'callsEnd'],
]

function canonicalAt(text: string, at: number): readonly [string, Kind] | undefined {
  for (const c of CANONICAL) if (text.startsWith(c[0], at)) return c
  return undefined
}

/** The DeepSeek tool tokens in `text`, in order. Each `<｜` is looked at once, with a bounded look-ahead. */
function scanTokens(text: string): Token[] {
  const tokens: Token[] = []
  const opens = new ForwardSearch(text, OPEN)
  let p = opens.next(0)
  while (p >= 0) {
    const canonical = canonicalAt(text, p + OPEN.length)
    if (canonical) {
      const end = p + OPEN.length + canonical[0].length
      tokens.push({ kind: canonical[1], start: p, end })
      p = opens.next(end)
      continue
    }
    const window = text.slice(p + OPEN.length, p + OPEN.length + MAX_TOKEN)
    const close = window.indexOf(CLOSE)
    let next = p + OPEN.length
    if (close >= 0) {
      const kind = KINDS[window.slice(0, close).replace(/[▁_ ]+/g, ' ').trim().toLowerCase()]
      if (kind) {
        const end = p + OPEN.length + close + CLOSE.length
        tokens.push({ kind, start: p, end })
        next = end
      }
    }
    p = opens.next(next)
  }
  return tokens
}

/** A token after which a new call may start: the body of the call before it ends there. */
function isBoundary(t: Token): boolean {
  return t.kind === 'callBegin' || t.kind === 'callsBegin' || t.kind === 'callsEnd'
}

type Shape = 'deepseek_v3' | 'deepseek_v31'

interface ShapedCall {
  shape: Shape
  call: ToolCall
}

/**
 * Read one call whose separator token is `sep`, whose head (type or name) starts at `headStart`, and whose body runs
 * to `limit` (the next boundary token or the end). `nextToken` is where the V3 name line must stop at the latest.
 */
function readCall(
  text: string,
  headStart: number,
  sep: Token,
  nextToken: number,
  limit: number,
  ends: Token[],
): ShapedCall | undefined {
  const head = text.slice(headStart, sep.start).trim()
  const after = skipSpace(text, sep.end, limit)
  const c = text[after]
  let shape: Shape
  let name: string
  let jsonStart: number
  if (c === '{' || c === '`') {
    // V3.1: the name before the separator, the JSON right after it.
    shape = 'deepseek_v31'
    name = head
    jsonStart = skipFenceOpen(text, after, limit)
  } else {
    // V3: `function` before the separator, the name on the line after it, then the (usually fenced) JSON.
    shape = 'deepseek_v3'
    // The name ends at the line end, or (no newline) where the JSON or its fence begins.
    const lineEnd = Math.min(nextToken, limit)
    let nameEnd = lineEnd
    for (let i = after; i < lineEnd; i++) {
      const ch = text[i]
      if (ch === '\n' || ch === '{' || ch === '`') {
        nameEnd = i
        break
      }
    }
    name = text.slice(sep.end, nameEnd).trim()
    jsonStart = skipFenceOpen(text, nameEnd, limit)
  }
  if (name.length === 0 || /\s/.test(name)) return undefined
  const r = parseJsonAt(text, jsonStart, limit)
  const args = r.ok ? decodeArguments(r.value, r.floatPaths) : { arguments: {}, argumentsValid: false }
  const rawEnd = r.ok ? r.end : limit
  const call = makeCall(name, args, shape, text.slice(headStart, rawEnd))
  if (r.ok) unreadInBody(call, text, r.end, limit, ends)
  return { shape, call }
}

/**
 * Issue 22's rule for the text after a call's JSON (at `end`): up to `<｜tool▁call▁end｜>` (the first of `ends`, the
 * call-end tokens of its body) only whitespace and a closing fence; nothing but whitespace after
 * it, and no second call-end token. With no call-end token, only text glued to the JSON is unread.
 */
function unreadInBody(call: ToolCall, text: string, end: number, limit: number, all: Token[]): void {
  // Tokens inside the JSON's strings are text of a value, not the call's end.
  const ends = all.filter((t) => t.start >= end)
  let e = skipSpace(text, end, limit)
  if (text.startsWith('```', e)) e += 3
  const callEnd = ends[0]
  if (!callEnd) {
    unreadGlued([call], text, end, limit)
    return
  }
  unreadAfter([call], text, e, callEnd.start)
  if (ends.length > 1) unreadRunOn([call], text, 'a call-end token', callEnd.end, ends[1]!.start)
  else unreadAfter([call], text, callEnd.end, limit)
}

/** Calls in either DeepSeek shape; every call carries the shape of the first one as its format. */
export function parseDeepSeek(text: string): ToolCall[] {
  // Detection tries DeepSeek V3 and then V3.1 on the same text, with this same reader: no need to read it twice.
  if (noCalls.has(text)) return []
  const calls = readDeepSeek(text)
  if (calls.length === 0) noCalls.record(text)
  return calls
}

const noCalls = new NoCallMemo()

function readDeepSeek(text: string): ToolCall[] {
  const tokens = scanTokens(text)
  const found: ShapedCall[] = []
  let k = 0
  while (k < tokens.length) {
    const t = tokens[k]!
    const sep = tokens[k + 1]
    // A call starts at `<｜tool▁call▁begin｜>`, or right at the section opener when the call opener is missing.
    if ((t.kind === 'callBegin' || t.kind === 'callsBegin') && sep?.kind === 'sep') {
      let j = k + 2
      while (j < tokens.length && !isBoundary(tokens[j]!)) j++
      const limit = j < tokens.length ? tokens[j]!.start : text.length
      const nextToken = k + 2 < tokens.length ? tokens[k + 2]!.start : text.length
      const ends: Token[] = []
      for (let m = k + 2; m < j; m++) if (tokens[m]!.kind === 'callEnd') ends.push(tokens[m]!)
      const shaped = readCall(text, t.end, sep, nextToken, limit, ends)
      if (shaped) found.push(shaped)
      k = j
    } else k++
  }
  if (found.length === 0) return []
  const shape = found[0]!.shape
  return found.map(({ call }) => (call.format === shape ? call : { ...call, format: shape }))
}

/** The start every DeepSeek tool token shares. */
export const DEEPSEEK_TOOL_TOKEN = '<｜tool'

