/**
 * The agent loop: a sample run as a conversation. The model's calls are executed by the eval's tools (plain
 * functions, or an environment object with state), their results go back as tool messages (an assistant message
 * with `tool_calls`, then one `tool` message per call with its `tool_call_id`, OpenAI style), and the loop goes on
 * until the model answers without a call or a turn reaches `maxSteps`. A sample with several user turns (`turns`)
 * runs them one after the other in the same conversation.
 *
 * A tool that throws (or an unknown tool, or malformed arguments) is a tool error: its message goes back to the
 * model as the call's result, `Error during execution: ...` as BFCL words it, and the run goes on. A
 * `ToolRuntimeError` (the tools' runtime failed, not a tool) ends the run instead: the sample is errored.
 */
import { thrownMessage } from '../calls/thrown.js'
import type { ToolCall, ToolDefinition } from '../calls/types.js'
import type { ChatMessage, Sample } from '../data/types.js'
import { retriesOf, type GenerateOptions, type ModelOutput, type ModelProvider } from '../models/types.js'
import { outputCalls } from './scorers.js'
import type { McpTools } from './mcp/tools.js'
import { ToolRuntimeError, unknownToolMessage, type AgentEnvironment, type EnvironmentFactory, type ToolContext, type ToolFunction } from './environment.js'
import { trajectoryCalls, type ToolOutcome, type Trajectory, type TrajectoryStep } from '../score/trajectory.js'
import { usageAmount } from '../score/usage.js'

// The shapes an environment is made of live in environment.ts, which the MCP environment stands on too.
export { ToolRuntimeError, unknownToolMessage, type AgentEnvironment, type EnvironmentFactory, type ToolContext, type ToolFunction } from './environment.js'

/** describeEval's agent options: giving `tools` or `environment` runs each sample through the agent loop. */
export interface AgentOptions {
  /**
   * Tools as functions by name: `{ get_weather: async ({ city }) => ({ temp: 21 }) }`; or an MCP server's tools,
   * `mcpTools({ command, args })` (they replace the samples' tools; see README, "Tools from MCP servers").
   */
  tools?: Record<string, ToolFunction> | McpTools
  /** A fresh environment per sample (e.g. `bfclEnvironment('GorillaFileSystem')`), instead of `tools`. */
  environment?: EnvironmentFactory
  /** Model generations per user turn, at most (default 10). A turn that reaches it ends the run: `stepLimitHit`. */
  maxSteps?: number
}

export const DEFAULT_MAX_STEPS = 10

/** The agent options of an eval, checked; undefined when the eval is not an agent eval. */
export function agentOptionsOf(options: AgentOptions, where: string): Required<Pick<AgentOptions, 'maxSteps'>> & AgentOptions | undefined {
  const { tools, environment, maxSteps } = options
  if (tools === undefined && environment === undefined) {
    if (maxSteps !== undefined) throw new Error(`${where}: \`maxSteps\` needs \`tools\` or \`environment\` to run the agent loop`)
    return undefined
  }
  if (tools !== undefined && environment !== undefined) throw new Error(`${where}: give \`tools\` or \`environment\`, not both`)
  if (tools !== undefined) {
    if (typeof tools !== 'object' || tools === null || Array.isArray(tools)) throw new Error(`${where}: \`tools\` must be an object of functions by tool name`)
    for (const [name, fn] of Object.entries(tools)) {
      if (typeof fn !== 'function') throw new Error(`${where}: \`tools.${name}\` must be a function`)
    }
  }
  if (environment !== undefined && typeof environment !== 'function') {
    throw new Error(`${where}: \`environment\` must be a function that makes a fresh environment per sample`)
  }
  const steps = maxSteps ?? DEFAULT_MAX_STEPS
  if (!Number.isInteger(steps) || steps < 1) throw new Error(`${where}: \`maxSteps\` must be a positive integer (got ${String(maxSteps)})`)
  return { ...options, maxSteps: steps }
}

