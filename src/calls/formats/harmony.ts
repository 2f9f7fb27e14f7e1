/**
 * OpenAI Harmony (gpt-oss). An output is a run of messages,
 * `[<|start|>assistant][ to=RECIPIENT]<|channel|>CHANNEL[ to=RECIPIENT][ <|constrain|>json]<|message|>BODY(<|call|>|<|end|>|<|return|>)`,
 * and a tool call is a message addressed to `functions.NAME`; its body is the JSON arguments. Read as gpt-oss writes
 * it, which covers the forms NeMo misses:
 * - `<|constrain|>json` (or a bare `json`) between the header and `<|message|>`;
 * - the recipient in the role header: `<|start|>assistant to=functions.NAME<|channel|>commentary<|message|>…`, also
 *   when the output starts mid-header (` to=functions.NAME<|channel|>…`, the prompt ended with `<|start|>assistant`);
 * - dotted names: `to=functions.mcp.search` calls `mcp.search` (the name runs to whitespace or the next token).
 * Calls may be addressed from the `analysis` channel. A message without a `functions.` recipient is never a call:
 * analysis text is reasoning, `commentary` without a recipient is a preamble, `final` (even `<|constrain|>json`
 * structured output) is content, and builtin recipients (`to=python`, `to=container.exec`) are not function calls.
 * The stop tokens `<|call|>` / `<|return|>` are often stripped; a body then runs to the next header token or the end.
 *
 * Harmony keeps its reasoning in its own channel, so `<think>` means nothing here (`reasoning: 'keep'`): cutting
 * `<think>` spans could only damage a message that happens to quote one.
 *
 * LLM-jp-4.1 (see the aliases) writes the same messages with a space after every special token
 * (`<|start|> assistant to=functions.NAME<|channel|> commentary json<|message|> {...}<|end|>`), which all of the
 * above reads. An empty body closed by a stop token (`<|message|><|call|>`) is a call with `{}` (the llm-jp engine's
 * rule); an empty body cut off by the end of the output is not known to be complete and stays invalid.
 *
 * Issue 22's rule (`unread.ts`): a function body is its JSON alone, so text after the JSON in the body, or a stop token
 * that comes again after text (the first was written inside a value), makes the call invalid with a reason.
 *
 * Choices: a function message whose body does not decode (truncated or invalid JSON) is a call with invalid
 * arguments, for every such message (llama.cpp drops some of them when it does not parse tool calls at all): the
 * recipient already names the tool the model chose.
 */
import { decodeArguments, makeCall } from '../call-object.js'
import { parseJsonAt, parseJsonSpan, skipSpace } from '../json.js'
import type { FormatParser, ToolCall } from '../types.js'
import { ForwardSearch } from '../scan.js'
import { unreadAfter, unreadRunOn } from '../unread.js'

const START = '<|start|>'
const CHANNEL = '<|channel|>'
const MESSAGE = '<|message|>'
const CONSTRAIN = '<|constrain|>'
/** Tokens that end a message body (stop tokens, or the next header when the stop token was stripped). */
const BODY_ENDS = ['<|end|>', '<|call|>', '<|return|>', START, CHANNEL]
const FUNCTIONS = 'functions.'
/** The tokens that close a message (not a following header): what makes an empty body a complete one. */
const STOPS = ['<|end|>', '<|call|>', '<|return|>']
const isStopToken = (text: string, at: number): boolean => STOPS.some((t) => text.startsWith(t, at))
const RECIPIENT = 'to='

function isSpace(ch: string | undefined): boolean {
  return ch === ' ' || ch === '\n' || ch === '\t' || ch === '\r'
}

/**
 * The function a message header addresses (`to=functions.NAME` anywhere in the header, from its last `<|start|>`
 * on), or undefined when it has no `functions.` recipient.
 */
export function recipientFunction(header: string): string | undefined {
  const from = Math.max(0, header.lastIndexOf(START))
  let i = header.indexOf(RECIPIENT, from)
  while (i >= 0) {
    // `to=` must start a word: after whitespace, a token, or at the start of the output.
    const before = header[i - 1]
    if (i === from || isSpace(before) || before === '>') {
      let j = i + RECIPIENT.length
      while (j < header.length && !isSpace(header[j]) && header[j] !== '<') j++
      const recipient = header.slice(i + RECIPIENT.length, j)
      if (recipient.startsWith(FUNCTIONS) && recipient.length > FUNCTIONS.length) return recipient.slice(FUNCTIONS.length)
    }
    i = header.indexOf(RECIPIENT, i + RECIPIENT.length)
  }
  return undefined
}

