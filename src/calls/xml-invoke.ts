/**
 * `<invoke name="f"><parameter name="k">v</parameter></invoke>` blocks, shared by MiniMax M2, Step-3, MiniCPM 5 and
 * Muse Glimmer's ATEM. An invoke's body must be parameter elements and whitespace: anything else in it (a stray word,
 * a tag of another dialect, MiniMax M3's `<city>Paris</city>`) makes the call's arguments invalid, with the reason,
 * rather than a valid call that lost an argument. A parameter whose closer is missing ends at the next parameter or
 * at `</invoke>` (nothing is lost).
 */
import { invalidArguments, makeCall } from './call-object.js'
import { ArgumentsBuilder, renderRawValue, stripOneNewline } from './schema-values.js'
import { ForwardSearch } from './scan.js'
import { skipSpace } from './json.js'
import { damagedMarkup } from './unread.js'
import type { ParseOptions, ToolCall } from './types.js'

/** The tag names of an invoke/parameter XML dialect. */
export interface InvokeTags {
  invoke: string // '<invoke'
  invokeEnd: string // '</invoke>'
  parameter: string // '<parameter'
  parameterEnd: string // '</parameter>'
  /** How a value's raw text is cleaned (default: one leading and one trailing newline stripped). */
  clean?: (raw: string) => string
  /** How a value is added, when the dialect's attributes type it (GigaChat 3.5's `string="false"`); default: schema. */
  addValue?: (args: ArgumentsBuilder, key: string, raw: string, attrs: string) => void
}

const CDATA_OPEN = '<![CDATA['
const CDATA_CLOSE = ']]>'

/** Trimmed, and the inside of a CDATA section when the value is one (MiniCPM 5 writes them). */
export function trimCdata(raw: string): string {
  const t = raw.trim()
  return t.startsWith(CDATA_OPEN) && t.endsWith(CDATA_CLOSE) && t.length >= CDATA_OPEN.length + CDATA_CLOSE.length
    ? t.slice(CDATA_OPEN.length, t.length - CDATA_CLOSE.length)
    : t
}

// The value must end the attribute: `name=ZQJ"k"` is no name (a damaged tag must not pass as another key).
const NAME_ATTRIBUTE = /(?:^|\s)name\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))(?=\s|$)/

// A tag's attribute text: attributes (`k="v"`, `k='v'`, `k=v`) and whitespace only; a lone `/` may close the tag.
const ATTRIBUTES = /^(?:\s+[\w:.-]+\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+))*\s*\/?$/

/** The `name` attribute of a tag's attribute text (` name="x"`), or undefined when the text is not attributes. */
function nameAttribute(attrs: string): string | undefined {
  if (attrs.length > 0 && !/^\s/.test(attrs)) return undefined // `<invokes>`, not `<invoke ...>`
  // Attributes and nothing else: other text in the tag (`name=\n# note\n"k"`) is not read (issue 22).
  if (!ATTRIBUTES.test(attrs)) return undefined
  const m = NAME_ATTRIBUTE.exec(attrs)
  return m ? (m[1] ?? m[2] ?? m[3])!.trim() : undefined
}

function nearest(...positions: number[]): number {
  let best = -1
  for (const p of positions) if (p >= 0 && (best < 0 || p < best)) best = p
  return best
}

/** Calls of every closed invoke block in `text`. Forward searches only (scan.ts): linear. */
export function invokeCalls(text: string, options: ParseOptions, format: string, tags: InvokeTags): ToolCall[] {
  const out: ToolCall[] = []
  const invoke = new ForwardSearch(text, tags.invoke)
  const invokeEnd = new ForwardSearch(text, tags.invokeEnd)
  const parameter = new ForwardSearch(text, tags.parameter)
  const parameterEnd = new ForwardSearch(text, tags.parameterEnd)
  const gt = new ForwardSearch(text, '>')
  let at = invoke.next(0)
  while (at >= 0) {
    const attrsStart = at + tags.invoke.length
    const tagEnd = gt.next(attrsStart)
    if (tagEnd < 0) break
    const next = invoke.next(attrsStart)
    const end = invokeEnd.next(tagEnd)
    if (end < 0 || (next >= 0 && next < end)) {
      at = next
      continue
    }
    const name = nameAttribute(text.slice(attrsStart, tagEnd))
    if (name) {
      const args = new ArgumentsBuilder(name, options)
      const clean = tags.clean ?? stripOneNewline
      let error: string | undefined
      const values: string[] = []
      let p = tagEnd + 1
      for (;;) {
        const q = skipSpace(text, p, end)
        if (q >= end) break
        if (parameter.next(q) !== q) {
          error = 'text in the invoke that is not a parameter'
          break
        }
        const pAttrs = q + tags.parameter.length
        const pTagEnd = gt.next(pAttrs)
        if (pTagEnd < 0 || pTagEnd >= end) {
          error = 'parameter tag not closed'
          break
        }
        let nextParam = parameter.next(pTagEnd)
        if (nextParam >= end) nextParam = -1
        let close = parameterEnd.next(pTagEnd)
        if (close >= end) close = -1
        const key = nameAttribute(text.slice(pAttrs, pTagEnd))
        if (key === undefined) {
          error = 'parameter without a name'
          break
        }
        const valueEnd = nearest(close, nextParam, end)
        const raw = clean(text.slice(pTagEnd + 1, valueEnd))
        values.push(raw)
        if (tags.addValue) tags.addValue(args, key, raw, text.slice(pAttrs, pTagEnd))
        else args.addText(key, raw)
        p = valueEnd === close ? close + tags.parameterEnd.length : valueEnd
      }
      // Issue 22: tags left inside values, or `</invoke>` written twice before the next invoke (the first was inside a
      // value, so the call ran on past it), are text this reader did not read.
      error ??= damagedMarkup(values, tags.parameterEnd, args.missing())
      const following = invoke.next(end + tags.invokeEnd.length)
      const again = invokeEnd.next(end + tags.invokeEnd.length)
      if (error === undefined && again >= 0 && (following < 0 || again < following)) {
        error = `${tags.invokeEnd} written twice: the text between is unread`
      }
      out.push(makeCall(name, error === undefined ? args.result() : invalidArguments(error), format, text.slice(at, end + tags.invokeEnd.length)))
    }
    at = invoke.next(end)
  }
  return out
}

/** One invoke element with its parameters. */
export function renderInvoke(
  call: { name: string; arguments: Record<string, unknown> },
  tags: InvokeTags,
  separator: string,
): string {
  let s = `${tags.invoke} name="${call.name}">${separator}`
  for (const [k, v] of Object.entries(call.arguments)) {
    s += `${tags.parameter} name="${k}">${renderRawValue(v)}${tags.parameterEnd}${separator}`
  }
  return s + tags.invokeEnd
}

export const TAGS: InvokeTags = { invoke: '<invoke', invokeEnd: '</invoke>', parameter: '<parameter', parameterEnd: '</parameter>' }
