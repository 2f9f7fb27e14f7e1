/**
 * The Vercel AI SDK (`ai`, v7) as describeEval `task`s. `ai` is an optional peer: it is imported on first use only, so
 * the rest of the package never needs it. Two ways in:
 *
 *   task: aiSdkTask({ model })                          // one generation: the sample's tools, as schemas only
 *   task: aiSdkTask({ model, tools, stopWhen })         // your tools with `execute`: the SDK's own multi-step loop
 *   task: async (sample) => fromGenerateText(await myRoute(sample.messages))   // your own generateText wrapper
 *
 * What the SDK gives is read from its own fields: each step's `toolCalls` (`toolName`, `input`), the content parts
 * that hold the tools' results and errors, `usage` (`inputTokens`, `outputTokens`) and `performance.responseTimeMs`,
 * so every generation of a loop is counted (requests, tokens, latency). The SDK reports no cost: where a provider puts
 * one in a step's `providerMetadata`, `stepCostUsd` reads it, and the steps' costs are summed like their tokens.
 */
import type { LanguageModel, ModelMessage, StopCondition, ToolSet } from 'ai'
import { checkOptionKeys, type OptionKeys } from '../calls/options.js'
import { isPlainObject } from '../calls/call-object.js'
import type { ChatMessage } from '../calls/types.js'
import type { Sample } from '../data/types.js'
import { usageAmount } from '../score/usage.js'
import { badAmount, type EvalTask, type TaskCall, type TaskOutput, type TaskStep, type TaskText, type TaskTrajectory, type TaskUsage } from './task.js'

export interface AiSdkTaskOptions {
  /** Any AI SDK language model: `createOpenAICompatible(...)('model')`, `openai('gpt-4o')`, a gateway id. */
  model: LanguageModel
  /**
   * Your tools with `execute`: the SDK runs its multi-step loop (`stopWhen`) and the run is scored as a trajectory.
   * Absent: the sample's tools are offered as schemas without `execute`, and the one generation's calls are scored.
   */
  tools?: ToolSet
  /** When the loop stops (default with `tools`: `stepCountIs(10)`; without: one step). */
  stopWhen?: StopCondition<ToolSet> | StopCondition<ToolSet>[]
  /** Your system prompt (the SDK's `instructions`); a sample's own system messages are kept too. */
  instructions?: string
  /** Further `generateText` settings (`temperature`, `maxOutputTokens`, `providerOptions`, ...). */
  settings?: Record<string, unknown>
  /** What a step cost in USD, where your provider reports it (see `FromGenerateTextOptions.stepCostUsd`). */
  stepCostUsd?: StepCost
}

/**
 * A step's cost in USD, read from where your provider puts it (e.g. `step.providerMetadata?.openrouter?.usage?.cost`
 * with OpenRouter's usage accounting, or a gateway's `usage.cost` in the raw `step.response?.body`, which the SDK keeps
 * with `include: { responseBody: true }`); undefined where the step has none.
 */
export type StepCost = (step: GenerateTextStep) => number | undefined

export interface FromGenerateTextOptions {
  /** Score the run as a trajectory even when it is one step without executed tools (an agent that answered at once). */
  trajectory?: boolean
  /**
   * Each step's cost in USD: summed over the steps into the task's `usage.costUsd`. A step it gives none for leaves
   * the sample's cost unknown (then priced from its tokens where the reporter's `pricing` has a price), never summed
   * short; a value that is no amount (not a finite number >= 0) is the sample's error.
   */
  stepCostUsd?: StepCost
}

const TASK_OPTION_KEYS: OptionKeys<AiSdkTaskOptions> = { model: true, tools: true, stopWhen: true, instructions: true, settings: true, stepCostUsd: true }
const DEFAULT_AGENT_STEPS = 10

type AiModule = typeof import('ai')
let loading: Promise<AiModule> | undefined

/** `ai`, loaded once, with an error that says what to install. */
function loadAi(): Promise<AiModule> {
  loading ??= import('ai').catch((err: unknown) => {
    loading = undefined
    throw new Error(`vitest-tool-evals/ai-sdk needs the \`ai\` package (v7): npm install ai (${err instanceof Error ? err.message : String(err)})`)
  })
  return loading
}

