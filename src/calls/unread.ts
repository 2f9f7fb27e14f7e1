/**
 * The rule for text a format did not read, in one place. A call whose block holds text that could have held
 * arguments the format did not read (a member of a call object it does not read, a value's rest glued to it, argument
 * syntax after the call, a closing token written twice around such text) is never a valid call with fewer arguments:
 * the formats find such text and hand the calls here, which makes each valid one invalid (arguments `{}`) with a
 * reason. A call whose arguments were read completely stays valid whatever follows it that could not have held an
 * argument: prose, a stray closing bracket, a closing tag (an older template's `[/TOOL_CALLS]`). That text is content.
 */
import type { ForwardSearch } from './scan.js'
import type { ToolCall } from './types.js'

/** Each valid call of `calls` becomes invalid, arguments `{}`, with `reason` (`ToolCall.argumentsError`). Returns `calls`. */
export function unreadText(calls: ToolCall[], reason: string): ToolCall[] {
  for (const c of calls) {
    if (!c.argumentsValid) continue
    c.arguments = {}
    c.argumentsValid = false
    c.argumentsError = reason
    delete c.floatPaths
    delete c.bigInts
  }
  return calls
}

/** Whether `text[from, to)` is only whitespace. */
export function blankBetween(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i)
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) return false
  }
  return true
}

/** At most 40 characters of `text[from, to)`, quoted, for a reason. */
export function quoted(text: string, from: number, to: number): string {
  return JSON.stringify(to - from <= 40 ? text.slice(from, to) : text.slice(from, from + 40) + '…')
}

/**
 * Length of the closing token at `i`, or 0 when none starts there: a closing tag (`</name>`, `[/NAME]`) or a special
 * token that ends a turn or a message (`<|eot_id|>`, `<|im_end|>`, `<｜end▁of▁sentence｜>`, `<eos>`, `<end_of_turn>`).
 * No format writes an argument inside one; what follows it is judged on its own.
 */
export function closingTokenAt(text: string, i: number, to = text.length): number {
  const a = text.charCodeAt(i)
  if (a === 60 /* < */) {
    const b = text.charCodeAt(i + 1)
    if (b === 124 /* | */ || b === 0xff5c /* ｜ */) return specialTokenAt(text, i, to, b)
    for (const t of BARE_END_TOKENS) if (text.startsWith(t, i) && i + t.length <= to) return t.length
  }
  if ((a !== 60 /* < */ && a !== 91 /* [ */) || text.charCodeAt(i + 1) !== 47 /* / */) return 0
  const end = a === 60 ? 62 /* > */ : 93 /* ] */
  for (let j = i + 2; j < to && j < i + 66; j++) {
    const c = text.charCodeAt(j)
    if (c === end) return j > i + 2 ? j + 1 - i : 0
    const name = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45 || c === 46 || c === 58
    if (!name) return 0
  }
  return 0
}

/** End tokens written as a bare tag (Gemma's); other bare tags (`<city>`) may be a format's argument tags. */
const BARE_END_TOKENS = ['<eos>', '<end_of_turn>', '<eot>']

/**
 * `<|name|>` or `<｜name｜>` (`bar` the bar it opens with) at `i` whose name ends a turn or a message: a name of at most
 * 64 letters, digits, `_▁:.-` with a word of END_WORDS. Other special tokens may open what follows
 * (`<|python_tag|>{…}`, `<|tool_call_argument_begin|>`): text glued after them is judged as unread.
 */
function specialTokenAt(text: string, i: number, to: number, bar: number): number {
  for (let j = i + 2; j < to && j < i + 68; j++) {
    const c = text.charCodeAt(j)
    if (c === bar) return j > i + 2 && text.charCodeAt(j + 1) === 62 /* > */ && j + 2 <= to && endsTurn(text.slice(i + 2, j)) ? j + 2 - i : 0
    const name = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45 || c === 46 || c === 58 || c === 0x2581 /* ▁ */
    if (!name) return 0
  }
  return 0
}

/** Words of a special token's name that end a turn or a message (`eot_id`, `im_end`, `end▁of▁sentence`, `endoftext`, `return`). */
const END_WORDS = new Set(['end', 'eot', 'eom', 'eos', 'endoftext', 'return'])

