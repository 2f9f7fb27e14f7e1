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
  pairedSummaryOf,
  pairedTTest,
} from '../../score/stats.js'
import { comparability } from './comparable.js'
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
  /**
   * Why the two runs cannot be compared (no shared samples, a metric one side lacks, a baseline with nothing
   * evaluated): any reason fails the comparison, as a regression does, since no verdict could be trusted.
   */
  incomparable: string[]
  pass: boolean
}

/** A sample's outcome with its trials folded: the mean per metric, right only when every trial was. */
interface Folded {
  suite: string
  id: string
  values: Record<string, number>
  right: boolean
  evaluated: boolean
  /** Every evaluated trial errored (false until one is evaluated). */
  erroredOnly: boolean
  mustPass: boolean
  failures: string[]
  hash?: string
  usage?: Record<string, number>
  expected?: string
  calls?: string
  /** Trials folded in (1 without trials). */
  trials: number
  /** Per metric, how many trials gave a value (only once a second trial came). */
  counts?: Record<string, number>
}

/** Flipped samples whose calls the comparison keeps (the lists of ids are complete; the diffs are for reading). */
export const MAX_DETAILS = 200

const keyOf = (suite: string, id: string) => `${suite} > ${id}`
/** Samples expanded from one dialogue (`id#k`) share a cluster. */
const clusterOf = (suite: string, id: string) => `${suite}\u0000${id.replace(/#\d+$/, '')}`

function newFolded(o: SampleOutcome): Folded {
  return { suite: o.suite, id: o.id, values: o.values, right: true, evaluated: false, erroredOnly: false, mustPass: false, failures: [], trials: 1 }
}

/** Add a further trial's values (sums and counts; divided at the end of `fold`). */
function addTrial(f: Folded, o: SampleOutcome): void {
  if (!f.counts) {
    // Copy on the second trial: until then the outcome's own values serve (no copy per sample).
    f.values = { ...f.values }
    f.counts = {}
    for (const m in f.values) f.counts[m] = 1
  }
  f.trials++
  for (const m in o.values) {
    f.values[m] = (f.values[m] ?? 0) + (o.values[m] as number)
    f.counts[m] = (f.counts[m] ?? 0) + 1
  }
}

/** Sample order: suite, then id (the sidecar's order; `sortOutcomes` gives the same). */
function compareKeys(aSuite: string, aId: string, bSuite: string, bId: string): number {
  if (aSuite !== bSuite) return aSuite < bSuite ? -1 : 1
  return aId === bId ? 0 : aId < bId ? -1 : 1
}

function isSorted(outcomes: readonly SampleOutcome[]): boolean {
  for (let i = 1; i < outcomes.length; i++) {
    const a = outcomes[i - 1] as SampleOutcome
    const b = outcomes[i] as SampleOutcome
    if (compareKeys(a.suite, a.id, b.suite, b.id) > 0) return false
  }
  return true
}

/**
 * One Folded per sample, in sample order: the outcomes sorted (sidecars and the reporter's are already), then each
 * run of equal (suite, id), its trials, folded. No map keyed by strings: sorting makes pairing a merge.
 */
