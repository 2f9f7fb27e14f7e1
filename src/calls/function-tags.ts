/** `<function=f>{...}</function>` and `<function name="f">` tags, shared by Functionary v3.1 and Hermes. */
import { NoCallMemo } from './detection-pass.js'
import { skipSpace } from './json.js'
import type { ToolCall } from './types.js'
import { namedCall, parseJsonPast, pastMarkerBudget } from './json-calls.js'
import { ForwardSearch } from './scan.js'
import { unreadTail } from './unread.js'

export const EQ_TAG = '<function='
const NAME_TAG = '<function name="'
/** Names are short; reading one never looks further than this (keeps every tag's work bounded). */
const MAX_NAME = 256
/** Where a name ends: whitespace (as `\s` has it) or one of `<>{}"`. */
function isNameEnd(c: number): boolean {
  if (c === 60 || c === 62 || c === 123 || c === 125 || c === 34) return true
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13)
  return c >= 0x80 && /\s/.test(String.fromCharCode(c))
}

/**
 * Every `<function=NAME>{...}` (and, with `nameAttribute`, `<function name="NAME">{...}`) call in `text`. Each tag's
 * JSON is read up to the next tag, or past it within a budget when it is still open there (the tag is then inside a
 * string value and is skipped), so the total work is linear.
 */
export function functionTagCalls(text: string, format: string, nameAttribute = false): ToolCall[] {
  // Functionary v3.1 and then Hermes read the same text in detection: the second need not search again for nothing.
  const sameTags = !nameAttribute || !text.includes(NAME_TAG)
  if (sameTags && noCalls.has(text)) return []
  const out = readFunctionTags(text, format, nameAttribute)
  if (sameTags && out.length === 0) noCalls.record(text)
  return out
}

const noCalls = new NoCallMemo()

function readFunctionTags(text: string, format: string, nameAttribute: boolean): ToolCall[] {
  const tags: { at: number; nameStart: number; quoted: boolean }[] = []
  for (let i = text.indexOf(EQ_TAG); i >= 0; i = text.indexOf(EQ_TAG, i + EQ_TAG.length)) {
    tags.push({ at: i, nameStart: i + EQ_TAG.length, quoted: false })
  }
  if (nameAttribute) {
    for (let i = text.indexOf(NAME_TAG); i >= 0; i = text.indexOf(NAME_TAG, i + NAME_TAG.length)) {
      tags.push({ at: i, nameStart: i + NAME_TAG.length, quoted: true })
    }
    tags.sort((a, b) => a.at - b.at)
  }
  const out: ToolCall[] = []
  const budget = pastMarkerBudget(text)
  let after = 0 // end of the last call read: a tag before it is inside that call's JSON
  const closes = new ForwardSearch(text, '</function>')
  tags.forEach((tag, k) => {
    if (tag.at < after) return
    const limit = k + 1 < tags.length ? tags[k + 1]!.at : text.length
    const nameEnd = readName(text, tag.nameStart, Math.min(limit, tag.nameStart + MAX_NAME))
    if (nameEnd < 0) return
    let i = nameEnd
    if (tag.quoted) {
      if (text.charCodeAt(i) !== 34 /* " */) return
      i++
    }
    if (text.charCodeAt(i) !== 62 /* > */) return
    const open = skipSpace(text, i + 1, limit)
    if (text.charCodeAt(open) !== 123 /* { */) return
    const r = parseJsonPast(text, open, limit, budget)
    if (!r.ok) return
    after = r.end
    const name = text.slice(tag.nameStart, nameEnd)
    out.push(...unreadTail([namedCall(name, r.value, r.floatPaths, format, text.slice(tag.at, r.end))], text, r.end, limit, closes))
  })
  return out
}

/** End of a function name starting at `start` (exclusive), or -1 when empty or not ended before `limit`. */
function readName(text: string, start: number, limit: number): number {
  let i = start
  while (i < limit && !isNameEnd(text.charCodeAt(i))) i++
  return i > start && i < limit ? i : -1
}