/** A describeEval `task` that runs a sample through the AI SDK's `generateText`. */
export function aiSdkTask(options: AiSdkTaskOptions): EvalTask {
  checkOptionKeys(options, Object.keys(TASK_OPTION_KEYS), 'aiSdkTask')
  if (options.model === undefined || options.model === null) throw new TypeError('aiSdkTask: option `model` is required (an AI SDK language model)')
  checkStepCost(options.stepCostUsd, 'aiSdkTask')
  const task: EvalTask = async (sample, { signal }) => {
    const ai = await loadAi()
    const agent = options.tools !== undefined
    const tools = agent ? options.tools : sampleTools(ai, sample)
    const call: Record<string, unknown> = {
      ...options.settings,
      model: options.model,
      messages: modelMessages(sample.messages),
      allowSystemInMessages: true,
      abortSignal: signal,
      stopWhen: options.stopWhen ?? ai.stepCountIs(agent ? DEFAULT_AGENT_STEPS : 1),
    }
    if (tools !== undefined) call['tools'] = tools
    if (options.instructions !== undefined) call['instructions'] = options.instructions
    const result = await ai.generateText(call as Parameters<AiModule['generateText']>[0])
    const convert: FromGenerateTextOptions = { trajectory: agent }
    if (options.stepCostUsd !== undefined) convert.stepCostUsd = options.stepCostUsd
    return fromGenerateText(result as unknown as GenerateTextLike, convert)
  }
  return Object.assign(task, { id: `ai-sdk:${modelName(options.model)}` })
}

/** `provider:modelId` of a model object, or a gateway id as given. */
function modelName(model: LanguageModel): string {
  if (typeof model === 'string') return model
  const m = model as { provider?: unknown; modelId?: unknown }
  return [m.provider, m.modelId].filter((p) => typeof p === 'string').join(':') || 'model'
}

/** The sample's OpenAI-style tools as AI SDK tools without `execute`: the model's calls come back unexecuted. */
function sampleTools(ai: AiModule, sample: Sample): ToolSet | undefined {
  if (!sample.tools || sample.tools.length === 0) return undefined
  const tools: ToolSet = {}
  for (const t of sample.tools) {
    const schema = (t.function.parameters ?? { type: 'object', properties: {} }) as Parameters<AiModule['jsonSchema']>[0]
    const def: Record<string, unknown> = { inputSchema: ai.jsonSchema(schema) }
    if (t.function.description !== undefined) def['description'] = t.function.description
    tools[t.function.name] = ai.tool(def as Parameters<AiModule['tool']>[0]) as ToolSet[string]
  }
  return tools
}

/**
 * A sample's OpenAI-style messages as the AI SDK's: assistant `tool_calls` as `tool-call` parts, `tool` messages as
 * `tool-result` parts (named after the call they answer).
 */
export function modelMessages(messages: readonly ChatMessage[]): ModelMessage[] {
  const names = new Map<string, string>()
  return messages.map((m): unknown => {
    const text = typeof m.content === 'string' ? m.content : ''
    if (m.role === 'assistant' && m.tool_calls && m.tool_calls.length > 0) {
      const parts: unknown[] = text === '' ? [] : [{ type: 'text', text }]
      for (const [i, tc] of m.tool_calls.entries()) {
        const id = tc.id ?? `call_${i}`
        names.set(id, tc.function.name)
        parts.push({ type: 'tool-call', toolCallId: id, toolName: tc.function.name, input: argumentsValue(tc.function.arguments) })
      }
      return { role: 'assistant', content: parts }
    }
    if (m.role === 'tool') {
      const id = m.tool_call_id ?? ''
      const toolName = m.name ?? names.get(id) ?? ''
      return { role: 'tool', content: [{ type: 'tool-result', toolCallId: id, toolName, output: { type: 'text', value: text } }] }
    }
    return { role: m.role, content: text }
  }) as ModelMessage[]
}

function argumentsValue(args: string | Record<string, unknown>): unknown {
  if (typeof args !== 'string') return args
  try {
    return JSON.parse(args)
  } catch {
    return args
  }
}

/** The parts of an AI SDK `generateText` result read here (v7's `GenerateTextResult` has them). */
export interface GenerateTextLike {
  text?: string
  steps: readonly GenerateTextStep[]
}

/** The parts of one step (v7's `StepResult`) read here; `providerMetadata` for `stepCostUsd`. */
export interface GenerateTextStep {
  text?: string
  toolCalls?: readonly { toolCallId?: string; toolName: string; input: unknown }[]
  content?: readonly { type: string; toolCallId?: string; toolName?: string; output?: unknown; error?: unknown }[]
  usage?: { inputTokens?: number | undefined; outputTokens?: number | undefined }
  performance?: { responseTimeMs?: number }
  providerMetadata?: Record<string, Record<string, unknown> | undefined> | undefined
  /** The HTTP response: its raw `body` with `generateText`'s `include: { responseBody: true }` (for `stepCostUsd`). */
  response?: { body?: unknown }
}

/**
 * An AI SDK `generateText` result as a task's answer: one step without executed tools is its text and calls; a run
 * whose tools ran (or of several steps) is a trajectory, and so is every run with `{ trajectory: true }` (an agent
 * whose model answered at once is still a run of one step). Usage is every step's, each step one request.
 */
