// GitHub workflow commands printed by the reporter: escaping, and the notice when GitHub cuts annotations (it shows
// the first 10 of each kind per step). The annotations themselves, through a real `vitest run`, are in
// integration-annotations.test.ts.
import { describe, expect, it } from 'vitest'
import { annotationCounts, annotationOverflowNotice, githubError, githubNotice, type AnnotatedTest } from '../../../src/reporter/github.js'

const at = { file: 'a.eval.ts', line: 2, column: 1 }
const test = (annotations: { type: string; location?: unknown }[], state = 'passed', errors: unknown[] = []): AnnotatedTest => ({
  annotations: () => annotations,
  result: () => ({ state, errors }),
})

describe('workflow commands', () => {
  it('escapes % in the message, and : , as well in properties; line breaks from data are made visible, never a new line', () => {
    expect(githubError('a: b, c', '50% done\r\nnext')).toBe('::error title=a%3A b%2C c::50%25 done\\r\\nnext')
    expect(githubNotice('t%', 'x:y,z')).toBe('::notice title=t%25::x:y,z')
  })

  it('counts what Vitest turns into workflow annotations: located annotations, and errors of failed tests', () => {
    const tests = [
      test([{ type: 'warning', location: at }, { type: 'warning' }]), // no location: Vitest prints nothing
      test([{ type: 'error', location: at }, { type: 'custom', location: at }], 'failed', [1, 2]),
    ]
    expect(annotationCounts(tests)).toEqual({ error: 3, warning: 1, notice: 1 })
  })

  it('a notice only when a kind is over 10, naming each kind that is', () => {
    expect(annotationOverflowNotice({ error: 10, warning: 10, notice: 0 })).toBeUndefined()
    expect(annotationOverflowNotice({ error: 11, warning: 40, notice: 0 })).toBe(
      "::notice title=tool-evals annotations::11 error and 40 warning annotations; GitHub shows the first 10 of each kind per step. Every one is in this step's log; the job summary has the failure counts and the worst samples.",
    )
  })
})
