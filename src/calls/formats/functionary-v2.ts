/**
 * Functionary v2 (MeetKai functionary-small/medium v2.x): every message is `<|from|>ROLE\n<|recipient|>RECIPIENT\n
 * <|content|>CONTENT`, and an assistant turn ends with `<|stop|>`. The generation prompt already ends with
 * `<|from|>assistant\n<|recipient|>`, so the output begins with the first recipient:
 *
 * ```
 * get_weather
 * <|content|>{"city": "Paris"}
 * <|from|>assistant
 * <|recipient|>get_time
 * <|content|>{"zone": "CET"}<|stop|>
 * ```
 *
 * Source: the template Functionary v2 ships (its assistant messages and generation prompt) and MeetKai's prompt
 * template v2. The recipient `all` carries text for the user; any other recipient is a function and its content the
 * JSON arguments, up to the next `<|from|>`, `<|stop|>` or the end. The first recipient is the text before the first
 * `<|content|>` when no `<|recipient|>` precedes it, and only when it is a name alone (prose before it is not one).
 * Arguments that do not decode to an object give the call with invalid arguments; text after them that could hold an
 * argument makes them invalid (`../unread.ts`).
 */
import { decodeArguments, invalidArguments, makeCall } from '../call-object.js'
import { parseJsonAt } from '../json.js'
import { markedBy } from '../marker-scan.js'
import { ForwardSearch } from '../scan.js'
import type { FormatParser, ToolCall } from '../types.js'
import { unreadAfter, unreadRunOn } from '../unread.js'

const FORMAT = 'functionary_v2'
const CONTENT = '<|content|>'
const RECIPIENT = '<|recipient|>'
const FROM = '<|from|>'
const STOP = '<|stop|>'
const NAME = /^[A-Za-z_][\w.-]*$/

function parse(text: string, _options: unknown, at = 0): ToolCall[] {
  const out: ToolCall[] = []
  const contents = new ForwardSearch(text, CONTENT)
  const recipients = new ForwardSearch(text, RECIPIENT)
  const froms = new ForwardSearch(text, FROM)
  const stops = new ForwardSearch(text, STOP)
  let r = recipients.next(0)
  let c = contents.next(at)
  let boundary = 0 // where the current message's recipient starts
  while (c >= 0) {
    // The recipient is the text after the last `<|recipient|>` before this content (or the output's start).
    while (r >= 0 && r < c) {
      boundary = r + RECIPIENT.length
      r = recipients.next(boundary)
    }
    const recipient = text.slice(boundary, c).trim()
    const body = c + CONTENT.length
    const f = froms.next(body)
    const s = stops.next(body)
    const next = contents.next(body)
    const end = Math.min(...[f, s, next].filter((p) => p >= 0), text.length)
    if (recipient !== 'all' && NAME.test(recipient)) {
      const made = call(text, recipient, body, end, c)
      // `<|stop|>` again before the next message: the first was inside a value, and the call ran on past it.
      if (end === s) {
        const again = stops.next(s + STOP.length)
        const following = Math.min(...[froms.next(s), next].filter((p) => p >= 0), text.length)
        if (again >= 0 && again < following) unreadRunOn([made], text, STOP, s + STOP.length, again)
      }
      out.push(made)
    }
    // The next message's recipient starts after this one's end at the earliest.
    boundary = end
    c = next
  }
  return out
}

function call(text: string, name: string, body: number, end: number, contentAt: number): ToolCall {
  const r = parseJsonAt(text, body, end)
  const raw = text.slice(Math.max(0, contentAt - name.length - 1), r.ok ? r.end : end)
  if (!r.ok) return makeCall(name, invalidArguments(`the content is not JSON: ${r.error}`), FORMAT, raw)
  const args = decodeArguments(r.value, r.floatPaths, r.end - body)
  const made = makeCall(name, args.argumentsValid ? args : invalidArguments('the content is not a JSON object'), FORMAT, raw)
  return unreadAfter([made], text, r.end, end)[0]!
}

export const functionaryV2: FormatParser = {
  name: FORMAT,
  aliases: ['functionary-v2', 'functionary_v2_2'],
  ...markedBy(CONTENT),
  parse,
  render: (calls) =>
    calls.map((c, k) => `${k === 0 ? '' : `\n${FROM}assistant\n${RECIPIENT}`}${c.name}\n${CONTENT}${JSON.stringify(c.arguments)}`).join('') + STOP,
}
