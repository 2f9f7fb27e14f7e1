import './types.js'

export { toolMatchers } from './matchers.js'
export type { ExpectedToolCall, ToHaveArgsOptions, ToMatchToolCallsOptions } from './matchers.js'
export type { ToolCallMatchers } from './types.js'
export type { ToMatchToolCallsSnapshotOptions } from './snapshot.js'
export { argumentProblems, toJsonSchema } from './schema.js'
export { bfclMatchers, toMatchBfclAnswer, type BfclMatchers, type ToMatchBfclAnswerOptions } from './bfcl.js'
