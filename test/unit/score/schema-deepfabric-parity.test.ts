// The schema metrics against DeepFabric's own numbers, class by class (cases and how each value was derived:
// test/helpers/schema-parity-cases.ts), per sample and aggregated; and our corrections under 'jsonschema'.
import { describe, expect, test } from 'vitest'
import { parseToolCalls } from '../../../src/calls/index.js'
import type { ToolDefinition } from '../../../src/calls/types.js'
import { schemaMetrics, type SchemaOptions, type SchemaSampleMetrics } from '../../../src/score/schema.js'
import { schemaScorer } from '../../../src/score/scorers/schema.js'
import { PARITY_CASES, type ParityCase, type Triple } from '../../helpers/schema-parity-cases.js'

const score = (c: ParityCase, options: SchemaOptions = {}): SchemaSampleMetrics =>
  schemaMetrics(parseToolCalls(c.output), c.expected, c.tools as ToolDefinition[], options)
/** The run-level numbers as the reporter makes them: the schema scorer's accumulator over every case's record. */
async function summaryOf(cases: readonly ParityCase[], options: SchemaOptions = {}) {
  const scorer = schemaScorer.configure(options, { cached: (p) => p })!
  const { accumulator } = schemaScorer
  const acc = accumulator.create()
  for (const c of cases) {
    const scored = await scorer.score({ sample: { id: c.id, messages: [], tools: c.tools as ToolDefinition[], expected: c.expected }, calls: parseToolCalls(c.output) })
    accumulator.add(acc, scored!.value, false)
  }
  const { metrics, details } = accumulator.finish(acc)
  return { ...details, tool_selection: metrics['schema_tool_selection'], parameter_accuracy: metrics['schema_parameter_accuracy'], execution_success: metrics['schema_execution_success'], overall: metrics['schema_overall'] }
}
const triple = (m: SchemaSampleMetrics): Triple => [Number(m.tool_selection), Number(m.parameter_accuracy), Number(m.execution_success)] as unknown as Triple

describe('default semantics: DeepFabric numbers, per sample', () => {
  test.each(PARITY_CASES.map((c) => [`${c.kind}: ${c.id}`, c] as const))('%s', (_, c) => {
    const m = score(c)
    if (c.deepfabric === 'rejected') {
      // DeepFabric's error score: every metric False, the sample still counted.
      expect(triple(m)).toEqual([0, 0, 0])
      expect(m.overall).toBe(0)
      expect(m.deepfabric).toBe('rejected')
    } else if (c.deepfabric === 'crashed') {
      expect(triple(m)).toEqual(c.scoredOnCrash)
      expect(m.deepfabric).toBe('crashed')
    } else {
      expect(triple(m)).toEqual(c.deepfabric)
      expect(m.deepfabric).toBeUndefined()
    }
  })

  test('the table covers every class of difference', () => {
    const kinds = new Set(PARITY_CASES.map((c) => c.kind))
    for (const k of ['typical', 'no call expected', 'type names', 'required not in properties', 'tool not on offer',
      'non-object arguments', 'strip vs trim', 'null in expected arguments', 'union types']) expect(kinds).toContain(k)
    // ...and each class but the typical one has a case where the two semantics differ.
    for (const k of kinds) {
      if (k === 'typical') continue
      const differs = PARITY_CASES.some((c) => c.kind === k && JSON.stringify(c.deepfabric) !== JSON.stringify(c.jsonschema))
      expect(differs, k).toBe(true)
    }
  })
})

describe('default semantics: DeepFabric numbers, aggregated', () => {
  // DeepFabric's evaluate() over every case it does not crash on (28: 24 scored, 4 rejected with its error score):
  // tool_selection_accuracy 18/28, parameter_accuracy 12/28, execution_success_rate 11/28; overall_score is the
  // weighted sum of those means, with weights missing from a custom set counting 0 (compute_overall_score's
  // weights.get(k, 0.0)). Values as its compute_metrics printed them.
  const scorable = PARITY_CASES.filter((c) => c.deepfabric !== 'crashed')

  test.each([
    ['default weights', {}, 0.5053571428571428],
    ['partial weights { tool_selection: 0.6 }', { weights: { tool_selection: 0.6 } }, 0.38571428571428573],
    ['partial weights { tool_selection: 0.5, parameter_accuracy: 0.5 }', { weights: { tool_selection: 0.5, parameter_accuracy: 0.5 } }, 0.5357142857142857],
  ] as const)('%s', async (_, options, overall) => {
    const s = await summaryOf(scorable, options)
    expect(scorable).toHaveLength(28)
    expect(s).toMatchObject({ samples: 28, tool_selection: 18 / 28, parameter_accuracy: 12 / 28, execution_success: 11 / 28, deepfabric_rejected: 4 })
    expect(s).not.toHaveProperty('deepfabric_crashed')
    expect(s.overall).toBeCloseTo(overall, 12)
    // The reporter's schema_overall is the mean of the per-sample overalls: the same number.
    const perSample = scorable.map((c) => score(c, options).overall)
    expect(perSample.reduce((a, b) => a + b, 0) / perSample.length).toBeCloseTo(overall, 12)
  })

  test('samples DeepFabric crashes on are scored and counted, never stop the run', async () => {
    expect(await summaryOf(PARITY_CASES)).toMatchObject({ samples: PARITY_CASES.length, deepfabric_crashed: 3, deepfabric_rejected: 4 })
  })
})

describe("semantics: 'jsonschema' (our corrections)", () => {
  test.each(PARITY_CASES.map((c) => [`${c.kind}: ${c.id}`, c] as const))('%s', (_, c) => {
    const m = score(c, { semantics: 'jsonschema' })
    expect(triple(m)).toEqual(c.jsonschema)
    expect(m.deepfabric).toBeUndefined()
  })
})

describe('the overall stays within [0, 1] in every mode', () => {
  test.each([['deepfabric'], ['jsonschema']] as const)('%s', (semantics) => {
    const weightSets = [undefined, { tool_selection: 1 }, { tool_selection: 0.5, execution_success: 0.5 }, { parameter_accuracy: 0.999999999999 }]
    for (const weights of weightSets) {
      for (const c of PARITY_CASES) {
        const o = score(c, weights ? { semantics, weights } : { semantics }).overall
        expect(o).toBeGreaterThanOrEqual(0)
        expect(o).toBeLessThanOrEqual(1)
      }
    }
  })
})
