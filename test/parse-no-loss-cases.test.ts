/**
 * Issue 22's rule on hand-written strings, family by family: text inside a call's block that the format does not read
 * makes the call invalid with a reason (`argumentsError`), never a valid call with fewer arguments; what each format
 * reads on purpose (whitespace, prose after the call, an `id` member) does not.
 */
import { describe, expect, it } from 'vitest'
import { parseToolCalls } from '../src/calls/index.js'
import type { ToolCall } from '../src/calls/types.js'

const TOOLS = [{ type: 'function' as const, function: { name: 'f', parameters: { type: 'object', properties: {} } } }]

function one(text: string, format?: string): ToolCall {
  const calls = parseToolCalls(text, format ? { format, tools: TOOLS } : { tools: TOOLS })
  expect(calls.length, JSON.stringify(calls)).toBe(1)
  return calls[0]!
}

function invalid(text: string, format?: string): void {
  const c = one(text, format)
  expect(c.name).toBe('f')
  expect(c.argumentsValid, JSON.stringify(c)).toBe(false)
  expect(c.arguments).toEqual({})
  expect(c.argumentsError, 'the reason is given').toMatch(/\S/)
}

function valid(text: string, args: Record<string, unknown>, format?: string): void {
  const c = one(text, format)
  expect(c).toMatchObject({ name: 'f', arguments: args, argumentsValid: true })
  expect(c.argumentsError).toBeUndefined()
}

describe('JSON call objects', () => {
  it('a member that is neither the name nor the arguments makes the call invalid', () => {
    invalid('<tool_call>\n{"name": "f", "argumnts": {"a": 1}}\n</tool_call>', 'hermes')
    invalid('<tool_call>{"name": "f", "arguments": {"a": 1}, "b": 2}</tool_call>', 'hermes')
    invalid('[{"name": "f", "arguments": {"a": 1}, "parameters": {"b": 2}}]', 'json')
    invalid('<|python_tag|>{"name": "f", "parameters": {"a": 1}, "b": 2}', 'llama3_json')
  })
  it('an id or a type member is no argument', () => {
    valid('<tool_call>{"name": "f", "arguments": {"a": 1}, "id": "c1", "type": "function"}</tool_call>', { a: 1 }, 'hermes')
    valid('{"tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{\\"a\\": 1}"}}]}', { a: 1 })
  })
  it('text after the JSON inside a closed block makes the call invalid', () => {
    invalid('<tool_call>{"name": "f", "arguments": {"a": "V"}}qa1", "b": 2}}</tool_call>', 'hermes')
    invalid('<tool_call>{"name": "f", "arguments": {"a": 1}} b: 2\n</tool_call>', 'hermes')
  })
  it('bare JSON glued to text that continues it is invalid; prose after a space is not', () => {
    invalid('[{"name": "f", "arguments": {"a": "V"}}]qa1", "b": 2}}]', 'json')
    invalid('<|python_tag|>{"name": "f", "parameters": {"a": 735}}19, "b": 2}}', 'llama3_json')
    valid('Calling it: {"name": "f", "arguments": {"a": 1}} and done.', { a: 1 }, 'json')
  })
  it('Mistral: text glued to a call is unread; prose after a space or the next marker is not', () => {
    invalid('[TOOL_CALLS]f[ARGS]{"a": "V"}qa1", "b": 2}', 'mistral')
    invalid('[TOOL_CALLS]f[ARGS]{"a": 1},"b": 2}', 'mistral')
    invalid('[TOOL_CALLS] [{"name": "f", "arguments": {"a": 1}}]9, "b": 2}}]', 'mistral')
    valid('[TOOL_CALLS]f[ARGS]{"a": 1} and that is all.', { a: 1 }, 'mistral')
    valid('[TOOL_CALLS] [{"name": "f", "arguments": {"a": 1}}]\nextra trailing data', { a: 1 }, 'mistral')
  })
})
