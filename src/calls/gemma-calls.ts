/** Gemma's `call:NAME{key:value}` dialect, shared by Gemma 4 and FunctionGemma. */
import { invalidArguments, makeCall, setOwn } from './call-object.js'
import { parseJson, toPointer } from './json.js'
import { ArgumentsBuilder, typeValue, type TypedValue } from './schema-values.js'
import { unreadAfter, unreadRunOn, unreadText } from './unread.js'
import { ForwardSearch, forEachBlock } from './scan.js'
import type { ParseOptions, ToolCall } from './types.js'

/** Deeper values are refused: the reader recurses once per level. */
const MAX_DEPTH = 64

/** How a dialect's string values are read. */
export interface CallSyntax {
  /** String delimiter token. */
  quote: string
  /** Type a top-level quoted string without a schema too (FunctionGemma: `<escape>42<escape>` is 42). */
  typeQuotedStrings: boolean
  /**
   * Bare `None`, `True`, `False` are null and booleans (FunctionGemma's template prints Python's values; its strings
   * are always between quote tokens, so a bare word is never a string there).
   */
  pythonConstants?: boolean
}

const PYTHON_CONSTANTS: Record<string, null | boolean> = { None: null, True: true, False: false }

/** `json`: a string the model wrote in JSON's double quotes rather than the dialect's quote token. */
type Read = { value: unknown; quoted: boolean; raw: string; json?: boolean }

/** What a reading method returns once the reader has failed (callers test `failed`, never this). */
const FAILED: Read = { value: undefined, quoted: false, raw: '' }

/**
 * Reads `{key:value,...}` in a block's text. Never reads past the block. A malformed value sets `failed` (the
 * reason is not kept: the call's arguments are then invalid), and every method returns as soon as it is set;
 * nothing is thrown, since a throw costs microseconds and a text can hold thousands of malformed blocks.
 */
class ValueReader {
  pos = 0
  failed = false
  /** Why the read failed (the first reason), for the call's `argumentsError`. */
  why = ''
  readonly floatPaths: string[] = []

  constructor(
    readonly text: string,
    readonly quote: string,
    readonly pythonConstants = false,
  ) {}

  /** Mark the read as failed, keeping the first reason. */
  fail(why: string): void {
    if (!this.failed) this.why = `${why} (offset ${this.pos} in the block)`
    this.failed = true
  }

  skipSpace(): void {
    while (this.pos < this.text.length) {
      const c = this.text.charCodeAt(this.pos)
      if (c === 32 || c === 9 || c === 10 || c === 13) this.pos++
      else break
    }
  }

  /** Members of an object whose `{` is at `pos`; calls `each` per member with its raw read. */
  members(depth: number, path: string, each: (key: string, read: Read) => void): void {
    if (depth > MAX_DEPTH) return this.fail('nested too deeply')
    this.pos++ // {
    for (;;) {
      this.skipSpace()
      const c = this.text.charCodeAt(this.pos)
      if (this.pos >= this.text.length) return this.fail('unterminated object')
      if (c === 125 /* } */) {
        this.pos++
        return
      }
      if (c === 44 /* , */) {
        this.pos++
        continue
      }
      const key = this.key()
      if (this.failed) return
      const read = this.value(depth + 1, path + toPointer([key]))
      if (this.failed) return
      each(key, read)
      // A comma is optional between members (streamed FunctionGemma output omits it).
    }
  }

  key(): string {
    const jsonKey = this.text.charCodeAt(this.pos) === 34 /* " */
    if (jsonKey || this.text.startsWith(this.quote, this.pos)) {
      const k = jsonKey ? this.jsonString() : this.quoted()
      if (this.failed) return ''
      this.skipSpace()
      if (this.text.charCodeAt(this.pos) !== 58 /* : */) {
        this.fail('expected ":"')
        return ''
      }
      this.pos++
      return k
    }
    const colon = this.text.indexOf(':', this.pos)
    if (colon < 0) {
      this.fail('expected ":"')
      return ''
    }
    const key = this.text.slice(this.pos, colon).trim()
    if (key.length === 0 || /[{}[\],]/.test(key)) {
      this.fail('bad key')
      return ''
    }
    this.pos = colon + 1
    return key
  }

  quoted(): string {
    const start = this.pos + this.quote.length
    const end = this.text.indexOf(this.quote, start)
    if (end < 0) {
      this.fail('unterminated string')
      return ''
    }
    this.pos = end + this.quote.length
    return this.text.slice(start, end)
  }

