/**
 * describeEval's `task`: the user's own application under test (a system prompt, a framework, an agent loop) instead
 * of a model. It is adapted into a `ModelProvider` here, so the rest of the pipeline (generation, parsing, scorers,
 * trials, snapshots, usage, the journal) has one path:
 *
 *   describeEval('chat route', { data, task: async (sample, { signal }) => myRoute(sample.messages, { signal }) })
 *
 * What a task returns (`TaskOutput`) is read strictly: a shape it does not know is the sample's error, named, never
 * a silently empty answer. A task that throws, or runs past its deadline, is one errored sample too.
 */
import { thrownMessage } from '../calls/thrown.js'
import { isPlainObject } from '../calls/call-object.js'
import { closest } from '../calls/options.js'
import { printable } from '../calls/printable.js'
import type { ToolCall } from '../calls/types.js'
import type { Sample } from '../data/types.js'
import { callsFromOpenAI } from '../models/replay.js'
import type { GenerateOptions, ModelOutput, ModelProvider } from '../models/types.js'
import { trajectoryCalls, type ToolOutcome, type Trajectory, type TrajectoryStep } from '../score/trajectory.js'
import { usageAmount } from '../score/usage.js'

/** What a task is told besides its sample: when to stop. */
export interface TaskContext {
  /** Aborted when the sample's deadline passes or the run ends: hand it to your fetches and SDK calls. */
  signal: AbortSignal
  /** `Date.now()` time by which the task must have answered (the sample's test timeout less a margin); absent: none. */
  deadline?: number
}

/**
 * What the task used, as it knows it: tokens summed over every generation, `requests` (generations behind the
 * answer; default 1), wall time (`latencyMs`, the generations' sum; `latenciesMs` each one's, for percentiles over
 * requests), and `costUsd`, what those generations cost in USD as your provider billed them (it wins over the
 * reporter's `pricing` for this sample). A task that reports none has unknown usage (counted, its totals marked
 * partial), never zero; one that reports no cost has an unknown cost unless `pricing` prices its tokens.
 */
export interface TaskUsage {
  promptTokens?: number
  completionTokens?: number
  requests?: number
  latencyMs?: number
  latenciesMs?: number[]
  costUsd?: number
}

/** A call as a task gives it: a name and its arguments (an object, or the JSON text the model wrote). */
export interface TaskCall {
  name: string
  arguments?: Record<string, unknown> | string
  id?: string
}

/** An OpenAI-style assistant message (`choices[0].message`). */
export interface TaskAssistantMessage {
  role?: 'assistant'
  content?: string | null | { type: string; text?: string }[]
  tool_calls?: { id?: string; type?: string; function: { name: string; arguments?: string | Record<string, unknown> } }[]
  usage?: TaskUsage
}

/** One generation of the task's agent loop: the calls it made, what each came to, its text. */
export interface TaskStep {
  calls?: TaskCall[]
  /** One per call, in call order: the content sent back to the model, or the tool's error. */
  results?: { name?: string; id?: string; content?: string; value?: unknown; error?: string }[]
  text?: string
  /** The user turn (0-based) the step belongs to; default 0. */
  turn?: number
}

/** A whole agent run, for the trajectory scorer (`trajectory: true`) and the NeMo metrics over all its calls. */
export interface TaskTrajectory {
  steps: TaskStep[]
  /** The final answer; default: the text of the last step without calls. */
  answer?: string
  /** The loop stopped at its step limit while the model still called tools. */
  stepLimitHit?: boolean
  usage?: TaskUsage
}

/** Text (or calls already structured) with usage: the general form, e.g. what the AI SDK helpers return. */
export interface TaskText {
  text?: string
  calls?: TaskCall[]
  /** The wire format of `text`, when the task knows it (else the eval's `format`, else detection). */
  format?: string
  usage?: TaskUsage
}

/**
 * What a task returns: raw model text (parsed like a model's output), an OpenAI-style assistant message with
 * `tool_calls`, a list of `{ name, arguments }` calls, a trajectory (`{ steps }`), or `{ text?, calls?, usage? }`.
 */
export type TaskOutput = string | TaskCall[] | TaskAssistantMessage | TaskTrajectory | TaskText

/** The function under test. An `id` property names it in the report (pricing keys on it); default `task:<suite>`. */
export type EvalTask = ((sample: Sample, context: TaskContext) => TaskOutput | Promise<TaskOutput>) & { id?: string }

