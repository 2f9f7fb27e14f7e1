// Public API of vitest-tool-evals.
export * from './calls/index.js'
export * from './score/types.js'
export * from './score/index.js'
// Vitest side: datasets, replayed outputs, describeEval, matchers (the reporter is `vitest-tool-evals/reporter`).
export * from './data/index.js'
export type { ModelOutput, ModelProvider } from './models/types.js'
export { replay, parseRecording, callsFromOpenAI, type ReplayOptions } from './models/replay.js'
export * from './eval/index.js'
export * from './matchers/index.js'
// Model providers: local (transformers.js on onnxruntime-node), OpenAI-compatible endpoint; generation cache, recording.
export { local, localModelStats, unloadLocalModels, type LocalOptions, type LocalProvider } from './models/local.js'
export { openaiCompatible, type OpenAICompatibleOptions } from './models/openai-compatible.js'
export { cached, generationKey, type CacheOptions, type CacheStats, type CachedProvider } from './models/cache.js'
export { record, replayLine, type RecordOptions } from './models/record.js'
// BFCL checker (as the `bfcl` namespace), BFCL data as samples, DeepFabric-style schema metrics, judged metrics.
export * as bfcl from './score/bfcl/index.js'
export { checkBfclAnswer, type BfclAnswer } from './score/bfcl/answer.js'
export * from './data/bfcl.js'
export * from './score/schema.js'
export * from './score/judge.js'
// Scorers: the interface, your own (`defineScorer`), the built-in ones' recorded shapes, and run-level numbers of
// records with every scorer's sums (as the reporter makes them).
export { defineScorer, type ScorerDefinition, type MetricValues } from './score/define-scorer.js'
export type { Scorer, ScorerInput, ScoreOutcome, ScorerAccumulator, ScorerSummary, StrictVerdict } from './score/scorer.js'
export { aggregateRun } from './score/run.js'
export type { BfclRecord, BfclAggregate } from './score/scorers/bfcl.js'
export type { SchemaRecord, SchemaAggregate } from './score/scorers/index.js'
export type { JudgeRecord, JudgeAggregate } from './score/scorers/judge.js'
export {
  scoreTrajectory,
  type TrajectoryRecord,
  type TrajectoryAggregate,
  type TrajectoryScore,
  type TrajectoryScorerOptions,
  type TrajectoryMode,
  type ScoredTrajectory,
} from './score/scorers/trajectory.js'
