// The baseline comparison (src/reporter/compare/) on synthetic per-sample outcomes: verdicts, Holm, mustPass,
// added/removed, clustering, fractional metrics, trials, the sidecar round trip, the calls hash and the Markdown;
// comparisons that cannot be made (incomparable) and samples files that cannot be trusted, refused with a reason.
import { describe, expect, it } from 'vitest'
import { callsHash } from '../../../src/eval/calls-hash.js'
import { compareRuns, MAX_DETAILS } from '../../../src/reporter/compare/compare.js'
import { cachedLookup, isRight, sampleValues, type SampleOutcome } from '../../../src/reporter/compare/outcomes.js'
import { parseOutcomes, parseSamplesFile, serialiseOutcomes } from '../../../src/reporter/compare/samples-file.js'
import { renderComparisonMarkdown, renderComparisonText } from '../../../src/reporter/compare/render.js'
import { metaDifferences } from '../../../src/reporter/compare/run-meta.js'
import { gateMde, gatePower } from '../../../src/score/power.js'
import { studentQuantile, studentUpperTail } from '../../../src/score/stats.js'
import { binomialTailHalf } from '../../helpers/binomial.js'

/** An outcome whose name_correct and args_exact_match are `right` (0/1). */
function outcome(id: string, right: boolean, suite = 'weather', extra: Partial<SampleOutcome> = {}): SampleOutcome {
  const v = right ? 1 : 0
  return { suite, id, values: { name_correct: v, args_exact_match: v }, failures: right ? [] : ['wrong_name'], ...extra }
}

/** n samples; `wrong` lists the indices that are wrong. */
function run(n: number, wrong: Iterable<number>, suite = 'weather'): SampleOutcome[] {
  const bad = new Set(wrong)
  return Array.from({ length: n }, (_, i) => outcome(`s${i}`, !bad.has(i), suite))
}

const range = (a: number, b: number) => Array.from({ length: b - a }, (_, i) => a + i)

