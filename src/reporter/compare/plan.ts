/**
 * Planning the baseline gate from one run: the power it has at a given drop and the samples or trials that reach
 * 80% power at the drop the user wants to catch (`tool-evals plan`). The noise a comparison will see is what the
 * model does differently on a second run of the same samples; a single run shows it only through its trials: a
 * sample right in a share p̂ of its k trials would differ between two runs with probability 2p(1 − p), estimated
 * without bias by 2p̂(1 − p̂)·k/(k − 1). The share comes from the sample's value under the `mean` reducer, else
 * from the report's flip rate (f(1 − f) = p̂(1 − p̂)). Dialogue turns are summed per dialogue (clusters); with one
 * value per sample the correlation within a dialogue cannot be measured and is taken as none (said in `notes`).
 */
import { chiSquareQuantile, gateMde, gatePower, samplesFactorFor, scaleDesign, trialsFor, type GateDesign } from '../../score/power.js'
import { primaryMetrics, weightOf } from './compare.js'
import type { SampleOutcome } from './outcomes.js'

export interface PlanOptions {
  alpha?: number
  minDrop?: number
  /** The drop to reach 80% power against (default 0.03). */
  mde?: number
  /** Trials per sample the plan assumes (each sample's value the mean of k; default 1). */
  trials?: number
  /** The metric to plan for (default args_exact_match, else the first primary metric measured). */
  metric?: string
}

export interface Plan {
  metric: string
  samples: number
  clusters: number
  /** Trials per sample in the baseline (1 without trials). */
  baselineTrials: number
  /** Share of samples whose outcome varies between runs of the same model, from the baseline's trials. */
  flaky: number
  /** Probability that a sample differs between two runs (ψ), each sample counted alone. */
  discordance: number
  /**
   * How many times the variance of a dialogue's summed turns exceeds the sum of its turns' own (the covariance of
   * turns that fail together), from a baseline with one line per trial; 1 otherwise (single samples, or unknown).
   */
  designEffect: number
  /** Degrees of freedom of the measured noise (Satterthwaite over the clusters' trials); null without trials. */
  noiseDf: number | null
  /**
   * Units the default gate is expected to correct over, and the level each is held to first (α over them): the gate
   * leaves out a unit that cannot reject (Tarone), so a unit other than the planned metric's counts only when its
   * expected discordant clusters with no change could reach α over the family. `familyMax`: every unit there is.
   */
  family: number
  familyMax: number
  level: number
  minDrop: number
  trials: number
  /** Power at drops of 2, 3, 5, 10 points and at `mde`, at the baseline's size with `trials`. */
  powerAt: { drop: number; power: number }[]
  /** The drop detected with 80% power at this size with `trials` (null: none). */
  mdeNow: number | null
  target: number
  /** Paired samples that reach 80% power at `target` with `trials` (null past 1,000 times the baseline). */
  samplesNeeded: number | null
  /** Trials per sample that reach it at the baseline's size (null past 64). */
  trialsNeeded: number | null
  notes: string[]
}

const keyOf = (o: SampleOutcome) => `${o.suite} > ${o.id}`

/** Below this many degrees of freedom in the measured noise, the plan says how far off its figures may be. */
const FEW_DF = 30

