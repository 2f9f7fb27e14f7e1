/**
 * Tencent Hunyuan 4 (HY V4, `hy_v4`): GLM-like pairs after the name, every structural token carrying the
 * checkpoint's suffix (`:opensource` in the released checkpoints, another `:xxxx` in others):
 *
 * ```
 * <tool_calls:opensource>
 * <tool_call:opensource>get_weather
 * <arg_key:opensource>city</arg_key:opensource>
 * <arg_value:opensource>Paris</arg_value:opensource>
 * </tool_call:opensource>
 * </tool_calls:opensource>
 * ```
 *
 * Source: vLLM's `tool_parsers/hy_v4_tool_parser.py` (the suffix is read from the tokenizer there; here from the
 * first suffixed `<tool_call…>` tag in the text) and its tests. Values are trimmed and typed by the tool schema.
 * Hunyuan 3's `<tool_sep…>` after the name is accepted too. The unsuffixed spelling is GLM-4.7's shape and is read by
 * `glm45`. Pairs are read strictly (`../arg-pairs.ts`).
 *
 * One more spelling is read: `<tool_call:opensource>NAME<tool_sep:opensource>{JSON}<end_of_tool_call:opensource>`,
 * a JSON object after the separator, which a serving stack (rapid-mlx's `hy_v3` parser) reads and writes; no
 * engine or released template was found to write it, but it cannot be mistaken for anything else.
 */
import { argPairCalls, NAME, renderArgPairs, type ArgPairTags } from '../arg-pairs.js'
import { decodeArguments, invalidArguments, makeCall } from '../call-object.js'
import { parseJsonAt } from '../json.js'
import type { FormatParser, ToolCall } from '../types.js'
import { markedBy } from '../marker-scan.js'
import { ForwardSearch } from '../scan.js'
import { unreadAfter } from '../unread.js'

const FORMAT = 'hunyuan4'
const MARKER = '<tool_call:'
const SUFFIX = /^:[^\s<>]{1,64}>/

function tagsFor(suffix: string): ArgPairTags {
  return {
    open: `<tool_call${suffix}>`,
    close: `</tool_call${suffix}>`,
    sep: `<tool_sep${suffix}>`,
    key: `<arg_key${suffix}>`,
    keyEnd: `</arg_key${suffix}>`,
    value: `<arg_value${suffix}>`,
    valueEnd: `</arg_value${suffix}>`,
    trimValues: true,
  }
}

/** The JSON spelling: each `<tool_call…>NAME<tool_sep…>{…}<end_of_tool_call…>`; a block never ended gives no call. */
function jsonBodyCalls(text: string, suffix: string): ToolCall[] {
  const open = `<tool_call${suffix}>`
  const sep = `<tool_sep${suffix}>`
  const close = `<end_of_tool_call${suffix}>`
  const opens = new ForwardSearch(text, open)
  const seps = new ForwardSearch(text, sep)
  const closes = new ForwardSearch(text, close)
  const calls: ToolCall[] = []
  for (let b = opens.next(0); b >= 0; ) {
    const from = b + open.length
    const next = opens.next(from)
    const limit = next < 0 ? text.length : next
    const s = seps.next(from)
    if (s < 0 || s >= limit) {
      b = next
      continue
    }
    const name = text.slice(from, s).trim()
    // Read string-aware up to the next call, so an end token quoted inside a value does not cut it.
    const r = parseJsonAt(text, s + sep.length, limit)
    const c = closes.next(r.ok ? r.end : s)
    if (NAME.test(name) && c >= 0 && c < limit) {
      const args = r.ok ? decodeArguments(r.value, r.floatPaths) : invalidArguments(`the arguments are not JSON: ${r.error}`)
      const call = makeCall(name, args, FORMAT, text.slice(b, c + close.length))
      calls.push(...(r.ok && args.argumentsValid ? unreadAfter([call], text, r.end, c) : [call]))
    }
    b = next
  }
  return calls
}

export const hunyuan4: FormatParser = {
  name: FORMAT,
  aliases: ['hy4', 'hy_v4', 'hyv4'],
  ...markedBy(MARKER),
  parse: (text, options, at) => {
    const i = text.indexOf(MARKER, at ?? 0)
    if (i < 0) return []
    const m = SUFFIX.exec(text.slice(i + MARKER.length - 1, i + MARKER.length + 65))
    if (!m) return []
    const suffix = m[0].slice(0, -1)
    return text.includes(`<end_of_tool_call${suffix}>`, i) ? jsonBodyCalls(text, suffix) : argPairCalls(text, options, FORMAT, tagsFor(suffix))
  },
  render: (calls) => `<tool_calls:opensource>\n${renderArgPairs(calls, tagsFor(':opensource')).replaceAll('<tool_sep:opensource>', '')}\n</tool_calls:opensource>`,
}
