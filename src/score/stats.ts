/**
 * Statistics for comparing two runs sample by sample (pure functions, no I/O): the exact one-sided McNemar test,
 * a paired t-test with cluster-robust standard errors, Holm's correction, the minimum detectable effect.
 *
 * Why these: paired samples (the same prompt under base and head) cancel the per-sample difficulty that dominates
 * an eval's variance, so a paired test sees a drop an unpaired one misses. 0/1 values use McNemar on the discordant
 * pairs, exact (binomial, p = 1/2) because suites often have a handful of flips. Fractional values use a paired
 * t-test on the per-sample differences rather than a bootstrap: it is linear time (a bootstrap is B times that, and
 * a gate compares 100,000-sample runs), it takes clustered standard errors directly, and with values bounded in
 * [0, 1] the mean difference is close to normal at eval sizes. Samples expanded from one dialogue (`id#k`) or run
 * as several trials are not independent: intervals use clustered standard errors (Evan Miller, "Adding Error Bars
 * to Evals", 2024), with the G/(G-1) small-sample factor.
 */

/** P(X >= k) for X ~ Binomial(n, 1/2), exact up to floating point (log-space terms, summed from the small end). */
export function binomialUpperTail(k: number, n: number): number {
  if (k <= 0) return 1
  if (k > n) return 0
  const ln2n = n * Math.LN2
  if (2 * k > n) return sumTerms(n, k, n, ln2n)
  // k at or below the mean: 1 - P(X <= k - 1), the smaller sum.
  return Math.max(0, 1 - sumTerms(n, 0, k - 1, ln2n))
}

/** Σ C(n, i) / 2^n for i in [lo, hi], with log C(n, i) built incrementally (linear in n, no gamma function). */
function sumTerms(n: number, lo: number, hi: number, ln2n: number): number {
  // log C(n, lo)
  let logC = 0
  const small = Math.min(lo, n - lo)
  for (let j = 1; j <= small; j++) logC += Math.log((n - small + j) / j)
  let sum = 0
  for (let i = lo; i <= hi; i++) {
    sum += Math.exp(logC - ln2n)
    logC += Math.log((n - i) / (i + 1))
  }
  return Math.min(1, sum)
}

/**
 * Exact one-sided McNemar: `worse` pairs went right → wrong, `better` wrong → right. Returns the p-value of "head
 * is worse" (P(X >= worse) among worse + better discordant pairs under p = 1/2) and of "head is better".
 */
export function mcnemarOneSided(worse: number, better: number): { drop: number; rise: number } {
  const n = worse + better
  return { drop: binomialUpperTail(worse, n), rise: binomialUpperTail(better, n) }
}

/** Standard normal CDF (erfc with a Chebyshev fit, relative error under 1.2e-7). */
export function normalCdf(z: number): number {
  return 0.5 * erfc(-z / Math.SQRT2)
}

function erfc(x: number): number {
  const z = Math.abs(x)
  const t = 1 / (1 + 0.5 * z)
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    )
  return x >= 0 ? r : 2 - r
}

/** Standard normal quantile (Acklam's rational approximation, relative error under 1.2e-9). */
export function normalQuantile(p: number): number {
  if (p <= 0) return -Infinity
  if (p >= 1) return Infinity
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239]
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572]
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783]
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416]
  const lower = 0.02425
  if (p < lower || p > 1 - lower) {
    const q = Math.sqrt(-2 * Math.log(p < lower ? p : 1 - p))
    const x = (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1)
    return p < lower ? x : -x
  }
  const q = p - 0.5
  const r = q * q
  return ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) / (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1)
}

/** log Γ(x) for x > 0 (Lanczos, g = 7). */
export function logGamma(x: number): number {
  const g = [0.9999999999998099, 676.5203681218851, -1259.1392167224028, 771.3234287776531, -176.6150291621406, 12.507343278686905, -0.13857109526572012, 9.984369578019572e-6, 1.5056327351493116e-7]
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x)
  x -= 1
  let s = g[0]!
  for (let i = 1; i < 9; i++) s += g[i]! / (x + i)
  const t = x + 7.5
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(s)
}

/** Regularised incomplete beta I_x(a, b) (continued fraction, modified Lentz). */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0
  if (x >= 1) return 1
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x))
  // The fraction converges fast for x < (a + 1) / (a + b + 2); use the symmetry otherwise.
  if (x > (a + 1) / (a + b + 2)) return 1 - (front * betaFraction(1 - x, b, a)) / b
  return (front * betaFraction(x, a, b)) / a
}

function betaFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300
  let c = 1
  let d = 1 - ((a + b) * x) / (a + 1)
  if (Math.abs(d) < tiny) d = tiny
  d = 1 / d
  let h = d
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2))
    d = 1 + aa * d
    if (Math.abs(d) < tiny) d = tiny
    c = 1 + aa / c
    if (Math.abs(c) < tiny) c = tiny
    d = 1 / d
    h *= d * c
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1))
    d = 1 + aa * d
    if (Math.abs(d) < tiny) d = tiny
    c = 1 + aa / c
    if (Math.abs(c) < tiny) c = tiny
    d = 1 / d
    const del = d * c
    h *= del
    if (Math.abs(del - 1) < 1e-15) break
  }
  return h
}

/** P(T >= t) for Student's t with `df` degrees of freedom. */
export function studentUpperTail(t: number, df: number): number {
  if (!Number.isFinite(t)) return t > 0 ? 0 : 1
  const half = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5)
  return t >= 0 ? half : 1 - half
}

/** Per-sample paired values: `cluster` groups samples that are not independent (a dialogue's turns, trials). */
export interface PairedValue {
  base: number
  head: number
  cluster: string
}

export interface PairedSummary {
  n: number
  clusters: number
  base: number
  head: number
  /** head - base. */
  delta: number
  /** Cluster-robust standard error of `delta` (0 when every difference is equal). */
  se: number
}

/** Paired values as columns: `cluster[i]` is a small non-negative integer naming sample i's cluster. */
export interface PairedColumns {
  base: ArrayLike<number>
  head: ArrayLike<number>
  cluster: ArrayLike<number>
  length: number
}

/** Means and the clustered standard error of the mean paired difference. Linear in the number of pairs. */
export function pairedSummary(values: readonly PairedValue[]): PairedSummary {
  const ids = new Map<string, number>()
  const cluster = values.map((v) => {
    let id = ids.get(v.cluster)
    if (id === undefined) ids.set(v.cluster, (id = ids.size))
    return id
  })
  return pairedSummaryOf({ base: values.map((v) => v.base), head: values.map((v) => v.head), cluster, length: values.length })
}

/** `pairedSummary` over columns (what the comparison builds: no per-sample objects or string keys). */
export function pairedSummaryOf(c: PairedColumns): PairedSummary {
  const n = c.length
  if (n === 0) return { n: 0, clusters: 0, base: 0, head: 0, delta: 0, se: 0 }
  let sb = 0
  let sh = 0
  let maxCluster = 0
  for (let i = 0; i < n; i++) {
    sb += c.base[i] as number
    sh += c.head[i] as number
    if ((c.cluster[i] as number) > maxCluster) maxCluster = c.cluster[i] as number
  }
  const delta = (sh - sb) / n
  // Σ over clusters of (Σ within the cluster of the centred differences)², scaled by G/(G-1) (CR1).
  const sums = new Float64Array(maxCluster + 1)
  const seen = new Uint8Array(maxCluster + 1)
  for (let i = 0; i < n; i++) {
    const g = c.cluster[i] as number
    sums[g] = (sums[g] as number) + ((c.head[i] as number) - (c.base[i] as number) - delta)
    seen[g] = 1
  }
  let g = 0
  let ss = 0
  for (let j = 0; j <= maxCluster; j++) {
    if (seen[j] === 0) continue
    g++
    ss += (sums[j] as number) ** 2
  }
  const se = g > 1 ? Math.sqrt((g / (g - 1)) * ss) / n : 0
  return { n, clusters: g, base: sb / n, head: sh / n, delta, se }
}

/** One-sided p-values of a paired t-test on the clustered summary (df = clusters - 1). */
export function pairedTTest(s: PairedSummary): { drop: number; rise: number } {
  if (s.n === 0) return { drop: 1, rise: 1 }
  if (s.se === 0) return s.delta < 0 ? { drop: 0, rise: 1 } : s.delta > 0 ? { drop: 1, rise: 0 } : { drop: 1, rise: 1 }
  const t = s.delta / s.se
  const df = Math.max(1, s.clusters - 1)
  return { drop: studentUpperTail(-t, df), rise: studentUpperTail(t, df) }
}

