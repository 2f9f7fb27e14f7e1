/**
 * Comparing a run with a baseline sample by sample: samples pair by (suite, id); added and removed ones are listed
 * apart and left out of the tests. Per metric, overall and per suite: the paired rates, their difference with a
 * 95% interval (clustered standard errors), a one-sided p-value (exact McNemar for 0/1 values, a clustered paired
 * t-test for fractional ones: see score/stats.ts), the minimum detectable effect at 80% power, and a verdict.
 *
 * Verdicts: `regressed` when the drop is significant at `alpha` after Holm's correction across the gated metrics
 * and suites, and at least `minDrop`; `inconclusive` for a drop of at least `minDrop` that is not significant (warn,
 * do not fail); `improved` for a rise significant at `alpha` (Holm-corrected the same way); `unchanged` otherwise (a
 * drop smaller than `minDrop` is unchanged, however significant: it is below what the user said matters).
 */
import {
  deltaInterval,
  holm,
  mcnemarOneSided,
  minimumDetectableEffect,
  pairedSummary,
  pairedTTest,
  type PairedValue,
} from '../../score/stats.js'
import { isRight, type SampleOutcome } from './outcomes.js'
import { metaDifferences, type RunMeta } from './run-meta.js'

export interface RegressionOptions {
  /** Family-wise significance level of the gate (default 0.05). */
  alpha?: number
  /** The smallest drop that counts as a regression, as a share (default 0.02: two points). */
  minDrop?: number
  /** The gated metrics (default: every metric both runs measured). */
  metrics?: string[]
}

export type Verdict = 'regressed' | 'improved' | 'inconclusive' | 'unchanged'

export interface MetricComparison {
  /** Paired samples in the test. */
  n: number
  base: number
  head: number
  delta: number
  ci: [number, number]
  /** One-sided p-value in the direction of the change (a drop's, or a rise's), before correction. */
  pValue: number
  /** Holm-corrected p-value (gated metrics only). */
  pAdjusted?: number
  verdict: Verdict
  /** 0/1 metrics: pairs right → wrong (`regressed`) and wrong → right; fractional: pairs lower and higher. */
  discordant: { regressed: number; improved: number }
  test: 'mcnemar' | 'paired-t'
  /** Minimum detectable drop at 80% power (one-sided, `alpha`). */
  mde: number | null
  gated: boolean
}

export interface RunForComparison {
  file?: string
  meta?: RunMeta
  outcomes: readonly SampleOutcome[]
}

export interface Comparison {
  base: { file?: string; meta?: RunMeta }
  options: { alpha: number; minDrop: number; metrics: string[] }
  metrics: Record<string, MetricComparison>
  suites: Record<string, { metrics: Record<string, MetricComparison> }>
  samples: { regressed: string[]; improved: string[]; added: string[]; removed: string[]; changedCalls: number }
  /** `mustPass` samples that went from right to wrong (they fail the run whatever the statistics). */
  mustPassFailed: string[]
  /** Calls of flipped samples (head's, and expected), for diffs: `<suite> > <id>` → lines. */
  details: Record<string, { failures: string[]; expected?: string; base?: string; head?: string }>
  /** Mean usage (tokens, latency, cost) over paired samples that have it in both runs. */
  usage: Record<string, { base: number; head: number; delta: number; n: number }>
  warnings: string[]
  pass: boolean
}

/** A sample's outcome with its trials folded: the mean per metric, right only when every trial was. */
interface Folded {
  suite: string
  id: string
  values: Map<string, number>
  right: boolean
  mustPass: boolean
  failures: string[]
  hash?: string
  usage?: Record<string, number>
  expected?: string
  calls?: string
}

/** Flipped samples whose calls the comparison keeps (the lists of ids are complete; the diffs are for reading). */
export const MAX_DETAILS = 200

const keyOf = (suite: string, id: string) => `${suite} > ${id}`
/** Samples expanded from one dialogue (`id#k`) share a cluster. */
const clusterOf = (suite: string, id: string) => `${suite}\u0000${id.replace(/#\d+$/, '')}`