describe('compareRuns verdicts', () => {
  it('a seeded drop of 12 of 100 is regressed, with the exact McNemar p-value, and fails', () => {
    const c = compareRuns({ outcomes: run(100, range(0, 5)) }, { outcomes: run(100, range(0, 17)) })
    const m = c.metrics['name_correct']!
    expect(m.verdict).toBe('regressed')
    expect(m.discordant).toEqual({ regressed: 12, improved: 0 })
    expect(m.test).toBe('mcnemar')
    expect(m.pValue).toBeCloseTo(binomialTailHalf(12, 12), 15)
    expect(m.base).toBeCloseTo(0.95, 12)
    expect(m.head).toBeCloseTo(0.83, 12)
    expect(m.delta).toBeCloseTo(-0.12, 12)
    expect(m.ci[0]).toBeLessThan(-0.12)
    expect(m.ci[1]).toBeLessThan(0)
    expect(c.pass).toBe(false)
    expect(c.samples.regressed).toHaveLength(12)
    expect(c.samples.regressed[0]).toBe('weather > s10')
  })

  it('the same number of flips in both directions is unchanged and passes', () => {
    const c = compareRuns({ outcomes: run(100, range(0, 10)) }, { outcomes: run(100, [...range(5, 10), ...range(50, 55)]) })
    const m = c.metrics['name_correct']!
    expect(m.delta).toBe(0)
    expect(m.verdict).toBe('unchanged')
    expect(m.discordant).toEqual({ regressed: 5, improved: 5 })
    expect(c.pass).toBe(true)
    expect(c.samples.improved).toHaveLength(5)
  })

  it('a drop over minDrop that is significant only before the correction is inconclusive and passes', () => {
    // 6 down, 0 up of 50 in each of four suites, one metric gated: p = 1/64 in each suite, out of the family
    // (Tarone: minimum p 1/64 > α/5), but the evidence is there before the correction: a warning.
    const suites = ['a', 'b', 'c', 'd']
    const c = compareRuns({ outcomes: suites.flatMap((x) => run(50, [], x)) }, { outcomes: suites.flatMap((x) => run(50, range(0, 6), x)) }, { metrics: ['args_exact_match'] })
    expect(c.suites['a']!.metrics['args_exact_match']!.pValue).toBeCloseTo(1 / 64, 15)
    expect(c.suites['a']!.metrics['args_exact_match']!.verdict).toBe('inconclusive')
    expect(c.suites['a']!.metrics['args_exact_match']!.inFamily).toBe(false)
    // Overall, 24 of 200 one way (minimum p 2^-24) is in the family and significant.
    expect(c.metrics['args_exact_match']!.verdict).toBe('regressed')
    // 3 down of 50 (p = 1/8): too few flips to test, and no evidence: unchanged, with a note saying why.
    const few = compareRuns({ outcomes: run(50, []) }, { outcomes: run(50, [1, 2, 3]) }).metrics['args_exact_match']!
    expect(few.pValue).toBeCloseTo(1 / 8, 15)
    expect(few.verdict).toBe('unchanged')
    expect(few.note).toMatch(/smallest p-value possible is 0\.13/)
  })

  it('the family: α split over the gated metrics, overall first, then the suites that can reject (Tarone)', () => {
    // Suite a: 8 down (p = 1/256); suite b: no change. Default gate: name_correct and args_exact_match (primary),
    // each α/2, overall first; b has no discordant pair (it cannot reject), so a gets its metric's whole share.
    const base = [...run(40, [], 'a'), ...run(40, [], 'b')]
    const head = [...run(40, range(0, 8), 'a'), ...run(40, [], 'b')]
    const c = compareRuns({ outcomes: base }, { outcomes: head }, { alpha: 0.05, minDrop: 0.02 })
    expect(c.options.metrics).toEqual(['name_correct', 'args_exact_match'])
    const a = c.suites['a']!.metrics['args_exact_match']!
    expect(a.pValue).toBeCloseTo(1 / 256, 15)
    // args_exact_match's share is 2/3 (twice name_correct's): 1/256 ÷ 2/3, overall then suite a.
    expect(a.pAdjusted).toBeCloseTo(1.5 / 256, 12)
    expect(a.inFamily).toBe(true)
    expect(a.verdict).toBe('regressed')
    expect(c.suites['b']!.metrics['args_exact_match']!.inFamily).toBe(false)
    expect(c.power).toMatchObject({ metric: 'args_exact_match', family: 2, level: expect.closeTo(0.05 * (2 / 3), 15) })
    // One gated metric: two tests.
    const one = compareRuns({ outcomes: base }, { outcomes: head }, { metrics: ['args_exact_match'] })
    // One gated metric: overall first at α, then suite a (b cannot reject) with all of it: 1/256 each.
    expect(one.suites['a']!.metrics['args_exact_match']!.pAdjusted).toBeCloseTo(1 / 256, 12)
    expect(one.metrics['name_correct']!.gated).toBe(false)
    // 6 down: args_exact_match overall (1/64 at 2α/3) first, then suite a with its share: 1.5/64; then name_correct
    // has all of α: 1/64, held to the running maximum (Holm over four tests could not reject at all: 1/64 > α/4).
    const six = compareRuns({ outcomes: base }, { outcomes: [...run(40, range(0, 6), 'a'), ...run(40, [], 'b')] })
    expect(six.suites['a']!.metrics['args_exact_match']!.pAdjusted).toBeCloseTo(1.5 / 64, 12)
    expect(six.suites['a']!.metrics['name_correct']!.pAdjusted).toBeCloseTo(1.5 / 64, 12)
    expect(six.pass).toBe(false)
  })

  it('each gated metric is tested for itself: a rise in name_correct never hides a drop in args_exact_match', () => {
    // 400 samples: 20 go from a wrong name to the right name with wrong arguments (name_correct +5 points), 20 from
    // wholly right to wrong arguments (args_exact_match -5 points). Summed per sample the two cancel exactly.
    const v = (name: number, args: number) => ({ name_correct: name, args_exact_match: args })
    const base = range(0, 400).map((i): SampleOutcome => ({ suite: 'x', id: `s${i}`, values: i < 20 ? v(0, 0) : v(1, 1), failures: [] }))
    const head = range(0, 400).map((i): SampleOutcome => ({ suite: 'x', id: `s${i}`, values: i < 20 ? v(1, 0) : i < 40 ? v(1, 0) : v(1, 1), failures: [] }))
    const c = compareRuns({ outcomes: base }, { outcomes: head })
    const args = c.metrics['args_exact_match']!
    expect(args.pValue).toBeCloseTo(binomialTailHalf(20, 20), 15)
    expect(args.pAdjusted).toBeCloseTo(1.5 * binomialTailHalf(20, 20), 12)
    expect(args.verdict).toBe('regressed')
    expect(c.metrics['name_correct']!.verdict).toBe('improved')
    expect(c.pass).toBe(false)
  })

  it('a lone suite is not tested twice, and metrics without discordance do not dilute the family', () => {
    // 200 samples, 6 one-way flips (p = 1/64): two gated metrics, one scope, 2α/3 for args_exact_match. With 12
    // tests (6 metrics × overall and suite) Holm needed 8 flips.
    const c = compareRuns({ outcomes: run(200, []) }, { outcomes: run(200, range(0, 6)) })
    const m = c.metrics['args_exact_match']!
    expect(m.pValue).toBeCloseTo(1 / 64, 15)
    expect(m.pAdjusted).toBeCloseTo(1.5 / 64, 15)
    expect(m.verdict).toBe('regressed')
    expect(c.suites['weather']!.metrics['args_exact_match']).toEqual(m)
    expect(c.power!.family).toBe(2)
    const one = compareRuns({ outcomes: run(200, []) }, { outcomes: run(200, range(0, 6)) }, { metrics: ['args_exact_match'] })
    expect(one.metrics['args_exact_match']!.pAdjusted).toBeCloseTo(1 / 64, 15)
    expect(one.power!.family).toBe(1)
  })

  it('dialogues are tested as clusters: 5 of 30 six-turn dialogues wholly wrong, 2 wholly right is no regression', () => {
    const dialogues = (wrong: Set<number>) => range(0, 30).flatMap((d) => range(1, 7).map((k) => outcome(`d${d}#${k}`, !wrong.has(d))))
    const base = dialogues(new Set([10, 11]))
    const head = dialogues(new Set([0, 1, 2, 3, 4]))
    for (const metrics of [undefined, ['name_correct']]) {
      const c = compareRuns({ outcomes: base }, { outcomes: head }, metrics ? { metrics } : {})
      const m = c.metrics['name_correct']!
      expect(m.delta).toBeCloseTo(-0.1, 12)
      expect(m.test).toBe('sign-flip')
      expect(m.clusters).toBe(30)
      // Seven dialogues changed: P(at least 5 of 7 negative) = 29/128 (turns as samples gave p = 0.047).
      expect(m.pValue).toBeCloseTo(29 / 128, 15)
      expect(m.verdict).toBe('unchanged')
      expect(c.pass).toBe(true)
    }
  })

  it('more than 16 changed dialogues: the clustered paired t with G - 1 degrees of freedom', () => {
    // 40 dialogues of 3 turns: 14 wholly wrong in head only, 4 wholly right in head only.
    const dialogues = (wrong: Set<number>) => range(0, 40).flatMap((d) => range(1, 4).map((k) => outcome(`d${d}#${k}`, !wrong.has(d))))
    const c = compareRuns({ outcomes: dialogues(new Set(range(30, 34))) }, { outcomes: dialogues(new Set(range(0, 14))) })
    const m = c.metrics['args_exact_match']!
    expect(m.test).toBe('clustered-t')
    const sums = [...Array(14).fill(-3), ...Array(4).fill(3), ...Array(22).fill(0)]
    const delta = sums.reduce((a, b) => a + b, 0) / 120
    const se = Math.sqrt((40 / 39) * sums.reduce((a, x) => a + (x - 3 * delta) ** 2, 0)) / 120
    expect(m.delta).toBeCloseTo(delta, 12)
    expect(m.pValue).toBeCloseTo(studentUpperTail(-delta / se, 39), 12)
    expect(m.ci[1] - m.ci[0]).toBeCloseTo(2 * studentQuantile(0.975, 39) * se, 12)
  })

  it('one cluster cannot be tested: inconclusive with a note, never regressed, the interval every difference', () => {
    const turn = (k: number, precision: number): SampleOutcome => ({ suite: 'd', id: `dialogue#${k}`, values: { args_field_precision: precision }, failures: [] })
    const c = compareRuns({ outcomes: range(1, 5).map((k) => turn(k, 1)) }, { outcomes: [turn(1, 0.5), turn(2, 1), turn(3, 1), turn(4, 1)] })
    const m = c.metrics['args_field_precision']!
    expect(m.delta).toBeCloseTo(-0.125, 12)
    expect(m.verdict).toBe('inconclusive')
    expect(m.pValue).toBe(0.5)
    expect(m.ci).toEqual([-1, 1])
    expect(m.mde).toBeNull()
    expect(m.note).toMatch(/one cluster/)
    expect(c.pass).toBe(true)
  })

  it('a drop over minDrop with no evidence even before correction is unchanged, not a warning', () => {
    // 12 down, 6 up of 200: -3 points, p = P(X ≥ 12 | 18) = 0.119: noise of this size warned on 27% of runs.
    const c = compareRuns({ outcomes: run(200, range(100, 106)) }, { outcomes: run(200, range(0, 12)) })
    const m = c.metrics['args_exact_match']!
    expect(m.delta).toBeCloseTo(-0.03, 12)
    expect(m.pValue).toBeCloseTo(binomialTailHalf(12, 18), 15)
    expect(m.verdict).toBe('unchanged')
  })

  it('the MDE is the gate\'s own: at the corrected level, with minDrop and McNemar\'s discreteness', () => {
    const c = compareRuns({ outcomes: run(200, range(100, 130)) }, { outcomes: run(200, range(115, 145)) }, { metrics: ['name_correct', 'args_exact_match'] })
    const m = c.metrics['args_exact_match']!
    // Two gated metrics, one scope: args_exact_match's overall test is held to its share, 2α/3.
    const level = 0.05 * (2 / 3)
    expect(m.mdeLevel).toBeCloseTo(level, 15)
    expect(c.metrics['name_correct']!.mdeLevel).toBeCloseTo(0.05 / 3, 15)
    const design = { n: 200, clusters: 200, mcnemar: true, discordance: 30 / 200, se: 0, rate: m.base }
    expect(m.mde).toBeCloseTo(gateMde(design, level, 0.02)!, 12)
    expect(gatePower(design, m.mde!, level, 0.02)).toBeGreaterThanOrEqual(0.8)
    // A constant metric: the floor is the flips that reach α/2 one way (6 of 200 = 3 points), not 1.2 points.
    const constant = compareRuns({ outcomes: run(200, []) }, { outcomes: run(200, []) }).metrics['args_exact_match']!
    expect(constant.mde!).toBeGreaterThanOrEqual(0.025)
  })

  it('mustPass travels in the options too (the fourth parameter still works)', () => {
    const c = compareRuns({ outcomes: run(100, []) }, { outcomes: run(100, [8]) }, { mustPass: ['weather > s8'] })
    expect(c.mustPassFailed).toEqual(['weather > s8'])
    expect(c.pass).toBe(false)
  })

  it('a significant drop under minDrop is unchanged', () => {
    const c = compareRuns({ outcomes: run(2000, []) }, { outcomes: run(2000, range(0, 30)) }, { minDrop: 0.02 })
    expect(c.metrics['name_correct']!.pValue).toBeLessThan(1e-8)
    expect(c.metrics['name_correct']!.verdict).toBe('unchanged')
  })

  it('mustPass flips fail whatever the statistics: from the sample line, or listed by id', () => {
    const base = run(100, [])
    const head = run(100, [7])
    head[7]!.mustPass = true
    const c = compareRuns({ outcomes: base }, { outcomes: head })
    expect(c.metrics['name_correct']!.verdict).toBe('unchanged')
    expect(c.mustPassFailed).toEqual(['weather > s7'])
    expect(c.pass).toBe(false)
    const byOption = compareRuns({ outcomes: base }, { outcomes: run(100, [8]) }, {}, ['weather > s8'])
    expect(byOption.mustPassFailed).toEqual(['weather > s8'])
    expect(compareRuns({ outcomes: base }, { outcomes: run(100, [8]) }, {}, ['s8']).pass).toBe(false)
    expect(compareRuns({ outcomes: base }, { outcomes: run(100, [8]) }, {}, ['s9']).pass).toBe(true)
  })

  it('pairs the same whatever order the outcomes come in (a sidecar is sorted; other input may not be)', () => {
    const base = run(30, range(0, 3))
    const head = run(30, range(0, 9))
    const sorted = compareRuns({ outcomes: base }, { outcomes: head })
    const shuffled = compareRuns({ outcomes: [...base].reverse() }, { outcomes: [...head.slice(15), ...head.slice(0, 15)] })
    expect(shuffled.metrics).toEqual(sorted.metrics)
    expect(shuffled.samples).toEqual(sorted.samples)
  })

  it('added and removed samples are listed apart and left out of the tests', () => {
    const base = [...run(20, []), outcome('gone', false)]
    const head = [...run(20, []), outcome('new', false)]
    const c = compareRuns({ outcomes: base }, { outcomes: head })
    expect(c.samples.added).toEqual(['weather > new'])
    expect(c.samples.removed).toEqual(['weather > gone'])
    expect(c.metrics['name_correct']!.n).toBe(20)
    expect(c.metrics['name_correct']!.head).toBe(1)
  })

  it('turns of one dialogue (id#k) are a cluster: the interval widens', () => {
    const dialogue = (wrong: Set<string>) => range(0, 10).flatMap((d) => [1, 2, 3].map((k) => outcome(`d${d}#${k}`, !wrong.has(`d${d}`))))
    const c = compareRuns({ outcomes: dialogue(new Set()) }, { outcomes: dialogue(new Set(['d1', 'd2'])) })
    const m = c.metrics['name_correct']!
    // Independent samples would give sd/sqrt(n); three perfectly correlated turns widen it.
    const d = [...Array(6).fill(-1), ...Array(24).fill(0)]
    const mean = -6 / 30
    const sd = Math.sqrt(d.reduce((a, x) => a + (x - mean) ** 2, 0) / 29)
    expect(m.ci[1] - m.ci[0]).toBeGreaterThan(2 * 1.959963985 * (sd / Math.sqrt(30)))
  })

  it('fractional values use the clustered paired t-test; trials are averaged per sample', () => {
    const mk = (id: string, v: number, trial?: number): SampleOutcome => ({ suite: 'j', id, values: { 'judge.helpful': v }, failures: [], ...(trial === undefined ? {} : { trial }) })
    const base = range(0, 30).map((i) => mk(`s${i}`, 0.8))
    const head = range(0, 30).flatMap((i) => [mk(`s${i}`, 0.5, 0), mk(`s${i}`, 0.7, 1)])
    const c = compareRuns({ outcomes: base }, { outcomes: head })
    const m = c.metrics['judge.helpful']!
    expect(m.test).toBe('paired-t')
    expect(m.n).toBe(30)
    expect(m.head).toBeCloseTo(0.6, 12)
    expect(m.verdict).toBe('regressed')
  })

  it('usage means are compared over paired samples that have them', () => {
    const base = run(4, []).map((o, i) => ({ ...o, usage: { completionTokens: 10 + i } }))
    const head = run(4, []).map((o, i) => ({ ...o, usage: { completionTokens: 20 + i } }))
    const c = compareRuns({ outcomes: base }, { outcomes: head })
    expect(c.usage['completionTokens']).toEqual({ base: 11.5, head: 21.5, delta: 10, n: 4 })
  })

  it('with trials, a usage field is a sample\'s mean only when every evaluated trial reported it, never a short sum', () => {
    const trials = (costs: (number | undefined)[][]) =>
      costs.flatMap((c, i) => c.map((cost, t) => outcome(`s${i}`, true, 'weather', { trial: t, usage: cost === undefined ? { latencyMs: 10 } : { latencyMs: 10, costUsd: cost } })))
    // s1's second trial reported no cost: its mean is unknown, not 0.01 / 3. A skipped trial counts for nothing.
    const base = trials([[0.01, 0.01, 0.01], [0.01, 0.01, 0.01]])
    const head = [...trials([[0.02, 0.02, 0.02], [0.02, undefined, 0.02]]), { ...outcome('s0', true), trial: 3, values: {}, skipped: true as const }]
    const c = compareRuns({ outcomes: base }, { outcomes: head })
    expect(c.usage['costUsd']!.n).toBe(1)
    expect(c.usage['costUsd']!.head).toBeCloseTo(0.02, 12)
    expect(c.usage['costUsd']!.base).toBeCloseTo(0.01, 12)
    expect(c.usage['latencyMs']).toEqual({ base: 10, head: 10, delta: 0, n: 2 })
  })
})

