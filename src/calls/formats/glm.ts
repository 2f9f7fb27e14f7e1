/**
 * GLM-4.5 / 4.6 (`glm45`) and GLM-4.7 (`glm47`, no newlines), and GLM-5.x: GLM-5, 5.1, 5.2 and 5.3-Flash write
 * GLM-4.7's shape (SGLang registers `glm5` as its GLM-4.7 detector, vLLM serves GLM-5.1 with `glm47`, GLM-5.2's
 * template asks for it, and SGLang found no GLM-5.3 detector needed), so they are aliases here:
 * `<tool_call>NAME\n<arg_key>k</arg_key>\n<arg_value>v</arg_value>\n</tool_call>`.
 *
 * Values are raw text (one leading and one trailing newline stripped) typed by the tool schema, or decoded as JSON
 * when valid without one (see `../schema-values.ts`). GLM-4.6's double escaping is undone: a literal `\n` after the
 * name, and `\"`-escaped JSON in an array or object value. `<tool_call>NAME</tool_call>` is a call with `{}`;
 * `<tool_call>NAME k=v k2="v 2"</tool_call>` (no `<arg_key>`) is read word by word (`keyValueWordsCall`). A
 * block must be closed by `</tool_call>` before the next `<tool_call>`: a truncated block is not a call. Content
 * that does not start with a name (`{...}`, `[...]`, `<function=...>`) is Hermes' or Qwen3-Coder's and gives [].
 *
 * Decisions against the corpus: a malformed argument (`<arg_key>` never closed, contested `vllm-glm45-5`) makes the
 * call's arguments invalid (it may have held an argument; see `../arg-pairs.ts`). Calls to functions that are not among the tools are kept
 * (`sglang-glm45-3`, `sglang-glm47-3`, where sglang drops them): the scorer judges names, and without tools no
 * parser can tell.
 */
import { invalidArguments, makeCall } from '../call-object.js'
import { PairSearches, readPairs, type ArgPairTags } from '../arg-pairs.js'
import { ArgumentsBuilder, renderRawValue } from '../schema-values.js'
import { forEachBlock } from '../scan.js'
import type { FormatParser, ParseOptions, ToolCall } from '../types.js'
import { markedBy } from '../marker-scan.js'
import { skipSpace } from '../json.js'

const FORMAT = 'glm45'
const OPEN = '<tool_call>'
const CLOSE = '</tool_call>'
const KEY = '<arg_key>'
const KEY_END = '</arg_key>'
const VALUE = '<arg_value>'
const VALUE_END = '</arg_value>'
const TAGS: ArgPairTags = { open: OPEN, close: CLOSE, key: KEY, keyEnd: KEY_END, value: VALUE, valueEnd: VALUE_END, literalNewlines: true }

/** The name before the first `<arg_key>`: trimmed, with GLM-4.6's literal `\n` (backslash, n) after it removed. */
function cleanName(raw: string): string {
  let name = raw.trim()
  while (name.endsWith('\\n')) name = name.slice(0, -2).trimEnd()
  return name
}