function fold(outcomes: readonly SampleOutcome[]): Map<string, Folded> {
  const out = new Map<string, Folded>()
  const counts = new Map<string, Map<string, number>>()
  const evaluated = new Set<string>()
  for (const o of outcomes) {
    const key = keyOf(o.suite, o.id)
    let f = out.get(key)
    if (!f) {
      f = { suite: o.suite, id: o.id, values: new Map(), right: true, mustPass: false, failures: [] }
      out.set(key, f)
      counts.set(key, new Map())
    }
    const c = counts.get(key) as Map<string, number>
    for (const [m, v] of Object.entries(o.values)) {
      f.values.set(m, (f.values.get(m) ?? 0) + v)
      c.set(m, (c.get(m) ?? 0) + 1)
    }
    if (o.skipped) continue
    evaluated.add(key)
    if (!isRight(o)) {
      f.right = false
      if (f.failures.length === 0) f.failures = o.errored ? ['errored', ...o.failures] : o.failures
      if (o.expected !== undefined) f.expected = o.expected
      if (o.calls !== undefined) f.calls = o.calls
    }
    if (o.mustPass) f.mustPass = true
    if (o.callsHash !== undefined) f.hash = o.callsHash
    if (o.usage) {
      f.usage ??= {}
      for (const [k, v] of Object.entries(o.usage)) f.usage[k] = (f.usage[k] ?? 0) + v
    }
  }
  for (const [key, f] of out) {
    const c = counts.get(key) as Map<string, number>
    for (const [m, sum] of f.values) f.values.set(m, sum / (c.get(m) as number))
    // A sample with no evaluated trial (skipped by policy) is not right either.
    if (!evaluated.has(key)) f.right = false
  }
  return out
}

function isBinary(values: readonly PairedValue[]): boolean {
  for (const v of values) if ((v.base !== 0 && v.base !== 1) || (v.head !== 0 && v.head !== 1)) return false
  return true
}

/** The test of one metric in one scope, before the verdict (which needs the whole family for Holm). */
function testMetric(values: readonly PairedValue[], alpha: number, gated: boolean): Omit<MetricComparison, 'verdict'> & { drop: number; rise: number } {
  const s = pairedSummary(values)
  let regressed = 0
  let improved = 0
  for (const v of values) {
    if (v.head < v.base) regressed++
    else if (v.head > v.base) improved++
  }
  const binary = isBinary(values)
  const p = binary ? mcnemarOneSided(regressed, improved) : pairedTTest(s)
  return {
    n: s.n,
    base: s.base,
    head: s.head,
    delta: s.delta,
    ci: deltaInterval(s),
    pValue: s.delta < 0 ? p.drop : s.delta > 0 ? p.rise : Math.min(1, Math.max(p.drop, p.rise)),
    discordant: { regressed, improved },
    test: binary ? 'mcnemar' : 'paired-t',
    mde: minimumDetectableEffect(s.se, s.n, alpha),
    gated,
    drop: p.drop,
    rise: p.rise,
  }
}

