/**
 * The model matrix from task meta alone (reporter/matrix.ts through buildRunReport): the gate's "no model worse than
 * the reference" and per-model thresholds, shards merged in any order giving the same block, dialogues clustered
 * and trials folded as the baseline gate does, and describeEval's `models` options checked before any test runs.
 */
import { describe, expect, it } from 'vitest'
import { buildRunReport } from '../../../src/reporter/build.js'
import type { EvalMeta } from '../../../src/eval/meta.js'
import type { ToolCall } from '../../../src/calls/types.js'
import { scoreSample } from '../../../src/score/nemo.js'
import { planMatrix } from '../../../src/eval/suite-plan.js'
import { renderMarkdown } from '../../../src/reporter/markdown.js'
import { matrixTerminalLines } from '../../../src/reporter/matrix-render.js'
import { Chalk } from 'chalk'
import type { ModelProvider } from '../../../src/models/types.js'

/** One sample's meta as describeEval writes it in a matrix: suite `weather > <model>`, the model and reference named. */
function meta(model: string, id: string, right: boolean, extra: Partial<EvalMeta['record']> = {}): EvalMeta {
  const expected = [{ name: 'get_weather', arguments: { city: 'Paris' } }]
  const calls: ToolCall[] = [{ name: 'get_weather', arguments: { city: right ? 'Paris' : 'Rome' }, argumentsValid: true, format: 'hermes' }]
  const m: EvalMeta = { v: 1, record: { id, suite: `weather > ${model}`, score: scoreSample(calls, expected), ...extra }, model, reference: 'base' }
  if (!right) {
    m.expected = expected
    m.calls = calls.map((c) => ({ name: c.name, arguments: c.arguments }))
  }
  return m
}

/** `base` right on every sample, `worse` wrong on the first `wrong` of them. */
function matrix(n: number, wrong: number): EvalMeta[] {
  const out: EvalMeta[] = []
  for (let i = 0; i < n; i++) out.push(meta('base', `s${i}`, true), meta('worse', `s${i}`, i >= wrong))
  return out
}

const options = { thresholds: {}, usage: { pricing: undefined, maxThresholds: {} }, worst: 5 }

