export { describeEval, type EvalOptions, type EvalResult } from './describe-eval.js'
export { META_KEY, readEvalMeta, type EvalMeta, type StoredCall } from './meta.js'
