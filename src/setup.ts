/**
 * Setup entry (`setupFiles: ['vitest-tool-evals/setup']`, or the plugin, which lists it): registers the tool-call and
 * BFCL matchers with Vitest's `expect`. Naming it in a tsconfig's `types` also types them without an import.
 */
import './matchers/types.js'
import './bfcl/register.js'
import './matchers/trajectory.js'
import { registerMatchers } from './matchers/register.js'
import { adoptInputRoot } from './eval/input-root.js'

registerMatchers()
// Before the eval file makes its providers: their relative paths resolve from Vitest's root.
adoptInputRoot()

export { toolMatchers } from './matchers/matchers.js'
export { bfclMatchers } from './bfcl/scorer/matchers.js'
