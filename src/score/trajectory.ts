/**
 * What an agent run of one sample leaves behind (its trajectory), and the small form of it that the sample's task
 * meta keeps. This module has no Vitest runtime dependency: the reporter and the matchers read it.
 */
import type { ToolCall } from '../calls/types.js'
import type { ChatMessage } from '../calls/types.js'
import { truncate } from './text.js'

/** What one tool call came to: the content sent back to the model, and the error when the tool failed. */
export interface ToolOutcome {
  /** The call id the tool message answers (`tool_call_id`). */
  id: string
  name: string
  /** The tool message's content as the model saw it (the result, or the error text for a failed call). */
  content: string
  /** The value the tool returned (absent when it failed). */
  value?: unknown
  /** Why the call failed: the tool threw, the tool is unknown, or its arguments were malformed. */
  error?: string
}

/** One model generation in the loop: the calls it made (none: it answered) and what each call came to. */
export interface TrajectoryStep {
  /** Index of the user turn the step belongs to (0-based). */
  turn: number
  calls: ToolCall[]
  /** One per call, in call order. */
  results: ToolOutcome[]
  /** The model's text this step (its answer when it made no call). */
  text?: string
}

/** A whole agent run of one sample. */
export interface Trajectory {
  steps: TrajectoryStep[]
  /** User turns that were run (fewer than the sample's when the step limit stopped the run). */
  turns: number
  /** A turn reached `maxSteps` while the model was still calling tools: the run stopped there (as BFCL does). */
  stepLimitHit: boolean
  /** Tool calls that failed (thrown, unknown tool, malformed arguments); each was fed back to the model. */
  toolErrors: number
  /** The model's last answer (text of the last step without calls), when it gave one. */
  answer?: string
  /** The environment's end state (`environment.state()`), when it has one. */
  state?: unknown
  /** The whole conversation, tool messages included. */
  messages: ChatMessage[]
}

/** The steps that made calls: what an expected trajectory is compared with. */
export function callSteps(trajectory: Pick<Trajectory, 'steps'>): TrajectoryStep[] {
  return trajectory.steps.filter((s) => s.calls.length > 0)
}

/** Every call of a trajectory, in order. */
export function trajectoryCalls(trajectory: Pick<Trajectory, 'steps'>): ToolCall[] {
  return trajectory.steps.flatMap((s) => s.calls)
}

// ---- the stored form (task meta) ----

/** Limits that keep a stored trajectory small, whatever the run was. */
export const TRAJECTORY_LIMITS = {
  steps: 40,
  callsPerStep: 16,
  argumentsChars: 300,
  contentChars: 300,
  textChars: 300,
  stateChars: 2000,
}

export interface StoredStep {
  turn: number
  /** `name(args)`-like entries: name, arguments (cut), and what came back (cut) or the error. */
  calls: { name: string; arguments: string; result?: string; error?: string }[]
  text?: string
}

export interface StoredTrajectory {
  turns: number
  /** Number of steps in the run (the stored `steps` may be fewer). */
  stepCount: number
  stepLimitHit: boolean
  toolErrors: number
  steps: StoredStep[]
  answer?: string
  /** The end state as JSON, cut to a size. */
  state?: string
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

/** The stored form of a trajectory (see TRAJECTORY_LIMITS). */
export function storedTrajectory(t: Trajectory): StoredTrajectory {
  const L = TRAJECTORY_LIMITS
  const out: StoredTrajectory = {
    turns: t.turns,
    stepCount: t.steps.length,
    stepLimitHit: t.stepLimitHit,
    toolErrors: t.toolErrors,
    steps: t.steps.slice(0, L.steps).map((s) => {
      const step: StoredStep = {
        turn: s.turn,
        calls: s.calls.slice(0, L.callsPerStep).map((c, i) => {
          const r = s.results[i]
          const entry: StoredStep['calls'][number] = { name: c.name, arguments: truncate(json(c.arguments), L.argumentsChars) }
          if (r?.error !== undefined) entry.error = truncate(r.error, L.contentChars)
          else if (r !== undefined) entry.result = truncate(r.content, L.contentChars)
          return entry
        }),
      }
      if (s.text !== undefined && s.text !== '') step.text = truncate(s.text, L.textChars)
      return step
    }),
  }
  if (t.answer !== undefined) out.answer = truncate(t.answer, L.textChars)
  if (t.state !== undefined) out.state = truncate(json(t.state), L.stateChars)
  return out
}
