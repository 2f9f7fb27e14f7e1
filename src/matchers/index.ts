import './types.js'

export { toolMatchers } from './matchers.js'
export type { ExpectedToolCall, ToHaveArgsOptions, ToMatchToolCallsOptions } from './matchers.js'
export type { ToolCallMatchers } from './types.js'
export { argumentProblems, toJsonSchema } from './argument-schema.js'
export { allMatchers, registerMatchers } from './register.js'
export { bfclMatchers, toMatchBfclAnswer, type BfclMatchers, type ToMatchBfclAnswerOptions } from './bfcl.js'
export { trajectoryMatchers, type TrajectoryMatchers, type ExpectedToolStep } from './trajectory.js'
