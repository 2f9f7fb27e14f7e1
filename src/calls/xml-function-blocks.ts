/** `<function=f><parameter=k>v</parameter></function>` blocks, shared by Qwen3-Coder and Seed-OSS. */
import { makeCall } from './call-object.js'
import { ArgumentsBuilder, renderRawValue } from './schema-values.js'
import { ForwardSearch } from './scan.js'
import type { ParseOptions, ToolCall } from './types.js'

export const FUNCTION = '<function='
const PARAMETER = '<parameter='

/** Whether `text[from, to)` is only whitespace. */
function blank(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i)
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return false
  }
  return true
}

/** A plausible function name: no markup, no line breaks. */
export function plausibleName(name: string): boolean {
  return name.length > 0 && !/[<>{}\n\r"]/.test(name)
}

function nearest(...positions: number[]): number {
  let best = -1
  for (const p of positions) if (p >= 0 && (best < 0 || p < best)) best = p
  return best
}

/**
 * Calls of every `<function=NAME>…</function>` block with `<parameter=KEY>value</parameter>` children, anywhere in
 * `text`. `closers` end a function block (`</function>` and the wrapper's close tag); `clean` trims a raw value as
 * the format does. Every marker search moves forward only: linear.
 */
export function functionBlockCalls(
  text: string,
  options: ParseOptions,
  format: string,
  closers: readonly string[],
  clean: (raw: string) => string,
): ToolCall[] {
  const out: ToolCall[] = []
  const fnOpen = new ForwardSearch(text, FUNCTION)
  const gt = new ForwardSearch(text, '>')
  const pOpen = new ForwardSearch(text, PARAMETER)
  const pClose = new ForwardSearch(text, '</parameter>')
  const ends = closers.map((c) => new ForwardSearch(text, c))
  let at = fnOpen.next(0)
  while (at >= 0) {
    const nameStart = at + FUNCTION.length
    const nameEnd = gt.next(nameStart)
    if (nameEnd < 0) break
    const next = fnOpen.next(nameStart)
    let end = -1
    for (const m of ends) end = nearest(end, m.next(nameEnd))
    // Unterminated (the end of the output or another function comes first): not a call.
    if (end < 0 || (next >= 0 && next < end) || (next >= 0 && next < nameEnd)) {
      at = next
      continue
    }
    const name = text.slice(nameStart, nameEnd).trim()
    const bodyStart = nameEnd + 1
    let p = pOpen.next(bodyStart)
    if (p >= end) p = -1
    if (plausibleName(name) && blank(text, bodyStart, p < 0 ? end : p)) {
      const args = new ArgumentsBuilder(name, options)
      while (p >= 0) {
        const keyStart = p + PARAMETER.length
        const keyEnd = gt.next(keyStart)
        if (keyEnd < 0 || keyEnd >= end) break
        const valueStart = keyEnd + 1
        let nextParam = pOpen.next(valueStart)
        if (nextParam >= end) nextParam = -1
        let close = pClose.next(valueStart)
        if (close >= end) close = -1
        const valueEnd = nearest(close, nextParam, end)
        args.addText(text.slice(keyStart, keyEnd).trim(), clean(text.slice(valueStart, valueEnd)))
        p = nextParam
      }
      out.push(makeCall(name, args.result(), format, text.slice(at, end)))
    }
    at = fnOpen.next(end)
  }
  return out
}

/** `<function=NAME>` blocks with one `<parameter=k>` line group per argument, values in the XML formats' raw form. */
export function renderFunctionBlock(
  call: { name: string; arguments: Record<string, unknown> },
  valueNewlines: boolean,
): string {
  const nl = valueNewlines ? '\n' : ''
  let s = `<function=${call.name}>\n`
  for (const [k, v] of Object.entries(call.arguments)) s += `<parameter=${k}>${nl}${renderRawValue(v)}${nl}</parameter>\n`
  return s + '</function>'
}
