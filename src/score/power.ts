/**
 * The power of the baseline gate as it decides, and the minimum detectable effect (MDE) that follows: the drop the
 * gate flags as `regressed` with 80% probability. "As it decides" means the level after the family correction (the
 * caller passes α/m), the verdict's minimum drop, and the discreteness of exact tests (McNemar with few discordant
 * pairs, the sign-flip test with few clusters). A normal-theory MDE at the unadjusted α overstated sensitivity
 * several-fold on small suites (issue 20: "7.4 points" had 28% power).
 *
 * A design is what the power depends on, measured from runs: samples n, clusters G, whether values are 0/1 and
 * every cluster one sample (then exact McNemar decides), the discordance rate ψ (pairs that differ, per sample, with
 * no change) and the clustered standard error of the difference with no change. Pure functions, no I/O.
 */
import { incompleteBeta, logGamma, normalCdf, normalQuantile, SIGN_FLIP_MAX, studentQuantile, studentUpperTail } from './stats.js'

export interface GateDesign {
  /** Paired samples. */
  n: number
  /** Clusters (dialogues; a sample outside one is its own). */
  clusters: number
  /** 0/1 values and one sample per cluster: exact McNemar decides; otherwise the clustered t / sign-flip test. */
  mcnemar: boolean
  /** Discordant pairs per sample with no change (both directions): McNemar's noise. */
  discordance: number
  /** Clustered standard error of the mean difference with no change: the t test's noise. */
  se: number
  /** Trials per sample, each value the mean of their 0/1 outcomes (absent: 1). */
  trials?: number
  /** The metric's rate in the base run (absent: a drop's variance is taken as linear in it, the upper bound). */
  rate?: number
}

const POWER = 0.8

/** P(X ≥ k), X ~ Binomial(m, p). */
function binomialTail(k: number, m: number, p: number): number {
  if (k <= 0) return 1
  if (k > m) return 0
  if (p <= 0) return 0
  if (p >= 1) return 1
  return incompleteBeta(p, k, m - k + 1)
}

function logBinomialPmf(x: number, m: number, p: number): number {
  return logGamma(m + 1) - logGamma(x + 1) - logGamma(m - x + 1) + x * Math.log(p) + (m - x) * Math.log(1 - p)
}

/** Critical counts by level, then by number of discordant pairs (the gate asks for the same few levels). */
const criticalCache = new Map<number, number[]>()

/** The smallest k with P(Bin(m, 1/2) ≥ k) ≤ a: the worse-pairs count exact McNemar needs (m + 1 when none will do). */
export function mcnemarCritical(m: number, a: number): number {
  let byM = criticalCache.get(a)
  if (!byM) {
    if (criticalCache.size > 64) criticalCache.clear()
    criticalCache.set(a, (byM = []))
  }
  const hit = byM[m]
  if (hit !== undefined) return hit
  // Sum the upper tail from the top term down while it stays within a.
  let logTerm = -m * Math.LN2 // log C(m, m) / 2^m
  let tail = 0
  let k = m + 1
  while (k > 0) {
    const next = tail + Math.exp(logTerm)
    if (next > a * (1 + 1e-12)) break
    tail = next
    k--
    logTerm += Math.log(k / (m - k + 1))
  }
  if (m < 100_000) byM[m] = k
  return k
}

/**
 * What a drop `d` does to the pairs, under the one model every figure uses: the head loses each of the base's right
 * 0/1 outcomes with probability λ = d / p̄ (p̄ the base rate), so the rate falls by d. A sample right with
 * probability p then goes right → wrong with probability p(1 − p(1 − λ)) and back with (1 − p)·p(1 − λ); averaged
 * over the samples, with E[p²] = p̄ − ψ/2 (ψ, the pairs that differ with no drop, is 2·E[p(1 − p)]):
 *
 *   right → wrong  ψ/2 + d·(1 − ψ/(2p̄)),   wrong → right  ψ/2 − d·ψ/(2p̄),   discordant q = ψ + d·(1 − ψ/p̄).
 *
 * A flaky sample loses outcomes it sometimes had, which turns some of its discordance one way rather than adding
 * more: q = ψ + d (every loss on a sample that never varied) overstated the noise under a drop and the stated MDE
 * with it (86–91% power at it, not 80%). Without a rate (unknown), that upper bound.
 */
