// `vitest-tool-evals/reporter`: ToolEvalsReporter and the report's types (src/reporter/index.ts). The reporter sums
// BFCL's scorer, which registers itself from above (src/bfcl/register.ts): loaded here, a config that adds the
// reporter alone reports `bfcl_accuracy` as the plugin does.
import './bfcl/register.js'

export * from './reporter/index.js'
export { default } from './reporter/index.js'
