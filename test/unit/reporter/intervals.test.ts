// 95% intervals: Wilson's against published values, the clustered (design-effect) form against a hand computation,
// the report's metricIntervals clustered by dialogue, the HTML report taking them over, thresholds on the lower bound.
import { describe, expect, it } from 'vitest'
import { RunCollector } from '../../../src/reporter/collect.js'
import { htmlReportData } from '../../../src/reporter/html.js'
import { sampleMetricValues } from '../../../src/reporter/intervals.js'
import { buildReport } from '../../../src/reporter/report.js'
import { applyGate } from '../../../src/reporter/gate.js'
import { checkThresholds, describeThreshold, validateThresholds } from '../../../src/reporter/thresholds.js'
import { addCluster, clusterOf, clusteredWilson, designEffect, emptyClusterTotals, wilson, wilsonInterval } from '../../../src/score/intervals.js'
import { scoreSample } from '../../../src/score/nemo.js'
import type { SampleRecord } from '../../../src/score/types.js'

const gw = (city: string) => ({ name: 'get_weather', arguments: { city } })
const call = (city: string) => ({ name: 'get_weather', arguments: { city }, argumentsValid: true, format: 'test' })

/** A record right or wrong on every NeMo metric. */
function record(id: string, right: boolean, suite = 's'): SampleRecord {
  return { id, suite, score: scoreSample(right ? [call('Paris')] : [], [gw('Paris')]) }
}

/** Student's t 0.975 quantiles with 1 and 9 degrees of freedom (scipy.stats.t.ppf). */
const T975_1 = 12.706204736174694
const T975_9 = 2.262157162798205

/** Wilson's interval written out from the textbook formula (independent of the code under test). */
function textbook(p: number, n: number, z = 1.959963984540054): [number, number] {
  const a = p + (z * z) / (2 * n)
  const b = z * Math.sqrt((p * (1 - p) + (z * z) / (4 * n)) / n)
  return [(a - b) / (1 + (z * z) / n), (a + b) / (1 + (z * z) / n)]
}

describe('wilsonInterval', () => {
  // Newcombe (1998), "Two-sided confidence intervals for the single proportion", Table I, method 3 (score interval).
  it.each([
    [81, 263, 0.2553, 0.3662],
    [15, 148, 0.0624, 0.1605],
    [0, 20, 0, 0.1611],
    [1, 29, 0.0061, 0.1718],
  ])('%i/%i is [%f, %f] to four places', (x, n, lo, hi) => {
    const ci = wilsonInterval(x / n, n)!
    expect(ci.lo).toBeCloseTo(lo, 4)
    expect(ci.hi).toBeCloseTo(hi, 4)
  })

  it('is the same function the HTML report exports', async () => {
    const html = await import('../../../src/reporter/html.js')
    expect(html.wilsonInterval).toBe(wilsonInterval)
  })
})

