/**
 * 95% intervals for rates: the Wilson score interval, and its clustered form for samples that are not independent
 * (the samples one dialogue expands into, `<id>#<k>`, share a conversation and tend to be right or wrong together).
 *
 * Clustering (Evan Miller, "Adding Error Bars to Evals", 2024): the clustered variance of a mean over N values in
 * clusters c is Σ_c (S_c − p·n_c)² / N², where S_c and n_c are the cluster's sum and size. Divided by the variance
 * Wilson assumes, p(1 − p)/N, it gives the design effect; the interval is Wilson's with the effective sample size
 * N / deff. The design effect is floored at 1 (clustering never narrows an interval). At p = 0 or 1 the residuals
 * vanish and say nothing: the effective size is then the number of clusters (the worst case for that clustering).
 * Small numbers of clusters: the variance takes the G/(G-1) factor the comparison's clustered standard error has
 * (CR1), and the quantile is Student's t with G-1 degrees of freedom instead of z (with 10 dialogues the z interval
 * covered 88-92%, not 95%). One cluster says nothing about the spread: the interval is [0, 1].
 * Pure functions: the reporter, the HTML report and the tests share them.
 */
import { studentQuantile } from './stats.js'

/** The normal quantile of a two-sided 95% interval. */
export const Z95 = 1.959963984540054

/** A closed interval `[lo, hi]` within [0, 1]. */
export type Interval = [lo: number, hi: number]

/**
 * The Wilson score interval of a proportion `p` over `n` trials (95% by default); `n` may be fractional (an
 * effective sample size). Also used for means of per-sample fractions (NeMo's multi-call samples can score 0.5):
 * there it treats the mean as a share of samples, an approximation that stays inside [0, 1] and is exact for 0/1 values.
 */
export function wilsonInterval(p: number, n: number, z = Z95): { lo: number; hi: number } | null {
  if (!(n > 0) || !Number.isFinite(p) || !Number.isFinite(n)) return null
  const q = Math.min(1, Math.max(0, p))
  const z2 = z * z
  const denom = 1 + z2 / n
  const centre = (q + z2 / (2 * n)) / denom
  const half = (z / denom) * Math.sqrt((q * (1 - q)) / n + z2 / (4 * n * n))
  // At 0 and 1 the bound is exactly the observed share (floating point would land a hair off).
  return { lo: q === 0 ? 0 : Math.max(0, centre - half), hi: q === 1 ? 1 : Math.min(1, centre + half) }
}

/** Wilson's interval as a `[lo, hi]` pair (null without a denominator). */
export function wilson(p: number, n: number): Interval | null {
  const ci = wilsonInterval(p, n)
  return ci ? [ci.lo, ci.hi] : null
}

/**
 * Sums over the clusters of one metric that the design effect needs, kept as three running totals so clusters can
 * be folded in any order: Σ S_c², Σ S_c·n_c and Σ n_c², plus N, Σ x and the number of clusters.
 */
export interface ClusterTotals {
  n: number
  sum: number
  clusters: number
  /** Clusters of more than one value: without one, the plain Wilson interval applies. */
  multi: number
  sumSq: number
  sumN: number
  nSq: number
}

export function emptyClusterTotals(): ClusterTotals {
  return { n: 0, sum: 0, clusters: 0, multi: 0, sumSq: 0, sumN: 0, nSq: 0 }
}

/** Fold in one finished cluster: its size and the sum of its values. */
export function addCluster(t: ClusterTotals, size: number, sum: number): void {
  if (size <= 0) return
  t.n += size
  t.sum += sum
  t.clusters++
  if (size > 1) t.multi++
  t.sumSq += sum * sum
  t.sumN += sum * size
  t.nSq += size * size
}

/** The design effect of clustered values with mean `p` (≥ 1; 1 when no cluster has more than one value). */
export function designEffect(t: ClusterTotals, p: number): number {
  if (t.multi === 0 || t.n === 0) return 1
  if (p <= 0 || p >= 1) return t.n / t.clusters
  if (t.clusters < 2) return Infinity
  // Σ_c (S_c − p·n_c)² expanded into the running totals, with CR1's G/(G-1).
  const residual = t.sumSq - 2 * p * t.sumN + p * p * t.nSq
  const deff = ((t.clusters / (t.clusters - 1)) * residual) / (t.n * p * (1 - p))
  return Number.isFinite(deff) ? Math.max(1, deff) : 1
}

/** The 95% interval of the mean `p` of clustered values: Wilson's at the effective size N / deff, on t(G-1). */
export function clusteredWilson(t: ClusterTotals, p: number): Interval | null {
  if (t.n === 0) return null
  if (t.multi === 0) return wilson(p, t.n)
  if (t.clusters < 2) return [0, 1]
  const ci = wilsonInterval(p, t.n / designEffect(t, p), studentQuantile(0.975, t.clusters - 1))
  return ci ? [ci.lo, ci.hi] : null
}

/** The cluster a sample belongs to: the dialogue of an expanded sample (`<id>#<k>`), else the sample itself. */
export function clusterOf(id: string): string {
  const m = /^(.*)#\d+$/.exec(id)
  return m ? (m[1] as string) : id
}