/** An environment of plain functions (stateless, or with state in their closures). */
export function functionsEnvironment(tools: Record<string, ToolFunction>): AgentEnvironment {
  return {
    call(name, args, context) {
      const fn = Object.hasOwn(tools, name) ? tools[name] : undefined
      if (fn === undefined) throw new Error(unknownToolMessage(name, Object.keys(tools)))
      return fn(args, context)
    },
  }
}

/** The message content of a tool's value: a string as is, anything else as JSON. */
export function toolContent(value: unknown): string {
  if (typeof value === 'string') return value
  if (value === undefined) return ''
  try {
    return JSON.stringify(value) ?? thrownMessage(value)
  } catch {
    // A value JSON refuses (a cycle, a throwing toJSON) is still shown, as its text.
    return thrownMessage(value)
  }
}

/** Never throws: a tool may throw anything, even an object whose `toString` throws. */
const errorMessage = thrownMessage

/** `instanceof` that never throws: a thrown Proxy may trap even the prototype lookup. */
function isToolRuntimeError(err: unknown): boolean {
  try {
    return err instanceof ToolRuntimeError
  } catch {
    return false
  }
}

async function runCall(env: AgentEnvironment, call: ToolCall, id: string, context: ToolContext): Promise<ToolOutcome> {
  const failed = (error: string): ToolOutcome => ({ id, name: call.name, content: `Error during execution: ${error}`, error })
  if (!call.argumentsValid) return failed(`the arguments of ${call.name || 'the call'} are not a well-formed object`)
  try {
    const value = await env.call(call.name, call.arguments, context)
    return { id, name: call.name, content: toolContent(value), value }
  } catch (err) {
    if (isToolRuntimeError(err)) throw err
    return failed(errorMessage(err))
  }
}

function assistantMessage(calls: readonly ToolCall[], ids: readonly string[]): ChatMessage {
  return {
    role: 'assistant',
    content: null,
    tool_calls: calls.map((c, i) => ({
      id: ids[i] as string,
      type: 'function',
      // Malformed arguments go back as the model wrote them (its raw text), well-formed ones as an object.
      function: { name: c.name, arguments: c.argumentsValid ? c.arguments : (c.raw ?? '{}') },
    })),
  }
}

/** A step's sample: the conversation so far, the tools on offer; the id keeps the step apart (caches, logs). */
function stepSample(sample: Sample, messages: ChatMessage[], tools: ToolDefinition[] | undefined): Sample {
  const s: Sample = { ...sample, messages: [...messages] }
  if (tools !== undefined) s.tools = tools
  else delete s.tools
  return s
}

/** The user turns of a sample: its messages, then each of its `turns`. */
function turnsOf(sample: Sample): ChatMessage[][] {
  return [sample.messages, ...(sample.turns ?? [])]
}

export interface AgentRun {
  trajectory: Trajectory
  usage?: ModelOutput['usage']
  /** Steps answered from the run journal of an interrupted run. */
  resumed?: number
  /** No step ran a model now: every one was a cache hit (`cached`), or some were replayed (`replayed`). */
  cached?: true
  replayed?: true
}