/**
 * The two-sided (1 - level) interval of the difference, on t(G-1) like the test beside it (a z interval is 29% too
 * narrow with 5 clusters). One cluster says nothing about the spread: the interval is then every possible
 * difference of values in [0, 1].
 */
export function deltaInterval(s: PairedSummary, level = 0.95): [number, number] {
  if (s.clusters < 2) return [-1, 1]
  const t = studentQuantile(1 - (1 - level) / 2, s.clusters - 1)
  return [s.delta - t * s.se, s.delta + t * s.se]
}

/** The p-quantile of Student's t with `df` degrees of freedom (bisection on the tail; exact to ~1e-12). */
export function studentQuantile(p: number, df: number): number {
  if (p <= 0) return -Infinity
  if (p >= 1) return Infinity
  if (p < 0.5) return -studentQuantile(1 - p, df)
  if (!(df < 1e7)) return normalQuantile(p)
  let lo = 0
  let hi = 1
  while (studentUpperTail(hi, df) > 1 - p) hi *= 2
  for (let i = 0; i < 200 && hi - lo > 1e-13 * hi; i++) {
    const mid = (lo + hi) / 2
    if (studentUpperTail(mid, df) > 1 - p) lo = mid
    else hi = mid
  }
  return (lo + hi) / 2
}

/** Clusters whose summed difference is not zero, at most this many, get the exact sign-flip test (2^K sums). */
export const SIGN_FLIP_MAX = 16

/**
 * The exact one-sided sign-flip (randomisation) test on per-cluster summed differences `d` (head - base, zeros
 * left out): under "head and base are exchangeable within each cluster" every sign pattern is equally likely, so
 * p(drop) = P(Σ ε_c d_c ≤ Σ d_c) over the 2^K patterns. With one sample per cluster and 0/1 values it is exact
 * McNemar. `minP` is the smallest p-value K clusters can give (2^-K): what Tarone's rule needs.
 */
export function signFlipTest(d: readonly number[]): { drop: number; rise: number; minP: number } {
  const k = d.length
  if (k === 0) return { drop: 1, rise: 1, minP: 1 }
  if (k > 30) throw new Error(`signFlipTest: ${k} clusters is too many to enumerate`)
  let observed = 0
  let scale = 0
  for (const x of d) {
    observed += x
    scale += Math.abs(x)
  }
  const eps = 1e-9 * scale
  // Gray code: each step flips one sign, so each pattern's sum costs O(1). Start from all signs negative.
  let sum = -observed
  const sign = new Int8Array(k).fill(-1)
  let below = 0
  let above = 0
  const total = 2 ** k
  for (let i = 0; i < total; i++) {
    if (i > 0) {
      const bit = 31 - Math.clz32(i & -i)
      sum -= 2 * (sign[bit] as number) * (d[bit] as number)
      sign[bit] = -(sign[bit] as number) as -1 | 1
    }
    if (sum <= observed + eps) below++
    if (sum >= observed - eps) above++
  }
  return { drop: below / total, rise: above / total, minP: 1 / total }
}

/** Above this many steps (changed clusters × summed |differences|) the integer sign-flip test gives way to t. */
export const SIGN_FLIP_DP_MAX = 4_000_000

/**
 * The exact sign-flip test for integer differences of any number of clusters, by dynamic programming over the
 * distribution of Σ ε_c |d_c| (K × Σ|d| steps), or null when that is over SIGN_FLIP_DP_MAX. With ±1 differences it
 * is exact McNemar; the gate uses it for a dialogue-free pair of metrics summed per sample (values in -2..2).
 */
export function signFlipIntegerTest(d: readonly number[]): { drop: number; rise: number; minP: number } | null {
  let total = 0
  let observed = 0
  for (const x of d) {
    if (!Number.isInteger(x)) return null
    total += Math.abs(x)
    observed += x
  }
  if (d.length === 0) return { drop: 1, rise: 1, minP: 1 }
  if (d.length * total > SIGN_FLIP_DP_MAX) return null
  // dist[s + total] = P(Σ ε|d| = s), built one cluster at a time.
  let dist = new Float64Array(2 * total + 1)
  dist[total] = 1
  for (const x of d) {
    const a = Math.abs(x)
    const next = new Float64Array(2 * total + 1)
    for (let s = 0; s < dist.length; s++) {
      const p = dist[s] as number
      if (p === 0) continue
      next[s - a] = (next[s - a] as number) + p / 2
      next[s + a] = (next[s + a] as number) + p / 2
    }
    dist = next
  }
  let drop = 0
  let rise = 0
  for (let s = 0; s < dist.length; s++) {
    if (s - total <= observed) drop += dist[s] as number
    if (s - total >= observed) rise += dist[s] as number
  }
  return { drop: Math.min(1, drop), rise: Math.min(1, rise), minP: 2 ** -d.length }
}

