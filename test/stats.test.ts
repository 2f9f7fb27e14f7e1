// The comparison statistics (src/score/stats.ts) against independent computations written here: the exact binomial
// with BigInt arithmetic, Student's t by numerical integration of its density, Holm by hand, clustered standard
// errors from their definition.
import { describe, expect, it } from 'vitest'
import {
  binomialUpperTail,
  deltaInterval,
  holm,
  incompleteBeta,
  mcnemarOneSided,
  minimumDetectableEffect,
  normalCdf,
  normalQuantile,
  pairedSummary,
  pairedTTest,
  studentUpperTail,
} from '../src/score/stats.js'

/** P(X >= k), X ~ Binomial(n, 1/2), exactly: Σ C(n, i) over 2^n in BigInt, then one division. */
function exactTail(k: number, n: number): number {
  let c = 1n // C(n, 0)
  let sum = 0n
  for (let i = 0; i <= n; i++) {
    if (i >= k) sum += c
    c = (c * BigInt(n - i)) / BigInt(i + 1)
  }
  // sum / 2^n with 60 bits of precision kept.
  const scale = 60n
  const q = (sum << scale) / (1n << BigInt(n))
  return Number(q) / 2 ** 60
}

/** Student's t density integrated from t to a far bound with Simpson's rule. */
function tTailByIntegration(t: number, df: number): number {
  const lgamma = (x: number): number => {
    // Stirling series, accurate for the half-integers used here once shifted up.
    let shift = 0
    while (x < 20) {
      shift -= Math.log(x)
      x += 1
    }
    return shift + (x - 0.5) * Math.log(x) - x + 0.5 * Math.log(2 * Math.PI) + 1 / (12 * x) - 1 / (360 * x ** 3)
  }
  const c = Math.exp(lgamma((df + 1) / 2) - lgamma(df / 2)) / Math.sqrt(df * Math.PI)
  const f = (x: number) => c * (1 + (x * x) / df) ** (-(df + 1) / 2)
  const hi = 2000
  const n = 400_000
  // Substitution-free Simpson on [t, hi]; the tail beyond hi is negligible for df >= 3.
  const h = (hi - t) / n
  let s = f(t) + f(hi)
  for (let i = 1; i < n; i++) s += f(t + i * h) * (i % 2 === 1 ? 4 : 2)
  return (s * h) / 3
}

describe('exact binomial tail (McNemar)', () => {
  it('matches the BigInt computation across sizes, both sides of the mean', () => {
    for (const [k, n] of [[0, 5], [3, 5], [8, 9], [5, 9], [12, 12], [13, 12], [30, 50], [20, 50], [60, 100], [520, 1000], [470, 1000]] as const) {
      const expected = exactTail(k, n)
      expect(binomialUpperTail(k, n)).toBeCloseTo(expected, 12)
      if (expected > 1e-300) expect(Math.abs(binomialUpperTail(k, n) - expected) / expected).toBeLessThan(1e-9)
    }
  })

  it('McNemar: 8 worse, 1 better is (1 + 9) / 512 one-sided; the other side is 1 - 1/512', () => {
    const p = mcnemarOneSided(8, 1)
    expect(p.drop).toBeCloseTo(10 / 512, 14)
    expect(p.rise).toBeCloseTo(1 - 1 / 512, 14)
    expect(mcnemarOneSided(0, 0)).toEqual({ drop: 1, rise: 1 })
  })

  it('stays linear and finite for 100,000 discordant pairs', () => {
    const p = binomialUpperTail(50_500, 100_000)
    // z = 500 / sqrt(25000) ≈ 3.16: normal tail ≈ 7.8e-4, with continuity correction.
    expect(p).toBeGreaterThan(5e-4)
    expect(p).toBeLessThan(1e-3)
  })
})