export function dropPairs(discordance: number, rate: number | undefined, d: number): { q: number; worse: number } {
  const flakyShare = rate !== undefined && rate > 0 ? Math.min(1, discordance / rate) : 0
  return { q: discordance + d * (1 - flakyShare), worse: discordance / 2 + d * (1 - flakyShare / 2) }
}

/**
 * Power of exact one-sided McNemar at level `a` (with the verdict's `minDrop`) against a drop `d` (pairs as
 * `dropPairs` says, from the noise ψ and the base rate). Exact over the number of discordant pairs up to 400
 * expected, the normal approximation beyond (where discreteness no longer matters).
 */
export function mcnemarPower(n: number, discordance: number, d: number, a: number, minDrop: number, rate?: number): number {
  if (n <= 0 || d <= 0) return 0
  const pairs = dropPairs(discordance, rate, d)
  const q = Math.min(1 - 1e-12, pairs.q)
  if (q <= 0) return 0
  const mean = n * q
  if (mean > 400) {
    const c = Math.max(minDrop, normalQuantile(1 - a) * Math.sqrt(q / n))
    return normalCdf((d - c) / Math.sqrt(Math.max(1e-300, q - d * d) / n))
  }
  const pi = Math.min(1, pairs.worse / q)
  const sd = Math.sqrt(mean * (1 - q))
  const lo = Math.max(0, Math.floor(mean - 6 * sd - 2))
  const hi = Math.min(n, Math.ceil(mean + 6 * sd + 2))
  let power = 0
  // P(N = m) by its ratio recurrence from one log-gamma evaluation.
  let pmf = Math.exp(logBinomialPmf(lo, n, q))
  const ratio = q / (1 - q)
  for (let m = lo; m <= hi; m++) {
    const need = Math.max(mcnemarCritical(m, a), Math.ceil((m + n * minDrop) / 2 - 1e-9))
    if (need <= m && pmf > 1e-15) power += pmf * binomialTail(need, m, pi)
    pmf *= ((n - m) / (m + 1)) * ratio
  }
  return Math.min(1, power)
}

/** Whether a sign-flip test over G clusters can reach level a at all (2^-G ≤ a); larger G go to the t test. */
function clustersCanReject(g: number, a: number): boolean {
  return g > SIGN_FLIP_MAX || 2 ** -g <= a
}

/**
 * The standard error under a drop `d`: a drop adds discordant pairs, and with them variance (`dropPairs`); the
 * observed standard error with no change is the noise alone. Without it, the MDE of clustered data was stated too
 * small (60% power at it, not 80%). Per pair of trials the variance of the difference goes from ψ to
 * ψ + d(1 − ψ/p̄) − λ²(p̄ − ψ/2) (λ = d/p̄); a mean over k trials divides that by k, as it does the noise ψ, but
 * not the spread of the samples' own drops (λp, varying with p: λ²·Var(p), Var(p) = p̄ − ψ/2 − p̄²), so the ratio
 * to the noise is 1 + [d(1 − ψ/p̄) − λ²(p̄ − ψ/2) + k·λ²·Var(p)]/ψ: with one trial, 1 + (d(1 − ψ/p̄) − d²)/ψ.
 * Where the standard error is clustered and ψ counts samples alone, se²/ψ carries the design effect, so the
 * drop's variance has the same design effect as the noise (turns that fail together also lose together). Without a
 * rate: 1 + d/ψ, the upper bound.
 */