/** The plan from a baseline run's outcomes and its report's `trials` field. */
export function planGate(outcomes: readonly SampleOutcome[], trialsReport: { count?: number; flipRates?: Record<string, number>; unlisted?: number } | undefined, options: PlanOptions = {}): Plan {
  const alpha = options.alpha ?? 0.05
  const minDrop = options.minDrop ?? 0.02
  const target = options.mde ?? 0.03
  const trials = options.trials ?? 1
  const notes: string[] = []
  const measured = new Set<string>()
  for (const o of outcomes) for (const m in o.values) measured.add(m)
  const primary = primaryMetrics([...measured])
  const metric = options.metric ?? (primary.includes('args_exact_match') ? 'args_exact_match' : primary[0])
  if (metric === undefined || !measured.has(metric)) throw new Error(metric === undefined ? 'the baseline measured no metric' : `the baseline did not measure ${metric}`)

  // One value per sample (several lines of one sample are its trials: fold them into a share).
  const bySample = new Map<string, { suite: string; id: string; sum: number; count: number; binary: boolean }>()
  for (const o of outcomes) {
    const v = o.values[metric]
    if (v === undefined || o.skipped) continue
    const k = keyOf(o)
    const s = bySample.get(k) ?? { suite: o.suite, id: o.id, sum: 0, count: 0, binary: true }
    s.sum += v
    s.count++
    if (v !== 0 && v !== 1) s.binary = false
    bySample.set(k, s)
  }
  const lines = Math.max(1, ...[...bySample.values()].map((s) => s.count))
  const k = lines > 1 ? lines : Math.max(1, trialsReport?.count ?? 1)
  if (k === 1) notes.push('the baseline ran without trials: its flakiness cannot be measured, so the figures assume none (the best case); run it with `trials: 3` or more')
  if (lines === 1 && (trialsReport?.unlisted ?? 0) > 0) notes.push(`${trialsReport?.unlisted} unstable samples are not listed in the report's flipRates: their flakiness is not counted`)

  const clusterVar = new Map<string, number>()
  const clusterSize = new Map<string, number>()
  let flaky = 0
  // 0/1 per trial: the values are 0/1, or shares of k trials (multiples of 1/k).
  let binary = true
  let n = 0
  let rateSum = 0
  for (const [key, s] of bySample) {
    n++
    const mean = s.sum / s.count
    rateSum += mean
    if (!s.binary && !(k > 1 && Math.abs(mean * k - Math.round(mean * k)) < 1e-9)) binary = false
    let pq = 0
    if (k > 1) {
      if (mean > 0 && mean < 1) pq = mean * (1 - mean)
      else if (lines === 1) {
        const f = trialsReport?.flipRates?.[key] ?? 0
        pq = f * (1 - f)
      }
    }
    if (pq > 0) flaky++
    // Unbiased for one trial's variance from k trials.
    const v = k > 1 ? (pq * k) / (k - 1) : 0
    const cluster = `${s.suite}\u0000${s.id.replace(/#\d+$/, '')}`
    clusterVar.set(cluster, (clusterVar.get(cluster) ?? 0) + v)
    clusterSize.set(cluster, (clusterSize.get(cluster) ?? 0) + 1)
  }
  if (n === 0) throw new Error(`the baseline has no sample measuring ${metric}`)
  const clusters = clusterVar.size
  let independentVar = 0
  for (const v of clusterVar.values()) independentVar += v
  const multi = [...clusterSize.values()].some((c) => c > 1)
  let designEffect = 1
  if (multi && k > 1) {
    const direct = clusteredVariances(outcomes, metric, k)
    if (direct) {
      // Each dialogue's own variance over the trials, covariance of its turns included (the design effect follows).
      let clustered = 0
      for (const [c, v] of clusterVar) {
        clustered += direct.get(c) ?? v
        clusterVar.set(c, direct.get(c) ?? v)
      }
      if (independentVar > 0) {
        designEffect = clustered / independentVar
        notes.push(`dialogue turns are correlated: from the baseline's trials each dialogue varies ${designEffect.toFixed(2)}× as much as independent turns would (its design effect), counted in the figures`)
      }
    } else notes.push('dialogue turns are taken as independent within a dialogue (one value per sample cannot show their correlation): with correlated turns the figures are optimistic; a baseline whose samples file has one line per trial shows it')
  }
  let sumVar = 0
  let sumSquares = 0
  for (const v of clusterVar.values()) {
    sumVar += v
    sumSquares += v * v
  }
  // The summed variance is an estimate: each cluster's from k trials (k − 1 degrees of freedom), together worth
  // ν = (k − 1)(Σv)²/Σv² (Satterthwaite, 1946): few when a few dialogues carry the noise. The figures take the
  // estimate as the noise; with few degrees of freedom a note says how far the samples needed may be off (they
  // scale with the variance: ν/χ²(ν) spans that range). At the estimate the figures are on target averaged over
  // baselines (bench/gate-sim.js, GATE_SIM_PLAN=lines); averaging the power over that range instead (Julious and
  // Owen, 2006) made them conservative (30 dialogues at ρ 0.5: 85% and 89%), so the figures stay at the estimate.
  const noiseDf = k > 1 && sumSquares > 0 ? ((k - 1) * sumVar * sumVar) / sumSquares : null
  if (noiseDf !== null && noiseDf < FEW_DF) {
    const low = noiseDf / chiSquareQuantile(0.9, noiseDf)
    const high = noiseDf / chiSquareQuantile(0.1, noiseDf)
    notes.push(`the noise is measured from few independent draws (about ${noiseDf.toFixed(0)} degrees of freedom: few flaky samples or dialogues, few trials): the samples needed may be ${low.toFixed(2)}× to ${high.toFixed(2)}× what is named (80% interval); a baseline with more trials narrows it`)
  }
  // Values in the baseline are reduced over its trials; one run of the gate is one trial per sample. The design is
  // the gate's: ψ the share of samples that differ (turns counted alone), the standard error the clustered one. A
  // drop's own variance then carries the dialogues' design effect as the noise does (power.ts, seUnder); ψ from the
  // clustered variance counted the design effect in the noise and left it out of the drop (72% power at the stated
  // size, not 80%).
  const design: GateDesign = { n, clusters, mcnemar: !multi && binary, discordance: (2 * independentVar) / n, se: Math.sqrt(2 * sumVar) / n }
  // The drop model (power.ts, dropPairs) loses right 0/1 outcomes: its base rate means nothing for other values (a
  // similarity score), which keep the model's upper bound.
  if (binary) design.rate = rateSum / n
  const { family, familyMax, share } = expectedFamily(outcomes, primary, metric, trials, alpha)
  const level = alpha * share
  const planned = scaleDesign(design, 1, trials)
  const factor = samplesFactorFor(design, target, level, minDrop, trials)
  return {
    metric,
    samples: n,
    clusters,
    baselineTrials: k,
    flaky: flaky / n,
    discordance: design.discordance,
    designEffect,
    noiseDf,
    family,
    familyMax,
    level,
    minDrop,
    trials,
    powerAt: [...new Set([0.02, 0.03, 0.05, 0.1, target])].sort((a, b) => a - b).map((drop) => ({ drop, power: gatePower(planned, drop, level, minDrop) })),
    mdeNow: gateMde(planned, level, minDrop),
    target,
    samplesNeeded: factor === null ? null : Math.ceil(n * factor),
    trialsNeeded: trialsFor(design, target, level, minDrop),
    notes,
  }
}