export function parseHarmony(text: string): ToolCall[] {
  const messages = new ForwardSearch(text, MESSAGE)
  const bodyEnds = BODY_ENDS.map((t) => new ForwardSearch(text, t))
  /** First body-ending token at or after `from` and before `limit`, else `limit`. */
  const bodyEnd = (from: number, limit: number): number => {
    let end = limit
    for (const f of bodyEnds) {
      const p = f.next(from)
      if (p >= 0 && p < end) end = p
    }
    return end
  }
  /**
   * Where a stop token at `at` is followed, before the next header or `limit`, by text and another stop token: the
   * position of that one and where the text before it starts, else undefined. Stop tokens with only whitespace
   * between are one end.
   */
  const stopAgain = (at: number, limit: number): { from: number; at: number } | undefined => {
    let p = at
    for (;;) {
      const t = STOPS.find((s) => text.startsWith(s, p))
      if (t === undefined) break
      p = skipSpace(text, p + t.length, text.length)
    }
    const q = bodyEnd(p, limit)
    return q > p && isStopToken(text, q) ? { from: p, at: q } : undefined
  }
  const calls: ToolCall[] = []
  let headerStart = 0
  let m = messages.next(0)
  while (m >= 0) {
    const bodyStart = m + MESSAGE.length
    const nextMessage = messages.next(bodyStart)
    const limit = nextMessage < 0 ? text.length : nextMessage
    const header = text.slice(headerStart, m)
    const name = recipientFunction(header)
    let end: number
    if (name !== undefined) {
      // Most bodies run exactly to the first stop token: one native parse of that span first. Otherwise the JSON
      // is read string-aware up to the next message, so a stop token quoted in a value does not cut it.
      const stop = bodyEnd(bodyStart, limit)
      if (stop < text.length && skipSpace(text, bodyStart, stop) === stop && isStopToken(text, stop)) {
        // An empty body closed by its stop token: a call without arguments (LLM-jp-4's engines give `{}`).
        calls.push(makeCall(name, { arguments: {}, argumentsValid: true }, 'harmony', text.slice(headerStart + Math.max(0, header.lastIndexOf(START)), stop)))
        headerStart = stop
        m = nextMessage
        continue
      }
      const span = parseJsonSpan(text, bodyStart, stop)
      const r = span?.ok ? span : parseJsonAt(text, bodyStart, limit)
      const args = r.ok ? decodeArguments(r.value, r.floatPaths) : { arguments: {}, argumentsValid: false }
      end = bodyEnd(r.ok ? r.end : bodyStart, limit)
      const rawStart = headerStart + Math.max(0, header.lastIndexOf(START))
      const call = [makeCall(name, args, 'harmony', text.slice(rawStart, r.ok ? r.end : end))]
      // The body is the JSON and content: argument text after it in the same body, or a second stop token after the
      // first with such text between (the first was inside a value, so the JSON ended early), is unread.
      if (r.ok) unreadAfter(call, text, r.end, end)
      if (isStopToken(text, end)) {
        const again = stopAgain(end, limit)
        if (again) unreadRunOn(call, text, 'a stop token', again.from, again.at)
      }
      calls.push(...call)
    } else end = bodyEnd(bodyStart, limit)
    headerStart = end
    m = nextMessage
  }
  return calls
}

function renderCall(c: { name: string; arguments: Record<string, unknown> }): string {
  return `${START}assistant${CHANNEL}commentary ${RECIPIENT}${FUNCTIONS}${c.name} ${CONSTRAIN}json${MESSAGE}${JSON.stringify(c.arguments)}<|call|>`
}

export const harmony: FormatParser = {
  name: 'harmony',
  // LLM-jp-4 / 4.1 write Harmony (llama.cpp's `llm-jp-harmony`, the llm-jp vLLM plugin's `llmjp4`): a space after
  // each special token and `<|end|>` between parallel calls, both read here, so they share this format.
  aliases: ['gpt-oss', 'gpt_oss', 'llm-jp', 'llm_jp', 'llmjp4', 'llm-jp-harmony', 'llm_jp_harmony'],
  // Arguments follow `<|message|>`: a text without one holds no call.
  markers: [MESSAGE],
  // `=` is rarer than `t` in prose: the first search rules most outputs out quickly.
  detect: (text) => text.includes('=' + FUNCTIONS) && text.includes(RECIPIENT + FUNCTIONS),
  reasoning: 'keep',
  parse: (text) => parseHarmony(text),
  render: (calls) => calls.map(renderCall).join(''),
}
