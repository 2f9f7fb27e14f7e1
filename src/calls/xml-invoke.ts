/** `<invoke name="f"><parameter name="k">v</parameter></invoke>` blocks, shared by MiniMax M2 and Step-3. */
import { makeCall } from './call-object.js'
import { ArgumentsBuilder, renderRawValue, stripOneNewline } from './schema-values.js'
import { ForwardSearch } from './scan.js'
import type { ParseOptions, ToolCall } from './types.js'

/** The tag names of an invoke/parameter XML dialect. */
export interface InvokeTags {
  invoke: string // '<invoke'
  invokeEnd: string // '</invoke>'
  parameter: string // '<parameter'
  parameterEnd: string // '</parameter>'
}

const NAME_ATTRIBUTE = /(?:^|\s)name\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/

/** The `name` attribute of a tag's attribute text (` name="x"`), or undefined when the text is not attributes. */
function nameAttribute(attrs: string): string | undefined {
  if (attrs.length > 0 && !/^\s/.test(attrs)) return undefined // `<invokes>`, not `<invoke ...>`
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
      let p = parameter.next(tagEnd)
      while (p >= 0 && p < end) {
        const pAttrs = p + tags.parameter.length
        const pTagEnd = gt.next(pAttrs)
        if (pTagEnd < 0 || pTagEnd >= end) break
        let nextParam = parameter.next(pTagEnd)
        if (nextParam >= end) nextParam = -1
        let close = parameterEnd.next(pTagEnd)
        if (close >= end) close = -1
        const key = nameAttribute(text.slice(pAttrs, pTagEnd))
        if (key !== undefined) args.addText(key, stripOneNewline(text.slice(pTagEnd + 1, nearest(close, nextParam, end))))
        p = nextParam
      }
      out.push(makeCall(name, args.result(), format, text.slice(at, end + tags.invokeEnd.length)))
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
