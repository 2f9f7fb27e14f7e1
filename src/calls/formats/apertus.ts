/**
 * Swiss AI Apertus: `<|tools_prefix|>[{"NAME": {args}}, ...]<|tools_suffix|>`: the function name is the object's
 * only key. Reasoning sits in `<|inner_prefix|>…<|inner_suffix|>` and is cut out first (a call written there is not
 * a call). An item shaped as a usual `{"name", "arguments"}` object is read that way too.
 */
import { callFromObject, decodeArguments, isPlainObject, makeCall, subPaths } from '../call-object.js'
import { toPointer } from '../json.js'
import type { FormatParser, ToolCall } from '../types.js'
import { callsInBlocks, type JsonItem } from '../json-blocks.js'
import { removeReasoningBlocks } from '../reasoning.js'
import { markedBy } from '../marker-scan.js'

const OPEN = '<|tools_prefix|>'
const CLOSE = '<|tools_suffix|>'
const FORMAT = 'apertus'

function apertusCall(it: JsonItem): ToolCall | undefined {
  const obj = it.value
  if (!isPlainObject(obj)) return undefined
  const keys = Object.keys(obj)
  const only = keys.length === 1 ? keys[0]! : undefined
  // `{"NAME": {...}}` is the native form; fall back to a `name` field, then to a one-key object with odd arguments.
  if (only !== undefined && isPlainObject(obj[only])) return nameKeyCall(only, it)
  const standard = callFromObject(obj, FORMAT, it.raw, it.floatPaths)
  if (standard) return standard
  return only !== undefined && only.length > 0 ? nameKeyCall(only, it) : undefined
}

function nameKeyCall(name: string, it: JsonItem): ToolCall {
  const value = (it.value as Record<string, unknown>)[name]
  return makeCall(name, decodeArguments(value, subPaths(it.floatPaths, toPointer([name]))), FORMAT, it.raw)
}

export const apertus: FormatParser = {
  name: FORMAT,
  ...markedBy(OPEN),
  parse: (text) => callsInBlocks(removeReasoningBlocks(text, '<|inner_prefix|>', '<|inner_suffix|>'), OPEN, CLOSE, FORMAT, apertusCall),
  render: (calls) => `${OPEN}${JSON.stringify(calls.map((c) => ({ [c.name]: c.arguments })))}${CLOSE}`,
}
