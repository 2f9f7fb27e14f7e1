/**
 * Reading the commands' JSONL input: one object a line, each field checked, every problem reported as
 * `line N: <what>, field <name>` without stopping the stream.
 *
 * Blank (whitespace-only) lines are not records: they are skipped and produce no output, as JSONL readers
 * usually do; line numbers in messages still count them, so they point at the physical line.
 */
import { createInterface } from 'node:readline'
import { decodeArguments, isPlainObject } from '../calls/call-object.js'
import { unknownFormatError } from '../calls/index.js'
import type { ParseOptions, ToolCall, ToolDefinition } from '../calls/types.js'
import type { ExpectedCall } from '../score/types.js'

/** A field that is missing or has the wrong type. */
export class InputError extends Error {
  constructor(
    readonly what: string,
    readonly field?: string,
  ) {
    super(field === undefined ? what : `${what}, field ${field}`)
  }
}

export type InputLine = { line: number; value: Record<string, unknown> } | { line: number; error: string }

/** The message for a bad line, as it appears in `{"error": ...}`. */
export function lineError(line: number, err: unknown): string {
  return `line ${line}: ${err instanceof Error ? err.message : String(err)}`
}

/** The JSON objects of a JSONL stream, one at a time (memory stays that of one line). */
export async function* readJsonLines(input: NodeJS.ReadableStream): AsyncGenerator<InputLine> {
  const rl = createInterface({ input, crlfDelay: Infinity })
  let line = 0
  for await (let text of rl) {
    line++
    if (line === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1)
    if (text.trim() === '') continue
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (err) {
      yield { line, error: lineError(line, `invalid JSON (${(err as Error).message})`) }
      continue
    }
    if (!isPlainObject(value)) {
      yield { line, error: lineError(line, `expected a JSON object, got ${typeName(value)}`) }
      continue
    }
    yield { line, value }
  }
}

export function typeName(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'array'
  return typeof v
}

function wrongType(expected: string, v: unknown, field: string): InputError {
  return new InputError(`expected ${expected}, got ${typeName(v)}`, field)
}

export function requireString(obj: Record<string, unknown>, field: string): string {
  const v = obj[field]
  if (v === undefined) throw new InputError('missing', field)
  if (typeof v !== 'string') throw wrongType('a string', v, field)
  return v
}

export function requireArray(obj: Record<string, unknown>, field: string): unknown[] {
  const v = obj[field]
  if (v === undefined) throw new InputError('missing', field)
  if (!Array.isArray(v)) throw wrongType('an array', v, field)
  return v
}

/** The parser options a line may carry: `tools` (OpenAI-style tool list) and `format` (a hint). */
export function parseOptionsOf(obj: Record<string, unknown>): ParseOptions {
  const options: ParseOptions = {}
  const tools = obj['tools']
  if (tools !== undefined && tools !== null) {
    if (!Array.isArray(tools)) throw wrongType('an array', tools, 'tools')
    tools.forEach((t, i) => {
      if (!isPlainObject(t)) throw wrongType('an object', t, `tools[${i}]`)
    })
    options.tools = tools as ToolDefinition[]
  }
  const format = obj['format']
  if (format !== undefined && format !== null) {
    if (typeof format !== 'string') throw wrongType('a string', format, 'format')
    const problem = unknownFormatError(format)
    if (problem !== undefined) throw new InputError(problem, 'format')
    options.format = format
  }
  return options
}

/** `expected`: a list of `{name, arguments?}`; arguments an object or a JSON string (NeMo's data has both). */
export function expectedOf(obj: Record<string, unknown>): ExpectedCall[] {
  return requireArray(obj, 'expected').map((e, i) => {
    const field = `expected[${i}]`
    if (!isPlainObject(e)) throw wrongType('an object', e, field)
    const name = e['name']
    if (name === undefined) throw new InputError('missing', `${field}.name`)
    if (typeof name !== 'string') throw wrongType('a string', name, `${field}.name`)
    const args = e['arguments']
    if (args === undefined || args === null) return { name }
    if (!isPlainObject(args) && typeof args !== 'string') {
      throw wrongType('an object or a JSON string', args, `${field}.arguments`)
    }
    return { name, arguments: args }
  })
}

/**
 * Predicted calls given as data instead of text: each either OpenAI style (`{"type": "function", "function":
 * {"name", "arguments"}}`, arguments an object or a JSON string) or a ToolCall as `tool-evals parse` writes it
 * (`{"name", "arguments", "argumentsValid", "format"}`). Arguments are model output, so undecodable ones make a
 * malformed call, not a bad line; a missing or non-string name is a bad line.
 */
export function callsOfLine(obj: Record<string, unknown>): ToolCall[] {
  return requireArray(obj, 'calls').map((c, i) => {
    const field = `calls[${i}]`
    if (!isPlainObject(c)) throw wrongType('an object', c, field)
    let fn = c
    let fnField = field
    if (c['function'] !== undefined) {
      if (!isPlainObject(c['function'])) throw wrongType('an object', c['function'], `${field}.function`)
      fn = c['function']
      fnField = `${field}.function`
    }
    const name = fn['name']
    if (name === undefined) throw new InputError('missing', `${fnField}.name`)
    if (typeof name !== 'string') throw wrongType('a string', name, `${fnField}.name`)
    const key = 'arguments' in fn ? 'arguments' : 'parameters' in fn ? 'parameters' : undefined
    const decoded = key === undefined ? { arguments: {}, argumentsValid: true } : decodeArguments(fn[key])
    // A call that `parse` already found malformed stays malformed.
    const valid = decoded.argumentsValid && c['argumentsValid'] !== false
    const format = typeof c['format'] === 'string' ? c['format'] : fn === c ? 'calls' : 'openai'
    return { name, arguments: valid ? decoded.arguments : {}, argumentsValid: valid, format }
  })
}
