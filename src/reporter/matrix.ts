/**
 * The model matrix (describeEval's `models`): per model, every metric with its interval and the failure categories;
 * each model against the reference with the baseline gate's own paired tests (`compareRuns`: samples paired by eval
 * and id, dialogues clustered, trials folded), Holm over the whole family, models × gated metrics; per tool, which
 * tool each model called instead; the samples the models disagree on. Built from task meta only (`EvalMeta.model`,
 * `.reference`), so sharded runs merged give the same block. The gate (gate.ts) reads it; views render it.
 */
import type { EvalMeta } from '../eval/meta.js'
import { holm } from '../score/stats.js'
import type { Aggregate, FailureCategory, RunMetrics, ToolBreakdown } from '../score/types.js'
import { RunCollector } from './collect.js'
import { compareRuns, type MetricComparison, type RegressionOptions } from './compare/compare.js'
import { cachedLookup, isRight, outcomeFromMeta, type SampleOutcome } from './compare/outcomes.js'
import { toolIntervals, type MetricIntervals } from './intervals.js'
import { checkThresholds, type MetricThresholds, type ThresholdResult, type ToolThresholds } from './thresholds.js'

/** The reporter's `models` option: what the gate requires of a model matrix. */
export interface ModelGateOptions {
  /** Fail the run when any model is significantly worse than the reference on a gated metric (Holm over the family). */
  noneWorse?: boolean
  /** Minimum rates per model (overall and per tool, as `thresholds`): `{ sft_1000: { args_exact_match: 0.8 } }`. */
  thresholds?: Record<string, ModelThresholds>
}

/** One model's minimum rates: overall metrics, and per tool. */
export type ModelThresholds = MetricThresholds & { tools?: Record<string, ToolThresholds> }

/** A model's numbers over every sample it ran (all its evals). */
export interface ModelBlock {
  samples: number
  scored: number
  errored: number
  metrics: RunMetrics
  metricCounts: Record<string, number>
  /** 95% interval of each rate (Wilson, clustered by dialogue). */
  metricIntervals: MetricIntervals
  failures: Record<FailureCategory, number>
  tools: Record<string, ToolBreakdown>
  /** This model's thresholds (the reporter's `models.thresholds`), when some were set. */
  thresholds?: ThresholdResult[]
}

/** `better` / `worse`: significant after Holm over models × gated metrics (a drop also at least `minDrop`). */
export type ModelVerdict = 'better' | 'worse' | 'not distinguishable'

export interface ModelMetricComparison extends Omit<MetricComparison, 'verdict' | 'pAdjusted'> {
  verdict: ModelVerdict
  /** Holm-adjusted p-value over the family (gated metrics; 1 where the change's direction cannot reject). */
  pAdjusted?: number
}

export interface ModelComparison {
  /** Overall (every eval's samples, paired by eval and id): per metric the paired test against the reference. */
  metrics: Record<string, ModelMetricComparison>
  /** Paired samples right for the reference and wrong for this model, and the other way round. */
  worseSamples: number
  betterSamples: number
  /** Why this model cannot be compared with the reference (samples missing on one side, a metric one lacks). */
  incomparable: string[]
  warnings: string[]
}

/** A sample on which the models disagree: which got it right (every trial) and which did not. */
export interface Disagreement {
  sample: string
  right: string[]
  wrong: string[]
}

export interface ModelMatrixReport {
  reference: string
  /** The reference first, then the others by name. */
  models: string[]
  perModel: Record<string, ModelBlock>
  /** Each model but the reference against it. */
  comparisons: Record<string, ModelComparison>
  options: { alpha: number; minDrop: number; metrics: string[]; family: number; noneWorse: boolean }
  /** Per expected tool, per model, the tools called in its place (positional alignment of the kept calls). */
  confusion: Record<string, Record<string, Record<string, number>>>
  /** Samples the models disagree on (sorted, at most MAX_DISAGREEMENTS) and how many there are in all. */
  disagreements: { samples: Disagreement[]; total: number }
  /** Why no comparison could be made at all (evals naming different references). */
  incomparable?: string[]
  /** Models the reporter's `models.thresholds` names that ran no sample (a misspelt name fails the gate). */
  unknownModels?: string[]
}

export const MAX_DISAGREEMENTS = 200

/** Gathers the matrix sample by sample, beside the run's collector (constant work per sample). */
export class MatrixCollector {
  private readonly collectors = new Map<string, RunCollector>()
  private readonly outcomes = new Map<string, SampleOutcome[]>()
  private readonly references = new Set<string>()
  private readonly confusion: ModelMatrixReport['confusion'] = {}
  private readonly lookup = cachedLookup()

  add(meta: EvalMeta): void {
    const model = meta.model
    if (typeof model !== 'string' || typeof meta.reference !== 'string') return
    this.references.add(meta.reference)
    let collector = this.collectors.get(model)
    if (!collector) {
      this.collectors.set(model, (collector = new RunCollector(0)))
      this.outcomes.set(model, [])
    }
    collector.add(meta)
    const outcome = outcomeFromMeta(meta, this.lookup)
    // Paired across models by eval and id: the suite without its ` > <model>` part.
    const suffix = ` > ${model}`
    if (outcome.suite.endsWith(suffix)) outcome.suite = outcome.suite.slice(0, -suffix.length)
    ;(this.outcomes.get(model) as SampleOutcome[]).push(outcome)
    this.addConfusion(model, meta)
  }

