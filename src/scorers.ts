// `vitest-tool-evals/scorers`: the built-in scorers' own functions and what they record, for users who call them
// outside describeEval or read their values from records (DeepFabric-style schema metrics, judges, trajectories).
// describeEval turns them on by its options (`schema`, `judge`, `trajectory`); BFCL's are on `vitest-tool-evals/bfcl`.
export {
  DEFAULT_SCHEMA_WEIGHTS,
  schemaMetrics,
  type SchemaOptions,
  type SchemaSampleMetrics,
  type SchemaSemantics,
  type SchemaWeights,
} from './score/schema.js'
export type { SchemaAggregate, SchemaRecord } from './score/scorers/index.js'
export { JUDGE_KINDS, judgeSample, judgeSampleId, type JudgeKind, type JudgeResult } from './score/judge.js'
export type { JudgeAggregate, JudgeRecord } from './score/scorers/judge.js'
export {
  scoreTrajectory,
  type TrajectoryRecord,
  type TrajectoryAggregate,
  type TrajectoryScore,
  type TrajectoryScorerOptions,
  type TrajectoryMode,
  type ScoredTrajectory,
} from './score/scorers/trajectory.js'