/** The smallest one-sided p-value exact McNemar can give with `discordant` pairs. */
export function mcnemarMinP(discordant: number): number {
  return 0.5 ** discordant
}

/**
 * Holm over the hypotheses that can be rejected at all (Tarone, 1990): a hypothesis whose smallest achievable
 * p-value (`minP`, fixed by the discordant counts the test conditions on) exceeds α/m cannot reject and only
 * dilutes the others. The family R starts as those that could reject alone (minP ≤ α) and shrinks until every
 * member has minP ≤ α/|R|. Returns Holm-adjusted p-values over R (the others are 1, `inFamily` false) and |R|.
 * Valid because R depends only on the conditioning statistics (discordant counts, changed clusters): given them,
 * each member's p is super-uniform, and Holm over a fixed R holds the family-wise rate.
 */
export function taroneHolm(pValues: readonly number[], minP: readonly number[], alpha: number): { adjusted: number[]; inFamily: boolean[]; size: number } {
  let members = pValues.map((_, i) => i).filter((i) => (minP[i] as number) <= alpha)
  for (;;) {
    const m = members.length
    const next = members.filter((i) => (minP[i] as number) <= alpha / m)
    if (next.length === m) break
    members = next
  }
  const adjusted = new Array<number>(pValues.length).fill(1)
  const inFamily = new Array<boolean>(pValues.length).fill(false)
  const inner = holm(members.map((i) => pValues[i] as number))
  members.forEach((i, r) => {
    adjusted[i] = inner[r] as number
    inFamily[i] = true
  })
  return { adjusted, inFamily, size: members.length }
}

/**
 * Holm's step-down adjustment: adjusted p-values in the input order (monotone, capped at 1). Controls the
 * family-wise error rate across every gated metric and suite without assuming independence.
 */
export function holm(pValues: readonly number[]): number[] {
  const m = pValues.length
  const order = pValues.map((p, i) => ({ p, i })).sort((a, b) => a.p - b.p)
  const out = new Array<number>(m)
  let running = 0
  order.forEach(({ p, i }, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p))
    out[i] = running
  })
  return out
}

/**
 * The smallest drop a one-sided test at `alpha` detects with probability `power`: (z_{1-alpha} + z_power) times the
 * standard error of the difference. `se` is the observed clustered one; with no discordance at all it would be 0,
 * so the standard error of one discordant pair among `n` (1/n) is assumed: what the suite could see at best.
 */
export function minimumDetectableEffect(se: number, n: number, alpha: number, power = 0.8): number | null {
  if (n === 0) return null
  const floor = 1 / n
  return (normalQuantile(1 - alpha) + normalQuantile(power)) * Math.max(se, floor)
}

/** One hypothesis of the gate's family: its metric's chain, whether it is the overall scope, its p-value. */
export interface ChainHypothesis {
  /** The gated metric it tests (an index): its chain. */
  chain: number
  /** The overall scope (tested first in its chain), else a suite. */
  overall: boolean
  p: number
  /** The smallest p-value it can give (Tarone's rule). */
  minP: number
  /** Its metric's share of α relative to the other metrics' (default 1: equal shares). */
  weight?: number
}

/**
 * The weights of the overall-first procedure on a set of hypotheses: α splits equally over the metrics (chains)
 * that have a hypothesis left; inside a chain, all of it goes to the overall scope while that is left, else it
 * splits equally over the chain's suites (a metric's share may be weighted: `weight`). Consonant (a hypothesis's weight never falls when others leave), so the
 * closed test of these weighted Bonferroni intersections is the sequentially rejective shortcut below.
 */