  /** Expected against called names, position by position, where the names differ and both exist. */
  private addConfusion(model: string, meta: EvalMeta): void {
    if (!meta.calls || !meta.expected || meta.record.error !== undefined) return
    const n = Math.min(meta.calls.length, meta.expected.length)
    for (let i = 0; i < n; i++) {
      const want = (meta.expected[i] as { name: string }).name
      const got = (meta.calls[i] as { name: string }).name
      if (want === got) continue
      const byModel = (this.confusion[want] ??= {})
      const counts = (byModel[model] ??= {})
      counts[got] = (counts[got] ?? 0) + 1
    }
  }

  /** The matrix block, or undefined when no sample ran in a matrix. */
  finish(options: { regression?: RegressionOptions; gate?: ModelGateOptions; partial?: boolean } = {}): ModelMatrixReport | undefined {
    const gateAsks = options.gate?.noneWorse === true || Object.keys(options.gate?.thresholds ?? {}).length > 0
    if (this.collectors.size === 0 && !gateAsks) return undefined
    const alpha = options.regression?.alpha ?? 0.05
    const minDrop = options.regression?.minDrop ?? 0.02
    const refs = [...this.references].sort()
    const reference = refs[0] ?? ''
    const models = [...this.collectors.keys()].sort((a, b) => Number(b === reference) - Number(a === reference) || (a < b ? -1 : a > b ? 1 : 0))
    const perModel: Record<string, ModelBlock> = {}
    for (const model of models) perModel[model] = modelBlock(this.collectors.get(model) as RunCollector, options.gate?.thresholds?.[model], options.partial)
    const out: ModelMatrixReport = {
      reference,
      models,
      perModel,
      comparisons: {},
      options: { alpha, minDrop, metrics: [], family: 0, noneWorse: options.gate?.noneWorse === true },
      confusion: sortedConfusion(this.confusion),
      disagreements: disagreements(models, this.outcomes),
    }
    // A gate on models must never pass for want of them: thresholds naming a model that did not run, or no matrix.
    const missing = Object.keys(options.gate?.thresholds ?? {}).filter((m) => !this.collectors.has(m))
    if (missing.length > 0) out.unknownModels = missing
    if (this.collectors.size === 0) {
      out.incomparable = ['no sample ran in a model matrix (describeEval\'s `models`), and the reporter\'s `models` gate asks for one']
      return out
    }
    if (refs.length > 1) {
      out.incomparable = [`the evals name different reference models (${refs.join(', ')}): no model is compared`]
      return out
    }
    const refOutcomes = this.outcomes.get(reference)
    if (!refOutcomes) {
      out.incomparable = [`the reference model ${reference} ran no sample`]
      return out
    }
    const compared = compareModels(this.outcomes, reference, { alpha, minDrop, ...(options.regression?.metrics ? { metrics: options.regression.metrics } : {}) })
    out.comparisons = compared.comparisons
    out.options.metrics = compared.metrics
    out.options.family = compared.family
    return out
  }
}

/**
 * Each model against the reference: the baseline gate's paired comparison (`compareRuns`) per model, then Holm over
 * the family of every (model, gated metric), drops and rises apart as the gate does. A model's verdict on a metric is
 * `worse` for a drop of at least `minDrop` significant after the correction, `better` for a significant rise.
 */