  /**
   * A string in JSON's double quotes at `pos` (`"a, \"b\""`): models trained on JSON write some strings so instead of
   * between quote tokens, and its `,` `}` `]` are text, not the value's end (ollama reads them as JSON too).
   */
  jsonString(): string {
    const start = this.pos
    let i = start + 1
    for (;;) {
      if (i >= this.text.length) {
        this.fail('unterminated string')
        return ''
      }
      const c = this.text.charCodeAt(i)
      if (c === 34 /* " */) break
      i += c === 92 /* \ */ ? 2 : 1
    }
    this.pos = i + 1
    const r = parseJson(this.text.slice(start, this.pos))
    if (!r.ok || typeof r.value !== 'string') {
      this.fail('bad string')
      return ''
    }
    return r.value
  }

  value(depth: number, path: string): Read {
    this.skipSpace()
    const start = this.pos
    if (this.text.startsWith(this.quote, this.pos)) {
      const s = this.quoted()
      if (this.failed) return FAILED
      return { value: s, quoted: true, raw: s }
    }
    const c = this.text.charCodeAt(this.pos)
    if (c === 34 /* " */) {
      const s = this.jsonString()
      if (this.failed) return FAILED
      return { value: s, quoted: true, raw: s, json: true }
    }
    if (c === 123 /* { */) {
      const obj: Record<string, unknown> = {}
      this.members(depth, path, (k, r) => setOwn(obj, k, r.value))
      if (this.failed) return FAILED
      return { value: obj, quoted: false, raw: this.text.slice(start, this.pos) }
    }
    if (c === 91 /* [ */) {
      if (depth > MAX_DEPTH) {
        this.fail('nested too deeply')
        return FAILED
      }
      this.pos++
      const items: unknown[] = []
      for (;;) {
        this.skipSpace()
        const d = this.text.charCodeAt(this.pos)
        if (this.pos >= this.text.length) {
          this.fail('unterminated array')
          return FAILED
        }
        if (d === 93 /* ] */) {
          this.pos++
          break
        }
        if (d === 44 /* , */) {
          this.pos++
          continue
        }
        const item = this.value(depth + 1, path + '/' + items.length)
        if (this.failed) return FAILED
        items.push(item.value)
      }
      return { value: items, quoted: false, raw: this.text.slice(start, this.pos) }
    }
    return this.bare(path)
  }

  /** A bare token up to `,` `}` `]`: a JSON number or literal, else its text. */
  bare(path: string): Read {
    const start = this.pos
    while (this.pos < this.text.length) {
      const c = this.text.charCodeAt(this.pos)
      if (c === 44 || c === 125 || c === 93) break
      if (this.text.startsWith(this.quote, this.pos)) break
      this.pos++
    }
    const raw = this.text.slice(start, this.pos).trim()
    if (raw.length === 0) {
      this.fail('missing value')
      return FAILED
    }
    if (this.pythonConstants && Object.hasOwn(PYTHON_CONSTANTS, raw)) return { value: PYTHON_CONSTANTS[raw], quoted: false, raw }
    const j = parseJson(raw)
    if (j.ok && (typeof j.value === 'number' || typeof j.value === 'boolean' || j.value === null)) {
      if (j.floatPaths) this.floatPaths.push(path)
      return { value: j.value, quoted: false, raw }
    }
    return { value: raw, quoted: false, raw }
  }
}

/** The float paths of `all` under `/key`, relative to that value. */
function pathsUnder(all: string[], key: string): string[] | undefined {
  const prefix = toPointer([key])
  const out = all.filter((p) => p === prefix || p.startsWith(prefix + '/')).map((p) => p.slice(prefix.length))
  return out.length > 0 ? out : undefined
}

/** A top-level value, typed by the parameter schema where it disagrees with how the value was written. */
function typed(read: Read, args: ArgumentsBuilder, key: string, syntax: CallSyntax, floatPaths: string[]): TypedValue {
  const schema = args.schemaOf(key)
  const type = schema?.type
  const types = typeof type === 'string' ? [type] : Array.isArray(type) ? type : []
  const saysString = types.includes('string') && types.every((t) => t === 'string' || t === 'null')
  if (read.quoted) {
    if (schema && types.length > 0 && !saysString) return typeValue(read.value as string, schema)
    if (!schema && syntax.typeQuotedStrings && !read.json) return typeValue(read.value as string, undefined)
    return { value: read.value }
  }
  if (saysString && typeof read.value !== 'object') return { value: read.raw }
  const paths = pathsUnder(floatPaths, key)
  return paths ? { value: read.value, floatPaths: paths } : { value: read.value }
}

