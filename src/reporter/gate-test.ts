/**
 * The gate's verdict as one real test case, `tool-evals gate`, so Vitest's own reporters count a failed gate (JUnit's
 * `failures`, the JSON reporter's `success`, github-actions' annotations, the default summary): the plugin runs this
 * file in a project of its own after every other (`sequence.groupOrder`), and the reporter writes the verdict to the
 * file `inject('toolEvalsGate')` names when this module is queued, by which time every eval file has finished.
 * A failed test is in those results already: the case fails only for what tests do not show (a threshold, a
 * regression, a test file that did not finish).
 */
import { existsSync, readFileSync } from 'node:fs'
import { inject, test } from 'vitest'

/** What the reporter writes for this test to read. */
export interface GateVerdict {
  /** Why the run fails beyond its failed tests (empty: the gate passes). */
  reasons: string[]
}

declare module 'vitest' {
  export interface ProvidedContext {
    toolEvalsGate: string
  }
}

test('tool-evals gate', () => {
  const file = inject('toolEvalsGate')
  if (!file || !existsSync(file)) throw new Error(`tool-evals: no gate verdict at ${String(file)}: the ToolEvalsReporter did not run`)
  const verdict = JSON.parse(readFileSync(file, 'utf8')) as GateVerdict
  if (verdict.reasons.length > 0) throw new Error(`the run fails its gate: ${verdict.reasons.join('; ')}`)
})