export function compareModels(
  outcomes: ReadonlyMap<string, readonly SampleOutcome[]>,
  reference: string,
  options: { alpha: number; minDrop: number; metrics?: string[] },
): { comparisons: Record<string, ModelComparison>; metrics: string[]; family: number } {
  const { alpha, minDrop } = options
  const refOutcomes = outcomes.get(reference) ?? []
  const raw = new Map<string, ReturnType<typeof compareRuns>>()
  for (const [model, list] of outcomes) {
    if (model === reference) continue
    const regression: RegressionOptions = { alpha, minDrop }
    if (options.metrics) regression.metrics = options.metrics
    raw.set(model, compareRuns({ outcomes: refOutcomes }, { outcomes: list }, regression))
  }
  const family: { model: string; metric: string; m: MetricComparison }[] = []
  const gated = new Set<string>()
  for (const [model, c] of raw) {
    for (const [metric, m] of Object.entries(c.metrics)) {
      if (!m.gated) continue
      family.push({ model, metric, m })
      gated.add(metric)
    }
  }
  // A p-value in the other direction is replaced by 1: larger than the true one, so the correction stays valid.
  const drops = holm(family.map(({ m }) => (m.delta < 0 ? m.pValue : 1)))
  const rises = holm(family.map(({ m }) => (m.delta > 0 ? m.pValue : 1)))
  const adjusted = new Map<string, { drop: number; rise: number }>()
  family.forEach(({ model, metric }, i) => adjusted.set(`${model}\u0000${metric}`, { drop: drops[i] as number, rise: rises[i] as number }))
  const comparisons: Record<string, ModelComparison> = {}
  for (const [model, c] of [...raw].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const metrics: Record<string, ModelMetricComparison> = {}
    for (const [metric, m] of Object.entries(c.metrics)) {
      const { verdict: _v, pAdjusted: _p, inFamily: _f, mdeLevel: _l, ...rest } = m
      const adj = adjusted.get(`${model}\u0000${metric}`)
      let verdict: ModelVerdict = 'not distinguishable'
      if (adj && m.delta <= -minDrop && adj.drop <= alpha) verdict = 'worse'
      else if (adj && m.delta > 0 && adj.rise <= alpha) verdict = 'better'
      const r: ModelMetricComparison = { ...rest, verdict }
      if (adj) r.pAdjusted = m.delta < 0 ? adj.drop : adj.rise
      metrics[metric] = r
    }
    // Every model runs every sample: one the other lacks (a shard or test gone missing) makes the rates unlike.
    const incomparable = [...c.incomparable]
    if (c.samples.removed.length > 0) incomparable.push(`${c.samples.removed.length} sample(s) of ${reference} missing for ${model} (first: ${c.samples.removed[0]})`)
    if (c.samples.added.length > 0) incomparable.push(`${c.samples.added.length} sample(s) of ${model} missing for ${reference} (first: ${c.samples.added[0]})`)
    comparisons[model] = { metrics, worseSamples: c.samples.regressed.length, betterSamples: c.samples.improved.length, incomparable, warnings: c.warnings }
  }
  return { comparisons, metrics: [...gated], family: family.length }
}

function modelBlock(collector: RunCollector, thresholds: ModelThresholds | undefined, partial?: boolean): ModelBlock {
  const agg: Aggregate = collector.overallAggregate()
  const metricIntervals = collector.intervals.overallIntervals(agg.metrics)
  const block: ModelBlock = {
    samples: agg.samples,
    scored: agg.scored,
    errored: agg.errored.count,
    metrics: agg.metrics,
    metricCounts: agg.metricCounts,
    metricIntervals,
    failures: agg.failures,
    tools: agg.tools,
  }
  if (thresholds) {
    const intervals = { overall: metricIntervals, suites: new Map(), tools: toolIntervals(agg.tools) }
    block.thresholds = checkThresholds(thresholds, agg, new Map(), { partial: partial === true, intervals })
  }
  return block
}

function sortedConfusion(c: ModelMatrixReport['confusion']): ModelMatrixReport['confusion'] {
  const out: ModelMatrixReport['confusion'] = {}
  for (const tool of Object.keys(c).sort()) out[tool] = c[tool] as Record<string, Record<string, number>>
  return out
}

/** Per sample (eval > id), which models got it right in every trial; the ones where they differ. */
function disagreements(models: readonly string[], outcomes: ReadonlyMap<string, readonly SampleOutcome[]>): ModelMatrixReport['disagreements'] {
  const right = new Map<string, Map<string, boolean>>()
  for (const model of models) {
    for (const o of outcomes.get(model) ?? []) {
      if (o.skipped) continue
      const key = `${o.suite} > ${o.id}`
      let byModel = right.get(key)
      if (!byModel) right.set(key, (byModel = new Map()))
      byModel.set(model, (byModel.get(model) ?? true) && isRight(o))
    }
  }
  const all: Disagreement[] = []
  for (const [sample, byModel] of right) {
    const r = models.filter((m) => byModel.get(m) === true)
    const w = models.filter((m) => byModel.get(m) === false)
    if (r.length > 0 && w.length > 0) all.push({ sample, right: r, wrong: w })
  }
  all.sort((a, b) => (a.sample < b.sample ? -1 : a.sample > b.sample ? 1 : 0))
  return { samples: all.slice(0, MAX_DISAGREEMENTS), total: all.length }
}

/** The gate's reasons from the matrix: a model worse than the reference (with `noneWorse`), a model's threshold. */
export function matrixGateFailures(m: ModelMatrixReport): { worse: string[]; thresholds: { model: string; result: ThresholdResult }[]; unknown: string[] } {
  const worse: string[] = []
  if (m.options.noneWorse) {
    for (const reason of m.incomparable ?? []) worse.push(`models cannot be compared: ${reason}`)
    for (const [model, c] of Object.entries(m.comparisons)) {
      for (const reason of c.incomparable) worse.push(`${model} cannot be compared with ${m.reference}: ${reason}`)
      for (const [metric, r] of Object.entries(c.metrics)) if (r.gated && r.verdict === 'worse') worse.push(`${model} is worse than ${m.reference} on ${metric}`)
    }
  }
  const thresholds: { model: string; result: ThresholdResult }[] = []
  for (const [model, block] of Object.entries(m.perModel)) for (const result of block.thresholds ?? []) if (!result.pass) thresholds.push({ model, result })
  const unknown = (m.unknownModels ?? []).map((model) => `thresholds are set for model ${model}, which ran no sample (models that ran: ${m.models.join(', ') || 'none'})`)
  return { worse, thresholds, unknown }
}