/** Run one sample through the agent loop. A provider error ends the run with an error naming the step. */
export async function runAgent(
  model: ModelProvider,
  sample: Sample,
  env: AgentEnvironment,
  options: { maxSteps: number; format?: string | undefined; signal?: AbortSignal | undefined; deadline?: number | undefined },
): Promise<AgentRun> {
  let tools = env.tools ?? sample.tools
  const messages: ChatMessage[] = []
  const steps: TrajectoryStep[] = []
  const trajectory: Trajectory = { steps, turns: 0, stepLimitHit: false, toolErrors: 0, messages }
  const usage = new StepUsage()
  let resumed = 0
  turns: for (const [turn, turnMessages] of turnsOf(sample).entries()) {
    messages.push(...turnMessages)
    trajectory.turns = turn + 1
    const added = env.addedTools?.(turn)
    if (added && added.length > 0) tools = [...(tools ?? []), ...added]
    for (let k = 1; k <= options.maxSteps; k++) {
      const n = steps.length + 1
      const request = stepSample(sample, messages, tools)
      let output: ModelOutput
      try {
        // Every step shares the sample's deadline: the whole run must end within its test timeout.
        output = await model.generate(request, stepOptions(options))
      } catch (err) {
        throw stepError(err, n, turn)
      }
      if (output.resumed) resumed += output.resumed
      if (output.skipped !== undefined) throw stepError(new Error(`the provider skipped the step: ${output.skipped}`), n, turn)
      usage.add(output)
      const calls = outputCalls(output, request, options.format)
      const step: TrajectoryStep = { turn, calls, results: [] }
      if (output.text !== undefined) step.text = output.text
      steps.push(step)
      // BFCL's protocol (a provider that returns the reply's message): that message goes back verbatim, and tool
      // results carry only their call's id, as BFCL's handler appends them.
      const echo = output.message as ChatMessage | undefined
      if (calls.length === 0) {
        messages.push(echo ?? { role: 'assistant', content: output.text ?? '' })
        if (output.text !== undefined) trajectory.answer = output.text
        continue turns
      }
      const ids = calls.map((c, i) => c.id ?? `call_${n}_${i}`)
      messages.push(echo ?? assistantMessage(calls, ids))
      // BFCL decodes every call's arguments before running any: one that is not JSON ends the turn, nothing run.
      if (echo && calls.some((c) => !c.argumentsValid)) continue turns
      // In call order, one at a time: a stateful environment sees the calls as the model listed them.
      for (const [i, call] of calls.entries()) {
        let outcome: ToolOutcome
        try {
          outcome = await runCall(env, call, ids[i] as string, { sample, call, step: n })
        } catch (err) {
          throw stepError(err, n, turn)
        }
        if (outcome.error !== undefined) trajectory.toolErrors++
        step.results.push(outcome)
        messages.push(echo ? { role: 'tool', content: outcome.content, tool_call_id: outcome.id } : { role: 'tool', tool_call_id: outcome.id, name: outcome.name, content: outcome.content })
      }
    }
    // The turn used every step and the model still called tools: the run stops, as BFCL force-terminates.
    trajectory.stepLimitHit = true
    break
  }
  if (env.state) trajectory.state = env.state()
  const run: AgentRun = { trajectory }
  if (resumed > 0) run.resumed = resumed
  const total = usage.total()
  if (total) run.usage = total
  const noModel = usage.noModelRan()
  if (noModel) run[noModel] = true
  return run
}

/**
 * The usage of an agent run: every generation counted (`requests`), its tokens, cost and latency summed, each latency
 * kept (percentiles are over requests). A count some step did not report is left out rather than summed short (a
 * step that reported nothing leaves every one out); a step answered by `cached()` or `replay()` ran no model and is
 * in none of them.
 */
export class StepUsage {
  private requests = 0
  private cachedSteps = 0
  private replayedSteps = 0
  private promptTokens: number | undefined = 0
  private completionTokens: number | undefined = 0
  private costUsd: number | undefined = 0
  private latencies: number[] | undefined = []
  private retries = 0
  private reported = false

  add(output: ModelOutput): void {
    if (output.usage?.retries) this.retries += output.usage.retries
    if (output.cached || output.replayed) {
      if (output.cached) this.cachedSteps++
      else this.replayedSteps++
      return
    }
    const u = output.usage
    const n = u?.requests ?? 1
    this.requests += n
    if (u && (u.promptTokens !== undefined || u.completionTokens !== undefined || u.latencyMs !== undefined || u.costUsd !== undefined)) this.reported = true
    this.promptTokens = addAmount(this.promptTokens, u?.promptTokens)
    this.completionTokens = addAmount(this.completionTokens, u?.completionTokens)
    this.costUsd = addAmount(this.costUsd, u?.costUsd)
    const each = u?.latenciesMs ?? (u?.latencyMs !== undefined && n === 1 ? [u.latencyMs] : undefined)
    this.latencies = each === undefined || this.latencies === undefined ? undefined : [...this.latencies, ...each]
  }