function seUnder(design: GateDesign, d: number): number {
  const psi = design.discordance
  if (!(psi > 0)) return design.se
  const rate = design.rate
  if (rate === undefined || !(rate > 0)) return design.se * Math.sqrt(1 + d / psi)
  const lambda = Math.min(1, d / rate)
  const k = design.trials ?? 1
  const varP = Math.max(0, rate - psi / 2 - rate * rate)
  const added = dropPairs(psi, rate, d).q - psi - lambda * lambda * (rate - psi / 2) + k * lambda * lambda * varP
  return design.se * Math.sqrt(Math.max(1e-6, 1 + added / psi))
}

/** Power of the clustered t test (df G-1) at level `a` with `minDrop`, against a drop `d`. */
export function tPower(design: GateDesign, d: number, a: number, minDrop: number): number {
  const g = design.clusters
  if (g < 2 || !clustersCanReject(g, a) || d <= 0) return 0
  if (design.se === 0) return noiselessPower(design, d, a, minDrop)
  const df = g - 1
  const se = seUnder(design, d)
  // The test divides by the standard error it observes, which carries the drop's variance too.
  const c = Math.max(minDrop, studentQuantile(1 - a, df) * se)
  return studentUpperTail((c - d) / se, df)
}

/**
 * With no noise at all, every cluster that changes changes one way, and the test rejects once enough of them have
 * (the sign-flip's 2^-k ≤ a; past SIGN_FLIP_MAX the t test on same-signed changes rejects sooner) and the drop is at
 * least `minDrop`. A drop d loses each trial's outcome with probability d, so a cluster of s samples with k trials
 * each changes with probability 1 − (1 − d)^(s·k): the power is a binomial tail over the clusters, smooth in d, not
 * the step a drop of exactly k clusters would give (that step printed "power at 10 pts: 0%" beside an MDE of 12.5).
 * The drop observed must reach `minDrop` too: the outcomes lost, L of the N = n·k draws (each right one, rate·N of
 * them, lost with probability d / rate), must be at least N·minDrop, which a true drop of exactly minDrop gives about
 * half of the time (taking only d ≥ minDrop stated an MDE of 2.0 points that 200 samples × 3 trials caught 44% of
 * the time). The two events nearly nest (a few changed clusters hold the lost outcomes minDrop asks for, or those
 * outcomes spread over the clusters the test needs), so the power is the smaller of the two probabilities.
 */
function noiselessPower(design: GateDesign, d: number, a: number, minDrop: number): number {
  if (d < minDrop) return 0
  const need = Math.min(Math.ceil(Math.log2(1 / a) - 1e-9), SIGN_FLIP_MAX + 1)
  const draws = (design.n / Math.max(1, design.clusters)) * (design.trials ?? 1)
  const changes = 1 - (1 - Math.min(1, d)) ** draws
  const total = design.n * (design.trials ?? 1)
  const rate = design.rate !== undefined && design.rate > 0 ? design.rate : 1
  const right = Math.max(1, Math.round(total * rate))
  const observed = minDrop > 0 ? binomialTail(Math.ceil(total * minDrop - 1e-9), right, Math.min(1, d / rate)) : 1
  return Math.min(binomialTail(need, design.clusters, changes), observed)
}

/** The p-quantile of χ²(ν) (Wilson and Hilferty's cube-root normal approximation, floored above 0). */
export function chiSquareQuantile(p: number, df: number): number {
  const c = 2 / (9 * df)
  return Math.max(1e-3 * df, df * (1 - c + normalQuantile(p) * Math.sqrt(c)) ** 3)
}

/** The gate's power against a drop `d` at level `a` (α over the family size) with the verdict's `minDrop`. */
export function gatePower(design: GateDesign, d: number, a: number, minDrop: number): number {
  return design.mcnemar ? mcnemarPower(design.n, design.discordance, d, a, minDrop, design.rate) : tPower(design, d, a, minDrop)
}

/**
 * The smallest drop the gate detects with 80% power (`power`), or null when no drop can be detected (one cluster,
 * too few clusters for the level, no samples). Bisection to 0.01 points on the monotone power curve.
 */
