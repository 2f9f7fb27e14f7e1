/**
 * describeEval's options and what a sample's test hands `assert`: the shapes describe-eval.ts runs and
 * suite-plan.ts checks, here so both stand on them.
 */
import type { ToolCall } from '../calls/types.js'
import type { DataOptions, DataSource, Sample } from '../data/types.js'
import type { ModelOutput, ModelProvider } from '../models/types.js'
import type { MatchMode, SampleRecord, SampleScore } from '../score/types.js'
import type { ScoredTrajectory } from '../score/scorers/trajectory.js'
import type { AgentOptions } from './agent.js'
import type { ScorerOptions, ScorerResults } from './scorers.js'
import type { SnapshotOption } from './snapshot.js'
import type { TrialsOption } from './trials.js'
import type { EvalTask } from './task.js'

/** What a sample's test knows once its sample is scored: handed to `assert` (with the opted-in scorers' results). */
export interface EvalResult extends ScorerResults {
  sample: Sample
  /** The provider's output (absent when the sample errored). */
  output?: ModelOutput
  /** The calls parsed from the output (or given by the provider). */
  calls: ToolCall[]
  score: SampleScore
  record: SampleRecord
  /** The agent loop's run (an eval with `tools` or `environment`): steps, calls, results, end state, and its score. */
  trajectory?: ScoredTrajectory
}

/**
 * describeEval's options; the scorer options (`bfcl`, `schema`, `judge`, `scorers`) are documented on ScorerOptions,
 * the data options (`limit`, `maxSamples`, and `split`, `revision`, `config` for Hub datasets) on DataOptions.
 */
export interface EvalOptions extends ScorerOptions, DataOptions, AgentOptions {
  /** JSONL path (relative to Vitest's root, see data/input-root.ts) or URL, `hf://datasets/<owner>/<name>`, or an array of sample objects. */
  data: DataSource
  /** The model under test: `replay(...)`, a local model, an endpoint, your own provider. Give this, `models` or `task`. */
  model?: ModelProvider
  /**
   * Your application under test instead of a model: `async (sample, { signal, deadline }) => output`, returning text,
   * an assistant message with `tool_calls`, `{ name, arguments }` calls, or a trajectory (see docs/writing-evals.md,
   * "Testing your app"). A throw, a late answer or an unknown shape is that sample's error. Give this or `model`.
   */
  task?: EvalTask
  /**
   * A model matrix: every sample runs against every model, one describe block per key (`weather > sft_500 > w1`,
   * so `-t sft_500` selects a model). The report compares each model with `reference` (see docs/comparing-models.md).
   */
  models?: Record<string, ModelProvider>
  /** The key of `models` every other model is compared with (default: the first key). */
  reference?: string
  /** Generations in flight at once for this suite (default: the provider's `concurrency` hint, else 4). */
  concurrency?: number
  /**
   * Per-sample test timeout in ms; covers waiting for the sample's generation. Default: derived from the provider
   * (`generationTimeoutMs`: an endpoint's attempts and back-off, a local model's loading), times the trial rounds and
   * agent steps, plus 5 s; Vitest's `testTimeout` when your config or command line sets it (seen by the reporter),
   * or for a provider that does not say (replay, your own, a `task`).
   */
  timeout?: number
  /**
   * Journal each generation as it arrives, so the rerun of an interrupted run resumes from them (the journal of a
   * run that finished is retired, never replayed). Default: on for providers whose generations cost (`resumable`:
   * `openaiCompatible`, `local`); `true` for any provider; `false` off. `TOOL_EVALS_RESUME=0` turns it off for a run.
   * Needs the reporter (the plugin or ToolEvalsReporter), which opens and retires the journal.
   */
  resume?: boolean
  /**
   * Fail a sample's test when the sample is not fully right (any failure category), showing the call diff. A sample
   * with a BFCL verdict (`bfcl` option) must pass the BFCL checker instead: its `expected` is one acceptable answer
   * of several.
   */
  strict?: boolean
  /** Per-sample expectations (matchers, anything that throws): a throw fails that sample's test. */
  assert?: (result: EvalResult, sample: Sample) => void | Promise<void>
  /** Call alignment for scoring: 'positional' (NeMo, default) or 'unordered'. */
  match?: MatchMode
  /** Exact match without Python's `true == 1` (see ScoreOptions.strictTypes). */
  strictTypes?: boolean
  /** Wire-format hint for the parser when the provider gives none. */
  format?: string
  /** Whether a sample whose generation failed fails its test (default true). Its record is errored either way. */
  failOnError?: boolean
  /** Raw output kept in task meta per sample, in characters (default 2000). */
  maxOutputChars?: number
  /**
   * Generate each sample k times and reduce its scores per metric: `trials: 5`, or `{ count: 5, reduce: { name_correct:
   * 'all' } }` (`mean` default, `all` = pass^k, `any` = pass@k). One test per sample. See README, "Repeated trials".
   */
  trials?: TrialsOption
  /**
   * Keep each sample's normalised calls in a snapshot file beside the eval file and report changes (`'report'`) or
   * fail on them (`'fail'`); `{ mode, ignore: ['arguments.request_id'] }` masks volatile values. See README, "Snapshots".
   */
  snapshot?: SnapshotOption
}
