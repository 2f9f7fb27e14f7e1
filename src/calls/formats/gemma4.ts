/**
 * Google Gemma 4: `<|tool_call>call:NAME{key:<|"|>text<|"|>,n:42,flag:true,list:[…],obj:{k:v}}<tool_call|>`. Keys
 * are bare; strings are delimited by the `<|"|>` token (never by `"`, so they hold quotes and backslashes as
 * written); numbers, booleans, null, arrays and objects are bare. Reasoning sits in `<|channel>thought…<channel|>`
 * and is removed first (stray or duplicated channel markers are tolerated).
 *
 * With a tool schema, a top-level string is typed when the schema says it is not a string (`<|"|>42<|"|>` for an
 * integer gives 42), and a bare scalar is kept as its text when the schema says string. Values that do not parse
 * make the call's arguments invalid (`{}`); a block ends at `<tool_call|>`, the next `<|tool_call>` or the end.
 * The same reader serves FunctionGemma (`functiongemma.ts`), whose strings are delimited by `<escape>`.
 */
import type { FormatParser } from '../types.js'
import { removeReasoningBlocks } from '../reasoning.js'
import { callBlocks, renderCall, type CallSyntax } from '../gemma-calls.js'
import { markedBy } from '../marker-scan.js'

const FORMAT = 'gemma4'
const OPEN = '<|tool_call>'
const CLOSE = '<tool_call|>'
const QUOTE = '<|"|>'
const SYNTAX: CallSyntax = { quote: QUOTE, typeQuotedStrings: false }

export const gemma4: FormatParser = {
  name: FORMAT,
  aliases: ['gemma', 'gemma-4'],
  ...markedBy(OPEN),
  parse: (text, options) => callBlocks(removeReasoningBlocks(text, '<|channel>', '<channel|>'), options, FORMAT, OPEN, CLOSE, SYNTAX),
  render: (calls) => calls.map((c) => OPEN + renderCall(c, QUOTE) + CLOSE).join(''),
}
