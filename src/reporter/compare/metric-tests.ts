/**
 * The statistics of the baseline comparison, one metric and scope at a time (see compare.ts for the whole): which
 * test fits the samples' clusters, the joint test of NeMo's two primary metrics, the design the gate's power and
 * MDE are computed from, and the power summary. Pure functions over columns of paired values.
 */
import { gateMde, gatePower, samplesFactorFor, type GateDesign } from '../../score/power.js'
import {
  deltaInterval,
  mcnemarMinP,
  mcnemarOneSided,
  pairedSummaryOf,
  pairedTTest,
  SIGN_FLIP_MAX,
  signFlipTest,
} from '../../score/stats.js'
import type { GatePowerSummary, MetricComparison } from './metric-comparison.js'

/** Paired values of one metric in one scope, as columns (cluster ids local to the scope). */
export interface Column {
  base: number[]
  head: number[]
  cluster: number[]
  length: number
}

export function isBinary(c: Column): boolean {
  for (let i = 0; i < c.length; i++) {
    const b = c.base[i] as number
    const h = c.head[i] as number
    if ((b !== 0 && b !== 1) || (h !== 0 && h !== 1)) return false
  }
  return true
}

/** Per cluster, the summed difference head - base, zeros left out (what the cluster-level tests use). */
function clusterDifferences(c: Column): number[] {
  const sums = new Map<number, number>()
  for (let i = 0; i < c.length; i++) {
    const g = c.cluster[i] as number
    sums.set(g, (sums.get(g) ?? 0) + (c.head[i] as number) - (c.base[i] as number))
  }
  const out: number[] = []
  for (const d of sums.values()) if (Math.abs(d) > 1e-12) out.push(d)
  return out
}

export type Tested = Omit<MetricComparison, 'verdict' | 'mde'> & { drop: number; rise: number; minP: number; design: GateDesign }

/** The test of one metric in one scope, before the verdict (which needs the whole family for Holm). */
export function testMetric(values: Column, gated: boolean): Tested {
  const s = pairedSummaryOf(values)
  let regressed = 0
  let improved = 0
  for (let i = 0; i < values.length; i++) {
    const b = values.base[i] as number
    const h = values.head[i] as number
    if (h < b) regressed++
    else if (h > b) improved++
  }
  const binary = isBinary(values)
  const singletons = s.clusters === s.n
  let p: { drop: number; rise: number }
  let minP: number
  let test: MetricComparison['test']
  let note: string | undefined
  if (binary && singletons) {
    p = mcnemarOneSided(regressed, improved)
    minP = mcnemarMinP(regressed + improved)
    test = 'mcnemar'
  } else {
    // Clusters are what vary independently: test them (a lone sample is a cluster of one).
    const d = singletons ? [] : clusterDifferences(values)
    if (singletons ? regressed + improved <= SIGN_FLIP_MAX : d.length <= SIGN_FLIP_MAX) {
      const r = signFlipTest(singletons ? diffsOf(values) : d)
      p = { drop: r.drop, rise: r.rise }
      minP = r.minP
      test = 'sign-flip'
    } else {
      p = pairedTTest(s)
      minP = 0
      test = singletons ? 'paired-t' : 'clustered-t'
    }
  }
  if (s.clusters < 2) note = 'one cluster: a difference cannot be tested'
  const out: Tested = {
    n: s.n,
    base: s.base,
    head: s.head,
    delta: s.delta,
    ci: deltaInterval(s),
    pValue: s.delta < 0 ? p.drop : s.delta > 0 ? p.rise : Math.min(1, Math.max(p.drop, p.rise)),
    discordant: { regressed, improved },
    test,
    clusters: s.clusters,
    gated,
    drop: p.drop,
    rise: p.rise,
    minP,
    design: { n: s.n, clusters: s.clusters, mcnemar: test === 'mcnemar', discordance: s.n > 0 ? (regressed + improved) / s.n : 0, se: s.se, rate: s.base },
  }
  if (note !== undefined) out.note = note
  return out
}

/** Per-sample differences, zeros left out (the sign-flip test's input when every cluster is one sample). */
function diffsOf(c: Column): number[] {
  const out: number[] = []
  for (let i = 0; i < c.length; i++) {
    const d = (c.head[i] as number) - (c.base[i] as number)
    if (d !== 0) out.push(d)
  }
  return out
}


/** The gate's power on one metric's design, at the level its family gives (see GatePowerSummary; `level` when the metrics' shares of α are not equal). */
export function powerSummary(metric: string, design: GateDesign, alpha: number, family: number, minDrop: number, level = alpha / Math.max(1, family)): GatePowerSummary {
  const factor = samplesFactorFor(design, 0.05, level, minDrop)
  return {
    metric,
    level,
    family,
    mde: gateMde(design, level, minDrop),
    powerAt: [0.02, 0.03, 0.05, 0.1].map((drop) => ({ drop, power: gatePower(design, drop, level, minDrop) })),
    samplesFor5Points: factor === null ? null : Math.ceil(design.n * factor),
  }
}
