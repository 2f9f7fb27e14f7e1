// Public API of vitest-tool-evals.
export * from './calls/index.js'
export * from './score/types.js'
