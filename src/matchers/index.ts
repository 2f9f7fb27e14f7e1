import './types.js'

export { toolMatchers } from './matchers.js'
export type { ExpectedToolCall, ToHaveArgsOptions, ToMatchToolCallsOptions } from './matchers.js'
export type { ToolCallMatchers } from './types.js'
export type { ToMatchToolCallsSnapshotOptions } from './snapshot.js'
export { argumentProblems, toJsonSchema } from './argument-schema.js'
export { allMatchers, registerMatchers } from './register.js'
export { trajectoryMatchers, type TrajectoryMatchers, type ExpectedToolStep } from './trajectory.js'
