/**
 * Comparing a run with a baseline sample by sample: samples pair by (suite, id); added and removed ones are listed
 * apart and left out of the tests. Per metric, overall and per suite: the paired rates, their difference with a
 * 95% interval (clustered standard errors, t with G-1 degrees of freedom), a one-sided p-value, the minimum
 * detectable effect of the gate as it decides, and a verdict.
 *
 * The test follows the data's clusters (a dialogue's turns are one cluster; see score/stats.ts): exact McNemar
 * when values are 0/1 and every cluster is one sample; otherwise a test on the clusters' summed differences, exact
 * sign-flip up to SIGN_FLIP_MAX clusters that changed, the clustered paired t beyond. Counting turns as independent
 * samples doubled the false-alarm rate on correlated dialogues (issue 20).
 *
 * The family: by default the gate tests one primary metric per scorer (name_correct and args_exact_match for NeMo's
 * six, as a miss on the others makes one of them 0; no_call_accuracy; each user scorer's metrics), overall and per
 * suite (a lone suite is the overall scope and is not tested twice). Each metric is tested for itself (a joint sum of
 * two let a rise in one hide a drop in the other), under the overall-first procedure of `overallFirstGate`: α split
 * over the metrics, a metric's suites only after its overall scope, Tarone's rule for what cannot reject.
 *
 * Verdicts: `regressed` when the drop is significant at `alpha` after the correction, and at least `minDrop`;
 * `inconclusive` for a drop of at least `minDrop` that is significant only before the correction, or in a scope of
 * one cluster (nothing can be tested there): a warning, not a failure, kept rare on noise so it is not ignored (a
 * drop too few samples moved to test is `unchanged`, with a note); `improved` for a rise significant after the correction; `unchanged` otherwise (a drop smaller than
 * `minDrop` is unchanged, however significant: it is below what the user said matters).
 */
import { gateMde } from '../../score/power.js'
import type { GatePowerSummary, MetricComparison, Verdict } from './metric-comparison.js'
import { overallFirstGate, type ChainHypothesis } from '../../score/stats.js'
import { powerSummary, testMetric, type Column, type Tested } from './metric-tests.js'
import { comparability } from './comparable.js'
import { compareKeys, fold, keyOf, type Folded } from './fold.js'
import type { SampleOutcome } from './outcomes.js'
import { metaDifferences, type RunMeta } from './run-meta.js'

export type { GatePowerSummary, MetricComparison, Verdict } from './metric-comparison.js'

export interface RegressionOptions {
  /** Family-wise significance level of the gate (default 0.05). */
  alpha?: number
  /** The smallest drop that counts as a regression, as a share (default 0.02: two points). */
  minDrop?: number
  /** The gated metrics (default: the primary metrics, see PRIMARY_EXCLUDES; `metrics` names them all). */
  metrics?: string[]
  /** Sample ids (`<suite> > <id>` or `<id>`) that fail the run when they go from right to wrong. */
  mustPass?: string[]
}

/**
 * NeMo metrics left out of the default gate when name_correct and args_exact_match are measured: a sample with no
 * call scores 0 on name_correct, one with invalid JSON or a missed or extra field 0 on args_exact_match, so those
 * two stand for the rest (NeMo scores the arguments apart from the name, so neither stands for the other), and
 * each further test in the family would only raise the bar for all. The others stay in the report, tested, not gated.
 */
export const PRIMARY_EXCLUDES: readonly string[] = ['has_call', 'args_json_valid', 'args_field_precision', 'args_field_recall']

/** The metrics the gate tests by default: every measured metric but those name_correct and args_exact_match stand for. */
export function primaryMetrics(available: readonly string[]): string[] {
  if (!available.includes('args_exact_match') || !available.includes('name_correct')) return [...available]
  return available.filter((m) => !PRIMARY_EXCLUDES.includes(m))
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
  /**
   * Paired samples by what happened to them. `headSkipped` and `headErrored`: samples the baseline scored (some trial
   * evaluated without error) that this run skipped (by policy) or errored on, in any trial; they cannot be compared,
   * so each list, when not empty, is also a reason in `incomparable` (never counted as regressed, never a pass).
   */
  samples: { regressed: string[]; improved: string[]; added: string[]; removed: string[]; changedCalls: number; headSkipped: string[]; headErrored: string[] }
  /** `mustPass` samples that went from right to wrong (they fail the run whatever the statistics). */
  mustPassFailed: string[]
  /** Calls of flipped samples (head's, and expected), for diffs: `<suite> > <id>` → lines. */
  details: Record<string, { failures: string[]; expected?: string; base?: string; head?: string }>
  /** Mean usage (tokens, latency, cost) over paired samples that have it in both runs (with trials: in every evaluated trial). */
  usage: Record<string, { base: number; head: number; delta: number; n: number }>
  warnings: string[]
  /**
   * Why the two runs cannot be compared (no shared samples, a metric one side lacks, a baseline with nothing
   * evaluated): any reason fails the comparison, as a regression does, since no verdict could be trusted.
   */
  incomparable: string[]
  pass: boolean
  /** The gate's power and the samples it needs (absent when no metric is gated). */
  power?: GatePowerSummary
}

