/**
 * The matcher set's registration with Vitest's `expect`, shared by the setup entry, the plugin (through the setup
 * entry) and describeEval, so every way in gives a test file the same matchers (the set is registry.ts's).
 */
import { expect } from 'vitest'
import { allMatchers } from './registry.js'

export { allMatchers } from './registry.js'

const extended = new Set<string>()

/**
 * Add every matcher of the set to Vitest's `expect` (each once per module instance): a call after a part's entry
 * added more extends `expect` with those too.
 */
export function registerMatchers(): void {
  const pending = Object.entries(allMatchers).filter(([name]) => !extended.has(name))
  if (pending.length === 0) return
  for (const [name] of pending) extended.add(name)
  expect.extend(Object.fromEntries(pending))
}