function fold(input: readonly SampleOutcome[], repeated: string[]): Folded[] {
  const outcomes = isSorted(input) ? input : [...input].sort((a, b) => compareKeys(a.suite, a.id, b.suite, b.id))
  const out: Folded[] = []
  let f: Folded | undefined
  // Only trials (each with its own index) may share a (suite, id); anything else repeated would be folded as trials.
  const trials = new Set<number>()
  let untrialled = false
  for (const o of outcomes) {
    if (f && f.suite === o.suite && f.id === o.id) {
      if (untrialled || o.trial === undefined || trials.has(o.trial)) repeated.push(keyOf(o.suite, o.id))
      addTrial(f, o)
    } else {
      out.push((f = newFolded(o)))
      trials.clear()
      untrialled = false
    }
    if (o.trial === undefined) untrialled = true
    else trials.add(o.trial)
    if (o.skipped) continue
    f.erroredOnly = o.errored === true && (f.erroredOnly || !f.evaluated)
    f.evaluated = true
    if (!isRight(o)) {
      if (f.right) f.failures = o.errored ? ['errored', ...o.failures] : o.failures
      f.right = false
      if (o.expected !== undefined) f.expected = o.expected
      if (o.calls !== undefined) f.calls = o.calls
    }
    if (o.mustPass) f.mustPass = true
    if (o.callsHash !== undefined) f.hash = o.callsHash
    if (o.usage) {
      if (f.usage === undefined) f.usage = f.trials === 1 ? o.usage : { ...o.usage }
      else {
        if (f.usage === o.usage) f.usage = { ...o.usage }
        for (const k in o.usage) f.usage[k] = (f.usage[k] ?? 0) + (o.usage[k] as number)
      }
    }
  }
  for (const x of out) {
    // A sample with no evaluated trial (skipped by policy) is not right either.
    if (!x.evaluated) x.right = false
    if (x.counts) for (const m in x.values) x.values[m] = (x.values[m] as number) / (x.counts[m] as number)
    if (x.usage && x.trials > 1) {
      x.usage = { ...x.usage }
      for (const k in x.usage) x.usage[k] = (x.usage[k] as number) / x.trials
    }
  }
  return out
}

/** One scope's columns (by metric index) and its clusters' ids. */
interface Scope {
  columns: (Column | undefined)[]
  /** The next cluster id in this scope. */
  next: number
}

/** Paired values of one metric in one scope, as columns (cluster ids local to the scope). */
interface Column {
  base: number[]
  head: number[]
  cluster: number[]
  length: number
}

function isBinary(c: Column): boolean {
  for (let i = 0; i < c.length; i++) {
    const b = c.base[i] as number
    const h = c.head[i] as number
    if ((b !== 0 && b !== 1) || (h !== 0 && h !== 1)) return false
  }
  return true
}