describe('the samples sidecar', () => {
  it('round-trips outcomes (values by metric name, flags, usage, calls)', () => {
    const list: SampleOutcome[] = [
      { suite: 'b', id: 'x', values: { no_call_accuracy: 0 }, failures: ['unexpected_call'], callsHash: 'abc', expected: '(no call)', calls: 'f({})', mustPass: true },
      { suite: 'a', id: 'y', values: { name_correct: 1, 'units.celsius': 0.5 }, failures: [], trial: 2, usage: { latencyMs: 12 }, cacheHit: true },
      { suite: 'a', id: 'z', values: {}, failures: [], errored: true },
    ]
    const text = serialiseOutcomes(list)
    expect(text.split('\n')[0]).toContain('"format":"tool-evals-samples"')
    const back = parseOutcomes(text)
    expect(back.map((o) => o.id)).toEqual(['y', 'z', 'x'])
    expect(back[2]).toEqual(list[0])
    expect(back[0]).toEqual(list[1])
    expect(back[1]).toEqual(list[2])
  })

  it('a malformed line names the file and line', () => {
    expect(() => parseOutcomes('{"format":"tool-evals-samples","v":2,"runId":"r","samples":1,"metrics":[]}\n{"s":1}\n', 'r.samples.jsonl')).toThrow(/r\.samples\.jsonl:2: .*"s"/)
    expect(() => parseOutcomes('{"a":1}\n', 'r.samples.jsonl')).toThrow(/r\.samples\.jsonl:1: not a tool-evals samples file/)
  })

  it('per-sample values come from the record for NeMo and any scorer (a user scorer as a mean of one)', () => {
    const lookup = cachedLookup()
    const values = sampleValues(
      {
        id: 'w',
        score: { expected: 1, predicted: 1, metrics: { has_call: 1, name_correct: 1, args_json_valid: 1, args_field_precision: 0.5, args_field_recall: 1, args_exact_match: 0 }, positions: [], failures: ['wrong_arguments'] },
        scores: { units: { celsius: true, has_city: 0.25 } },
      },
      lookup,
    )
    expect(values).toMatchObject({ name_correct: 1, args_field_precision: 0.5, args_exact_match: 0, 'units.celsius': 1, 'units.has_city': 0.25 })
    const errored = sampleValues({ id: 'e', error: 'boom', score: { expected: 0, predicted: 0, metrics: {} as never, positions: [], failures: [] }, scores: { units: { celsius: 1 } } }, lookup)
    expect(errored).toEqual({ no_call_accuracy: 0, 'units.celsius': 0 })
    // Under trials with `mean`, the share of trials right, as the report's rate counts it (not pass^k).
    const share = sampleValues({ id: 'n', score: { expected: 0, predicted: 1, noCallCorrect: false, noCallShare: 2 / 3, metrics: {} as never, positions: [], failures: [] } }, lookup)
    expect(share['no_call_accuracy']).toBeCloseTo(2 / 3, 15)
    // Issue 20's reproduction: under trials 3 the report's rate rises 0.50 → 0.67; the gate compared pass^3
    // (every trial right: 0.50 → 0) and failed. Now it compares the shares the report averages.
    const noCall = (i: number, s: number | undefined): SampleOutcome => ({
      suite: 'n',
      id: `q${i}`,
      values: sampleValues({ id: `q${i}`, score: { expected: 0, predicted: s === 1 ? 0 : 1, noCallCorrect: s === 1, ...(s !== undefined && s > 0 && s < 1 ? { noCallShare: s } : {}), metrics: {} as never, positions: [], failures: [] } }, lookup),
      failures: [],
    })
    const c = compareRuns({ outcomes: range(0, 12).map((i) => noCall(i, i % 2)) }, { outcomes: range(0, 12).map((i) => noCall(i, 2 / 3)) })
    expect(c.metrics['no_call_accuracy']).toMatchObject({ base: 0.5, verdict: 'unchanged' })
    expect(c.metrics['no_call_accuracy']!.head).toBeCloseTo(2 / 3, 12)
    expect(c.pass).toBe(true)
    expect(isRight({ suite: 's', id: 'e', values: errored, failures: [], errored: true })).toBe(false)
  })
})

