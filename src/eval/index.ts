export { describeEval, type EvalOptions, type EvalResult } from './describe-eval.js'
export type { ScorerOptions, SchemaScorerOptions, JudgeScorerOptions, ScorerResults } from './scorers.js'
export { META_KEY, readEvalMeta, type EvalMeta, type StoredCall } from './meta.js'