/** The test of one metric in one scope, before the verdict (which needs the whole family for Holm). */
function testMetric(values: Column, alpha: number, gated: boolean): Omit<MetricComparison, 'verdict'> & { drop: number; rise: number } {
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
  const baseRepeated: string[] = []
  const headRepeated: string[] = []
  const b = fold(base.outcomes, baseRepeated)
  const h = fold(head.outcomes, headRepeated)
  const added: string[] = []
  const removed: string[] = []
  const paired: [Folded, Folded][] = []
  // Merge join of the two sorted lists.
  let i = 0
  let j = 0
  while (i < b.length || j < h.length) {
    const bf = b[i]
    const hf = h[j]
    const c = !bf ? 1 : !hf ? -1 : compareKeys(bf.suite, bf.id, hf.suite, hf.id)
    if (c === 0) {
      paired.push([bf as Folded, hf as Folded])
      i++
      j++
    } else if (c < 0) {
      removed.push(keyOf((bf as Folded).suite, (bf as Folded).id))
      i++
    } else {
      added.push(keyOf((hf as Folded).suite, (hf as Folded).id))
      j++
    }
  }

  // Metric names once, then columns by index: the per-pair loop does no string-keyed map work per metric.
  const metricNames: string[] = []
  const known = new Set<string>()
  const baseMeasured = new Set<string>()
  let baseEvaluated = 0
  let baseErrored = 0
  for (const [bf, hf] of paired) {
    for (const m in hf.values) {
      if (!known.has(m)) {
        known.add(m)
        metricNames.push(m)
      }
    }
    for (const m in bf.values) baseMeasured.add(m)
    if (bf.evaluated) baseEvaluated++
    if (bf.erroredOnly) baseErrored++
  }
  const scopes = new Map<string, Scope>()
  const scopeOf = (name: string) => {
    let sc = scopes.get(name)
    if (!sc) scopes.set(name, (sc = { columns: new Array<Column | undefined>(metricNames.length), next: 0 }))
    return sc
  }
  // Cluster ids, numbered per scope (`next`): a sample of no dialogue is its own cluster (no lookup); the turns of
  // a dialogue share their dialogue's ids, found by one string lookup.
  const dialogues = new Map<string, [number, number]>()
  const clusterIds = (suite: Scope, id: string, suiteName: string): [number, number] => {
    if (!id.includes('#')) return [overall.next++, suite.next++]
    const key = clusterOf(suiteName, id)
    let ids = dialogues.get(key)
    if (!ids) dialogues.set(key, (ids = [overall.next++, suite.next++]))
    return ids
  }
  const push = (sc: Scope, j: number, base: number, head: number, cluster: number) => {
    let c = sc.columns[j]
    if (!c) sc.columns[j] = c = { base: [], head: [], cluster: [], length: 0 }
    c.base.push(base)
    c.head.push(head)
    c.cluster.push(cluster)
    c.length++
  }
  const overall = scopeOf('')
  const mustPass = new Set(mustPassIds)
  const regressedIds: string[] = []
  const improvedIds: string[] = []
  const mustPassFailed: string[] = []
  const details: Comparison['details'] = {}
  const usageSums = new Map<string, { base: number; head: number; n: number }>()
  let changedCalls = 0
  let detailCount = 0
  for (const [bf, hf] of paired) {
    const suiteScope = scopeOf(hf.suite)
    const [inOverall, inSuite] = clusterIds(suiteScope, hf.id, hf.suite)
    for (let j = 0; j < metricNames.length; j++) {
      const metric = metricNames[j] as string
      const hv = hf.values[metric]
      if (hv === undefined) continue
      const bv = bf.values[metric]
      if (bv === undefined) continue
      push(overall, j, bv, hv, inOverall)
      push(suiteScope, j, bv, hv, inSuite)
    }
    if (bf.hash !== undefined && hf.hash !== undefined && bf.hash !== hf.hash) changedCalls++
    if (bf.right && !hf.right) {
      const key = keyOf(hf.suite, hf.id)
      regressedIds.push(key)
      if (hf.mustPass || bf.mustPass || mustPass.has(key) || mustPass.has(hf.id)) mustPassFailed.push(key)
      if (detailCount++ < MAX_DETAILS) details[key] = flipDetail(hf, bf, hf)
    } else if (!bf.right && hf.right) {
      const key = keyOf(hf.suite, hf.id)
      improvedIds.push(key)
      if (detailCount++ < MAX_DETAILS) details[key] = flipDetail(bf, bf, hf)
    }
    if (bf.usage && hf.usage) {
      for (const k in hf.usage) {
        const hv = hf.usage[k] as number
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

  const available = metricNames.filter((_, j) => overall.columns[j] !== undefined)
  const gatedMetrics = options.metrics ?? available
  const gated = new Set(gatedMetrics)
  const tested = new Map<string, Map<string, ReturnType<typeof testMetric>>>()
  const family: { scope: string; metric: string; p: number }[] = []
  const riseFamily: { scope: string; metric: string; p: number }[] = []
  for (const [scope, { columns }] of scopes) {
    const out = new Map<string, ReturnType<typeof testMetric>>()
    for (let j = 0; j < metricNames.length; j++) {
      const values = columns[j]
      if (!values) continue
      const metric = metricNames[j] as string
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
  const checked = comparability(
    { paired: paired.length, baseSamples: b.length, headSamples: h.length, baseEvaluated, baseErrored, baseRepeated, headRepeated },
    baseMeasured,
    known,
    available,
    options.metrics,
  )
  warnings.push(...checked.warnings)
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
    incomparable: checked.incomparable,
    pass: !anyRegressed && mustPassFailed.length === 0 && checked.incomparable.length === 0,
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