function endsTurn(name: string): boolean {
  return name.toLowerCase().split(/[_▁:.-]/).some((w) => END_WORDS.has(w))
}

/** Whether `c` is a character of prose that no format writes arguments with (letters, digits, spaces, `.,!?;-`). */
function proseChar(c: number): boolean {
  return (
    (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c >= 128 ||
    c === 32 || c === 10 || c === 13 || c === 9 || c === 46 || c === 44 || c === 33 || c === 63 || c === 59 || c === 45
  )
}

const isCloser = (c: number): boolean => c === 125 /* } */ || c === 93 /* ] */ || c === 41 /* ) */
const isLetter = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c >= 128

/**
 * Whether `text[from, to)`, text after a call the format read completely, could have held arguments the format did
 * not read. It could not when it is only stray closing brackets right after the call (`}`, `]`, `)`), closing tags
 * (`</tool_call>`, `[/TOOL_CALLS]`) and prose (letters, digits, spaces, `.,!?;-`, an apostrophe inside a word):
 * every format writes an argument with a quote, `:`, `=`, a bracket or a tag. Anything else could have.
 */
export function couldHoldArguments(text: string, from: number, to: number): boolean {
  let i = from
  // Stray closers right after the value, with spaces or closing tags between (`}]`, `}\n</tool_call>`).
  while (i < to) {
    const c = text.charCodeAt(i)
    if (c === 125 /* } */ || c === 93 /* ] */ || c === 41 /* ) */ || c === 32 || c === 10 || c === 13 || c === 9) i++
    else {
      const tag = closingTokenAt(text, i, to)
      if (tag === 0) break
      i += tag
    }
  }
  while (i < to) {
    const c = text.charCodeAt(i)
    if (proseChar(c)) i++
    else if (c === 39 /* ' */ && i > from && i + 1 < to && isLetter(text.charCodeAt(i - 1)) && isLetter(text.charCodeAt(i + 1))) i++
    else {
      const tag = closingTokenAt(text, i, to)
      if (tag === 0) return true
      i += tag
    }
  }
  return false
}

/** `unreadText` when `text[from, to)` could hold arguments (`couldHoldArguments`): what is left of a block after its call. */
export function unreadAfter(calls: ToolCall[], text: string, from: number, to: number): ToolCall[] {
  if (from >= to || !couldHoldArguments(text, from, to)) return calls
  return unreadText(calls, `text the format did not read after the call: ${quoted(text, from, to)}`)
}

/**
 * A block's closing token (`token`) written again at `again` after the first one ended at `from`: the first may have
 * been written inside a value, so that the call ran on past it. Invalid when the text between could hold arguments.
 */
export function unreadRunOn(calls: ToolCall[], text: string, token: string, from: number, again: number): ToolCall[] {
  if (again < from || !couldHoldArguments(text, from, again)) return calls
  return unreadText(calls, `${token} written twice: the call's text runs on past the first, unread (${quoted(text, from, again)})`)
}

/**
 * Whether a call's value ending at `end` runs on into text with no space between (`{"a": "V"}}qa1", "b": 2}`): the
 * rest of a value it was cut from, not prose after it (which starts after a space, a newline or punctuation; a comma
 * only when a quoted member name follows it).
 */
export function gluedAfter(text: string, end: number): boolean {
  // Stray closing brackets (`}]`) are skipped: what decides is the text after them.
  let at = end
  while (at < text.length && at < end + 64 && isCloser(text.charCodeAt(at))) at++
  if (at >= text.length) return false
  const c = text.charCodeAt(at)
  // A closing tag (`][/TOOL_CALLS]`) is content, as is a space after stray closers.
  if (closingTokenAt(text, at) > 0 || (at > end && blankBetween(text, at, at + 1))) return false
  // `{...}{...}`: call objects back to back (Llama 4 writes them so); the next one is read on its own.
  if (c === 123 /* { */ && at === end && text.charCodeAt(end - 1) === 125 /* } */) return false
  // `{"name": "f"},"arguments": {...}}`: a comma and a quoted member name continue the object the JSON was cut from.
  if (c === 44 /* , */) {
    let i = at + 1
    while (i < text.length && i < at + 64 && blankBetween(text, i, i + 1)) i++
    return text.charCodeAt(i) === 34 /* " */
  }
  return (
    (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 /* _ */ ||
    c === 34 /* " */ || c === 39 /* ' */ || c === 92 /* \ */ || c === 58 /* : */ ||
    c === 123 /* { */ || c === 125 /* } */ || c === 91 /* [ */ || c === 93 /* ] */
  )
}

/** `unreadText` when `gluedAfter(text, end)` and `end < limit` (text of the call's own region). */
export function unreadGlued(calls: ToolCall[], text: string, end: number, limit = text.length): ToolCall[] {
  if (end >= limit || !gluedAfter(text, end)) return calls
  return unreadText(calls, `text glued to the end of the call, which the format did not read: ${quoted(text, end, Math.min(limit, end + 20))}`)
}

/**
 * `unreadText` when the call's value ending at `end` is followed, before `limit`, by anything but whitespace: for
 * formats where a call's value is the last thing of its block (`name[ARGS]{...}`, `>>>name\n{...}`), so that even
 * punctuation right after it (`{"a": 1},"b": 2}`) is the rest of a value, not prose.
 */
export function unreadUnspaced(calls: ToolCall[], text: string, end: number, limit: number): ToolCall[] {
  if (end >= limit || blankBetween(text, end, end + 1)) return calls
  // Stray closers, then a space, a closing tag or the block's end: content.
  let at = end
  while (at < limit && isCloser(text.charCodeAt(at))) at++
  if (at > end && (at >= limit || blankBetween(text, at, at + 1))) return calls
  if (closingTokenAt(text, at, limit) > 0) return calls
  return unreadText(calls, `text glued to the end of the call, which the format did not read: ${quoted(text, end, Math.min(limit, end + 20))}`)
}

/**
 * Why values read from XML-style tags hold tags that were not read, or undefined when they do not: a value holding
 * the start of its own closing tag (`Vqa1</atem:paramer name="b">7`, `1</parameter"b">x`: the closer was damaged, so
 * the value ran on over the next parameter), or holding the name of a parameter the tool declares and the call lacks, right before a quote
 * or `>` (`7</parameter"b">x`, `7ameter name="b" string="true">x`: the rest of that parameter's tag). `closeTag` is
 * the parameter's closing tag; `missing` the declared parameters without a value.
 */
export function damagedMarkup(values: readonly string[], closeTag: string, missing: readonly string[]): string | undefined {
  // A namespaced closer (`</atem:`, `</｜GCML｜`) is the format's own: its start is enough. A plain one must be all
  // there but its `>` (`</parameter`), so that a value's own markup (`</path>`, `</p>`) is read as text.
  const ns = /^<\/(?:｜[^｜]*｜|[\w-]+:)/.exec(closeTag)
  const closer = ns ? ns[0] : closeTag.slice(0, -1)
  for (const v of values) {
    const at = v.indexOf(closer)
    if (at >= 0) return `a value holds part of a ${JSON.stringify(closeTag)} tag, unread: ${quoted(v, at, v.length)}`
    for (const k of missing) {
      const i = v.indexOf(k)
      if (i < 0) continue
      const c = v.charCodeAt(i + k.length)
      if (c === 34 /* " */ || c === 39 /* ' */ || c === 62 /* > */) return `a value holds the tag of parameter ${JSON.stringify(k)}, unread: ${quoted(v, i, v.length)}`
    }
  }
  return undefined
}

/**
 * The text after a call's value (ending at `end`) in a region that runs to `limit`, for formats whose blocks may end
 * with a closing token (`close`, searched forward only). Where the token follows before `limit`, the text before it
 * is unread, and so is a second closing token before `limit` (the first was written inside a value, so the call ran
 * on past it). Without a closing token, only text glued to the value is unread: prose may follow a call.
 */
export function unreadTail(calls: ToolCall[], text: string, end: number, limit: number, close?: ForwardSearch): ToolCall[] {
  if (calls.length === 0) return calls
  const c = close ? close.next(end) : -1
  if (c < 0 || c >= limit) return unreadGlued(calls, text, end, limit)
  unreadAfter(calls, text, end, c)
  const again = close!.next(c + close!.token.length)
  if (again < 0 || again >= limit) return calls
  return unreadRunOn(calls, text, close!.token, c + close!.token.length, again)
}