describe('the model matrix in the report', () => {
  it('fails the gate on a model worse than the reference only when noneWorse asks it to', () => {
    const metas = matrix(30, 10)
    const plain = buildRunReport(metas, { testsPass: true }, options)
    expect(plain.models?.comparisons['worse']?.metrics['args_exact_match']).toMatchObject({ verdict: 'worse', test: 'mcnemar' })
    expect(plain.pass).toBe(true)
    const gated = buildRunReport(metas, { testsPass: true }, { ...options, models: { noneWorse: true } })
    expect(gated.pass).toBe(false)
    expect(gated.gate.reasons).toEqual([{ kind: 'model_worse', message: 'worse is worse than base on args_exact_match' }])
    expect(renderMarkdown(gated).replace(/\\(.)/g, '$1')).toContain('worse is worse than base on args_exact_match by 33.3 points, p = 0.0020 (Holm).')
    // Holm over 1 model × 2 gated metrics: McNemar's 0.5^10, doubled.
    expect(gated.models?.comparisons['worse']?.metrics['args_exact_match']?.pAdjusted).toBeCloseTo(2 * 0.5 ** 10, 12)
    // A filtered run (one model chosen with -t) shows the verdict and does not gate it.
    const filtered = buildRunReport(metas, { testsPass: true, partial: { reason: 'filter', planned: 60, ran: 60, selection: ['-t worse'] } }, { ...options, models: { noneWorse: true } })
    expect(filtered.pass).toBe(true)
  })

  it('the terminal leaderboard names the reference whole, whatever the names\' lengths', () => {
    // The reference's name the longest: its label is the widest.
    const metas = Array.from({ length: 10 }, (_, i) => [meta('base', `s${i}`, true), meta('sft', `s${i}`, i > 2)]).flat()
    const m = buildRunReport(metas, { testsPass: true }, options).models!
    const lines = matrixTerminalLines(m, new Chalk({ level: 0 }))
    expect(lines.some((l) => l.trimStart().startsWith('base (ref) '))).toBe(true)
  })

  it('fails a model under its own threshold, naming it', () => {
    const report = buildRunReport(matrix(10, 5), { testsPass: true }, { ...options, models: { thresholds: { worse: { args_exact_match: 0.9 }, base: { args_exact_match: 0.9 } } } })
    expect(report.gate.reasons).toEqual([{ kind: 'threshold', message: 'worse: args_exact_match: 0.500 < required 0.900' }])
  })

  it('fails on thresholds for a model that ran no sample, and on a models gate with no matrix at all', () => {
    const misspelt = buildRunReport(matrix(10, 0), { testsPass: true }, { ...options, models: { thresholds: { wrose: { args_exact_match: 0.5 } } } })
    expect(misspelt.gate.reasons).toEqual([{ kind: 'threshold', message: 'thresholds are set for model wrose, which ran no sample (models that ran: base, worse)' }])
    const plain = matrix(5, 0).map(({ model: _m, reference: _r, ...rest }) => rest)
    expect(buildRunReport(plain, { testsPass: true }, options).models).toBeUndefined()
    const noMatrix = buildRunReport(plain, { testsPass: true }, { ...options, models: { noneWorse: true } })
    expect(noMatrix.gate.reasons.map((r) => r.kind)).toEqual(['model_worse'])
  })

  it('fails closed when noneWorse cannot compare: the reference ran no sample, or a model lacks samples', () => {
    const noRef = buildRunReport(matrix(10, 0).filter((m) => m.model !== 'base'), { testsPass: true }, { ...options, models: { noneWorse: true } })
    expect(noRef.gate.reasons.map((r) => r.kind)).toEqual(['model_worse'])
    expect(noRef.models?.incomparable).toEqual(['the reference model base ran no sample'])
    const missing = buildRunReport(matrix(10, 0).filter((m) => !(m.model === 'worse' && m.record.id === 's3')), { testsPass: true }, { ...options, models: { noneWorse: true } })
    expect(missing.pass).toBe(false)
    expect(missing.models?.comparisons['worse']?.incomparable).toEqual(['1 sample(s) of base missing for worse (first: weather > s3)'])
  })

  it('gives the same block from shards merged in any order', () => {
    const metas = matrix(40, 9)
    const whole = buildRunReport(metas, { testsPass: true }, options).models
    const shuffled = [...metas.filter((_, i) => i % 3 === 2), ...metas.filter((_, i) => i % 3 === 0).reverse(), ...metas.filter((_, i) => i % 3 === 1)]
    expect(JSON.stringify(buildRunReport(shuffled, { testsPass: true }, options).models)).toBe(JSON.stringify(whole))
  })

  it('clusters a dialogue\'s turns and folds trials, as the baseline gate does', () => {
    const metas: EvalMeta[] = []
    for (let d = 0; d < 12; d++) {
      for (let t = 0; t < 2; t++) {
        metas.push(meta('base', `d${d}#${t}`, true))
        metas.push(meta('worse', `d${d}#${t}`, d >= 10))
      }
    }
    const c = buildRunReport(metas, { testsPass: true }, options).models?.comparisons['worse']?.metrics['args_exact_match']
    expect(c).toMatchObject({ n: 24, clusters: 12, test: 'sign-flip' })
    // Three trials per sample: one sample per (eval, id), its trials' mean.
    const trials: EvalMeta[] = []
    for (let i = 0; i < 6; i++) {
      for (let k = 0; k < 3; k++) trials.push(meta('base', `s${i}`, true, { trial: k } as object), meta('worse', `s${i}`, k > 0, { trial: k } as object))
    }
    const folded = buildRunReport(trials, { testsPass: true }, options).models?.comparisons['worse']?.metrics['args_exact_match']
    expect(folded).toMatchObject({ n: 6, head: 2 / 3, base: 1 })
  })

  it('lists the tools each model called instead, and the samples the models disagree on', () => {
    const metas = matrix(6, 2)
    const wrongTool = meta('worse', 's5', false)
    wrongTool.calls = [{ name: 'get_time', arguments: {} }]
    metas[metas.length - 1] = wrongTool
    const m = buildRunReport(metas, { testsPass: true }, options).models
    expect(m?.confusion).toEqual({ get_weather: { worse: { get_time: 1 } } })
    expect(m?.disagreements).toEqual({ total: 3, samples: ['s0', 's1', 's5'].map((id) => ({ sample: `weather > ${id}`, right: ['base'], wrong: ['worse'] })) })
  })
})

describe("describeEval's models options", () => {
  const provider = { id: 'p', generate: async () => ({ text: '' }) } as unknown as ModelProvider
  const data = [{ id: 'a', messages: [], expected: [] }]

  it('keeps the order given and takes the first key as the reference unless told', () => {
    expect(planMatrix('w', { data, models: { b: provider, a: provider } })?.reference).toBe('b')
    expect(planMatrix('w', { data, models: { b: provider, a: provider }, reference: 'a' })?.models.map((m) => m.key)).toEqual(['b', 'a'])
    expect(planMatrix('w', { data, model: provider })).toBeUndefined()
  })

  it('refuses model with models, an unknown reference (with did-you-mean), a name with `>`, a non-provider', () => {
    expect(() => planMatrix('w', { data, model: provider, models: { a: provider } })).toThrow('give `model` or `models`, not both')
    expect(() => planMatrix('w', { data, models: { base: provider }, reference: 'bse' })).toThrow('did you mean `base`?')
    expect(() => planMatrix('w', { data, models: { 'a > b': provider } })).toThrow('cannot name a model')
    expect(() => planMatrix('w', { data, models: { a: {} as ModelProvider } })).toThrow('`models.a` must be a provider')
    expect(() => planMatrix('w', { data, models: {} })).toThrow('names no model')
    expect(() => planMatrix('w', { data, model: provider, reference: 'a' })).toThrow('there is no `models`')
  })
})
