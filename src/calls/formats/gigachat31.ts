/**
 * GigaChat 3.1: `[content]<|function_call|>{"name": ..., "arguments": {...}}`. Same strict call-object rule as
 * GigaChat 3 (see gigachat3.ts).
 */
import type { FormatParser } from '../types.js'
import { strictCallsAfter } from '../gigachat-calls.js'
import { markedBy } from '../marker-scan.js'

const MARKER = '<|function_call|>'

export const gigachat31: FormatParser = {
  name: 'gigachat31',
  ...markedBy(MARKER),
  parse: (text) => strictCallsAfter(text, MARKER, 'gigachat31'),
  render: (calls) => calls.map((c) => `${MARKER}${JSON.stringify({ name: c.name, arguments: c.arguments })}`).join(''),
}