/** Why a task's answer cannot be scored: the sample's error. */
export class TaskShapeError extends Error {
  constructor(detail: string) {
    super(`the task returned ${detail}; expected text, an assistant message with tool_calls, a list of { name, arguments } calls, { steps } or { text, calls, usage }`)
    this.name = 'TaskShapeError'
  }
}

/** `task` as a provider: each sample's generation is one call of the task, within the sample's deadline. */
export function taskProvider(task: EvalTask, suite: string): ModelProvider {
  const id = typeof task.id === 'string' && task.id !== '' ? task.id : `task:${suite}`
  return {
    id,
    async generate(sample, options) {
      const value = await runWithinDeadline(task, sample, options ?? {})
      return taskOutput(value)
    },
  }
}

/** The task's answer, or a throw: its own error, or one naming the deadline it ran past. */
async function runWithinDeadline(task: EvalTask, sample: Sample, options: GenerateOptions): Promise<unknown> {
  const controller = new AbortController()
  const stop = () => controller.abort(options.signal?.reason)
  if (options.signal?.aborted) stop()
  else options.signal?.addEventListener('abort', stop, { once: true })
  const context: TaskContext = { signal: controller.signal }
  if (options.deadline !== undefined) context.deadline = options.deadline
  let timer: NodeJS.Timeout | undefined
  try {
    const running = Promise.resolve().then(() => task(taskSample(sample), context))
    if (options.deadline === undefined) return await running
    const left = Math.max(0, options.deadline - Date.now())
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new Error(`the task did not answer within its deadline (${Math.round(left)} ms, the sample's test timeout less a margin): it was aborted`)
        controller.abort(error)
        reject(Object.assign(error, { reason: 'the task ran past its deadline' }))
      }, left)
    })
    // A task that ignores its signal still loses the race; its late answer is dropped.
    running.catch(() => {})
    return await Promise.race([running, late])
  } catch (err) {
    throw taskError(err)
  } finally {
    if (timer) clearTimeout(timer)
    options.signal?.removeEventListener('abort', stop)
  }
}

/**
 * The sample as the task gets it: its own object and lists, so a task that extends the conversation in place
 * (`sample.messages.push(...)`, as an agent loop does) cannot change what is scored and stored. A shallow copy: a
 * deep one would cost more than the rest of a replayed sample's run (BENCHMARKS.md, "describeEval's task").
 */
function taskSample(sample: Sample): Sample {
  const copy: Sample = { ...sample, messages: [...sample.messages], expected: [...sample.expected] }
  if (sample.tools !== undefined) copy.tools = [...sample.tools]
  return copy
}

/** A task's throw as the sample's error: an Error as it is (its message is the reason), anything else as text. */
function taskError(err: unknown): Error {
  if (err instanceof TaskShapeError) return err
  try {
    if (err instanceof Error) {
      if ((err as Error & { reason?: unknown }).reason !== undefined) return err
      return Object.assign(new Error(`the task threw: ${err.message}`), { reason: `the task threw: ${err.message}` })
    }
  } catch {
    // a Proxy that traps the prototype lookup: fall through to its text
  }
  const text = thrownMessage(err)
  return Object.assign(new Error(`the task threw: ${text}`), { reason: `the task threw: ${text}` })
}

/** A task's answer as a ModelOutput; a shape it does not know throws TaskShapeError. */
export function taskOutput(value: unknown): ModelOutput {
  if (typeof value === 'string') return { text: value }
  if (Array.isArray(value)) return { calls: taskCalls(value, 'a list') }
  if (!isPlainObject(value)) throw new TaskShapeError(describe(value))
  let output: ModelOutput
  if (Array.isArray(value['steps'])) output = trajectoryOutput(value)
  else if ('tool_calls' in value || value['role'] === 'assistant' || ('content' in value && !('text' in value))) output = messageOutput(value)
  else if ('text' in value || 'calls' in value) output = textOutput(value)
  else throw new TaskShapeError(`an object with keys ${Object.keys(value).slice(0, 8).join(', ') || '(none)'}`)
  const usage = taskUsage(value['usage'])
  if (usage) output.usage = usage
  return output
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (value === undefined) return 'nothing (undefined)'
  return `a ${typeof value}`
}