  /**
   * The run's usage: its fresh generations (`requests`) and what they reported; undefined when none ran a model and
   * none retried. Steps that reported nothing give only `requests`: their usage is unknown, never zero.
   */
  total(): AgentRun['usage'] {
    if (this.requests === 0 && this.retries === 0) return undefined
    const out: NonNullable<AgentRun['usage']> = {}
    if (this.requests > 0) out.requests = this.requests
    if (this.reported) {
      if (this.promptTokens !== undefined) out.promptTokens = this.promptTokens
      if (this.completionTokens !== undefined) out.completionTokens = this.completionTokens
      if (this.costUsd !== undefined && this.requests > 0) out.costUsd = this.costUsd
      if (this.latencies !== undefined && this.latencies.length === this.requests && this.requests > 0) {
        out.latenciesMs = this.latencies
        out.latencyMs = this.latencies.reduce((a, b) => a + b, 0)
      }
    }
    if (this.retries > 0) out.retries = this.retries
    return out
  }

  /** Whether no step ran a model now: `cached` when every step was a cache hit, `replayed` when some were replayed. */
  noModelRan(): 'cached' | 'replayed' | undefined {
    if (this.requests > 0 || this.cachedSteps + this.replayedSteps === 0) return undefined
    return this.replayedSteps > 0 ? 'replayed' : 'cached'
  }
}

/**
 * A running sum plus one step's amount; unknown once a step gives none or one that is no amount (NaN, negative,
 * Infinity): a provider's -0.5 beside 1.0 must not sum to a plausible 0.5 (usageRecord would keep it as billed).
 */
function addAmount(sum: number | undefined, v: number | undefined): number | undefined {
  const amount = usageAmount(v)
  return sum === undefined || amount === undefined ? undefined : sum + amount
}

function stepOptions(options: { signal?: AbortSignal | undefined; deadline?: number | undefined }): GenerateOptions {
  const out: GenerateOptions = {}
  if (options.signal) out.signal = options.signal
  if (options.deadline !== undefined) out.deadline = options.deadline
  return out
}

function stepError(err: unknown, step: number, turn: number): Error {
  const out = new Error(`agent step ${step} (turn ${turn + 1}): ${errorMessage(err)}`)
  // The provider's short reason (for grouping errors in the report) stays the reason.
  const reason = providerReason(err)
  ;(out as Error & { reason?: unknown }).reason = typeof reason === 'string' ? reason : errorMessage(err)
  const retries = retriesOf(err)
  return retries === undefined ? out : Object.assign(out, { retries })
}

function providerReason(err: unknown): unknown {
  try {
    return err instanceof Error ? (err as Error & { reason?: unknown }).reason : undefined
  } catch {
    return undefined // a getter that throws gives no reason
  }
}

/**
 * `model` run through the agent loop: its `generate` runs a whole sample and returns every call of the run (for the
 * NeMo metrics against `expected`), the last answer as text, and the trajectory.
 */
export function agentProvider(model: ModelProvider, options: AgentOptions & { maxSteps: number }, format: string | undefined): ModelProvider {
  // MCP tools reach here as an environment (describeEval turns them into one); `tools` is then functions only.
  const environment: EnvironmentFactory = options.environment ?? (() => functionsEnvironment((options.tools ?? {}) as Record<string, ToolFunction>))
  const wrapped: ModelProvider = {
    id: model.id,
    async generate(sample, opts): Promise<ModelOutput> {
      const env = await environment(sample)
      const run = await runAgent(model, sample, env, { maxSteps: options.maxSteps, format, signal: opts?.signal, deadline: opts?.deadline })
      const output: ModelOutput = { calls: trajectoryCalls(run.trajectory), trajectory: run.trajectory }
      if (run.trajectory.answer !== undefined) output.text = run.trajectory.answer
      if (run.usage) output.usage = run.usage
      if (run.resumed) output.resumed = run.resumed
      if (run.cached) output.cached = true
      if (run.replayed) output.replayed = true
      return output
    },
  }
  if (model.settings !== undefined) Object.assign(wrapped, { settings: model.settings })
  if (model.concurrency !== undefined) Object.assign(wrapped, { concurrency: model.concurrency })
  if (model.inputFiles !== undefined) Object.assign(wrapped, { inputFiles: model.inputFiles })
  if (model.generationTimeoutMs !== undefined) Object.assign(wrapped, { generationTimeoutMs: model.generationTimeoutMs })
  return wrapped
}