describe('calls hash', () => {
  it('ignores key order, parallel call order, call ids and number spelling; sees a changed value', () => {
    const a = callsHash([
      { name: 'f', arguments: { a: 1, b: { c: 0.30000000000000004, d: [1, 2] } } },
      { name: 'g', arguments: { x: 'y' } },
    ])
    const b = callsHash([
      { name: 'g', arguments: { x: 'y' }, id: 'call_9' } as never,
      { name: 'f', arguments: { b: { d: [1, 2], c: 0.3 }, a: 1.0 } },
    ])
    expect(a).toBe(b)
    expect(a).toMatch(/^[0-9a-f]{16}$/)
    expect(callsHash([{ name: 'f', arguments: { a: 2, b: { c: 0.3, d: [1, 2] } } }, { name: 'g', arguments: { x: 'y' } }])).not.toBe(a)
    expect(callsHash([{ name: 'f', arguments: { b: { c: 0.3, d: [2, 1] }, a: 1 } }, { name: 'g', arguments: { x: 'y' } }])).not.toBe(a)
  })
})

describe('the pull-request comment', () => {
  it('leads with the verdict, caps long lists and says how many more', () => {
    const c = compareRuns({ outcomes: run(10_000, []) }, { outcomes: run(10_000, range(0, 500)) })
    const md = renderComparisonMarkdown(c, { maxSamples: 20, now: new Date() })
    expect(md.split('\n')[0]).toBe('## Tool evals vs baseline: ❌ regressed')
    expect(md).toContain('… and 480 more')
    expect(md).toMatch(/\| ❌ \| args\\_exact\\_match \| 100\.0% → 95\.0% \| −5\.0 pts \[/)
    expect(md.length).toBeLessThan(20_000)
    expect(Object.keys(c.details)).toHaveLength(MAX_DETAILS)
  })
})

describe('only a gated verdict gets the red mark, and every p-value names its adjustment', () => {
  it('a metric not gated that dropped reads "dropped (not gated)" in Markdown and the terminal, with one legend', () => {
    // name_correct gated and unchanged; args_exact_match not gated, 20 of 200 newly wrong (unadjusted p < 1e-6).
    const base = run(200, [])
    const head = run(200, []).map((o, i) => (i < 20 ? { ...o, values: { name_correct: 1, args_exact_match: 0 } } : o))
    const c = compareRuns({ outcomes: base }, { outcomes: head }, { metrics: ['name_correct'] })
    expect(c.pass).toBe(true)
    const md = renderComparisonMarkdown(c)
    const row = md.split('\n').find((l) => l.includes('args\\_exact\\_match'))!
    expect(row).not.toContain('❌')
    expect(row).toMatch(/\(not gated\)/)
    expect(row).toMatch(/\(unadj\.\)/)
    expect(md).toMatch(/\(gate-adj\.\): the p-value adjusted/)
    expect(md).not.toContain('(Holm)')
    const text = renderComparisonText(c)
    const line = text.split('\n').find((l) => l.includes('args_exact_match'))!
    expect(line.trimStart()).toMatch(/^dropped +args_exact_match \(not gated\): /)
    expect(line).toContain('(unadj.)')
    expect(text.split('\n').find((l) => l.includes(' name_correct: '))).toContain('(gate-adj.)')
    expect(text).toContain('(gate-adj.): the p-value adjusted')
  })
})

describe('run metadata differences', () => {
  it('warns on changed data files, providers and tools, never counts them as regressions', () => {
    const meta = (file: string, provider = 'replay:x') => ({ time: '2026-01-01T00:00:00Z', version: '0.1.0', suites: { s: { provider, files: { 'data.jsonl': file }, tools: 't1' } } })
    expect(metaDifferences(meta('aaa'), meta('aaa'))).toEqual([])
    expect(metaDifferences(meta('aaa'), meta('bbb'))).toEqual(['s: data.jsonl differs (dataset or recording changed)'])
    expect(metaDifferences(meta('aaa'), meta('aaa', 'openai:y'))).toEqual(['s: provider replay:x → openai:y'])
  })
})

describe('comparisons that cannot be made fail, with a reason', () => {
  const right = run(50, [])
  const wrong = run(50, range(0, 50))

  it('a control: the same runs, all samples right → wrong, regress', () => {
    const c = compareRuns({ outcomes: right }, { outcomes: wrong })
    expect(c.incomparable).toEqual([])
    expect(c.pass).toBe(false)
    expect(c.metrics['name_correct']!.verdict).toBe('regressed')
  })

  it('no shared sample (another dataset or suite)', () => {
    for (const base of [run(50, [], 'other'), right.map((o) => ({ ...o, id: `x${o.id}` }))]) {
      const c = compareRuns({ outcomes: base }, { outcomes: wrong })
      expect(c.pass).toBe(false)
      expect(c.incomparable).toEqual([expect.stringMatching(/^no sample is in both runs .*baseline 50, this run 50/)])
      expect(c.metrics).toEqual({})
    }
  })

  it('a metric the baseline measured that this run does not (renamed), unless the gated metrics leave it out', () => {
    const renamed = right.map((o) => ({ ...o, values: { name_ok: 1, args_exact_match: 1 } }))
    const c = compareRuns({ outcomes: renamed }, { outcomes: wrong })
    expect(c.pass).toBe(false)
    expect(c.incomparable).toEqual([expect.stringMatching(/^metric name_ok is in the baseline but not measured in this run/)])
    expect(c.warnings).toContain('metric name_correct is new in this run (not in the baseline): not compared')
    // Gating only args_exact_match: the renamed metric is a warning, and the real regression still fails.
    const only = compareRuns({ outcomes: renamed }, { outcomes: wrong }, { metrics: ['args_exact_match'] })
    expect(only.incomparable).toEqual([])
    expect(only.warnings).toContain('metric name_ok is in the baseline but not in this run (not gated)')
    expect(only.pass).toBe(false)
  })

  it('a gated metric missing on either side', () => {
    const noExact = right.map((o) => ({ ...o, values: { name_correct: 1 } }))
    const c = compareRuns({ outcomes: noExact }, { outcomes: right }, { metrics: ['name_correct', 'args_exact_match', 'units.celsius'] })
    expect(c.incomparable).toEqual(['gated metric args_exact_match: the baseline did not measure it', 'gated metric units.celsius: the baseline did not measure it'])
    expect(c.pass).toBe(false)
    const headLacks = compareRuns({ outcomes: right }, { outcomes: noExact }, { metrics: ['args_exact_match'] })
    expect(headLacks.incomparable).toEqual(['gated metric args_exact_match: this run did not measure it'])
  })

  it('a baseline whose paired samples all errored, or none was evaluated; some errored is a warning', () => {
    const errored = right.map((o) => ({ ...o, values: { name_correct: 0, args_exact_match: 0 }, failures: [], errored: true as const }))
    const c = compareRuns({ outcomes: errored }, { outcomes: wrong })
    expect(c.incomparable).toEqual(['all 50 paired baseline samples errored: no drop can be seen against them'])
    expect(c.pass).toBe(false)
    const skipped = right.map((o) => ({ ...o, values: {}, skipped: true as const }))
    expect(compareRuns({ outcomes: skipped }, { outcomes: wrong }).incomparable[0]).toBe('none of the 50 paired baseline samples was evaluated (all skipped)')
    const some = compareRuns({ outcomes: [...errored.slice(0, 5), ...right.slice(5)] }, { outcomes: right })
    expect(some.incomparable).toEqual([])
    expect(some.warnings).toContain('5 of 50 paired baseline samples errored: they cannot show a regression')
    expect(some.pass).toBe(true)
  })

  it('samples the baseline scored and this run skipped or errored on are not comparable: never a pass', () => {
    const base = run(100, [])
    // 30 skipped by policy (no values), the rest right: the paired metrics alone show no drop at all.
    const skipping = base.map((o, i) => (i < 30 ? { ...o, values: {}, failures: [], skipped: true as const, mustPass: true as const } : o))
    const c = compareRuns({ outcomes: base }, { outcomes: skipping })
    expect(c.metrics['name_correct']).toMatchObject({ n: 70, delta: 0, verdict: 'unchanged' })
    expect(c.samples.headSkipped).toEqual(range(0, 30).map((i) => `weather > s${i}`).sort())
    expect(c.samples.regressed).toEqual([]) // not known to be wrong: listed as not compared instead
    expect(c.mustPassFailed).toEqual([])
    expect(c.incomparable).toEqual([`30 sample(s) the baseline scored were skipped in this run (by policy, e.g. maxPromptTokens), so they cannot be compared: ${c.samples.headSkipped.slice(0, 5).join(', ')} and 25 more`])
    expect(c.pass).toBe(false)
    expect(renderComparisonText(c)).toMatch(/^tool-evals baseline comparison: FAIL \(not comparable\)\n  not comparable: 30 sample\(s\)[^]*30 skipped in this run \(not compared\)/)
    expect(renderComparisonMarkdown(c)).toMatch(/^## Tool evals vs baseline: ❌ not comparable[^]*Skipped in this run \(not compared\) samples \(30\)/)
    // Two errored samples count as wrong in the metrics (too few to be significant) and still fail the comparison.
    const erroring = base.map((o, i) => (i < 2 ? { ...o, values: { name_correct: 0, args_exact_match: 0 }, failures: [], errored: true as const } : o))
    const e = compareRuns({ outcomes: base }, { outcomes: erroring })
    expect(e.metrics['name_correct']?.verdict).not.toBe('regressed')
    expect(e.samples.headErrored).toEqual(['weather > s0', 'weather > s1'])
    expect(e.samples.regressed).toEqual(['weather > s0', 'weather > s1'])
    expect(e.incomparable).toEqual(['2 sample(s) the baseline scored errored in this run, so they cannot be compared: weather > s0, weather > s1'])
    expect(e.pass).toBe(false)
    // One trial of three skipped is not a comparison on equal terms either; a sample the baseline did not score
    // (skipped or errored there too) is not one the head lost.
    const trials = (o: SampleOutcome[], skip: (i: number, t: number) => boolean) => o.flatMap((x, i) => [0, 1, 2].map((t) => (skip(i, t) ? { ...x, trial: t, values: {}, skipped: true as const } : { ...x, trial: t })))
    expect(compareRuns({ outcomes: trials(base, () => false) }, { outcomes: trials(base, (i, t) => i === 7 && t === 2) }).samples.headSkipped).toEqual(['weather > s7'])
    const alsoSkipped = compareRuns({ outcomes: skipping }, { outcomes: skipping })
    expect([alsoSkipped.samples.headSkipped, alsoSkipped.incomparable, alsoSkipped.pass]).toEqual([[], [], true])
  })

  it('a sample listed twice without distinct trials is refused, not folded as trials (either run)', () => {
    const twice = [...right, ...right]
    const c = compareRuns({ outcomes: twice }, { outcomes: wrong })
    expect(c.incomparable).toEqual([expect.stringMatching(/^samples listed more than once in the baseline: weather > s0, weather > s1, .* and 45 more$/)])
    expect(c.pass).toBe(false)
    const head = compareRuns({ outcomes: right }, { outcomes: [...right, outcome('s3', true)] })
    expect(head.incomparable).toEqual(['samples listed more than once in this run (two suites of one name?): weather > s3'])
    const sameTrial = [outcome('a', true, 'w', { trial: 0 }), outcome('a', true, 'w', { trial: 0 })]
    expect(compareRuns({ outcomes: sameTrial }, { outcomes: [outcome('a', true, 'w')] }).incomparable[0]).toMatch(/more than once in the baseline: w > a$/)
  })

  it('the text and the comment say "not comparable", never "no regression"', () => {
    const c = compareRuns({ outcomes: run(50, [], 'other') }, { outcomes: wrong })
    const md = renderComparisonMarkdown(c, { now: new Date() })
    expect(md.split('\n')[0]).toBe('## Tool evals vs baseline: ❌ not comparable')
    expect(md).toContain('- no sample is in both runs')
    expect(md).not.toContain('no regression')
  })
})

describe('a samples file that cannot be trusted is an error naming file, line and field', () => {
  const text = serialiseOutcomes([outcome('a', true), outcome('b', false), { suite: 'weather', id: 'c', values: { no_call_accuracy: 1 }, failures: [] }], 'run-1')
  const lines = text.trimEnd().split('\n')
  const edit = (i: number, f: (l: Record<string, any>) => void) => {
    const copy = [...lines]
    const l = JSON.parse(copy[i]!)
    f(l)
    copy[i] = JSON.stringify(l)
    return copy.join('\n') + '\n'
  }

  it('the header carries the run id and the number of sample lines; a null value is "not measured"', () => {
    const { header, outcomes } = parseSamplesFile(text, 'r.jsonl')
    expect(header).toEqual({ format: 'tool-evals-samples', v: 2, runId: 'run-1', samples: 3, metrics: ['name_correct', 'args_exact_match', 'no_call_accuracy'] })
    expect(JSON.parse(lines[3]!).v).toEqual([null, null, 1])
    expect(outcomes[2]!.values).toEqual({ no_call_accuracy: 1 })
  })

  it.each([
    ['a string value', 1, (l: any) => (l.v[0] = '1'), /r\.jsonl:2: field v\[0\] \(name_correct\): .*\[0, 1\].*got "1"/],
    ['a negative value', 1, (l: any) => (l.v[1] = -1), /r\.jsonl:2: field v\[1\] \(args_exact_match\): .*got -1/],
    ['a huge value', 1, (l: any) => (l.v[0] = 1e308), /r\.jsonl:2: field v\[0\].*got 1e\+308/],
    ['minus a huge value', 1, (l: any) => (l.v[0] = -1e308), /r\.jsonl:2: field v\[0\].*got -1e\+308/],
    ['all values null', 1, (l: any) => (l.v = [null, null]), /r\.jsonl:2: field v: an evaluated sample with no metric value/],
    ['more values than metrics', 1, (l: any) => (l.v = [1, 1, 1, 1]), /r\.jsonl:2: field v: 4 values, but the header names 3/],
    ['a trial index that is no count', 1, (l: any) => (l.t = 0.5), /r\.jsonl:2: field t:/],
    ['errored and skipped at once', 1, (l: any) => ((l.e = 1), (l.k = 1)), /r\.jsonl:2: fields e and k/],
    ['usage that is not a number', 1, (l: any) => (l.u = { latencyMs: 'x' }), /r\.jsonl:2: field u\.latencyMs/],
    ['a header without run id', 0, (l: any) => delete l.runId, /r\.jsonl:1: field runId/],
    ['a v1 header', 0, (l: any) => (l.v = 1), /r\.jsonl:1: samples format v1, written by an older vitest-tool-evals/],
  ])('%s', (_name, i, f, error) => {
    expect(() => parseSamplesFile(edit(i, f), 'r.jsonl')).toThrow(error)
  })

  it('a file cut at a line boundary, or only its header, disagrees with the header\'s count', () => {
    expect(() => parseSamplesFile(lines.slice(0, 2).join('\n') + '\n', 'r.jsonl')).toThrow('r.jsonl: 1 sample line(s), but its header says 3: the file was cut short or added to')
    expect(() => parseSamplesFile(lines[0] + '\n', 'r.jsonl')).toThrow(/r\.jsonl: 0 sample line\(s\), but its header says 3/)
  })

  it('a repeated sample is refused, not folded as a trial (even with the count fixed); trials with "t" are fine', () => {
    const header = JSON.parse(lines[0]!)
    const dup = [JSON.stringify({ ...header, samples: 4 }), lines[1], lines[1], lines[2], lines[3]].join('\n')
    expect(() => parseSamplesFile(dup, 'r.jsonl')).toThrow('r.jsonl:3: sample weather > a repeats line 2: a sample is written once')
    const untrialled = [JSON.stringify({ ...header, samples: 2 }), lines[1], edit(1, (l) => (l.t = 1)).split('\n')[1]].join('\n')
    expect(() => parseSamplesFile(untrialled, 'r.jsonl')).toThrow(/r\.jsonl:3: sample weather > a \(trial 1\) repeats line 2 \(only trials/)
    const trials = serialiseOutcomes([outcome('a', true, 'w', { trial: 0 }), outcome('a', false, 'w', { trial: 1 })], 'r')
    expect(parseSamplesFile(trials).outcomes.map((o) => o.trial)).toEqual([0, 1])
    const moved = [JSON.stringify(header), lines[2], lines[1], lines[3]].join('\n')
    expect(() => parseSamplesFile(moved, 'r.jsonl')).toThrow(/r\.jsonl:3: sample weather > a is out of order/)
  })

  it('text that is not JSON is named by line only, its content never quoted', () => {
    const err = (() => {
      try {
        parseSamplesFile('root:x:0:0:root:/root:/bin/bash\n', '/etc/passwd')
      } catch (e) {
        return (e as Error).message
      }
    })()
    expect(err).toBe('/etc/passwd:1: not JSON')
  })
})
