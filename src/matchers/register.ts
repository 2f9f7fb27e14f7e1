/**
 * The one matcher set and its registration, shared by the setup entry, the plugin (through the setup entry) and
 * describeEval, so every way in gives a test file the same matchers.
 */
import { expect } from 'vitest'
import { bfclMatchers } from '../bfcl/scorer/matchers.js'
import { toolMatchers } from './matchers.js'
import { trajectoryMatchers } from './trajectory.js'

/** Every matcher the package adds to `expect`. */
export const allMatchers = { ...toolMatchers, ...bfclMatchers, ...trajectoryMatchers }

let registered = false

/** Add every matcher to Vitest's `expect` (once per module instance). */
export function registerMatchers(): void {
  if (registered) return
  registered = true
  expect.extend(allMatchers)
}