/**
 * Calls of every `OPEN call:NAME{...}` block in `text`. A block may hold several `call:` entries one after another
 * (separated by nothing, whitespace or commas): each is a call. An entry whose value does not read ends the block's
 * reading (where the next entry starts is unknown) after giving that entry as a call with invalid arguments.
 */
export function callBlocks(
  text: string,
  options: ParseOptions,
  format: string,
  open: string,
  close: string,
  syntax: CallSyntax,
): ToolCall[] {
  const out: ToolCall[] = []
  const closes = new ForwardSearch(text, close)
  const opens = new ForwardSearch(text, open)
  forEachBlock(text, open, close, (block, _from, to, closed) => {
    const calls = blockCalls(block, options, format, syntax)
    // Issue 22: the closer written again before the next block means the first was inside a value.
    if (closed && calls.length > 0) {
      const again = closes.next(to + close.length)
      const next = opens.next(to)
      if (again >= 0 && (next < 0 || again < next)) unreadRunOn(calls, text, close, to + close.length, again)
    }
    out.push(...calls)
  })
  return out
}

/** Index of the first character at or after `i` that is not whitespace or a comma. */
function skipSeparators(s: string, i: number): number {
  while (i < s.length) {
    const c = s.charCodeAt(i)
    if (c === 32 || c === 9 || c === 10 || c === 13 || c === 44) i++
    else break
  }
  return i
}

function blockCalls(block: string, options: ParseOptions, format: string, syntax: CallSyntax): ToolCall[] {
  const out: ToolCall[] = []
  // Forward-only searches keep a block of many name-only entries linear.
  const search = { brace: new ForwardSearch(block, '{'), entry: new ForwardSearch(block, 'call:') }
  let at = skipSeparators(block, 0)
  while (block.startsWith('call:', at)) {
    const read = entryCall(block, at, search, options, format, syntax)
    if (!read) return out
    out.push(read.call)
    if (read.end < 0) return out
    at = skipSeparators(block, read.end)
  }
  // Text after the last entry that is not one (`{a:1}}519,b:2}`) is unread (issue 22).
  return unreadAfter(out, block, at, block.length)
}

/** The `call:NAME{...}` entry at `at`, and where it ends (-1 when its end is unknown: a malformed value). */
function entryCall(
  s: string,
  at: number,
  search: { brace: ForwardSearch; entry: ForwardSearch },
  options: ParseOptions,
  format: string,
  syntax: CallSyntax,
): { call: ToolCall; end: number } | undefined {
  const brace = search.brace.next(at)
  const nextEntry = search.entry.next(at + 5)
  // Without a `{` before the next entry, this entry is a name alone.
  const nameEnd = brace < 0 || (nextEntry >= 0 && nextEntry < brace) ? (nextEntry < 0 ? s.length : nextEntry) : brace
  const name = s.slice(at + 5, nameEnd).trim()
  if (name.length === 0 || /[\s<>{},]/.test(name)) return undefined
  if (nameEnd !== brace) {
    return { call: makeCall(name, invalidArguments('no {…} arguments after the name'), format, s.slice(at, nameEnd)), end: nextEntry }
  }
  const reader = new ValueReader(s, syntax.quote, syntax.pythonConstants === true)
  reader.pos = brace
  const args = new ArgumentsBuilder(name, options)
  const reads: [string, Read][] = []
  reader.members(1, '', (k, r) => reads.push([k, r]))
  if (reader.failed) return { call: makeCall(name, invalidArguments(`arguments not read: ${reader.why}`), format, s.slice(at)), end: -1 }
  for (const [k, r] of reads) args.add(k, typed(r, args, k, syntax, reader.floatPaths))
  return { call: makeCall(name, args.result(), format, s.slice(at, reader.pos)), end: reader.pos }
}

/** A value in the dialect: strings between `quote` tokens, the rest bare. */
export function renderCallValue(value: unknown, quote: string): string {
  if (typeof value === 'string') return quote + value + quote
  if (Array.isArray(value)) return '[' + value.map((v) => renderCallValue(v, quote)).join(',') + ']'
  if (value !== null && typeof value === 'object') {
    return '{' + Object.entries(value).map(([k, v]) => `${k}:${renderCallValue(v, quote)}`).join(',') + '}'
  }
  return JSON.stringify(value) ?? 'null'
}

export function renderCall(call: { name: string; arguments: Record<string, unknown> }, quote: string): string {
  return `call:${call.name}${renderCallValue(call.arguments, quote)}`
}

