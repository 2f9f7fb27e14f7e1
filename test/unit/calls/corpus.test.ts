/**
 * The whole corpus through auto-detection, the way a user calls `parseToolCalls` without knowing the template.
 * Each format's own test file checks its cases with the format hint and pins the choices made for contested cases;
 * this file checks that detection picks the right format for every clean case of every format at once.
 */
import { describe, expect, it } from 'vitest'
import { parseToolCalls } from '../../../src/calls/index.js'
import { actualCalls, corpusAvailable, expectedCalls, loadCorpus, toolsOf } from '../../corpus.js'

const cases = loadCorpus()

/**
 * Clean cases where this project deliberately differs from the engine whose test the case comes from (each is
 * pinned, with the behaviour chosen, in its format's test file).
 */
const DEVIATIONS: Record<string, string> = {
  'sglang-lfm2-12': 'sglang drops calls to tools it was not given; an evaluator keeps them so a hallucinated name scores as wrong',
  'sglang-glm45-3': 'same: calls to unknown tools are kept for scoring',
  'sglang-glm47-3': 'same: calls to unknown tools are kept for scoring',
  'llamacpp-lfm2-13': 'Python string escapes are decoded as Python does ("a\\nb" holds a newline); llama.cpp keeps the backslash',
}

const clean = cases.filter((c) => !c.contested)
const agreed = clean.filter((c) => !(c.id in DEVIATIONS))

describe.skipIf(!corpusAvailable)('corpus: every clean case, auto-detected', () => {
  it('has the cases the corpus README announces', () => {
    expect(cases.length).toBe(635)
    expect(clean.length).toBe(541)
  })

  it.for(agreed.map((c) => [c.id, c] as const))('%s', ([, c]) => {
    expect(actualCalls(parseToolCalls(c.text, { tools: toolsOf(c) }))).toEqual(expectedCalls(c))
  })

  it('differs from the engine exactly on the documented deviations', () => {
    const deviating = clean.filter((c) => c.id in DEVIATIONS)
    expect(deviating.map((c) => c.id).sort()).toEqual(Object.keys(DEVIATIONS).sort())
    for (const c of deviating) {
      expect(actualCalls(parseToolCalls(c.text, { tools: toolsOf(c) }))).not.toEqual(expectedCalls(c))
    }
  })

  it('never throws and returns well-typed calls on contested cases', () => {
    for (const c of cases.filter((x) => x.contested)) {
      const calls = parseToolCalls(c.text, { tools: toolsOf(c) })
      for (const call of calls) {
        expect(typeof call.name).toBe('string')
        expect(typeof call.arguments).toBe('object')
        expect(typeof call.argumentsValid).toBe('boolean')
      }
    }
  })
})
