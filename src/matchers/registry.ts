/**
 * The one matcher set: the package's own matchers, and those a part above adds from its entry (BFCL's
 * `toMatchBfclAnswer`, added by bfcl/register.ts), so this layer names nothing above it. It loads nothing of Vitest's
 * runtime, so a part can add its matchers from the main process too (the reporter's entry loads BFCL's).
 */
import { toolMatchers } from './matchers.js'
import { trajectoryMatchers } from './trajectory.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type MatcherFunction = (this: any, received: any, ...expected: any[]) => any

/** Every matcher the package adds to `expect` (live: a part's entry adds its own when loaded). */
export const allMatchers: typeof toolMatchers & typeof trajectoryMatchers & Record<string, MatcherFunction> = {
  ...toolMatchers,
  ...trajectoryMatchers,
}

/**
 * Add matchers to the set. Adding the same function again does nothing; another function under a name the set holds
 * is an error, since one would silently replace the other.
 */
export function addMatchers(matchers: Record<string, MatcherFunction>): void {
  for (const [name, fn] of Object.entries(matchers)) {
    const known = allMatchers[name]
    if (known !== undefined && known !== fn) throw new Error(`a matcher named "${name}" is registered already`)
    allMatchers[name] = fn
  }
}
