export { describeEval, type EvalOptions, type EvalResult } from './describe-eval.js'
export type { ScorerOptions, SchemaScorerOptions, JudgeScorerOptions, ScorerResults } from './scorers.js'
export { META_KEY, readEvalMeta, type EvalMeta, type StoredCall } from './meta.js'
export {
  functionsEnvironment,
  runAgent,
  DEFAULT_MAX_STEPS,
  type AgentEnvironment,
  type AgentOptions,
  type EnvironmentFactory,
  type ToolContext,
  type ToolFunction,
} from './agent.js'
export type { Trajectory, TrajectoryStep, ToolOutcome, StoredTrajectory, StoredStep } from '../score/trajectory.js'
export type { TrialsOption, TrialReducer } from './trials.js'
export type { SnapshotOption, SnapshotMode } from './snapshot.js'
export { normaliseCalls, type SnapshotCall } from '../score/snapshot-format.js'
