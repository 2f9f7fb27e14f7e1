/** `<function=f><parameter=k>v</parameter></function>` blocks, shared by Qwen3-Coder and Seed-OSS. */
import { invalidArguments, makeCall } from './call-object.js'
import { damagedMarkup } from './unread.js'
import { ArgumentsBuilder, renderRawValue } from './schema-values.js'
import { ForwardSearch } from './scan.js'
import type { ParseOptions, ToolCall } from './types.js'

export const FUNCTION = '<function='
const PARAMETER = '<parameter='
const PARAMETER_END = '</parameter>'

/** Whether `text[from, to)` is only whitespace. */
function blank(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i)
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return false
  }
  return true
}

/**
 * A plausible function or parameter name: no markup, no line breaks. Quotes are allowed and kept, as vLLM's, SGLang's
 * and ollama's readers keep them (`<function="get_weather">` names `"get_weather"`, a tool the request did not offer:
 * the call scores as the wrong tool, as it would fail in the serving stack, rather than vanish).
 */
export function plausibleName(name: string): boolean {
  return name.length > 0 && !/[<>{}\n\r]/.test(name)
}

function nearest(...positions: number[]): number {
  let best = -1
  for (const p of positions) if (p >= 0 && (best < 0 || p < best)) best = p
  return best
}

/**
 * Why a block that ended at `end` (a closer of `ends`) ran on past it, or undefined: a closer or `</parameter>` again
 * before the next function (`next`, -1: none) means the first closer was written inside a value.
 */
function closerAgain(text: string, end: number, next: number, ends: ForwardSearch[], pClose: ForwardSearch): string | undefined {
  const before = (i: number) => i >= 0 && (next < 0 || i < next)
  if (before(pClose.next(end))) return `${PARAMETER_END} after the end of the function: the text between is unread`
  // `</function>` again, past the wrapper's own closer that may follow it.
  const fnEnd = ends[0]!
  if (!text.startsWith(fnEnd.token, end)) return before(fnEnd.next(end)) ? `${fnEnd.token} after the end of the function: the text between is unread` : undefined
  return before(fnEnd.next(end + fnEnd.token.length)) ? `${fnEnd.token} written twice: the text between is unread` : undefined
}

/** A function body read parameter by parameter: where its closer is, and each key with its raw value. */
interface StructuralRead {
  end: number
  pairs: [string, string][]
}

/** The forward searches one reading shares. */
interface Searches {
  gt: ForwardSearch
  pOpen: ForwardSearch
  pClose: ForwardSearch
  ends: ForwardSearch[]
}

function searches(text: string, closers: readonly string[]): Searches {
  return {
    gt: new ForwardSearch(text, '>'),
    pOpen: new ForwardSearch(text, PARAMETER),
    pClose: new ForwardSearch(text, PARAMETER_END),
    ends: closers.map((c) => new ForwardSearch(text, c)),
  }
}

/**
 * A `</parameter>` ends a value only where a structural delimiter follows it (vLLM's qwen3_coder rule): after
 * whitespace, the next `<parameter=`, a function closer, or the end of the region. So a value may hold a literal
 * `</tool_call>` or `</function>`; one holding `</parameter>` and text is still reported by `damagedMarkup`.
 * It shares the block loop's searches: both only move forward.
 */
class StructuralReader {
  private readonly gt: ForwardSearch
  private readonly pOpen: ForwardSearch
  private readonly pClose: ForwardSearch
  private readonly ends: ForwardSearch[]

  constructor(
    private readonly text: string,
    s: Searches,
  ) {
    this.gt = s.gt
    this.pOpen = s.pOpen
    this.pClose = s.pClose
    this.ends = s.ends
  }

  private skip(i: number, limit: number): number {
    const text = this.text
    while (i < limit) {
      const c = text.charCodeAt(i)
      if (c !== 32 && c !== 10 && c !== 13 && c !== 9) break
      i++
    }
    return i
  }

  private closerAt(i: number): boolean {
    if (this.text.charCodeAt(i) !== 60 /* < */) return false
    for (const e of this.ends) if (this.text.startsWith(e.token, i)) return true
    return false
  }

  /** Whether the `</parameter>` at `c` is structural (see the class comment). */
  private structural(c: number, limit: number): boolean {
    const s = this.skip(c + PARAMETER_END.length, limit)
    return s >= limit || this.closerAt(s) || this.text.startsWith(PARAMETER, s)
  }

