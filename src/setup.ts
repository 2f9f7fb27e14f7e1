/**
 * Setup entry (`setupFiles: ['vitest-tool-evals/setup']`): registers the tool-call matchers with Vitest's `expect`.
 */
import { expect } from 'vitest'
import { toolMatchers } from './matchers/index.js'
import { bfclMatchers } from './matchers/bfcl.js'
import { trajectoryMatchers } from './matchers/trajectory.js'

expect.extend(toolMatchers)
expect.extend(bfclMatchers)
expect.extend(trajectoryMatchers)

export { toolMatchers }