export function compareRuns(base: RunForComparison, head: RunForComparison, options: RegressionOptions = {}, mustPassIds: readonly string[] = []): Comparison {
  const alpha = options.alpha ?? 0.05
  const minDrop = options.minDrop ?? 0.02
  const b = fold(base.outcomes)
  const h = fold(head.outcomes)
  const added: string[] = []
  const removed: string[] = []
  const paired: [Folded, Folded][] = []
  for (const [key, hf] of h) {
    const bf = b.get(key)
    if (bf) paired.push([bf, hf])
    else added.push(key)
  }
  for (const key of b.keys()) if (!h.has(key)) removed.push(key)

  // Per scope (overall '' and each suite) and metric: the paired values.
  const scopes = new Map<string, Map<string, PairedValue[]>>()
  const push = (scope: string, metric: string, v: PairedValue) => {
    let m = scopes.get(scope)
    if (!m) scopes.set(scope, (m = new Map()))
    let list = m.get(metric)
    if (!list) m.set(metric, (list = []))
    list.push(v)
  }
  const mustPass = new Set(mustPassIds)
  const regressedIds: string[] = []
  const improvedIds: string[] = []
  const mustPassFailed: string[] = []
  const details: Comparison['details'] = {}
  const usageSums = new Map<string, { base: number; head: number; n: number }>()
  let changedCalls = 0
  let detailCount = 0
  for (const [bf, hf] of paired) {
    const cluster = clusterOf(hf.suite, hf.id)
    for (const [metric, hv] of hf.values) {
      const bv = bf.values.get(metric)
      if (bv === undefined) continue
      const v = { base: bv, head: hv, cluster }
      push('', metric, v)
      push(hf.suite, metric, v)
    }
    const key = keyOf(hf.suite, hf.id)
    if (bf.hash !== undefined && hf.hash !== undefined && bf.hash !== hf.hash) changedCalls++
    if (bf.right && !hf.right) {
      regressedIds.push(key)
      if (hf.mustPass || bf.mustPass || mustPass.has(key) || mustPass.has(hf.id)) mustPassFailed.push(key)
      if (detailCount++ < MAX_DETAILS) details[key] = flipDetail(hf, bf, hf)
    } else if (!bf.right && hf.right) {
      improvedIds.push(key)
      if (detailCount++ < MAX_DETAILS) details[key] = flipDetail(bf, bf, hf)
    }
    if (bf.usage && hf.usage) {
      for (const [k, hv] of Object.entries(hf.usage)) {
        const bv = bf.usage[k]
        if (bv === undefined) continue
        const u = usageSums.get(k) ?? { base: 0, head: 0, n: 0 }
        u.base += bv
        u.head += hv
        u.n++
        usageSums.set(k, u)
      }
    }
  }

  const available = [...(scopes.get('')?.keys() ?? [])]
  const gatedMetrics = options.metrics ?? available
  const gated = new Set(gatedMetrics)
  const tested = new Map<string, Map<string, ReturnType<typeof testMetric>>>()
  const family: { scope: string; metric: string; p: number }[] = []
  const riseFamily: { scope: string; metric: string; p: number }[] = []
  for (const [scope, metrics] of scopes) {
    const out = new Map<string, ReturnType<typeof testMetric>>()
    for (const [metric, values] of metrics) {
      const t = testMetric(values, alpha, gated.has(metric))
      out.set(metric, t)
      if (t.gated) {
        family.push({ scope, metric, p: t.drop })
        riseFamily.push({ scope, metric, p: t.rise })
      }
    }
    tested.set(scope, out)
  }
  const adjusted = holm(family.map((f) => f.p))
  const riseAdjusted = holm(riseFamily.map((f) => f.p))
  const adjustedOf = new Map<string, { drop: number; rise: number }>()
  family.forEach((f, i) => adjustedOf.set(`${f.scope}\u0000${f.metric}`, { drop: adjusted[i] as number, rise: riseAdjusted[i] as number }))

  const finish = (scope: string, metric: string, t: ReturnType<typeof testMetric>): MetricComparison => {
    const adj = adjustedOf.get(`${scope}\u0000${metric}`)
    const pDrop = adj?.drop ?? t.drop
    const pRise = adj?.rise ?? t.rise
    let verdict: Verdict = 'unchanged'
    if (t.delta <= -minDrop) verdict = pDrop <= alpha ? 'regressed' : 'inconclusive'
    else if (t.delta > 0 && pRise <= alpha) verdict = 'improved'
    const { drop: _d, rise: _r, ...rest } = t
    const out: MetricComparison = { ...rest, verdict }
    if (adj) out.pAdjusted = t.delta < 0 ? adj.drop : adj.rise
    return out
  }
  const metricsOut: Record<string, MetricComparison> = {}
  for (const [metric, t] of tested.get('') ?? []) metricsOut[metric] = finish('', metric, t)
  const suitesOut: Comparison['suites'] = {}
  for (const scope of [...tested.keys()].filter((s) => s !== '').sort()) {
    const m: Record<string, MetricComparison> = {}
    for (const [metric, t] of tested.get(scope) as Map<string, ReturnType<typeof testMetric>>) m[metric] = finish(scope, metric, t)
    suitesOut[scope] = { metrics: m }
  }

  const warnings = metaDifferences(base.meta, head.meta)
  for (const metric of options.metrics ?? []) if (!available.includes(metric)) warnings.push(`gated metric ${metric} has no paired samples`)
  if (paired.length === 0) warnings.push('no sample of the head run is in the baseline: nothing to compare')
  const usage: Comparison['usage'] = {}
  for (const [k, u] of usageSums) usage[k] = { base: u.base / u.n, head: u.head / u.n, delta: (u.head - u.base) / u.n, n: u.n }

  const anyRegressed = [metricsOut, ...Object.values(suitesOut).map((s) => s.metrics)].some((ms) =>
    Object.values(ms).some((m) => m.gated && m.verdict === 'regressed'),
  )
  const baseInfo: Comparison['base'] = {}
  if (base.file !== undefined) baseInfo.file = base.file
  if (base.meta !== undefined) baseInfo.meta = base.meta
  return {
    base: baseInfo,
    options: { alpha, minDrop, metrics: gatedMetrics },
    metrics: metricsOut,
    suites: suitesOut,
    samples: { regressed: regressedIds.sort(), improved: improvedIds.sort(), added: added.sort(), removed: removed.sort(), changedCalls },
    mustPassFailed: mustPassFailed.sort(),
    details,
    usage,
    warnings,
    pass: !anyRegressed && mustPassFailed.length === 0,
  }
}

function flipDetail(wrong: Folded, base: Folded, head: Folded): Comparison['details'][string] {
  const d: Comparison['details'][string] = { failures: wrong.failures }
  if (wrong.expected !== undefined) d.expected = wrong.expected
  if (base.calls !== undefined) d.base = base.calls
  if (head.calls !== undefined) d.head = head.calls
  return d
}

/** The metrics and suites that regressed (gated), as `metric` or `suite: metric`, for messages. */
export function regressions(c: Comparison): string[] {
  const out: string[] = []
  for (const [m, r] of Object.entries(c.metrics)) if (r.gated && r.verdict === 'regressed') out.push(m)
  for (const [s, sr] of Object.entries(c.suites)) for (const [m, r] of Object.entries(sr.metrics)) if (r.gated && r.verdict === 'regressed') out.push(`${s}: ${m}`)
  return out
}
