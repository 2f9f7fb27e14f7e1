/**
 * `OPEN NAME [SEP] <key>k</key><value>v</value>... CLOSE` blocks: a name, then key/value tag pairs. GLM's shape
 * (`formats/glm.ts`) with other tags, shared by LongCat's XML variant and Hunyuan 3. Values are raw text (one
 * leading and one trailing newline stripped) typed by the tool schema, or decoded as JSON when valid without one.
 * Only closed blocks are calls; a malformed pair ends the arguments and keeps those before it. Forward searches
 * only (scan.ts): linear.
 */
import { makeCall } from './call-object.js'
import { ArgumentsBuilder, renderRawValue, stripOneNewline } from './schema-values.js'
import { ForwardSearch, forEachBlock } from './scan.js'
import type { ParseOptions, ToolCall } from './types.js'

export interface ArgPairTags {
  open: string
  close: string
  /** A token between the name and the pairs (Hunyuan's `<tool_sep>`), if the dialect writes one. */
  sep?: string
  key: string
  keyEnd: string
  value: string
  valueEnd: string
}

const NAME = /^[^\s<>{}[\]"'`,]+$/

export function argPairCalls(text: string, options: ParseOptions, format: string, tags: ArgPairTags): ToolCall[] {
  const out: ToolCall[] = []
  const key = new ForwardSearch(text, tags.key)
  const keyEnd = new ForwardSearch(text, tags.keyEnd)
  const value = new ForwardSearch(text, tags.value)
  const valueEnd = new ForwardSearch(text, tags.valueEnd)
  const sep = tags.sep === undefined ? undefined : new ForwardSearch(text, tags.sep)
  forEachBlock(text, tags.open, tags.close, (_body, from, end, closed) => {
    if (!closed) return
    let k = key.next(from)
    if (k >= end) k = -1
    let nameEnd = k < 0 ? end : k
    let argsFrom = from
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
    if (k >= 0 && k < argsFrom) k = key.next(argsFrom)
    while (k >= 0 && k < end) {
      const ke = keyEnd.next(k + tags.key.length)
      if (ke < 0 || ke >= end) break
      const v = value.next(k + tags.key.length)
      if (v < 0 || v >= end || v < ke) break // key never closed
      const ve = valueEnd.next(v + tags.value.length)
      if (ve < 0 || ve >= end) break
      args.addText(text.slice(k + tags.key.length, ke).trim(), stripOneNewline(text.slice(v + tags.value.length, ve)))
      k = key.next(ve)
    }
    out.push(makeCall(name, args.result(), format, text.slice(from - tags.open.length, end + tags.close.length)))
  })
  return out
}

/** Calls written in the dialect, one block each, newline-separated as the templates write them. */
export function renderArgPairs(calls: readonly { name: string; arguments: Record<string, unknown> }[], tags: ArgPairTags): string {
  return calls
    .map((c) => {
      let s = `${tags.open}${c.name}${tags.sep ?? ''}\n`
      for (const [k, v] of Object.entries(c.arguments)) {
        s += `${tags.key}${k}${tags.keyEnd}\n${tags.value}${renderRawValue(v)}${tags.valueEnd}\n`
      }
      return s + tags.close
    })
    .join('\n')
}