const NAME = /^[^\s<>{}[\]"'`,]+$/

function parse(text: string, options: ParseOptions): ToolCall[] {
  const out: ToolCall[] = []
  const pairs = new PairSearches(text, TAGS)
  // Only closed blocks are calls; the key and value searches move forward across blocks, so the pass is linear.
  forEachBlock(text, OPEN, CLOSE, (_body, from, end, closed) => {
    if (!closed) return
    const start = skipSpace(text, from, end)
    const raw = text.slice(from - OPEN.length, end + CLOSE.length)
    // Arguments with no name before them: the call is there, its name lost (never dropped).
    if (text.startsWith(KEY, start)) {
      out.push(makeCall('', invalidArguments(`no function name before the first ${KEY}`), FORMAT, raw))
      return
    }
    // A body that opens with `{`, `[` or `<` has no name first: Hermes' or Qwen3-Coder's block, not a GLM call.
    const first = text.charCodeAt(start)
    if (first === 123 || first === 91 || first === 60) return
    let k = pairs.key.next(from)
    if (k >= end) k = -1
    const name = cleanName(text.slice(from, k < 0 ? end : k))
    // No `<arg_key>`: a name alone, or a name then key=value words. With arguments, an odd name (`get weather`)
    // is kept as written, like Qwen3-Coder's quoted names: the call is to a tool not offered, never dropped.
    if (!NAME.test(name) && k < 0) {
      const call = keyValueWordsCall(text, from, end, options)
      if (call) out.push(call)
      return
    }
    const args = new ArgumentsBuilder(name, options)
    // Text the pairs do not account for (a value cut by `</tool_call>` inside it, a stray word) makes the call invalid.
    const error = k < 0 ? undefined : readPairs(text, k, end, pairs, args)
    const decoded = error === undefined ? args.result() : invalidArguments(error)
    out.push(makeCall(name, decoded, FORMAT, raw))
  })
  return out
}

/**
 * A block with no `<arg_key>` whose body is a name and then `key=value` words (`get_weather city=Paris days=3`,
 * `note text="two words"`): GLM-4.7 writes this at times (mlx-lm reads it, shell-quoted). Values are typed like
 * `<arg_value>` text. A name followed by other text is the call with invalid arguments, never dropped; a body whose
 * first word is not a name is not a GLM call.
 */
function keyValueWordsCall(text: string, from: number, end: number, options: ParseOptions): ToolCall | undefined {
  let i = skipSpace(text, from, end)
  const nameStart = i
  while (i < end && !isSpace(text.charCodeAt(i))) i++
  const name = text.slice(nameStart, i)
  if (!NAME.test(name)) return undefined
  const args = new ArgumentsBuilder(name, options)
  const error = readKeyValueWords(text, i, end, args)
  const raw = text.slice(from - OPEN.length, end + CLOSE.length)
  return makeCall(name, error === undefined ? args.result() : invalidArguments(error), FORMAT, raw)
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13
}

/** `key=value` words in `text[i, end)` into `args`; a value may be in `"…"` (with `\` escapes) or `'…'`. */
function readKeyValueWords(text: string, i: number, end: number, args: ArgumentsBuilder): string | undefined {
  for (;;) {
    i = skipSpace(text, i, end)
    if (i >= end) return undefined
    const keyStart = i
    while (i < end && text.charCodeAt(i) !== 61 /* = */ && !isSpace(text.charCodeAt(i))) i++
    if (i === keyStart || i >= end || text.charCodeAt(i) !== 61) return `text after the name that is not key=value: ${JSON.stringify(text.slice(keyStart, Math.min(end, keyStart + 40)))}`
    const key = text.slice(keyStart, i)
    i++
    const q = text.charCodeAt(i)
    let value = ''
    if (q === 34 /* " */ || q === 39 /* ' */) {
      i++
      for (;;) {
        if (i >= end) return `unterminated quoted value of ${key}`
        const c = text.charCodeAt(i)
        if (c === q) break
        if (c === 92 /* \ */ && q === 34 && i + 1 < end) {
          value += text[i + 1]
          i += 2
          continue
        }
        value += text[i]
        i++
      }
      i++
      if (i < end && !isSpace(text.charCodeAt(i))) return `text glued to the quoted value of ${key}`
    } else {
      const start = i
      while (i < end && !isSpace(text.charCodeAt(i))) i++
      value = text.slice(start, i)
    }
    args.addText(key, value)
  }
}

function render(calls: readonly { name: string; arguments: Record<string, unknown> }[]): string {
  return calls
    .map((c) => {
      let s = `${OPEN}${c.name}\n`
      for (const [k, v] of Object.entries(c.arguments)) s += `${KEY}${k}${KEY_END}\n${VALUE}${renderRawValue(v)}${VALUE_END}\n`
      return s + CLOSE
    })
    .join('\n')
}

export const glm: FormatParser = {
  name: FORMAT,
  aliases: [
    'glm47',
    'glm',
    'glm4',
    'glm4_moe',
    'glm45_air',
    'glm46',
    'glm5',
    'glm-5',
    'glm51',
    'glm52',
    'glm53',
    'poolside_v1',
    'poolside',
    'laguna',
  ],
  ...markedBy(OPEN),
  parse,
  render,
}
