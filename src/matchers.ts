// `vitest-tool-evals/matchers`: the matcher objects and their types (src/matchers/index.ts), BFCL's among them. BFCL's
// matcher joins the set from above (src/bfcl/register.ts): loaded here, `allMatchers` and `registerMatchers` hold it.
import './bfcl/register.js'

export * from './matchers/index.js'
export { bfclMatchers, toMatchBfclAnswer, type BfclMatchers, type ToMatchBfclAnswerOptions } from './bfcl/scorer/matchers.js'
