import type { ProviderCall, ToolCall } from '../calls/types.js'

export type { ProviderCall }
import type { Sample } from '../data/types.js'
import type { Trajectory } from '../score/trajectory.js'

/** What a model produced for one sample. */
export interface ModelOutput {
  /** Raw generated text; parsed with `parseToolCalls` unless `calls` is given. */
  text?: string
  /**
   * Calls the provider already has in structured form (OpenAI `tool_calls`, replayed `tool_calls`): scored as they
   * are, never parsed. Each needs `name` and `arguments`; `format` defaults to the output's `format`, else
   * `'structured'`, and `argumentsValid` to whether `arguments` is an object.
   */
  calls?: ProviderCall[]
  /** Wire-format hint for the parser (the chat template's format), when the provider knows it. */
  format?: string
  /** Set when the provider skipped the sample by policy (e.g. its prompt is over `maxPromptTokens`): the reason. */
  skipped?: string
  /**
   * What the generation used, as the transport reports it: tokens, and wall time in ms (`latencyMs`: the request or
   * generation as a whole; `firstTokenMs`: until the first token, where the transport streams). Recorded per sample.
   * `retries`: failed attempts retried before the answer (a provider that retries: `openaiCompatible`).
   * `requests`: the generations behind this output (an agent loop's steps; absent: 1), tokens and `latencyMs` summed
   * over them, `latenciesMs` each one's (percentiles are over requests: without it, a sum over several is no latency).
   * `costUsd`: what those generations cost in USD as the provider billed them (over every one of them; it wins over
   * the reporter's `pricing` for this sample); absent: unknown, priced from the tokens where `pricing` has a price.
   */
  usage?: {
    promptTokens?: number
    completionTokens?: number
    latencyMs?: number
    firstTokenMs?: number
    retries?: number
    requests?: number
    latenciesMs?: number[]
    costUsd?: number
  }
  /** Set by `cached()` when the output came from the cache (no model ran: left out of latency and cost). */
  cached?: true
  /**
   * Set by `replay()`: a recorded answer, no model ran now. Without `usage` it has no usage record (a fresh output
   * without `usage` has one that says its usage is unknown).
   */
  replayed?: true
  /**
   * Generations of this output answered from the run journal of an interrupted run (describeEval's resume): 1 for a
   * plain generation, the steps so answered for an agent run. Absent: none.
   */
  resumed?: number
  /** Set by `cached()` when the sample's cache entry existed but was unusable and was generated again: why. */
  cacheRegenerated?: string
  /**
   * The reply's message object as the server sent it (`openaiCompatible` with `wire: 'bfcl'`): the agent loop
   * appends it to the conversation verbatim, as BFCL's handler appends the OpenAI SDK's message.
   */
  message?: Record<string, unknown>
  /** The agent loop's run of the sample (describeEval with `tools` or `environment`): every step, call and result. */
  trajectory?: Trajectory
}

/** The format name of structured calls whose provider named none. */
export const STRUCTURED_FORMAT = 'structured'

/**
 * A provider's calls as ToolCalls: `format` from the output (else `structured`), `argumentsValid` from the arguments'
 * shape where the provider left them out (arguments that are no object are `{}` and invalid, never a valid call).
 * The same list when nothing was left out.
 */
export function completeCalls(calls: readonly ProviderCall[], format: string | undefined): ToolCall[] {
  if (calls.every((c) => c.format !== undefined && c.argumentsValid !== undefined)) return calls as ToolCall[]
  return calls.map((c) => {
    if (c.format !== undefined && c.argumentsValid !== undefined) return c as ToolCall
    const args: unknown = c.arguments
    const isObject = typeof args === 'object' && args !== null && !Array.isArray(args)
    const call: ToolCall = { ...c, arguments: isObject ? (args as Record<string, unknown>) : {}, format: c.format ?? format ?? STRUCTURED_FORMAT, argumentsValid: c.argumentsValid ?? isObject }
    if (!isObject && c.argumentsValid === undefined) call.argumentsError = 'the provider gave arguments that are not an object'
    return call
  })
}

/** What a caller tells `generate`: when to stop (`signal`), and by when a retrying provider must have given up. */
export interface GenerateOptions {
  signal?: AbortSignal
  /**
   * `Date.now()` time by which the generation must end (describeEval: within the sample's test timeout). A provider
   * that retries makes no retry that would end after it, and fails with its last real error instead of running into
   * the test's timeout. Absent: no limit but the provider's own.
   */
  deadline?: number
}

/** A provider error may say how many times it retried before giving up (counted in the report). */
export function retriesOf(error: unknown): number | undefined {
  const n = (error as { retries?: unknown } | null)?.retries
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : undefined
}

/**
 * A model behind any transport: local transformers.js, an OpenAI-compatible endpoint, recorded outputs. A thrown
 * error makes the sample errored (with the error's message as the reason); it never stops the run.
 */
export interface ModelProvider {
  /** Stable identity, part of cache keys and shown in reports. Must never contain a secret. */
  readonly id: string
  /**
   * Settings that change what the model outputs (decoding, template, dtype): part of generation cache keys together
   * with `id`. Must never contain a secret.
   */
  readonly settings?: Readonly<Record<string, unknown>>
  /**
   * How many `generate` calls the provider can usefully have in flight at once (the endpoint's concurrency, the
   * local model's batch size). A hint for callers; providers bound their own concurrency regardless.
   */
  readonly concurrency?: number
  /**
   * Its generations cost money or time (an endpoint, a local model): describeEval journals each as it arrives, so the
   * rerun of an interrupted run resumes from them (describeEval's `resume`). Wrappers that keep every output
   * themselves (`cached`, `record`) do not forward it.
   */
  readonly resumable?: boolean
  /**
   * The longest one generation takes when the model works as configured: every attempt, the back-off between them
   * and, for a local model, loading. describeEval's default test timeout is derived from it (see
   * `defaultSampleTimeout`); absent: Vitest's `testTimeout`. Wrappers forward it.
   */
  readonly generationTimeoutMs?: number
  generate(sample: Sample, options?: GenerateOptions): Promise<ModelOutput>
  /** Local files the provider reads its outputs from (a replay recording): watch mode reruns the eval on an edit. */
  readonly inputFiles?: readonly string[]
  /** Release resources (sessions, sockets) at the end of a run. */
  close?(): Promise<void>
}
