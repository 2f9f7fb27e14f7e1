/**
 * Setup entry (`setupFiles: ['vitest-tool-evals/setup']`, or the plugin, which lists it): registers the tool-call and
 * BFCL matchers with Vitest's `expect`. Naming it in a tsconfig's `types` also types them without an import.
 */
import './matchers/types.js'
import './bfcl/scorer/matchers.js'
import './matchers/trajectory.js'
import { registerMatchers } from './matchers/register.js'

registerMatchers()

export { toolMatchers } from './matchers/matchers.js'
export { bfclMatchers } from './bfcl/scorer/matchers.js'
