/**
 * describeEval's default per-sample test timeout, from what the provider says one generation can take
 * (`generationTimeoutMs`: an endpoint's attempts and back-off, a local model's loading and decoding), so a model that
 * is slow but working never errors by default. Vitest's own default (5 s) knows nothing of the model.
 */
import type { Sample } from '../data/types.js'
import type { ModelProvider } from '../models/types.js'

/**
 * Set by the reporter for the workers when the run's `testTimeout` is not Vitest's default (the config or the
 * command line set it): a timeout the user chose wins over the derived one.
 */
export const TEST_TIMEOUT_ENV = 'TOOL_EVALS_TEST_TIMEOUT'
/** Vitest's own default `testTimeout` (outside browser mode). */
export const VITEST_DEFAULT_TEST_TIMEOUT = 5000

/** The `testTimeout` the user set for this run, if the reporter passed one on. */
export function configuredTestTimeout(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const v = env[TEST_TIMEOUT_ENV]
  if (v === undefined || v.trim() === '') return undefined
  const n = Number(v)
  return Number.isFinite(n) && n >= 0 ? n : undefined
}

/** Time left for parsing, scoring and the test itself after the generations (retryBudget keeps up to 1 s of it). */
export const SCORING_ALLOWANCE_MS = 5000

export interface TimeoutPlan {
  /** Repeated trials of each sample (describeEval's `trials`), generated `concurrency` at a time. */
  trials?: number
  concurrency: number
  /** The agent loop's most generations per user turn (`maxSteps`); absent: one generation per sample. */
  maxSteps?: number
}

/**
 * The sample's test timeout in ms when the eval gives none, or undefined to keep Vitest's `testTimeout` (a provider
 * that does not say how long it takes: replay, your own). The generations a sample waits for one after another
 * (trial rounds, agent steps in every turn) each get the provider's bound.
 */
export function defaultSampleTimeout(model: Pick<ModelProvider, 'generationTimeoutMs'>, sample: Pick<Sample, 'turns'>, plan: TimeoutPlan): number | undefined {
  const bound = model.generationTimeoutMs
  if (bound === undefined || !(bound > 0)) return undefined
  if (!Number.isFinite(bound)) return 0 // no limit
  const rounds = Math.ceil((plan.trials ?? 1) / Math.max(1, plan.concurrency))
  const steps = plan.maxSteps === undefined ? 1 : plan.maxSteps * (1 + (sample.turns?.length ?? 0))
  return rounds * steps * bound + SCORING_ALLOWANCE_MS
}
