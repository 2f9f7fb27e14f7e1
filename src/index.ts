// The public API of vitest-tool-evals: what most users need. Every name here is documented and typed, and changes only
// compatibly. Anything not listed here or on another entry is internal. Other entries: `vitest-tool-evals/bfcl` (the
// Berkeley Function Calling Leaderboard: data, checker, simulated APIs, multi-turn protocol), `vitest-tool-evals/scorers`
// (the built-in scorers' own functions and recorded shapes), `vitest-tool-evals/plugin` (the gate as a Vitest plugin),
// `vitest-tool-evals/reporter` (ToolEvalsReporter), `vitest-tool-evals/setup` (registers the matchers),
// `vitest-tool-evals/matchers` (the matcher objects and their types), `vitest-tool-evals/mcp` (MCP servers' types).
// docs/reference.md ("Entry points") lists where each name moved when it left this list.

// BFCL plugs into the scorers and matchers from above, by its registration: loaded here, describeEval's `bfcl`
// option, the report's `bfcl_accuracy` and `toMatchBfclAnswer` work for users of this entry alone.
import './bfcl/register.js'

// Evals: samples as Vitest test cases.
export { describeEval, type EvalOptions, type EvalResult } from './eval/describe-eval.js'
export type { EvalTask, TaskAssistantMessage, TaskCall, TaskContext, TaskOutput, TaskStep, TaskText, TaskTrajectory, TaskUsage } from './eval/task.js'
export type { JudgeScorerOptions, SchemaScorerOptions, ScorerOptions, ScorerResults } from './eval/scorers.js'
export { readEvalMeta, type EvalMeta, type StoredCall } from './eval/meta.js'

// Agents: multi-step tool loops against functions or environments with state (BFCL's on `vitest-tool-evals/bfcl`).
export {
  functionsEnvironment,
  type AgentEnvironment,
  type AgentOptions,
  type EnvironmentFactory,
  type ToolContext,
  type ToolFunction,
} from './eval/agent.js'
export type { StoredTrajectory, ToolOutcome, Trajectory, TrajectoryStep } from './score/trajectory.js'
// Tools from MCP servers (the rest, types and the mode variable, on `vitest-tool-evals/mcp`).
export { mcpTools, type McpToolsOptions } from './eval/mcp/tools.js'

// Data: samples from JSONL files, arrays and Hub datasets (BFCL's files: `vitest-tool-evals/bfcl`).
export type { ChatMessage, DataEntry, DataOptions, DataSource, Sample, SampleError } from './data/types.js'
export type { HubLimits } from './data/hub-limits.js'
export { formatSampleError, loadData, loadDataAsync, loadSamples } from './data/load.js'
export { loadHfDataset } from './data/hf.js'

// Models: the provider interface, recorded outputs, the local runtime, endpoints, the cache and recording.
export type { GenerateOptions, ModelOutput, ModelProvider, ProviderCall } from './models/types.js'
export type { UsageRecord } from './score/usage.js'
export { callsFromOpenAI, replay, type ReplayOptions } from './models/replay.js'
export { local, localModelStats, unloadLocalModels, type LocalOptions, type LocalProvider } from './models/local.js'
export { openaiCompatible, type OpenAICompatibleOptions } from './models/openai-compatible.js'
export { cached, type CacheOptions, type CacheStats, type CachedProvider } from './models/cache.js'
export { record, type RecordOptions } from './models/record.js'

// Parsing model output into tool calls.
export {
  deriveFormat,
  detectFormat,
  FORMATS,
  formatNames,
  MAX_ARGUMENT_DEPTH,
  DEFAULT_MAX_CALLS,
  TOO_MANY_CALLS,
  parseToolCalls,
  stripReasoning,
  type CallShape,
  type DerivedFormat,
  type DeriveError,
  type DeriveOptions,
  type TemplateBudget,
  type FormatParser,
  type JsonSchema,
  type JsonValue,
  type ParseOptions,
  type ToolCall,
  type ToolDefinition,
} from './calls/index.js'
export type { ExpectedCall } from './calls/types.js'

// Scoring: NeMo's per-sample metrics and their run-level aggregation, the scorer interface and your own scorers.
export { scoreSample } from './score/nemo.js'
export { aggregateRun } from './score/run.js'
export {
  FAILURE_CATEGORIES,
  NEMO_METRICS,
  REPORT_METRICS,
  type Aggregate,
  type FailureCategory,
  type MatchMode,
  type NemoMetric,
  type RunMetrics,
  type SampleRecord,
  type SampleScore,
  type ScoreOptions,
} from './score/types.js'
export { defineScorer, type MetricValues, type ScorerDefinition } from './score/define-scorer.js'
export type { Scorer, ScorerAccumulator, ScorerInput, ScorerModel, ScorerSummary, ScoreOutcome, StrictVerdict } from './score/scorer.js'

// Matchers (registered by `vitest-tool-evals/setup`, the plugin and describeEval).
export { toolMatchers, trajectoryMatchers, type ToolCallMatchers } from './matchers/index.js'
export type { ExpectedToolCall, ToHaveArgsOptions, ToMatchToolCallsOptions } from './matchers/index.js'

// Comparing runs: the baseline gate as a function (what `tool-evals compare` and the reporter's `baseline` run), a
// finished run read back for it, and planning the gate's power from a baseline (`tool-evals plan`).
export {
  compareRuns,
  type Comparison,
  type GatePowerSummary,
  type MetricComparison,
  type RegressionOptions,
  type RunForComparison,
  type Verdict,
} from './reporter/compare/compare.js'
export { loadReport, type LoadedReport } from './reporter/compare/load.js'
export { planGate, type Plan, type PlanOptions } from './reporter/compare/plan.js'
export type { SampleOutcome } from './reporter/compare/outcomes.js'
