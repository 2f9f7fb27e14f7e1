/**
 * Turning one decoded data object (a JSONL line or an in-memory array item) into eval samples: a chat sample as it
 * is, or a dialogue expanded into one sample per tool-calling assistant turn (as NeMo's
 * evaluator does). Anything malformed is reported with the path of the field at fault instead of being guessed at.
 */
import { parseJson } from '../calls/json.js'
import { isPlainObject, setOwn } from '../calls/call-object.js'
import type { ToolDefinition } from '../calls/types.js'
import { toToolDefinition } from './tools.js'
import type { ExpectedCall } from '../calls/types.js'
import type { ChatMessage, Sample } from './types.js'

/** A field that is not what it should be; `field` is its path inside the sample object. */
export class InvalidField extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message)
  }
}

/** Keys a sample line may carry with a meaning; anything else goes to `Sample.extra`. */
const KNOWN_KEYS = new Set(['id', 'messages', 'tools', 'expected', 'answers', 'bfcl', 'turns', 'expectedTrajectory', 'mustPass'])

/** The outcome for one data object: its samples, or the first invalid field (with what could still be read). */
export type ObjectResult =
  | { samples: Sample[]; invalid?: undefined }
  | { invalid: InvalidField; id?: string; expected?: ExpectedCall[]; samples?: undefined }

/**
 * The samples in one decoded data object. `source` is recorded on each sample for error messages. Never throws.
 */
export function samplesFromObject(value: unknown, source?: Sample['source']): ObjectResult {
  if (!isPlainObject(value)) return { invalid: new InvalidField('', 'a sample must be a JSON object') }
  let id: string | undefined
  let expected: ExpectedCall[] | undefined
  try {
    id = readId(value['id'])
    const messages = readMessages(value['messages'])
    const tools = value['tools'] === undefined ? undefined : readTools(value['tools'])
    const extra = extraFields(value)
    const answers = readAnswers(value['answers'], value['bfcl'])
    const mustPass = readMustPass(value['mustPass'])
    const agent = readAgentFields(value)
    if (agent !== undefined) {
      // An agent sample: `expected` defaults to every call of the expected trajectory, in order.
      expected = value['expected'] !== undefined ? readExpected(value['expected'], 'expected') : agent.expectedTrajectory?.flat()
      if (expected === undefined) throw new InvalidField('expectedTrajectory', 'missing: a sample with `turns` gives `expectedTrajectory` (or `expected`)')
      const sample = withMustPass(withAnswers(Object.assign(buildSample(id, messages, tools, expected, source, extra), agent), answers), mustPass)

      return { samples: [sample] }
    }
    if (value['expected'] !== undefined) {
      expected = readExpected(value['expected'], 'expected')
      return { samples: [withMustPass(withAnswers(buildSample(id, messages, tools, expected, source, extra), answers), mustPass)] }
    }
    const samples = expandDialogue(id, messages, tools, source, extra).map((s) => withMustPass(withAnswers(s, answers), mustPass))
    if (samples.length === 0) {
      throw new InvalidField(
        'expected',
        'missing: give the expected calls (`[]` when no call is expected), or a dialogue whose assistant turns carry `tool_calls`',
      )
    }
    return { samples }
  } catch (err) {
    if (!(err instanceof InvalidField)) throw err
    const out: ObjectResult = { invalid: err }
    if (id !== undefined) out.id = id
    if (expected === undefined && isPlainObject(value) && value['expected'] !== undefined) {
      try {
        expected = readExpected(value['expected'], 'expected')
      } catch {
        expected = undefined
      }
    }
    if (expected !== undefined) out.expected = expected
    return out
  }
}

/** An agent sample's `turns` (each a list of messages, or a string: one user message) and `expectedTrajectory`. */
function readAgentFields(value: Record<string, unknown>): Pick<Sample, 'turns' | 'expectedTrajectory'> | undefined {
  const rawTurns = value['turns']
  const rawTrajectory = value['expectedTrajectory']
  if (rawTurns === undefined && rawTrajectory === undefined) return undefined
  const out: Pick<Sample, 'turns' | 'expectedTrajectory'> = {}
  if (rawTurns !== undefined) {
    if (!Array.isArray(rawTurns)) throw new InvalidField('turns', 'must be an array of turns (each a list of messages, or a string)')
    out.turns = rawTurns.map((t: unknown, i) => {
      if (typeof t === 'string') return [{ role: 'user', content: t }]
      if (!Array.isArray(t) || t.length === 0) throw new InvalidField(`turns[${i}]`, 'must be a non-empty list of messages, or a string')
      try {
        return readMessages(t)
      } catch (err) {
        if (err instanceof InvalidField) throw new InvalidField(err.field.replace(/^messages/, `turns[${i}]`), err.message)
        throw err
      }
    })
  }
  if (rawTrajectory !== undefined) {
    if (!Array.isArray(rawTrajectory)) throw new InvalidField('expectedTrajectory', 'must be an array of steps, each an array of calls')
    out.expectedTrajectory = rawTrajectory.map((step: unknown, i) => {
      const field = `expectedTrajectory[${i}]`
      if (!Array.isArray(step) || step.length === 0) throw new InvalidField(field, 'must be a non-empty array of calls (the calls of one step)')
      return readExpected(step, field)
    })
  }
  return out
}