function chainWeights(hyps: readonly ChainHypothesis[], left: readonly number[], chainWeight: ReadonlyMap<number, number>): Map<number, number> {
  const chains = new Map<number, { overall: number | undefined; suites: number[] }>()
  for (const i of left) {
    const h = hyps[i] as ChainHypothesis
    let c = chains.get(h.chain)
    if (!c) chains.set(h.chain, (c = { overall: undefined, suites: [] }))
    if (h.overall) c.overall = i
    else c.suites.push(i)
  }
  const total = [...chains.keys()].reduce((a, c) => a + (chainWeight.get(c) ?? 1), 0)
  const w = new Map<number, number>()
  for (const [chain, c] of chains) {
    const share = (chainWeight.get(chain) ?? 1) / total
    if (c.overall !== undefined) w.set(c.overall, share)
    else for (const i of c.suites) w.set(i, share / c.suites.length)
  }
  return w
}

/**
 * The gate's multiple-testing procedure: overall scope first, per metric (a gatekeeping order, Dmitrienko and
 * Tamhane 2007, written as a graphical procedure, Bretz et al. 2009). Each gated metric is tested on its own, so a
 * rise in one never hides a drop in another; α splits over the metrics (Holm-like: a metric whose chain is wholly
 * rejected passes its share on); a metric's suites are tested only after its overall scope is rejected, and then
 * share its α (Holm within the chain). Closed testing over consonant weighted Bonferroni intersections, so the
 * family-wise error rate is at most α under any dependence. Tarone's rule first: a hypothesis whose smallest
 * possible p-value exceeds the level it is first held to (α over the chains; a suite, that over its chain's suites)
 * leaves the family (its chain too, when empty): the choice depends only on the conditioning counts, so it is valid.
 * Returns the adjusted p-values (1 out of the family), membership, the chains in the family, and per hypothesis
 * the level it is first held to (α times its weight once the hypotheses before it in its chain are rejected).
 */
export function overallFirstGate(hyps: readonly ChainHypothesis[], alpha: number): { adjusted: number[]; inFamily: boolean[]; chains: number; level: number[] } {
  const chainWeight = new Map<number, number>()
  for (const h of hyps) chainWeight.set(h.chain, h.weight ?? 1)
  /** α's share of a metric when `present` metrics are in the family (its own counted in). */
  const shareOf = (chain: number, present: ReadonlySet<number>) => {
    let total = chainWeight.get(chain) ?? 1
    for (const c of present) if (c !== chain) total += chainWeight.get(c) ?? 1
    return (chainWeight.get(chain) ?? 1) / total
  }
  let members = hyps.map((_, i) => i).filter((i) => (hyps[i] as ChainHypothesis).minP <= alpha)
  for (;;) {
    const present = new Set(members.map((i) => (hyps[i] as ChainHypothesis).chain))
    const suites = new Map<number, number>()
    for (const i of members) if (!(hyps[i] as ChainHypothesis).overall) suites.set((hyps[i] as ChainHypothesis).chain, (suites.get((hyps[i] as ChainHypothesis).chain) ?? 0) + 1)
    // A suite is first held to its metric's share over the metric's suites: one that cannot reach that leaves.
    const next = members.filter((i) => {
      const h = hyps[i] as ChainHypothesis
      return h.minP <= (alpha * shareOf(h.chain, present)) / (h.overall ? 1 : (suites.get(h.chain) as number))
    })
    if (next.length === members.length) break
    members = next
  }
  const inFamily = hyps.map(() => false)
  for (const i of members) inFamily[i] = true
  const chains = new Set(members.map((i) => (hyps[i] as ChainHypothesis).chain))
  const suitesIn = new Map<number, number>()
  for (const i of members) if (!(hyps[i] as ChainHypothesis).overall) suitesIn.set((hyps[i] as ChainHypothesis).chain, (suitesIn.get((hyps[i] as ChainHypothesis).chain) ?? 0) + 1)
  const level = hyps.map((h, i) => {
    const a = alpha * shareOf(h.chain, chains)
    return h.overall ? a : a / ((suitesIn.get(h.chain) ?? 0) + (inFamily[i] ? 0 : 1))
  })
  const adjusted = hyps.map(() => 1)
  let left = members
  let running = 0
  while (left.length > 0) {
    const w = chainWeights(hyps, left, chainWeight)
    let best = -1
    let bestQ = Infinity
    for (const [i, wi] of w) {
      const q = (hyps[i] as ChainHypothesis).p / wi
      if (q < bestQ) {
        bestQ = q
        best = i
      }
    }
    running = Math.max(running, Math.min(1, bestQ))
    adjusted[best] = running
    left = left.filter((i) => i !== best)
  }
  return { adjusted, inFamily, chains: chains.size, level }
}