/** Calls given as `{ name, arguments }` (or OpenAI's `{ function: { name, arguments } }`); each must have a name. */
function taskCalls(value: unknown, where: string): ToolCall[] {
  if (!Array.isArray(value)) throw new TaskShapeError(`${where} of calls that is not an array`)
  for (const [i, c] of value.entries()) {
    const fn = isPlainObject(c) && isPlainObject(c['function']) ? c['function'] : c
    if (!isPlainObject(fn) || typeof fn['name'] !== 'string' || fn['name'] === '') {
      throw new TaskShapeError(`${where} whose call [${i}] has no \`name\` string`)
    }
    const args = fn['arguments']
    if (args !== undefined && args !== null && typeof args !== 'string' && !isPlainObject(args)) {
      throw new TaskShapeError(`${where} whose call [${i}] (${fn['name']}) has \`arguments\` that are neither an object nor JSON text`)
    }
  }
  const calls = callsFromOpenAI(value)
  if (typeof calls === 'string') throw new TaskShapeError(`${where} of calls: ${calls}`)
  return calls
}

function messageOutput(message: Record<string, unknown>): ModelOutput {
  const content = messageText(message['content'])
  const output: ModelOutput = {}
  if (content !== undefined) output.text = content
  const toolCalls = message['tool_calls']
  if (toolCalls !== undefined && toolCalls !== null) {
    const calls = taskCalls(toolCalls, 'an assistant message with `tool_calls`')
    // An empty list is no call (as OpenAI's `tool_calls: []`); the text is then the answer.
    if (calls.length > 0) output.calls = calls
  }
  if (output.text === undefined && output.calls === undefined) output.text = ''
  return output
}

/** A message's content: text, or the text of its parts (`[{ type: 'text', text }]`, as some servers send it). */
function messageText(content: unknown): string | undefined {
  if (content === undefined || content === null) return undefined
  if (typeof content === 'string') return content
  if (Array.isArray(content) && content.every((p) => isPlainObject(p) && (p['type'] !== 'text' || typeof p['text'] === 'string'))) {
    return content.map((p) => ((p as Record<string, unknown>)['type'] === 'text' ? ((p as Record<string, unknown>)['text'] as string) : '')).join('')
  }
  throw new TaskShapeError('an assistant message whose `content` is neither text nor a list of text parts')
}

function textOutput(value: Record<string, unknown>): ModelOutput {
  const output: ModelOutput = {}
  if (value['text'] !== undefined) {
    if (typeof value['text'] !== 'string') throw new TaskShapeError('`text` that is not a string')
    output.text = value['text']
  }
  if (value['calls'] !== undefined) output.calls = taskCalls(value['calls'], '`calls`')
  if (value['format'] !== undefined) {
    if (typeof value['format'] !== 'string') throw new TaskShapeError('`format` that is not a string')
    output.format = value['format']
  }
  return output
}

function trajectoryOutput(value: Record<string, unknown>): ModelOutput {
  const rawSteps = value['steps'] as unknown[]
  const steps: TrajectoryStep[] = []
  let toolErrors = 0
  for (const [n, s] of rawSteps.entries()) {
    const where = `a trajectory whose step [${n}]`
    if (!isPlainObject(s)) throw new TaskShapeError(`${where} is not an object`)
    const turn = s['turn'] ?? 0
    if (typeof turn !== 'number' || !Number.isInteger(turn) || turn < 0) throw new TaskShapeError(`${where} has a \`turn\` that is not an index`)
    const calls = s['calls'] === undefined ? [] : taskCalls(s['calls'], `${where}'s \`calls\``)
    const rawResults = s['results'] ?? []
    if (!Array.isArray(rawResults)) throw new TaskShapeError(`${where} has \`results\` that are not a list`)
    if (rawResults.length > calls.length) throw new TaskShapeError(`${where} has more results (${rawResults.length}) than calls (${calls.length})`)
    const results: ToolOutcome[] = rawResults.map((r, i) => {
      if (!isPlainObject(r)) throw new TaskShapeError(`${where} has a result [${i}] that is not an object`)
      const call = calls[i] as ToolCall
      const id = typeof r['id'] === 'string' ? r['id'] : (call.id ?? `call_${n + 1}_${i}`)
      const name = typeof r['name'] === 'string' ? r['name'] : call.name
      if (r['error'] !== undefined) {
        toolErrors++
        const error = typeof r['error'] === 'string' ? r['error'] : thrownMessage(r['error'])
        return { id, name, content: typeof r['content'] === 'string' ? r['content'] : `Error during execution: ${error}`, error }
      }
      const outcome: ToolOutcome = { id, name, content: typeof r['content'] === 'string' ? r['content'] : contentOf(r['value']) }
      if ('value' in r) outcome.value = r['value']
      return outcome
    })
    const step: TrajectoryStep = { turn, calls, results }
    if (s['text'] !== undefined) {
      if (typeof s['text'] !== 'string') throw new TaskShapeError(`${where} has \`text\` that is not a string`)
      step.text = s['text']
    }
    steps.push(step)
  }
  const trajectory: Trajectory = {
    steps,
    turns: steps.reduce((t, s) => Math.max(t, s.turn + 1), steps.length > 0 ? 1 : 0),
    stepLimitHit: value['stepLimitHit'] === true,
    toolErrors,
    messages: [],
  }
  const answer = value['answer'] ?? lastAnswer(steps)
  if (answer !== undefined) {
    if (typeof answer !== 'string') throw new TaskShapeError('a trajectory whose `answer` is not a string')
    trajectory.answer = answer
  }
  const output: ModelOutput = { calls: trajectoryCalls(trajectory), trajectory }
  if (trajectory.answer !== undefined) output.text = trajectory.answer
  return output
}