function buildSample(
  id: string,
  messages: ChatMessage[],
  tools: ToolDefinition[] | undefined,
  expected: ExpectedCall[],
  source: Sample['source'],
  extra: Record<string, unknown> | undefined,
): Sample {
  const sample: Sample = { id, messages, expected }
  if (tools !== undefined) sample.tools = tools
  if (source !== undefined) sample.source = source
  if (extra !== undefined) sample.extra = extra
  return sample
}

/**
 * The scorers' answers: `answers` (an object keyed by scorer name; each value is the scorer's to read) and the
 * former `bfcl` field, read as `answers.bfcl`. A BFCL answer must be an object with a `functions` list; giving it
 * both ways is refused rather than one silently winning.
 */
function readAnswers(value: unknown, legacyBfcl: unknown): Record<string, unknown> | undefined {
  const answers: Record<string, unknown> = {}
  if (value !== undefined) {
    if (!isPlainObject(value)) throw new InvalidField('answers', 'must be an object of answers by scorer name (`{"bfcl": {...}}`)')
    if (value['bfcl'] !== undefined && legacyBfcl !== undefined) {
      throw new InvalidField('bfcl', 'given twice: as `answers.bfcl` and as `bfcl` (its former name); keep one')
    }
    for (const [name, answer] of Object.entries(value)) setOwn(answers, name, answer)
  }
  if (legacyBfcl !== undefined) answers['bfcl'] = legacyBfcl
  if (answers['bfcl'] !== undefined) checkBfclAnswer(answers['bfcl'], legacyBfcl !== undefined ? 'bfcl' : 'answers.bfcl')
  return Object.keys(answers).length > 0 ? answers : undefined
}

/** A BFCL answer (as loadBfclCategory writes it): an object with a `functions` list. */
function checkBfclAnswer(value: unknown, field: string): void {
  if (!isPlainObject(value) || !Array.isArray(value['functions'])) {
    throw new InvalidField(field, 'must be a BFCL answer: an object with a `functions` list (as loadBfclCategory makes it)')
  }
}

function withAnswers(sample: Sample, answers: Record<string, unknown> | undefined): Sample {
  if (answers === undefined) return sample
  sample.answers = { ...answers }
  // The former name stays readable: the same object as `answers.bfcl`.
  if (answers['bfcl'] !== undefined) sample.bfcl = answers['bfcl'] as Sample['bfcl']
  return sample
}

/** `mustPass`: a boolean when present. */
function readMustPass(value: unknown): boolean {
  if (value === undefined) return false
  if (typeof value !== 'boolean') throw new InvalidField('mustPass', 'must be true or false')
  return value
}

function withMustPass(sample: Sample, mustPass: boolean): Sample {
  if (mustPass) sample.mustPass = true
  return sample
}

function readId(value: unknown): string {
  if (typeof value === 'string' && value.length > 0) return value
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  throw new InvalidField('id', value === undefined ? 'missing' : 'must be a non-empty string')
}

function readMessages(value: unknown): ChatMessage[] {
  if (!Array.isArray(value)) throw new InvalidField('messages', value === undefined ? 'missing' : 'must be an array')
  for (let i = 0; i < value.length; i++) {
    const m: unknown = value[i]
    const field = `messages[${i}]`
    if (!isPlainObject(m)) throw new InvalidField(field, 'must be an object')
    if (typeof m['role'] !== 'string' || m['role'].length === 0) {
      throw new InvalidField(`${field}.role`, 'must be a non-empty string')
    }
    if (m['tool_calls'] !== undefined && m['tool_calls'] !== null) readToolCalls(m['tool_calls'], `${field}.tool_calls`)
  }
  return value as ChatMessage[]
}

/** OpenAI-style `tool_calls` as expected calls (arguments kept as given: an object or a JSON string). */
function readToolCalls(value: unknown, field: string): ExpectedCall[] {
  if (!Array.isArray(value)) throw new InvalidField(field, 'must be an array')
  const calls: ExpectedCall[] = []
  for (let i = 0; i < value.length; i++) {
    const tc: unknown = value[i]
    const f = `${field}[${i}]`
    if (!isPlainObject(tc)) throw new InvalidField(f, 'must be an object')
    // `{"function": {...}}` (OpenAI) or a bare `{"name", "arguments"}`.
    const fn = isPlainObject(tc['function']) ? tc['function'] : tc
    const fnField = isPlainObject(tc['function']) ? `${f}.function` : f
    calls.push(readCall(fn, fnField))
  }
  return calls
}