export function gateMde(design: GateDesign, a: number, minDrop: number, power = POWER): number | null {
  if (design.n === 0) return null
  if (!design.mcnemar) {
    const g = design.clusters
    if (g < 2 || !clustersCanReject(g, a)) return null
  }
  const top = design.mcnemar ? 1 - design.discordance / 2 : 1
  if (!(top > 0) || gatePower(design, top, a, minDrop) < power) return null
  let lo = 0
  let hi = top
  while (hi - lo > 2e-4) {
    const mid = (lo + hi) / 2
    if (gatePower(design, mid, a, minDrop) >= power) hi = mid
    else lo = mid
  }
  return hi
}

/**
 * The same design with `factor` times the samples (drawn like these: same flakiness, same cluster sizes) and each
 * sample's value the mean of `trials` generations (the `mean` reducer). One model of a drop serves every figure of
 * a plan (power, MDE, samples and trials needed): each trial's 0/1 outcome is lost with probability d, and two runs'
 * trials differ with probability ψ with no drop.
 *
 * 0/1 values of single samples: k trials of n samples are, to the gate, n·k paired 0/1 draws, each discordant with
 * probability ψ (+ d under a drop), so the design stays McNemar's over n·k pairs: the gate's test on the samples'
 * shares (sign-flip, paired t) sees the same counts, and its discreteness (too few samples moved to reach α) is
 * McNemar's. Trials thus help with no flakiness at all: they give a drop more draws to show in. Otherwise (clusters,
 * fractions) the clustered t: its standard error shrinks by √(factor·trials), ψ stays per trial (see seUnder).
 */
export function scaleDesign(design: GateDesign, factor: number, trials = 1): GateDesign {
  const n = Math.max(1, Math.round(design.n * factor))
  const clusters = Math.max(1, Math.round(design.clusters * factor))
  if (design.mcnemar && trials > 1) {
    // Each sample's value is then a share of its trials: the gate tests the samples (sign-flip, paired t), so a
    // drop shows in samples that changed, not in trials that flipped (counting trials overstated the power of
    // exact tests: 80% planned, 55% seen at 40 samples × 3 trials).
    return withRate({ n, clusters: n, mcnemar: false, discordance: design.discordance, se: Math.sqrt(design.discordance / (n * trials)), trials }, design)
  }
  if (design.mcnemar) {
    const pairs = n * trials
    return withRate({ n: pairs, clusters: pairs, mcnemar: true, discordance: design.discordance, se: Math.sqrt(design.discordance / pairs) }, design)
  }
  return withRate({ n, clusters, mcnemar: false, discordance: design.discordance, se: design.se / Math.sqrt(factor * trials), trials: (design.trials ?? 1) * trials }, design)
}

const withRate = (scaled: GateDesign, from: GateDesign): GateDesign => (from.rate === undefined ? scaled : { ...scaled, rate: from.rate })

/**
 * How many times the samples reach `power` against `drop` (doubling, then bisection on the factor), or null past
 * 1,000 times (say "not reachable" rather than print an absurd count).
 */
export function samplesFactorFor(design: GateDesign, drop: number, a: number, minDrop: number, trials = 1, power = POWER): number | null {
  if (design.n === 0 || drop < minDrop) return null
  const ok = (f: number) => gatePower(scaleDesign(design, f, trials), drop, a, minDrop) >= power
  let hi = 1 / 64
  while (!ok(hi)) {
    hi *= 2
    if (hi > 1000) return null
  }
  let lo = hi / 2
  while (hi / lo > 1.01) {
    const mid = Math.sqrt(lo * hi)
    if (ok(mid)) hi = mid
    else lo = mid
  }
  return hi
}

/** The smallest number of trials (1 to 64) that reaches `power` against `drop` at the current size, or null. */
export function trialsFor(design: GateDesign, drop: number, a: number, minDrop: number, power = POWER): number | null {
  for (let k = 1; k <= 64; k++) if (gatePower(scaleDesign(design, 1, k), drop, a, minDrop) >= power) return k
  return null
}