/** Flipped samples whose calls the comparison keeps (the lists of ids are complete; the diffs are for reading). */
export const MAX_DETAILS = 200

/** Samples expanded from one dialogue (`id#k`) share a cluster. */
const clusterOf = (suite: string, id: string) => `${suite}\u0000${id.replace(/#\d+$/, '')}`

/** One scope's columns (by metric index) and its clusters' ids. */
interface Scope {
  columns: (Column | undefined)[]
  /** The next cluster id in this scope. */
  next: number
}

/**
 * Compare a head run with a baseline: what `tool-evals compare` and the reporter's `baseline` run. `mustPassIds`
 * (the older fourth parameter) adds to `options.mustPass`.
 */
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
  const mustPass = new Set([...(options.mustPass ?? []), ...mustPassIds])
  const regressedIds: string[] = []
  const improvedIds: string[] = []
  const mustPassFailed: string[] = []
  const headSkipped: string[] = []
  const headErrored: string[] = []
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
    // Scored in the baseline, not (wholly) in this run: not comparable, so neither a pass nor a regression to test.
    const unscored = bf.scoredTrials > 0 && (hf.skippedTrials > 0 || hf.erroredTrials > 0)
    if (unscored) (hf.skippedTrials > 0 ? headSkipped : headErrored).push(keyOf(hf.suite, hf.id))
    if (bf.right && !hf.right && !(unscored && hf.skippedTrials > 0)) {
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
  const gatedMetrics = options.metrics ?? primaryMetrics(available)
  const gated = new Set(gatedMetrics)
  const tested = new Map<string, Map<string, Tested>>()
  // A lone suite is the overall scope over again: tested once (overall), its entry given the same numbers.
  const loneSuite = scopes.size === 2
  // The family: each gated metric on its own (a chain), overall first, its suites after (overallFirstGate).
  const hyps: { scope: string; metric: string; drop: ChainHypothesis; rise: ChainHypothesis }[] = []
  for (const [scope, { columns }] of scopes) {
    const out = new Map<string, Tested>()
    for (let j = 0; j < metricNames.length; j++) {
      const values = columns[j]
      if (!values) continue
      const metric = metricNames[j] as string
      out.set(metric, testMetric(values, gated.has(metric)))
    }
    tested.set(scope, out)
    if (loneSuite && scope !== '') continue
    for (const [metric, t] of out) {
      if (!t.gated) continue
      const chain = metricNames.indexOf(metric)
      const overall = scope === ''
      const weight = weightOf(metric, gated)
      hyps.push({ scope, metric, drop: { chain, overall, p: t.drop, minP: t.minP, weight }, rise: { chain, overall, p: t.rise, minP: t.minP, weight } })
    }
  }
  const drops = overallFirstGate(hyps.map((u) => u.drop), alpha)
  const rises = overallFirstGate(hyps.map((u) => u.rise), alpha)
  const adjustedOf = new Map<string, { drop: number; rise: number; inFamily: boolean; level: number }>()
  hyps.forEach((u, i) =>
    adjustedOf.set(`${u.scope}\u0000${u.metric}`, { drop: drops.adjusted[i] as number, rise: rises.adjusted[i] as number, inFamily: drops.inFamily[i] as boolean, level: drops.level[i] as number }),
  )

  const finish = (scope: string, metric: string, t: Tested): MetricComparison => {
    const adj = adjustedOf.get(`${loneSuite ? '' : scope}\u0000${metric}`)
    const pDrop = adj ? adj.drop : t.drop
    const pRise = adj ? adj.rise : t.rise
    const mdeLevel = adj ? adj.level : alpha
    let verdict: Verdict = 'unchanged'
    if (t.delta <= -minDrop) {
      if (pDrop <= alpha && (!adj || adj.inFamily)) verdict = 'regressed'
      // A warning only with some evidence (significant before the correction) or when the scope is one cluster
      // (nothing can be tested): a plain "drop ≥ minDrop" warned on 27% of pure-noise runs.
      else if (t.drop <= alpha || (t.clusters ?? 0) < 2) verdict = 'inconclusive'
    } else if (t.delta > 0 && pRise <= alpha && (!adj || adj.inFamily)) verdict = 'improved'
    const { drop: _d, rise: _r, minP: _m, design, ...rest } = t
    const out: MetricComparison = { ...rest, verdict, mde: gateMde(design, mdeLevel, minDrop), mdeLevel }
    if (out.note === undefined && t.minP > alpha && t.delta !== 0) {
      out.note = `too few ${t.test === 'mcnemar' ? 'discordant samples' : 'changed clusters'} to test: the smallest p-value possible is ${t.minP.toPrecision(2)}`
    }
    if (adj) {
      out.pAdjusted = t.delta < 0 ? adj.drop : adj.rise
      out.inFamily = adj.inFamily
      if (!adj.inFamily && out.note === undefined) out.note = `out of the gate's family (Tarone): its smallest possible p-value ${t.minP.toPrecision(2)} exceeds α/${Math.max(1, drops.chains)}`
    }
    return out
  }
  const metricsOut: Record<string, MetricComparison> = {}
  for (const [metric, t] of tested.get('') ?? []) metricsOut[metric] = finish('', metric, t)
  const suitesOut: Comparison['suites'] = {}
  for (const scope of [...tested.keys()].filter((s) => s !== '').sort()) {
    const m: Record<string, MetricComparison> = {}
    // A lone suite's numbers are the overall ones (same samples, same clusters): no second computation.
    for (const [metric, t] of tested.get(scope) as Map<string, Tested>) m[metric] = loneSuite && metricsOut[metric] ? { ...metricsOut[metric] } : finish(scope, metric, t)
    suitesOut[scope] = { metrics: m }
  }
  // The power summary's metric: args_exact_match when gated (as `tool-evals plan`), else the first gated metric.
  const primary = [...gatedMetrics].sort((a, b) => Number(b === 'args_exact_match') - Number(a === 'args_exact_match')).find((m) => tested.get('')?.has(m))
  const primaryTest = primary === undefined ? undefined : tested.get('')?.get(primary)

  const warnings = metaDifferences(base.meta, head.meta)
  const checked = comparability(
    { paired: paired.length, baseSamples: b.length, headSamples: h.length, baseEvaluated, baseErrored, baseRepeated, headRepeated, headSkipped, headErrored },
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
    samples: { regressed: regressedIds.sort(), improved: improvedIds.sort(), added: added.sort(), removed: removed.sort(), changedCalls, headSkipped, headErrored },
    mustPassFailed: mustPassFailed.sort(),
    details,
    usage,
    warnings,
    incomparable: checked.incomparable,
    pass: !anyRegressed && mustPassFailed.length === 0 && checked.incomparable.length === 0,
    ...(primary !== undefined && primaryTest ? { power: primarySummary(primary, primaryTest, hyps, drops, alpha, minDrop) } : {}),
  }
}


/**
 * A gated metric's share of α relative to the others'. args_exact_match takes twice name_correct's when both are
 * gated: a wrong name is also wrong arguments, so args_exact_match sees every drop name_correct sees and the
 * arguments' own; name_correct's test is there for a drop of names hidden by a rise of arguments.
 */
export function weightOf(metric: string, gated: ReadonlySet<string>): number {
  return metric === 'args_exact_match' && gated.has('name_correct') ? 2 : 1
}

/** The power summary of the primary metric's overall test, at the level the procedure holds it to. */
function primarySummary(primary: string, t: Tested, hyps: readonly { scope: string; metric: string }[], drops: { chains: number; inFamily: boolean[]; level: number[] }, alpha: number, minDrop: number): GatePowerSummary {
  const i = hyps.findIndex((u) => u.scope === '' && u.metric === primary)
  const family = Math.max(1, drops.chains + (i >= 0 && drops.inFamily[i] ? 0 : 1))
  return powerSummary(primary, t.design, alpha, family, minDrop, i >= 0 ? drops.level[i] : alpha / family)
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