function readExpected(value: unknown, field: string): ExpectedCall[] {
  if (!Array.isArray(value)) throw new InvalidField(field, 'must be an array of calls (`[]` when no call is expected)')
  const calls: ExpectedCall[] = []
  for (let i = 0; i < value.length; i++) {
    const c: unknown = value[i]
    if (!isPlainObject(c)) throw new InvalidField(`${field}[${i}]`, 'must be an object with `name` and `arguments`')
    calls.push(readCall(c, `${field}[${i}]`))
  }
  return calls
}

function readCall(c: Record<string, unknown>, field: string): ExpectedCall {
  const name = c['name']
  if (typeof name !== 'string' || name.length === 0) throw new InvalidField(`${field}.name`, 'must be a non-empty string')
  const key = 'arguments' in c ? 'arguments' : 'parameters' in c ? 'parameters' : undefined
  if (key === undefined) return { name }
  const args = c[key]
  if (isPlainObject(args)) {
    rejectNonFinite(args, `${field}.${key}`)
    return { name, arguments: args }
  }
  if (typeof args === 'string') {
    const r = parseJson(args)
    if (r.ok && isPlainObject(r.value)) {
      rejectNonFinite(r.value, `${field}.${key}`)
      return { name, arguments: args }
    }
    throw new InvalidField(`${field}.${key}`, 'a string here must hold a JSON object')
  }
  throw new InvalidField(`${field}.${key}`, 'must be an object (or a JSON string of one)')
}

/**
 * Expected values must be finite: JSON has no Infinity, and a literal such as `1e999` (which decodes to Infinity) is
 * a mistake in the data, not a value to compare a model's output with. An explicit stack: any depth.
 */
function rejectNonFinite(value: unknown, field: string): void {
  const stack: { v: unknown; field: string }[] = [{ v: value, field }]
  while (stack.length > 0) {
    const { v, field: f } = stack.pop() as { v: unknown; field: string }
    if (typeof v === 'number' && !Number.isFinite(v)) {
      throw new InvalidField(f, 'number out of range: JSON has no Infinity or NaN (a literal like 1e999 overflows)')
    }
    if (Array.isArray(v)) v.forEach((x: unknown, i) => stack.push({ v: x, field: `${f}[${i}]` }))
    else if (isPlainObject(v)) for (const k of Object.keys(v)) stack.push({ v: v[k], field: `${f}.${k}` })
  }
}

function readTools(value: unknown): ToolDefinition[] {
  if (!Array.isArray(value)) throw new InvalidField('tools', 'must be an array')
  const tools: ToolDefinition[] = []
  for (let i = 0; i < value.length; i++) {
    const t: unknown = value[i]
    if (!isPlainObject(t)) throw new InvalidField(`tools[${i}]`, 'must be an object')
    // OpenAI `{"type": "function", "function": {...}}`, or a bare function document (BFCL, NeMo) wrapped as one.
    const fn = isPlainObject(t['function']) ? t['function'] : t
    const f = isPlainObject(t['function']) ? `tools[${i}].function` : `tools[${i}]`
    if (typeof fn['name'] !== 'string' || fn['name'].length === 0) {
      throw new InvalidField(`${f}.name`, 'must be a non-empty string')
    }
    if (fn['parameters'] !== undefined && !isPlainObject(fn['parameters'])) {
      throw new InvalidField(`${f}.parameters`, 'must be a JSON Schema object')
    }
    tools.push(toToolDefinition(t)!)
  }
  return tools
}

function extraFields(value: Record<string, unknown>): Record<string, unknown> | undefined {
  let extra: Record<string, unknown> | undefined
  for (const key of Object.keys(value)) {
    if (KNOWN_KEYS.has(key)) continue
    extra ??= {}
    // defineProperty, not assignment: a key named `__proto__` stays an own data property and sets no prototype.
    Object.defineProperty(extra, key, { value: value[key], writable: true, enumerable: true, configurable: true })
  }
  return extra
}

function hasToolCalls(m: ChatMessage): boolean {
  return m.role === 'assistant' && Array.isArray(m.tool_calls) && m.tool_calls.length > 0
}

/**
 * One sample per tool-calling assistant turn. Consecutive assistant rows with tool calls are one parallel turn
 * (some datasets write each parallel call as its own row); the prompt is every message before the turn's first row.
 */
export function expandDialogue(
  id: string,
  messages: ChatMessage[],
  tools: ToolDefinition[] | undefined,
  source?: Sample['source'],
  extra?: Record<string, unknown>,
): Sample[] {
  const samples: Sample[] = []
  let i = 0
  while (i < messages.length) {
    const m = messages[i] as ChatMessage
    if (!hasToolCalls(m)) {
      i++
      continue
    }
    const start = i
    const expected: ExpectedCall[] = []
    while (i < messages.length && hasToolCalls(messages[i] as ChatMessage)) {
      expected.push(...readToolCalls((messages[i] as ChatMessage).tool_calls, `messages[${i}].tool_calls`))
      i++
    }
    const k = samples.length + 1
    samples.push(buildSample(`${id}#${k}`, messages.slice(0, start), tools, expected, source, extra))
  }
  return samples
}
