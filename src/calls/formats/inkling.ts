/**
 * Inkling: a model message whose content kind is a JSON tool call, with the arguments under `args`:
 *
 * ```
 * <|message_model|><|content_invoke_tool_json|>{"name": "get_weather", "args": {"city": "Paris"}}<|end_message|>
 * ```
 *
 * Sources: SGLang's `function_call/inkling_detector.py` and vLLM's Inkling adapter (the tool's name may also sit
 * between `<|message_model|>` and the content token, as the chat template renders past calls). The body runs to
 * `<|end_message|>`, `<|content_model_end_sampling|>` or the next message. `arguments` is accepted for `args`. A body
 * that is not a JSON object with a name is no call; non-object `args` give the call with invalid arguments.
 */
import { decodeArguments, isPlainObject, makeCall, unreadMember, unreadMemberArguments } from '../call-object.js'
import { parseJson } from '../json.js'
import { ForwardSearch } from '../scan.js'
import type { FormatParser, ToolCall } from '../types.js'
import { markedBy } from '../marker-scan.js'
import { unreadRunOn } from '../unread.js'

const FORMAT = 'inkling'
const INVOKE = '<|content_invoke_tool_json|>'
const ENDS = ['<|end_message|>', '<|content_model_end_sampling|>', '<|message_model|>', INVOKE]

function parse(text: string): ToolCall[] {
  const out: ToolCall[] = []
  const ends = ENDS.map((e) => new ForwardSearch(text, e))
  const invoke = ends[ends.length - 1]!
  let at = invoke.next(0)
  while (at >= 0) {
    const body = at + INVOKE.length
    let end = text.length
    for (const e of ends) {
      const i = e.next(body)
      if (i >= 0 && i < end) end = i
    }
    const r = parseJson(text.slice(body, end))
    if (r.ok && isPlainObject(r.value) && typeof r.value['name'] === 'string' && r.value['name'] !== '') {
      const obj = r.value
      const key = 'args' in obj ? 'args' : 'arguments' in obj ? 'arguments' : undefined
      const unread = unreadMember(obj, key)
      const args =
        unread !== undefined
          ? unreadMemberArguments(unread)
          : key === undefined
            ? { arguments: {}, argumentsValid: true }
            : decodeArguments(obj[key], undefined)
      const call = makeCall(obj['name'] as string, args, FORMAT, text.slice(at, end))
      // The end token written again before the next call: the first was inside a value (issue 22).
      const again = ends[0]!.next(end + ENDS[0]!.length)
      const next = invoke.next(end + 1)
      if (text.startsWith(ENDS[0]!, end) && again >= 0 && (next < 0 || again < next)) unreadRunOn([call], text, ENDS[0]!, end + ENDS[0]!.length, again)
      out.push(call)
    }
    at = invoke.next(end)
  }
  return out
}

export const inkling: FormatParser = {
  name: FORMAT,
  ...markedBy(INVOKE),
  parse,
  render: (calls) =>
    calls.map((c) => `<|message_model|>${INVOKE}${JSON.stringify({ name: c.name, args: c.arguments })}<|end_message|>`).join(''),
}