describe('clustered intervals', () => {
  it('design effect from the cluster residuals with G/(G-1), floored at 1; t(G-1) for the quantile', () => {
    // Two clusters of two, one all right and one all wrong: p = 0.5, Σ (S − p·n)² = 1 + 1 = 2, N·p(1−p) = 1,
    // times G/(G-1) = 2: deff 4, effective size 1, on t with 1 degree of freedom.
    const t = emptyClusterTotals()
    addCluster(t, 2, 2)
    addCluster(t, 2, 0)
    expect(designEffect(t, 0.5)).toBeCloseTo(4, 12)
    const [lo, hi] = textbook(0.5, 1, T975_1)
    expect(clusteredWilson(t, 0.5)).toEqual([expect.closeTo(lo, 12), expect.closeTo(hi, 12)])
    // Clusters that disagree within themselves carry more information than independence: never narrower though.
    const mixed = emptyClusterTotals()
    addCluster(mixed, 2, 1)
    addCluster(mixed, 2, 1)
    expect(designEffect(mixed, 0.5)).toBe(1)
    // At p = 0 or 1 the effective size is the number of clusters.
    expect(designEffect(t, 1)).toBe(2)
    // Singletons only: the plain Wilson interval.
    const single = emptyClusterTotals()
    for (const x of [1, 0, 1, 1]) addCluster(single, 1, x)
    expect(clusteredWilson(single, 0.75)).toEqual(wilson(0.75, 4))
  })

  it('10 dialogues: the CR1 factor 10/9 and t(9) (a z interval covered 88-92% there), one dialogue: [0, 1]', () => {
    // Dialogues of 3 turns, 10 of them: sums 3,3,3,3,0,0,0,0,1,2 (N = 30, p = 15/30 = 0.5).
    const t = emptyClusterTotals()
    const sums = [3, 3, 3, 3, 0, 0, 0, 0, 1, 2]
    for (const s of sums) addCluster(t, 3, s)
    const residual = sums.reduce((a, s) => a + (s - 1.5) ** 2, 0) // 9 × 2.25 ... by hand: 4·2.25 + 4·2.25 + 0.25 + 0.25 = 18.5
    expect(residual).toBe(18.5)
    const deff = ((10 / 9) * residual) / (30 * 0.25)
    expect(designEffect(t, 0.5)).toBeCloseTo(deff, 12)
    const [lo, hi] = textbook(0.5, 30 / deff, T975_9)
    // To 1e-10: the t quantile is found by bisection on the incomplete beta.
    expect(clusteredWilson(t, 0.5)).toEqual([expect.closeTo(lo, 10), expect.closeTo(hi, 10)])
    const one = emptyClusterTotals()
    addCluster(one, 4, 3)
    expect(clusteredWilson(one, 0.75)).toEqual([0, 1])
  })

  it('groups the samples of one dialogue (`<id>#<k>`)', () => {
    expect(clusterOf('d1#3')).toBe('d1')
    expect(clusterOf('d1#x')).toBe('d1#x')
    expect(clusterOf('plain')).toBe('plain')
  })

  it("the report's metricIntervals cluster dialogue samples; metrics stay plain numbers; the HTML report uses them", () => {
    const build = (ids: string[]) => {
      const c = new RunCollector(0)
      ids.forEach((id, i) => c.add({ v: 1, record: record(id, i < 2) }))
      const overall = c.overallAggregate()
      const suites = c.suiteAggregates()
      return applyGate(buildReport(c, overall, suites, [], true))
    }
    const clustered = build(['d1#1', 'd1#2', 'd2#1', 'd2#2'])
    const independent = build(['a', 'b', 'c', 'd'])
    expect(clustered.metrics.name_correct).toBe(0.5)
    const [lo, hi] = textbook(0.5, 1, T975_1) // design effect 4 (2 × G/(G-1)): effective size 1, t(1)
    expect(clustered.metricIntervals?.['name_correct']).toEqual([expect.closeTo(lo, 12), expect.closeTo(hi, 12)])
    expect(clustered.suites['s']?.metricIntervals?.['name_correct']).toEqual(clustered.metricIntervals?.['name_correct'])
    const [ilo, ihi] = textbook(0.5, 4)
    expect(independent.metricIntervals?.['name_correct']).toEqual([expect.closeTo(ilo, 12), expect.closeTo(ihi, 12)])
    expect(clustered.metricIntervals?.['no_call_accuracy']).toBeNull()
    const cards = htmlReportData({ report: clustered, samples: [] }).cards
    expect(cards['name_correct']).toMatchObject({ value: 0.5, n: 4, lo: expect.closeTo(lo, 12), hi: expect.closeTo(hi, 12) })
  })

  it('per-sample values follow the rates: errored samples count 0, skipped ones nothing, user scorers by metric', () => {
    const errored: SampleRecord = { ...record('e', true), error: 'boom' }
    expect(sampleMetricValues(errored).get('name_correct')).toBe(0)
    expect(sampleMetricValues({ id: 'k', skipped: 'too long' }).size).toBe(0)
    const user: SampleRecord = { ...record('u', true), scores: { units: { celsius: 1, kelvin: false } } }
    const values = sampleMetricValues(user)
    expect(values.get('units.celsius')).toBe(1)
    expect(values.get('units.kelvin')).toBe(0)
  })
})

describe("thresholds on the interval's lower bound", () => {
  const c = new RunCollector(0)
  for (let i = 0; i < 10; i++) c.add({ v: 1, record: record(`x${i}`, i < 9) })
  const overall = c.overallAggregate()
  const suites = c.suiteAggregates()
  const intervals = {
    overall: c.intervals.overallIntervals(overall.metrics),
    suites: new Map([['s', c.intervals.suiteIntervals('s', suites.get('s')!.metrics)]]),
    tools: {},
  }

  it("a plain number keeps today's meaning; { min, on: 'lower' } checks the lower bound", () => {
    const [lower] = textbook(0.9, 10)
    const results = checkThresholds(
      validateThresholds({ name_correct: 0.85, has_call: { min: 0.85, on: 'lower' }, suites: { s: { args_exact_match: { min: 0.5, on: 'lower' } } } }),
      overall,
      suites,
      { intervals },
    )
    expect(results[0]).toEqual({ metric: 'name_correct', min: 0.85, actual: 0.9, pass: true })
    expect(results[1]).toEqual({ metric: 'has_call', min: 0.85, actual: 0.9, pass: false, on: 'lower', lower: expect.closeTo(lower, 12) })
    expect(results[2]).toMatchObject({ metric: 'args_exact_match', suite: 's', pass: true, on: 'lower' })
    expect(describeThreshold(results[1]!)).toBe(`has_call: lower 95% bound ${lower.toFixed(3)} < required 0.850 (rate 0.900)`)
  })

  it('rejects malformed threshold objects by path', () => {
    expect(() => validateThresholds({ name_correct: { min: 0.9, on: 'upper' } })).toThrow(/`thresholds.name_correct.on` must be 'value' or 'lower'/)
    expect(() => validateThresholds({ name_correct: { minimum: 0.9 } })).toThrow(/`thresholds.name_correct.minimum`: unknown field/)
    expect(() => validateThresholds({ tools: { t: { name_correct: { min: 2 } } } })).toThrow(/`thresholds.tools.t.name_correct.min` must be a number in \[0, 1\]/)
  })
})
