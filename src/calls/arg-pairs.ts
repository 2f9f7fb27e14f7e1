/**
 * `OPEN NAME [SEP] <key>k</key><value>v</value>... CLOSE` blocks: a name, then key/value tag pairs. GLM's shape
 * (`formats/glm.ts`, which reads its pairs with `readPairs` below) with other tags, shared by LongCat's XML variant,
 * Hunyuan 3 and 4, K2 Horizon, Poolside and Solar Open 2. Values are raw text (one leading and one trailing newline
 * stripped) typed by the tool schema, or decoded as JSON when valid without one. Only closed blocks are calls.
 *
 * Nothing in a block is skipped silently: after the name, the block must be pairs and whitespace. Anything else (a
 * stray word, a key without its value, a value not closed inside the block because the block's closing token came
 * first, a value that holds the next pair's opener because its own closer is missing) makes the call's arguments
 * invalid, with the reason, rather than a valid call that lost an argument. Forward searches only (scan.ts): linear.
 */
import { invalidArguments, makeCall, type DecodedArguments } from './call-object.js'
import { ArgumentsBuilder, renderRawValue, stripOneNewline, typeValue } from './schema-values.js'
import { ForwardSearch, forEachBlock } from './scan.js'
import { skipSpace } from './json.js'
import type { ParseOptions, ToolCall } from './types.js'

export interface ArgPairTags {
  open: string
  close: string
  /** A token between the name and the pairs (Hunyuan's `<tool_sep>`), if the dialect writes one. */
  sep?: string
  key: string
  keyEnd: string
  /** The value's opener; '' when the key's closer opens the value (Solar Open 2's `<|tool_arg:value|>`). */
  value: string
  valueEnd: string
  /** Whitespace the template writes between the name and the first pair when there are none ('' by default). */
  nameSeparator?: string
  /** Trim values (Poolside, Hunyuan 4) instead of stripping one newline each side. */
  trimValues?: boolean
  /** GLM-4.6's double escaping: a literal `\n` (backslash, n) between pairs is layout too. */
  literalNewlines?: boolean
  /**
   * A typed dialect's optional tag between the key and the value (K2 Horizon's `<ifm|arg_type>integer</ifm|arg_type>`):
   * the type it names decides the value's type, ahead of the schema; a type it does not know leaves it to the schema.
   */
  type?: string
  typeEnd?: string
  /** Values verbatim, whitespace and all (K2 Horizon: the engines keep a string's surrounding newlines). */
  exactValues?: boolean
}

/** The JSON Schema type names a typed tag may give; `any` or another word leaves the value to the schema. */
const DECLARED = new Set(['string', 'integer', 'number', 'boolean', 'object', 'array', 'null'])

/** A raw value typed by its declared type when that is a known JSON type, else by the parameter's schema. */
function addDeclared(args: ArgumentsBuilder, key: string, raw: string, declared: string | undefined): void {
  const d = declared?.trim().toLowerCase()
  if (d === undefined || !DECLARED.has(d)) args.addText(key, raw)
  else args.add(key, typeValue(raw, { type: d }))
}

/** Past whitespace and, with `literal`, backslash escapes of layout (`\n`, `\r`, `\t`). */
function skipLayout(text: string, i: number, end: number, literal: boolean): number {
  for (;;) {
    i = skipSpace(text, i, end)
    if (!literal || i + 1 >= end || text.charCodeAt(i) !== 92) return i
    const c = text.charCodeAt(i + 1)
    if (c !== 110 && c !== 114 && c !== 116) return i
    i += 2
  }
}

/** The forward searches one text's pairs need, made once per parse so the whole pass stays linear. */
export class PairSearches {
  readonly key: ForwardSearch
  readonly keyEnd: ForwardSearch
  readonly value: ForwardSearch | undefined
  readonly valueEnd: ForwardSearch
  readonly typeEnd: ForwardSearch | undefined

  constructor(text: string, readonly tags: ArgPairTags) {
    this.typeEnd = tags.type && tags.typeEnd ? new ForwardSearch(text, tags.typeEnd) : undefined
    this.key = new ForwardSearch(text, tags.key)
    this.keyEnd = new ForwardSearch(text, tags.keyEnd)
    this.value = tags.value === '' ? undefined : new ForwardSearch(text, tags.value)
    this.valueEnd = new ForwardSearch(text, tags.valueEnd)
  }
}

/**
 * Read the pairs in `text[from, end)` into `args`. Returns undefined when the span is pairs and whitespace only, or
 * why not. The pairs read before a problem stay in `args`; the caller makes the call invalid.
 */
