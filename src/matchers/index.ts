import './types.js'

export { toolMatchers } from './matchers.js'
export type { ExpectedToolCall, ToHaveArgsOptions, ToMatchToolCallsOptions } from './matchers.js'
export type { ToolCallMatchers } from './types.js'
export { argumentProblems, toJsonSchema } from './schema.js'
export { bfclMatchers, toMatchBfclAnswer, type BfclMatchers, type ToMatchBfclAnswerOptions } from './bfcl.js'
export { trajectoryMatchers, type TrajectoryMatchers, type ExpectedToolStep } from './trajectory.js'