describe('normal and t distributions', () => {
  it('normal quantiles and CDF agree with tabled values', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963985, 8)
    expect(normalQuantile(0.95)).toBeCloseTo(1.644853627, 8)
    expect(normalQuantile(0.8)).toBeCloseTo(0.841621234, 8)
    expect(normalQuantile(0.001)).toBeCloseTo(-3.090232306, 7)
    expect(normalCdf(1.959963985)).toBeCloseTo(0.975, 6)
    expect(normalCdf(-1)).toBeCloseTo(0.158655254, 6)
  })

  it('Student t upper tails match numerical integration of the density', () => {
    for (const [t, df] of [[2, 10], [1, 3], [2.5, 30], [0.3, 7], [4, 5]] as const) {
      expect(studentUpperTail(t, df)).toBeCloseTo(tTailByIntegration(t, df), 7)
    }
    expect(studentUpperTail(-2, 10)).toBeCloseTo(1 - tTailByIntegration(2, 10), 7)
  })

  it('the incomplete beta is a CDF: I_x(1, 1) = x and I_x(2, 1) = x²', () => {
    expect(incompleteBeta(0.3, 1, 1)).toBeCloseTo(0.3, 12)
    expect(incompleteBeta(0.7, 2, 1)).toBeCloseTo(0.49, 12)
  })
})

describe('Holm', () => {
  it('adjusts by rank, keeps monotone order, caps at 1, returns input order', () => {
    // sorted: 0.01 (×4 = 0.04), 0.02 (×3 = 0.06), 0.03 (×2 = 0.06), 0.5 (×1 = 0.5)
    expect(holm([0.03, 0.5, 0.01, 0.02]).map((x) => +x.toFixed(10))).toEqual([0.06, 0.5, 0.04, 0.06])
    expect(holm([0.9, 0.8])).toEqual([1, 1])
    expect(holm([])).toEqual([])
  })
})

describe('paired summary with clustered standard errors', () => {
  it('one sample per cluster: the plain standard error of the mean difference', () => {
    const d = [1, 0, 0, -1, 1, 1, 0, 0]
    const values = d.map((x, i) => ({ base: 0.5, head: 0.5 + x / 2, cluster: `c${i}` }))
    const s = pairedSummary(values)
    const diffs = d.map((x) => x / 2)
    const mean = diffs.reduce((a, b) => a + b) / diffs.length
    const sd = Math.sqrt(diffs.reduce((a, x) => a + (x - mean) ** 2, 0) / (diffs.length - 1))
    expect(s.delta).toBeCloseTo(mean, 14)
    expect(s.se).toBeCloseTo(sd / Math.sqrt(diffs.length), 14)
    const [lo, hi] = deltaInterval(s)
    expect(lo).toBeCloseTo(mean - 1.959963985 * s.se, 8)
    expect(hi).toBeCloseTo(mean + 1.959963985 * s.se, 8)
  })

  it('correlated samples in one cluster widen the interval (CR1: G/(G-1) Σ cluster sums² / n²)', () => {
    // Four dialogues of three turns; within a dialogue every turn moves together.
    const clusterMoves = [-1, -1, 0, 1]
    const values = clusterMoves.flatMap((m, g) => [0, 1, 2].map(() => ({ base: 1, head: 1 + m, cluster: `d${g}` })))
    const s = pairedSummary(values)
    const n = 12
    const mean = (3 * -1) / n
    const sums = clusterMoves.map((m) => 3 * (m - mean))
    const expected = Math.sqrt((4 / 3) * sums.reduce((a, x) => a + x * x, 0)) / n
    expect(s.clusters).toBe(4)
    expect(s.se).toBeCloseTo(expected, 14)
    const independent = pairedSummary(values.map((v, i) => ({ ...v, cluster: `s${i}` })))
    expect(s.se).toBeGreaterThan(independent.se)
  })

  it('the paired t-test uses clusters - 1 degrees of freedom', () => {
    const values = [0.2, -0.1, 0.3, 0.1, 0.0, 0.25].map((d, i) => ({ base: 0.5, head: 0.5 - d, cluster: `c${i}` }))
    const s = pairedSummary(values)
    const p = pairedTTest(s)
    expect(p.drop).toBeCloseTo(tTailByIntegration(-s.delta / s.se, 5), 7)
    expect(p.drop + p.rise).toBeCloseTo(1, 12)
  })
})

describe('minimum detectable effect', () => {
  it('is (z_{1-α} + z_0.8) × SE, with one discordant pair assumed when there is none', () => {
    expect(minimumDetectableEffect(0.01, 1000, 0.05)).toBeCloseTo((1.644853627 + 0.841621234) * 0.01, 8)
    expect(minimumDetectableEffect(0, 100, 0.05)).toBeCloseTo((1.644853627 + 0.841621234) / 100, 8)
    expect(minimumDetectableEffect(0, 0, 0.05)).toBeNull()
  })
})