function lastAnswer(steps: readonly TrajectoryStep[]): string | undefined {
  const last = steps[steps.length - 1]
  return last && last.calls.length === 0 ? last.text : undefined
}

function contentOf(value: unknown): string {
  if (typeof value === 'string') return value
  try {
    return JSON.stringify(value) ?? ''
  } catch {
    return thrownMessage(value)
  }
}

/**
 * A value given where an amount belongs, for an error message: a scalar as written (a string cut at 40 characters),
 * anything else by its kind only. An object there may be a whole response, headers and keys included: never printed.
 */
export function badAmount(v: unknown): string {
  if (typeof v === 'string') return printable(JSON.stringify(v.length <= 40 ? v : `${v.slice(0, 40)}…`))
  if (typeof v === 'number' || typeof v === 'boolean' || v === null || v === undefined) return String(v)
  return Array.isArray(v) ? 'a list' : `a value of type ${typeof v}`
}

const TASK_USAGE_KEYS: readonly string[] = ['promptTokens', 'completionTokens', 'requests', 'latencyMs', 'latenciesMs', 'costUsd']

/** A task's usage, each count checked (a bad one is a shape error: a wrong number must not reach the report). */
export function taskUsage(value: unknown): ModelOutput['usage'] | undefined {
  if (value === undefined || value === null) return undefined
  if (!isPlainObject(value)) throw new TaskShapeError('`usage` that is not an object')
  const usage: NonNullable<ModelOutput['usage']> = {}
  for (const key of ['promptTokens', 'completionTokens', 'latencyMs', 'requests', 'costUsd'] as const) {
    if (value[key] === undefined) continue
    const v = usageAmount(value[key])
    if (v === undefined || (key === 'requests' && (!Number.isInteger(v) || v < 1))) {
      throw new TaskShapeError(`\`usage.${key}\` that is not a ${key === 'requests' ? 'positive integer' : 'number >= 0'} (${badAmount(value[key])})`)
    }
    usage[key] = v
  }
  const each = value['latenciesMs']
  if (each !== undefined) {
    if (!Array.isArray(each) || !each.every((v) => usageAmount(v) !== undefined)) {
      throw new TaskShapeError('`usage.latenciesMs` that is not a list of numbers >= 0')
    }
    usage.latenciesMs = each as number[]
    if (usage.requests === undefined) usage.requests = each.length
    else if (usage.requests !== each.length) throw new TaskShapeError(`\`usage.latenciesMs\` of ${each.length} generations but \`usage.requests\` ${usage.requests}`)
    if (usage.latencyMs === undefined) usage.latencyMs = (each as number[]).reduce((a, b) => a + b, 0)
  }
  for (const key of Object.keys(value)) {
    if (!TASK_USAGE_KEYS.includes(key)) {
      const near = closest(key, TASK_USAGE_KEYS)
      throw new TaskShapeError(`\`usage.${key}\`, which is not a usage field (${TASK_USAGE_KEYS.join(', ')})${near === undefined ? '' : `; did you mean \`${near}\`?`}`)
    }
  }
  return Object.keys(usage).length > 0 ? usage : undefined
}
