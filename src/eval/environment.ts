/**
 * What the agent loop runs tools through, and what its environments share: the tool and environment shapes, the
 * error that ends a sample's run when the tools' runtime fails, and the message for a call to an unknown tool.
 * The loop (agent.ts) and the MCP environment (mcp/) both stand on this file.
 */
import { editDistance } from '../calls/options.js'
import type { ToolCall, ToolDefinition } from '../calls/types.js'
import type { Sample } from '../data/types.js'

/** A tool as a function: gets the call's decoded arguments, returns its result (any JSON value or a string). */
export type ToolFunction = (args: Record<string, unknown>, context: ToolContext) => unknown

export interface ToolContext {
  sample: Sample
  call: ToolCall
  /** 1-based index of the step in the whole run. */
  step: number
}

/**
 * Tools with state: what a run of one sample calls. `describeEval`'s `environment` makes a fresh one per sample.
 */
export interface AgentEnvironment {
  /** The tools offered to the model; default: the sample's `tools`. */
  tools?: ToolDefinition[]
  /** Execute one call; a throw is a tool error fed back to the model. */
  call(name: string, args: Record<string, unknown>, context: ToolContext): unknown
  /** Tools added from a turn on (0-based), e.g. BFCL's held-out functions in `multi_turn_miss_func`. */
  addedTools?(turn: number): ToolDefinition[] | undefined
  /** The state the run ends with (`toEndWithState` compares it), when the environment has one. */
  state?(): unknown
}

/** A fresh environment for a sample (a stateful environment must not be shared between samples). */
export type EnvironmentFactory = (sample: Sample) => AgentEnvironment | Promise<AgentEnvironment>

/**
 * A failure of what runs the tools rather than of a tool (an MCP server that died or hung, a call a recording lacks):
 * it ends the sample's run as an errored sample, since feeding it to the model would score the harness, not the model.
 * `reason` is the short form the report groups errored samples by.
 */
export class ToolRuntimeError extends Error {
  constructor(
    message: string,
    readonly reason: string = message,
  ) {
    super(message)
    this.name = 'ToolRuntimeError'
  }
}

// The message goes back to the model: a few names, never the whole list (a server may list thousands of tools).
const NAMES_SHOWN = 5
const NAME_SHOWN_CHARS = 64

/**
 * `unknown tool "get_wether" (closest of 10000 tools: get_weather, get_water, ...)`: the names closest to the one
 * called (edit distance, bounded in length), the count of all; small lists are shown whole.
 */
export function unknownToolMessage(name: string, known: string[]): string {
  const shown = (n: string) => JSON.stringify(n.length > NAME_SHOWN_CHARS ? `${n.slice(0, NAME_SHOWN_CHARS)}…` : n)
  const called = shown(name).slice(1, -1)
  if (known.length <= NAMES_SHOWN) return `unknown tool "${called}" (known: ${known.map((n) => shown(n).slice(1, -1)).join(', ') || 'none'})`
  const probe = name.slice(0, NAME_SHOWN_CHARS)
  const closest = known
    .map((n) => ({ n, d: editDistance(probe, n.slice(0, NAME_SHOWN_CHARS)) }))
    .sort((a, b) => a.d - b.d || (a.n < b.n ? -1 : a.n > b.n ? 1 : 0))
    .slice(0, NAMES_SHOWN)
  return `unknown tool "${called}" (closest of ${known.length} tools: ${closest.map((c) => shown(c.n).slice(1, -1)).join(', ')})`
}