  /**
   * The parameters of the body from `from` to its closer, before `limit` (the next function or the end of the text),
   * or undefined where the body is not parameters up to a closer (the fallback reading then reports why).
   */
  read(from: number, limit: number): StructuralRead | undefined {
    const text = this.text
    const pairs: [string, string][] = []
    let p = from
    for (;;) {
      p = this.skip(p, limit)
      if (p >= limit) return undefined
      if (this.closerAt(p)) return { end: p, pairs }
      if (!text.startsWith(PARAMETER, p)) return undefined
      const keyStart = p + PARAMETER.length
      const keyEnd = this.gt.next(keyStart)
      if (keyEnd < 0 || keyEnd >= limit) return undefined
      const key = text.slice(keyStart, keyEnd).trim()
      if (!plausibleName(key) || key.includes('/')) return undefined
      const valueStart = keyEnd + 1
      // The next parameter ends a value whose `</parameter>` is missing (vLLM's recovery): closers are looked for
      // before it only, so each value's scan covers text no other value's does.
      let np = this.pOpen.next(valueStart)
      if (np >= limit) np = -1
      const bound = np >= 0 ? np : limit
      let valueEnd = -1
      let after = -1
      for (let c = this.pClose.next(valueStart); c >= 0 && c < bound; c = this.pClose.next(c + PARAMETER_END.length)) {
        if (this.structural(c, limit)) {
          valueEnd = c
          after = c + PARAMETER_END.length
          break
        }
      }
      if (valueEnd < 0) {
        // No `</parameter>` ends it: the next parameter or else a function closer does.
        valueEnd = np
        if (valueEnd < 0) {
          for (const e of this.ends) {
            const q = e.next(valueStart)
            if (q >= 0 && q < limit) valueEnd = nearest(valueEnd, q)
          }
        }
        if (valueEnd < 0) return undefined
        after = valueEnd
      }
      pairs.push([key, text.slice(valueStart, valueEnd)])
      p = after
    }
  }
}

/**
 * Calls of every `<function=NAME>…</function>` block with `<parameter=KEY>value</parameter>` children, anywhere in
 * `text`. `closers` end a function block (`</function>` and the wrapper's close tag); `clean` trims a raw value as
 * the format does. A body is read structurally first (`StructuralReader`: a value may hold a literal closer, as
 * vLLM reads it); where that finds no closer, each value ends at the first `</parameter>`, next `<parameter=` or
 * closer, and any text left over makes the call invalid. Every marker search moves forward only: linear.
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
  const main = searches(text, closers)
  const { gt, pOpen, ends } = main
  const structural = new StructuralReader(text, main)
  // The fallback reads a body again from its start: searches of its own (made once, when first needed), so that
  // each set still only moves forward.
  let again: Searches | undefined
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
      const values: string[] = []
      // Issue 22: the body must be parameters and whitespace; anything else was not read, and may hold an argument.
      let error: string | undefined
      const read = structural.read(bodyStart, next >= 0 ? next : text.length)
      if (read) {
        end = read.end
        for (const [key, raw] of read.pairs) {
          const value = clean(raw)
          values.push(value)
          args.addText(key, value)
        }
      } else {
        const f = (again ??= searches(text, closers))
        let after = bodyStart // end of the last parameter read
        while (p >= 0) {
          if (!blank(text, after, p)) {
            error = 'text in the function that is not a parameter'
            break
          }
          const keyStart = p + PARAMETER.length
          const keyEnd = f.gt.next(keyStart)
          if (keyEnd < 0 || keyEnd >= end) {
            error = 'parameter tag not closed'
            break
          }
          const key = text.slice(keyStart, keyEnd).trim()
          if (!plausibleName(key) || key.includes('/')) {
            error = `parameter tag not read: ${JSON.stringify(text.slice(p, keyEnd + 1).slice(0, 40))}`
            break
          }
          const valueStart = keyEnd + 1
          let nextParam = f.pOpen.next(valueStart)
          if (nextParam >= end) nextParam = -1
          let close = f.pClose.next(valueStart)
          if (close >= end) close = -1
          const valueEnd = nearest(close, nextParam, end)
          const value = clean(text.slice(valueStart, valueEnd))
          values.push(value)
          args.addText(key, value)
          after = valueEnd === close ? close + PARAMETER_END.length : valueEnd
          p = nextParam
        }
        if (error === undefined && !blank(text, after, end)) error = 'text in the function that is not a parameter'
      }
      error ??= damagedMarkup(values, PARAMETER_END, args.missing())
      const used = read ? main : again!
      error ??= closerAgain(text, end, next, used.ends, used.pClose)
      out.push(makeCall(name, error === undefined ? args.result() : invalidArguments(error), format, text.slice(at, end)))
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