/**
 * Per dialogue, the variance of one trial's summed values over the baseline's trials (unbiased, k − 1): the
 * clustered variance measured directly, the covariance of its turns included (what summing the turns' own
 * variances leaves out: 2.5–3.5× too optimistic on correlated dialogues). Needs one line per trial (the `trial`
 * index); null when the samples file has one line per sample.
 */
function clusteredVariances(outcomes: readonly SampleOutcome[], metric: string, k: number): Map<string, number> | null {
  const sums = new Map<string, Map<number, number>>()
  for (const o of outcomes) {
    const v = o.values[metric]
    if (v === undefined || o.skipped) continue
    if (o.trial === undefined) return null
    const c = `${o.suite}\u0000${o.id.replace(/#\d+$/, '')}`
    let byTrial = sums.get(c)
    if (!byTrial) sums.set(c, (byTrial = new Map()))
    byTrial.set(o.trial, (byTrial.get(o.trial) ?? 0) + v)
  }
  const out = new Map<string, number>()
  for (const [c, byTrial] of sums) {
    const xs = [...byTrial.values()]
    if (xs.length !== k) return null
    const mean = xs.reduce((a, b) => a + b, 0) / k
    out.set(c, xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (k - 1))
  }
  return out
}

/** P(two runs' shares of k trials differ) for a sample right with probability p in each trial. */
function sharesDiffer(p: number, k: number): number {
  let same = 0
  let c = 1 // C(k, j)
  for (let j = 0; j <= k; j++) {
    same += (c * p ** j * (1 - p) ** (k - j)) ** 2
    c = (c * (k - j)) / (j + 1)
  }
  return Math.max(0, 1 - same)
}

/**
 * The metrics the gate is expected to split α over when the planned metric drops (its overall test is held to α over
 * them; suites come after it: see overallFirstGate). The planned metric is in; another gated metric joins only if
 * the clusters it is expected to see differ with no change (from each sample's share in the baseline) give a
 * smallest p-value 2^-D within α over the family, the rule (Tarone's) the gate applies to the runs it compares.
 * Holding every metric in made the planned power a fifth too low where no_call_accuracy (a few stable samples)
 * could never reject (bench/gate-sim.js, GATE_SIM_PLAN=1).
 */