export function fromGenerateText(result: GenerateTextLike, options: FromGenerateTextOptions = {}): TaskOutput {
  const steps: readonly GenerateTextStep[] | undefined = typeof result === 'object' && result !== null && Array.isArray(result.steps) ? result.steps : undefined
  if (steps === undefined) throw new TypeError('fromGenerateText: the result has no `steps` (is it the result of generateText, awaited?)')
  checkOptionKeys(options, ['trajectory', 'stepCostUsd'], 'fromGenerateText')
  checkStepCost(options.stepCostUsd, 'fromGenerateText')
  const usage = stepsUsage(steps, options.stepCostUsd)
  const ran = steps.some((s) => (s.content ?? []).some((p) => p.type === 'tool-result' || p.type === 'tool-error'))
  if (options.trajectory !== true && steps.length === 1 && !ran) {
    const step = steps[0] as GenerateTextStep
    const calls = stepCalls(step)
    const out: TaskText = calls.length > 0 ? { calls } : { text: step.text ?? '' }
    if (calls.length > 0 && step.text) out.text = step.text
    if (usage) out.usage = usage
    return out
  }
  const trajectory: TaskTrajectory = { steps: steps.map(trajectoryStep) }
  const last = steps[steps.length - 1]
  if (last && (last.toolCalls ?? []).length === 0 && typeof last.text === 'string') trajectory.answer = last.text
  if (usage) trajectory.usage = usage
  return trajectory
}

function checkStepCost(stepCost: unknown, where: string): void {
  if (stepCost !== undefined && typeof stepCost !== 'function') throw new TypeError(`${where}: option \`stepCostUsd\` must be a function of a step giving its cost in USD`)
}

function stepCalls(step: GenerateTextStep): TaskCall[] {
  return (step.toolCalls ?? []).map((c) => {
    const call: TaskCall = { name: c.toolName, arguments: callArguments(c.input) }
    if (typeof c.toolCallId === 'string') call.id = c.toolCallId
    return call
  })
}

/** A call's input: an object as is; text (an input the SDK could not parse) as the model wrote it, scored malformed. */
function callArguments(input: unknown): Record<string, unknown> | string {
  if (isPlainObject(input)) return input
  if (typeof input === 'string') return input
  return JSON.stringify(input ?? {})
}

function trajectoryStep(step: GenerateTextStep): TaskStep {
  const calls = stepCalls(step)
  const parts = step.content ?? []
  const results: NonNullable<TaskStep['results']> = calls.map((c) => {
    const part = parts.find((p) => (p.type === 'tool-result' || p.type === 'tool-error') && p.toolCallId === c.id)
    if (!part) return { name: c.name, error: 'the tool did not run (no result in the step)' }
    if (part.type === 'tool-error') return { name: c.name, error: errorText(part.error) }
    return { name: c.name, value: part.output }
  })
  const out: TaskStep = { calls, results }
  if (step.text) out.text = step.text
  return out
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message
  return typeof error === 'string' ? error : JSON.stringify(error) ?? String(error)
}

/** Every step counted, its tokens, response time and cost; a count some step lacks is left out, not summed short. */
function stepsUsage(steps: readonly GenerateTextStep[], stepCost: StepCost | undefined): TaskUsage | undefined {
  if (steps.length === 0) return undefined
  const usage: TaskUsage = { requests: steps.length }
  const sum = (pick: (s: GenerateTextStep) => number | undefined): number | undefined => {
    let total = 0
    for (const s of steps) {
      const v = usageAmount(pick(s))
      if (v === undefined) return undefined
      total += v
    }
    return total
  }
  const prompt = sum((s) => s.usage?.inputTokens)
  const completion = sum((s) => s.usage?.outputTokens)
  if (prompt !== undefined) usage.promptTokens = prompt
  if (completion !== undefined) usage.completionTokens = completion
  if (sum((s) => s.performance?.responseTimeMs) !== undefined) usage.latenciesMs = steps.map((s) => s.performance?.responseTimeMs as number)
  if (stepCost !== undefined) {
    const costs = steps.map((s, i) => {
      const cost = stepCost(s)
      if (cost !== undefined && usageAmount(cost) === undefined) {
        throw new TypeError(`fromGenerateText: \`stepCostUsd\` gave step ${i + 1} a cost that is not a number >= 0 (${badAmount(cost)})`)
      }
      return cost
    })
    if (costs.every((c) => c !== undefined)) usage.costUsd = costs.reduce((a, b) => a + b, 0)
  }
  // Steps that reported nothing are still generations: counted in requests, their usage unknown (never zero).
  return usage
}