export function readPairs(
  text: string,
  from: number,
  end: number,
  s: PairSearches,
  args: ArgumentsBuilder,
  clean: (raw: string) => string = stripOneNewline,
): string | undefined {
  const t = s.tags
  let p = from
  for (;;) {
    const k = skipLayout(text, p, end, t.literalNewlines === true)
    if (k >= end) return undefined
    if (!text.startsWith(t.key, k)) return 'text between arguments that is not an argument'
    const ke = s.keyEnd.next(k + t.key.length)
    if (ke < 0 || ke >= end) return `${t.key} not closed`
    // A key holding the next pair's opener lost its own closer.
    const inKey = s.key.next(k + t.key.length)
    if (inKey >= 0 && inKey < ke) return `${t.key} holds ${t.key}: its ${t.keyEnd} is missing`
    if (s.value) {
      const valueInKey = s.value.next(k + t.key.length)
      if (valueInKey >= 0 && valueInKey < ke) return `${t.key} holds ${t.value}: its ${t.keyEnd} is missing`
    }
    let vs = ke + t.keyEnd.length
    let declared: string | undefined
    if (s.typeEnd) {
      const ts = skipLayout(text, vs, end, t.literalNewlines === true)
      if (text.startsWith(t.type!, ts)) {
        const te = s.typeEnd.next(ts + t.type!.length)
        if (te < 0 || te >= end) return `${t.type} not closed`
        declared = text.slice(ts + t.type!.length, te)
        // A type holding the value's opener lost its own closer.
        if (t.value !== '' && declared.includes(t.value)) return `${t.type} holds ${t.value}: its ${t.typeEnd} is missing`
        vs = te + t.typeEnd!.length
      }
    }
    if (s.value) {
      vs = skipLayout(text, vs, end, t.literalNewlines === true)
      if (!text.startsWith(t.value, vs)) return `${t.key} without ${t.value}`
      vs += t.value.length
    }
    let ve = s.valueEnd.next(vs)
    if (ve < 0 || ve >= end) return `value not closed by ${t.valueEnd} inside the call`
    // A value may hold its own end tag as text (`<arg_value>close with </arg_value> here</arg_value>`): its end is
    // the first end tag followed by the next pair or the block's end, where a later one is. An end tag right after
    // another (only layout between) is a stray closer, skipped.
    let resume = ve + t.valueEnd.length
    for (;;) {
      const after = skipLayout(text, resume, end, t.literalNewlines === true)
      if (after >= end || text.startsWith(t.key, after)) break
      const again = s.valueEnd.next(resume)
      if (again < 0 || again >= end) break
      if (again !== after) ve = again
      resume = again + t.valueEnd.length
    }
    // A value holding the next pair's opener lost its own closer: the pair after it would vanish into it.
    const nextKey = s.key.next(vs)
    if (nextKey >= 0 && nextKey < ve) return `value holds ${t.key}: its ${t.valueEnd} is missing`
    // The token that opens values: the value opener, or the key's closer where it opens the value (Solar Open 2).
    const opener = s.value ?? s.keyEnd
    const nextValue = opener.next(vs)
    if (nextValue >= 0 && nextValue < ve) return `value holds ${opener.token}: its ${t.valueEnd} is missing`
    const key = text.slice(k + t.key.length, ke).trim()
    // A key holding `<` or `>` holds part of a tag: text of the format that was not read (issue 22).
    if (/[<>]/.test(key)) return `a key holds part of a tag: ${JSON.stringify(key.slice(0, 40))}`
    addDeclared(args, key, clean(text.slice(vs, ve)), declared)
    p = resume
  }
}

/** How the dialect's values lose the template's layout around them. */
export function valueCleaner(tags: ArgPairTags): (raw: string) => string {
  return tags.exactValues ? (v: string) => v : tags.trimValues ? (v: string) => v.trim() : stripOneNewline
}

export const NAME = /^[^\s<>{}[\]"'`,]+$/

export function argPairCalls(text: string, options: ParseOptions, format: string, tags: ArgPairTags): ToolCall[] {
  const out: ToolCall[] = []
  const searches = new PairSearches(text, tags)
  const sep = tags.sep === undefined ? undefined : new ForwardSearch(text, tags.sep)
  const clean = valueCleaner(tags)
  forEachBlock(text, tags.open, tags.close, (_body, from, end, closed) => {
    if (!closed) return
    let k = searches.key.next(from)
    if (k >= end) k = -1
    let nameEnd = k < 0 ? end : k
    let argsFrom = nameEnd
    if (sep) {
      const s = sep.next(from)
      if (s >= 0 && s < nameEnd) {
        nameEnd = s
        argsFrom = s + tags.sep!.length
      }
    }
    const name = text.slice(from, nameEnd).trim()
    if (!NAME.test(name)) return
    const args = new ArgumentsBuilder(name, options)
    const error = readPairs(text, argsFrom, end, searches, args, clean)
    const decoded: DecodedArguments = error === undefined ? args.result() : invalidArguments(error)
    out.push(makeCall(name, decoded, format, text.slice(from - tags.open.length, end + tags.close.length)))
  })
  return out
}

/** Calls written in the dialect, one block each, newline-separated as the templates write them. */
export function renderArgPairs(calls: readonly { name: string; arguments: Record<string, unknown> }[], tags: ArgPairTags): string {
  return calls
    .map((c) => {
      let s = `${tags.open}${c.name}${tags.sep ?? ''}${tags.nameSeparator ?? '\n'}`
      for (const [k, v] of Object.entries(c.arguments)) {
        s += `${tags.key}${k}${tags.keyEnd}${tags.value === '' ? '' : '\n' + tags.value}${renderRawValue(v)}${tags.valueEnd}\n`
      }
      return s + tags.close
    })
    .join('\n')
}