function expectedFamily(outcomes: readonly SampleOutcome[], primary: readonly string[], planned: string, trials: number, alpha: number): { family: number; familyMax: number; share: number } {
  const unitOf = (m: string) => m
  const PAIR: readonly string[] = primary.includes('name_correct') && primary.includes('args_exact_match') ? ['name_correct', 'args_exact_match'] : []
  const heads = [...new Set(primary)]
  // Per unit metric and sample: the share of trials right.
  const shares = new Map<string, Map<string, { suite: string; cluster: string; sum: number; count: number }>>()
  for (const o of outcomes) {
    if (o.skipped) continue
    for (const m of heads) {
      const v = o.values[m]
      if (v === undefined) continue
      let byKey = shares.get(m)
      if (!byKey) shares.set(m, (byKey = new Map()))
      const s = byKey.get(keyOf(o)) ?? { suite: o.suite, cluster: `${o.suite}\u0000${o.id.replace(/#\d+$/, '')}`, sum: 0, count: 0 }
      s.sum += v
      s.count++
      byKey.set(keyOf(o), s)
    }
  }
  const scopes: (string | undefined)[] = [undefined]
  const gated = new Set(primary)
  const units: { planned: boolean; discordant: number; weight: number }[] = []
  for (const scope of scopes) {
    for (const m of heads) {
      // Expected clusters that differ between two runs: a cluster differs unless every sample of it stays the same.
      const same = new Map<string, number>()
      for (const s of shares.get(m)?.values() ?? []) {
        if (scope !== undefined && s.suite !== scope) continue
        same.set(s.cluster, (same.get(s.cluster) ?? 1) * (1 - sharesDiffer(s.sum / s.count, trials)))
      }
      if (same.size === 0) continue
      let discordant = 0
      for (const p of same.values()) discordant += 1 - p
      // NeMo's two primary metrics move together (a wrong name is also wrong arguments): under a drop of one, the
      // other has discordant samples too and joins the family, whatever its noise.
      units.push({ planned: m === unitOf(planned) || (PAIR.includes(m) && PAIR.includes(planned)), discordant, weight: weightOf(m, gated) })
    }
  }
  // As the gate: a metric's share of α is its weight over the family's; one joins when 2^-D reaches its share.
  let members = units
  for (;;) {
    const total = members.reduce((a, u) => a + u.weight, 0)
    const next = members.filter((u) => u.planned || 2 ** -u.discordant <= (alpha * u.weight) / total)
    if (next.length === members.length) break
    members = next
  }
  const total = members.reduce((a, u) => a + u.weight, 0)
  const own = weightOf(planned, gated)
  return { family: Math.max(1, members.length), familyMax: Math.max(1, units.length), share: total > 0 ? own / Math.max(total, own) : 1 }
}

const pts = (x: number) => `${(x * 100).toFixed(1)} pts`

export function renderPlan(p: Plan): string {
  const lines = [
    `gate plan for ${p.metric}: ${p.samples} samples in ${p.clusters} clusters; baseline trials ${p.baselineTrials}`,
    `  flakiness: ${(p.flaky * 100).toFixed(1)}% of samples vary; two runs differ on ${(p.discordance * 100).toFixed(1)}% of samples`,
    `  gate: ${p.metric} overall at ${p.level.toPrecision(3)}, its share of α (${p.family} of ${p.familyMax} gated ${p.familyMax === 1 ? 'metric' : 'metrics'} expected in the family: one that cannot reject is left out), min drop ${pts(p.minDrop)}`,
    `  power with ${p.trials} trial(s) per sample: ${p.powerAt.map((x) => `${pts(x.drop)} ${(x.power * 100).toFixed(0)}%`).join(', ')}`,
    `  MDE (80% power) now: ${p.mdeNow === null ? 'no drop is detectable' : pts(p.mdeNow)}`,
    `  to detect ${pts(p.target)} with 80% power: ${p.samplesNeeded === null ? 'out of reach by adding samples (over 1,000x)' : `${p.samplesNeeded.toLocaleString('en')} samples with ${p.trials} trial(s)`}; at ${p.samples} samples, ${p.trialsNeeded === null ? 'more than 64 trials' : `${p.trialsNeeded} trial(s) per sample`}`,
  ]
  for (const n of p.notes) lines.push(`  note: ${n}`)
  return lines.join('\n')
}
