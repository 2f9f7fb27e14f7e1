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
  signFlipTest,
  studentQuantile,
  studentUpperTail,
  taroneHolm,
  overallFirstGate,
  signFlipIntegerTest,
} from '../../../src/score/stats.js'
import { gateMde, gatePower, mcnemarCritical, mcnemarPower } from '../../../src/score/power.js'
import { binomialTailHalf } from '../../helpers/binomial.js'

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
    // On t(G-1) like the test, t_{0.975, 7} = 2.364624251592784 (scipy.stats.t.ppf), not z.
    const [lo, hi] = deltaInterval(s)
    expect(lo).toBeCloseTo(mean - 2.364624251592784 * s.se, 9)
    expect(hi).toBeCloseTo(mean + 2.364624251592784 * s.se, 9)
  })

  it('the interval of 5 clusters is t(4) wide (z was 29% too narrow); one cluster gives every difference', () => {
    const values = [-1, -1, 0, 1, 0].flatMap((m, g) => [0, 1].map(() => ({ base: 1, head: 1 + m, cluster: `d${g}` })))
    const s = pairedSummary(values)
    const [lo, hi] = deltaInterval(s)
    expect((hi - lo) / 2).toBeCloseTo(2.7764451051977934 * s.se, 9)
    expect(deltaInterval(pairedSummary([{ base: 1, head: 0.5, cluster: 'd' }, { base: 1, head: 1, cluster: 'd' }]))).toEqual([-1, 1])
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

describe('Student t quantiles', () => {
  it('agree with scipy.stats.t.ppf to 1e-10 and invert the tail', () => {
    for (const [p, df, q] of [[0.975, 1, 12.706204736174694], [0.975, 4, 2.7764451051977934], [0.95, 9, 1.833112932656237], [0.8, 29, 0.8541919858818557], [0.025, 4, -2.7764451051977934]] as const) {
      expect(studentQuantile(p, df)).toBeCloseTo(q, 10)
    }
    expect(studentUpperTail(studentQuantile(0.99, 7), 7)).toBeCloseTo(0.01, 12)
  })
})

/** The sign-flip p-values by brute force over every sign pattern (independent of the Gray-code walk). */
function bruteSignFlip(d: number[]): { drop: number; rise: number } {
  const obs = d.reduce((a, b) => a + b, 0)
  let below = 0
  let above = 0
  for (let mask = 0; mask < 2 ** d.length; mask++) {
    const sum = d.reduce((a, x, i) => a + ((mask >> i) & 1 ? x : -x), 0)
    if (sum <= obs + 1e-9) below++
    if (sum >= obs - 1e-9) above++
  }
  return { drop: below / 2 ** d.length, rise: above / 2 ** d.length }
}

describe('sign-flip test over clusters', () => {
  it('is exact McNemar when every cluster is one 0/1 sample', () => {
    const r = signFlipTest([-1, -1, -1, -1, -1, 1, -1, -1, -1])
    expect(r.drop).toBeCloseTo(binomialTailHalf(8, 9), 15)
    expect(r.rise).toBeCloseTo(binomialTailHalf(1, 9), 15)
    expect(r.minP).toBe(2 ** -9)
  })

  it('matches brute force on unequal cluster sums, and is 0.23 on 5 dialogues wholly wrong, 2 wholly right', () => {
    for (const d of [[-3, 1, -2, -0.5, 2.5], [-6, -6, -6, -6, -6, 6, 6], [0.25, -1.5, 3, -2, -2, 1, -0.75, 4]]) {
      const r = signFlipTest(d)
      const b = bruteSignFlip(d)
      expect(r.drop).toBeCloseTo(b.drop, 15)
      expect(r.rise).toBeCloseTo(b.rise, 15)
    }
    // Issue 20's reproduction: P(at least 5 of 7 dialogues negative) = 29/128.
    expect(signFlipTest([-6, -6, -6, -6, -6, 6, 6]).drop).toBeCloseTo(29 / 128, 15)
    expect(signFlipTest([])).toEqual({ drop: 1, rise: 1, minP: 1 })
    // One cluster cannot reject anything.
    expect(signFlipTest([-4]).drop).toBe(0.5)
  })
})

describe("Holm over testable hypotheses (Tarone's rule)", () => {
  it('drops hypotheses that cannot reach α/m, then Holm over the rest', () => {
    // Minimum p-values: 2^-20, 2^-10, 0.5 (one discordant pair), 1 (none), 2^-5 = 0.031.
    const minP = [2 ** -20, 2 ** -10, 0.5, 1, 2 ** -5]
    const p = [0.001, 0.02, 0.5, 1, 2 ** -5]
    // All five → α/5 = 0.01: 0.5, 1 and 0.031 out; {0, 1} → α/2 = 0.025: both stay.
    const r = taroneHolm(p, minP, 0.05)
    expect(r.inFamily).toEqual([true, true, false, false, false])
    expect(r.size).toBe(2)
    expect(r.adjusted[0]).toBeCloseTo(0.002, 15)
    expect(r.adjusted[1]).toBeCloseTo(0.02, 15)
    expect(r.adjusted.slice(2)).toEqual([1, 1, 1])
    // Plain Holm would have multiplied the smallest by 5.
    expect(holm(p)[0]).toBeCloseTo(0.005, 15)
    expect(taroneHolm([], [], 0.05)).toEqual({ adjusted: [], inFamily: [], size: 0 })
  })
})

describe('integer sign-flip test and closed testing over units', () => {
  it('the integer sign-flip test matches brute force, and is exact McNemar on ±1', () => {
    for (const d of [[-2, -1, -2, 1, -1, 2, -2], [-1, -1, -1, 1, -1, -1, -1, -1, -1], [3, -2, -2, -1, 0.5 * 2]]) {
      const r = signFlipIntegerTest(d)!
      const b = bruteSignFlip(d)
      expect(r.drop).toBeCloseTo(b.drop, 14)
      expect(r.rise).toBeCloseTo(b.rise, 14)
    }
    const ones = [...Array(30).fill(-1), ...Array(12).fill(1)]
    expect(signFlipIntegerTest(ones)!.drop).toBeCloseTo(binomialTailHalf(30, 42), 14)
    expect(signFlipIntegerTest([0.5])).toBeNull()
  })
})

describe('the gate\'s procedure: overall first, per metric', () => {
  it('splits α over the metrics, holds the suites back until their overall is rejected, then shares the metric\'s α', () => {
    const h = (chain: number, overall: boolean, p: number, minP = 1e-9) => ({ chain, overall, p, minP })
    // Metric 0: overall p = 0.01, suites 0.02 and 0.004; metric 1: overall 0.3.
    const r = overallFirstGate([h(0, true, 0.01), h(0, false, 0.02), h(0, false, 0.004), h(1, true, 0.3)], 0.05)
    // Overall 0 first at weight 1/2: 0.02. Then its suites share 1/2: 0.008 → 0.02 (monotone), 0.02 / (1/2) = 0.04
    // once the other suite is rejected. Metric 1 last, alone: 0.3.
    expect(r.adjusted).toEqual([0.02, 0.04, 0.02, 0.3].map((x) => expect.closeTo(x, 14)))
    expect(r.level).toEqual([0.025, 0.0125, 0.0125, 0.025].map((x) => expect.closeTo(x, 14)))
    // A suite with a tiny p waits for its overall scope: never below the overall's adjusted value.
    const held = overallFirstGate([h(0, true, 0.2), h(0, false, 1e-6)], 0.05)
    expect(held.adjusted[1]).toBeCloseTo(0.2, 14)
    // Tarone: a suite that cannot reach α over its chain's suites leaves; the others keep their share.
    const t = overallFirstGate([h(0, true, 0.001, 1e-6), h(0, false, 0.01, 0.03), h(0, false, 0.004, 1e-6)], 0.05)
    expect(t.inFamily).toEqual([true, false, true])
    expect(t.adjusted[2]).toBeCloseTo(0.004, 14)
    // Weighted metrics: metric 0 with weight 2 takes 2/3 of α, metric 1 a third.
    const w = overallFirstGate([{ ...h(0, true, 0.03), weight: 2 }, h(1, true, 0.2)], 0.05)
    expect(w.level).toEqual([expect.closeTo(0.05 * (2 / 3), 14), expect.closeTo(0.05 / 3, 14)])
    // 0.03 ÷ 2/3 = 0.045 rejects (equal shares would give 0.06); then metric 1 has all of α: 0.2.
    expect(w.adjusted).toEqual([expect.closeTo(0.045, 14), expect.closeTo(0.2, 14)])
  })
})

describe('power of the gate as it decides', () => {
  it('McNemar critical counts are the smallest k with P(Bin(m, 1/2) ≥ k) ≤ a', () => {
    for (const [m, a] of [[10, 0.05], [40, 0.0125], [7, 0.05], [3, 0.05], [200, 0.001]] as const) {
      const k = mcnemarCritical(m, a)
      if (k <= m) expect(binomialTailHalf(k, m)).toBeLessThanOrEqual(a)
      expect(binomialTailHalf(k - 1, m)).toBeGreaterThan(a)
    }
    expect(mcnemarCritical(4, 0.05)).toBe(5) // 1/16 > 0.05: no count will do
  })

  it('McNemar power equals the exact double sum over discordant counts, written out here', () => {
    const n = 60
    const psi = 0.2
    const d = 0.1
    const a = 0.05
    const q = psi + d
    const pi = (psi / 2 + d) / q
    const choose = (nn: number, k: number) => {
      let c = 1
      for (let i = 0; i < k; i++) c = (c * (nn - i)) / (i + 1)
      return c
    }
    let expected = 0
    for (let m = 0; m <= n; m++) {
      let k = 0
      while (k <= m && binomialTailHalf(k, m) > a) k++
      const need = Math.max(k, Math.ceil((m + n * 0.02) / 2 - 1e-9))
      let tail = 0
      for (let w = need; w <= m; w++) tail += choose(m, w) * pi ** w * (1 - pi) ** (m - w)
      expected += choose(n, m) * q ** m * (1 - q) ** (n - m) * tail
    }
    expect(mcnemarPower(n, psi, d, a, 0.02)).toBeCloseTo(expected, 9)
  })

  it('with the base rate, McNemar\'s power is that of samples each right with its own probability, losing right outcomes alike', () => {
    // 60 samples: 20 always right, 20 right half the time, 10 at 0.8, 10 never. A drop d loses each right outcome with
    // probability d / rate. The exact power: the joint law of (right → wrong, wrong → right) summed over the samples.
    const ps = [...Array(20).fill(1), ...Array(20).fill(0.5), ...Array(10).fill(0.8), ...Array(10).fill(0)] as number[]
    const n = ps.length
    const rate = ps.reduce((a, p) => a + p, 0) / n
    const psi = ps.reduce((a, p) => a + 2 * p * (1 - p), 0) / n
    const exact = (d: number) => {
      let dist = new Float64Array((n + 1) * (n + 1))
      dist[0] = 1
      for (const p of ps) {
        const kept = p * (1 - d / rate)
        const worse = p * (1 - kept)
        const better = (1 - p) * kept
        const next = new Float64Array(dist.length)
        for (let w = 0; w < n; w++)
          for (let b = 0; w + b < n; b++) {
            const x = dist[w * (n + 1) + b]!
            if (x === 0) continue
            next[w * (n + 1) + b]! += x * (1 - worse - better)
            next[(w + 1) * (n + 1) + b]! += x * worse
            next[w * (n + 1) + b + 1]! += x * better
          }
        dist = next
      }
      let power = 0
      for (let w = 0; w <= n; w++) for (let b = 0; w + b <= n; b++) if (w >= mcnemarCritical(w + b, 0.05) && w - b >= n * 0.02) power += dist[w * (n + 1) + b]!
      return power
    }
    for (const d of [0.1, 0.15, 0.2, 0.25]) expect(Math.abs(mcnemarPower(n, psi, d, 0.05, 0.02, rate) - exact(d))).toBeLessThan(0.01)
    // Without the rate, every lost outcome is taken from a sample that never varied: the noise is overstated.
    expect(exact(0.2) - mcnemarPower(n, psi, 0.2, 0.05, 0.02)).toBeGreaterThan(0.05)
  })

  it('with no noise, a drop of exactly minDrop is seen about half of the time: the observed drop must reach it', () => {
    // 200 samples × 3 trials, none flaky, 85% right: 510 right outcomes, each lost with probability d / 0.85. The
    // verdict needs 12 of the 600 draws lost (2 points): at d = 2 points, 12 are expected, so about half the runs.
    const design = { n: 200, clusters: 200, mcnemar: false, discordance: 0, se: 0, trials: 3, rate: 0.85 }
    const atMinDrop = gatePower(design, 0.02, 0.05 * (2 / 3), 0.02)
    expect(atMinDrop).toBeGreaterThan(0.4)
    expect(atMinDrop).toBeLessThan(0.6)
    expect(gateMde(design, 0.05 * (2 / 3), 0.02)!).toBeGreaterThan(0.023)
  })

  it('the MDE is where the power crosses 80%, and accounts for the family, discreteness and minDrop', () => {
    const design = { n: 200, clusters: 200, mcnemar: true, discordance: 0.3, se: Math.sqrt(0.3 / 200) }
    const mde = gateMde(design, 0.05, 0.02)!
    expect(gatePower(design, mde, 0.05, 0.02)).toBeGreaterThanOrEqual(0.8)
    expect(gatePower(design, mde - 0.002, 0.05, 0.02)).toBeLessThan(0.8)
    // Twelve tests in the family need a larger drop than one.
    expect(gateMde(design, 0.05 / 12, 0.02)!).toBeGreaterThan(mde + 0.01)
    // No discordance: 5 one-way flips are the least that reach p = 1/32 ≤ 0.05 (2.5 points of 200), whatever z says.
    const constant = { ...design, discordance: 0, se: 0 }
    expect(gateMde(constant, 0.05, 0)!).toBeGreaterThan(0.02)
    expect(gateMde(constant, 0.05 / 12, 0)!).toBeGreaterThan(0.035)
    // minDrop binds when noise is tiny.
    expect(gateMde({ ...design, n: 100_000, clusters: 100_000, discordance: 0.001 }, 0.05, 0.02)!).toBeGreaterThan(0.02)
    // One cluster, or too few clusters for the level: nothing can be detected.
    expect(gateMde({ n: 4, clusters: 1, mcnemar: false, discordance: 0.25, se: 0 }, 0.05, 0.02)).toBeNull()
    expect(gateMde({ n: 20, clusters: 4, mcnemar: false, discordance: 0.25, se: 0.05 }, 0.05, 0.02)).toBeNull()
  })
})

describe('minimum detectable effect', () => {
  it('is (z_{1-α} + z_0.8) × SE, with one discordant pair assumed when there is none', () => {
    expect(minimumDetectableEffect(0.01, 1000, 0.05)).toBeCloseTo((1.644853627 + 0.841621234) * 0.01, 8)
    expect(minimumDetectableEffect(0, 100, 0.05)).toBeCloseTo((1.644853627 + 0.841621234) / 100, 8)
    expect(minimumDetectableEffect(0, 0, 0.05)).toBeNull()
  })
})
