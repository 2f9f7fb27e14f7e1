/**
 * Checkpoint curves: the history's runs labelled with a training step, one curve per label, each metric against the
 * step, the best checkpoint per metric, and for every later checkpoint whether it is significantly worse than that best.
 *
 * The test is the gate's own paired test (history-pairs.ts: exact McNemar on 0/1 metrics, sign-flip or clustered t
 * over dialogues, trials folded), on the two runs' per-sample outcomes. The best is picked by looking at the data,
 * so "the best against a later one" is one of the k(k-1)/2 comparisons of an earlier checkpoint with a later one
 * that could have been made: each p-value is multiplied by that count (Bonferroni), which holds the chance of any
 * false "worse" on a metric at α whichever checkpoint turns out best.
 *
 * Without per-sample outcomes (a report written with `samplesFile: false`) the test is an unpaired one-sided
 * two-proportion z-test, labelled so, and only where it is valid: a 0/1 metric, no trials, no clustering (the
 * report's interval is the plain Wilson interval of its rate and n). Anything else is "cannot be decided", with why:
 * never a verdict the data do not support.
 */
import { join } from 'node:path'
import { loadReport } from '../reporter/compare/load.js'
import { normalCdf } from '../score/stats.js'
import { wilson } from '../score/intervals.js'
import type { HistoryRun } from './history-read.js'
import { foldOutcomes, pairedMetricTest, pairRuns, type FoldedRun, type Pairing } from './history-pairs.js'

export interface CurveOptions {
  /** Significance level per metric (default 0.05). */
  alpha?: number
  /** The smallest drop that counts, as a share (default 0.02, the gate's). */
  minDrop?: number
}

export interface CheckpointPoint {
  step: number
  file: string
  value: number
  interval: [number, number] | null
}

export type LaterVerdict = 'worse' | 'not shown worse' | 'undecided'

export interface LaterCheckpoint {
  step: number
  file: string
  /** Later minus best (negative: a drop). */
  delta: number
  verdict: LaterVerdict
  /** One-sided p-value of the drop before and after the correction (absent when no test could be made). */
  pValue?: number
  pAdjusted?: number
  /** Which test: `paired (mcnemar)`, `paired (sign-flip)`, …, or `unpaired two-proportion z-test`. */
  test?: string
  /** Why it cannot be decided, or what to know about the test. */
  note?: string
}

export interface MetricCurve {
  metric: string
  points: CheckpointPoint[]
  best?: CheckpointPoint
  /** Checkpoints after the best, each compared with it. */
  later: LaterCheckpoint[]
  /** The Bonferroni factor: earlier-later pairs among this curve's checkpoints. */
  comparisons: number
}

export interface CheckpointCurve {
  /** The runs' label (`(no label)` when they have none). */
  label: string
  curves: MetricCurve[]
  /** Runs left out of the curve, with why (a step evaluated again: the latest run of a step stands for it). */
  excluded: { file: string; reason: string }[]
}

/** Metrics whose per-sample values are 0 or 1 (a rate of them is a proportion). */
const ZERO_ONE = new Set(['name_correct', 'args_exact_match', 'has_call', 'args_json_valid', 'no_call_accuracy', 'bfcl_accuracy'])
export const NO_LABEL = '(no label)'

export function checkpointCurves(dir: string, runs: readonly HistoryRun[], options: CurveOptions = {}): CheckpointCurve[] {
  const alpha = options.alpha ?? 0.05
  const minDrop = options.minDrop ?? 0.02
  const groups = new Map<string, HistoryRun[]>()
  for (const r of runs) {
    if (r.step === undefined) continue
    const key = r.label ?? NO_LABEL
    groups.set(key, [...(groups.get(key) ?? []), r])
  }
  const pairs = new PairCache(dir)
  const out: CheckpointCurve[] = []
  for (const [label, group] of [...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const excluded: CheckpointCurve['excluded'] = []
    // Runs are in time order: the last run of a step stands for it.
    const byStep = new Map<number, HistoryRun>()
    for (const r of group) {
      if (r.incomplete) {
        excluded.push({ file: r.file, reason: `${r.incomplete} run: not a whole evaluation of the checkpoint` })
        continue
      }
      const earlier = byStep.get(r.step as number)
      if (earlier) excluded.push({ file: earlier.file, reason: `step ${r.step} evaluated again later (${r.file})` })
      byStep.set(r.step as number, r)
    }
    const checkpoints = [...byStep.values()].sort((a, b) => (a.step as number) - (b.step as number))
    const metrics = [...new Set(checkpoints.flatMap((r) => Object.keys(r.metrics)))]
    const curves = metrics.map((metric) => metricCurve(metric, checkpoints, pairs, alpha, minDrop))
    out.push({ label, curves, excluded })
  }
  return out
}

function metricCurve(metric: string, checkpoints: readonly HistoryRun[], pairs: PairCache, alpha: number, minDrop: number): MetricCurve {
  const points: CheckpointPoint[] = []
  const runOf = new Map<string, HistoryRun>()
  for (const r of checkpoints) {
    const value = r.metrics[metric]
    if (value === null || value === undefined) continue
    points.push({ step: r.step as number, file: r.file, value, interval: r.intervals[metric] ?? null })
    runOf.set(r.file, r)
  }
  const k = points.length
  const comparisons = (k * (k - 1)) / 2
  const curve: MetricCurve = { metric, points, later: [], comparisons }
  if (k === 0) return curve
  // The highest rate; ties go to the earliest step (the cheaper checkpoint).
  const best = points.reduce((a, b) => (b.value > a.value ? b : a))
  curve.best = best
  for (const p of points) {
    if (p.step <= best.step) continue
    const later: LaterCheckpoint = { step: p.step, file: p.file, delta: p.value - best.value, verdict: 'not shown worse' }
    // A drop under minDrop is not "worse" whatever its p-value: no test needed.
    if (best.value - p.value < minDrop) {
      curve.later.push(later)
      continue
    }
    const tested = pairs.test(runOf.get(best.file) as HistoryRun, runOf.get(p.file) as HistoryRun, metric)
    if ('undecided' in tested) {
      later.verdict = later.delta < 0 ? 'undecided' : 'not shown worse'
      if (later.delta < 0) later.note = tested.undecided
    } else {
      later.test = tested.test
      if (tested.note) later.note = tested.note
      if (tested.delta < 0) {
        later.pValue = tested.pValue
        later.pAdjusted = Math.min(1, tested.pValue * comparisons)
        if (later.pAdjusted <= alpha && -tested.delta >= minDrop) later.verdict = 'worse'
      }
      later.delta = tested.delta
    }
    curve.later.push(later)
  }
  return curve
}

type Tested = { test: string; delta: number; pValue: number; note?: string } | { undecided: string }

/** Each checkpoint's samples file, read (and checked against its report) once, whatever the number of metrics. */
class PairCache {
  private readonly folded = new Map<string, FoldedRun | Error>()
  private readonly pairings = new Map<string, Pairing>()
  constructor(private readonly dir: string) {}

  private load(run: HistoryRun, role: 'baseline' | 'head'): FoldedRun | Error {
    let r = this.folded.get(run.file)
    if (!r) {
      try {
        r = foldOutcomes(loadReport(join(this.dir, run.file), role).outcomes)
      } catch (err) {
        r = err as Error
      }
      this.folded.set(run.file, r)
    }
    return r
  }

  test(best: HistoryRun, later: HistoryRun, metric: string): Tested {
    if (!best.hasSamples || !later.hasSamples) return unpairedTest(best, later, metric)
    const base = this.load(best, 'baseline')
    const head = this.load(later, 'head')
    // A samples file that is named but unusable (missing, changed, another run's) is not silently replaced by a weaker test.
    const failed = base instanceof Error ? base : head instanceof Error ? head : undefined
    if (failed) return { undecided: `cannot be decided: ${failed.message.split(`${this.dir}/`).join('')}` }
    const key = `${best.file}\u0000${later.file}`
    let pairing = this.pairings.get(key)
    if (!pairing) this.pairings.set(key, (pairing = pairRuns(base as FoldedRun, head as FoldedRun)))
    const t = pairedMetricTest(base as FoldedRun, head as FoldedRun, pairing, metric)
    if (!t) return { undecided: `cannot be decided: no sample has ${metric} in both runs` }
    const out: Tested = { test: `paired (${t.test})`, delta: t.delta, pValue: t.pDrop }
    if (t.note) out.note = t.note
    return out
  }
}

/** The unpaired fallback (see the module comment), or why it cannot be made. */
export function unpairedTest(best: HistoryRun, later: HistoryRun, metric: string): Tested {
  const why = 'no per-sample outcomes (a report without a samples file)'
  if (!ZERO_ONE.has(metric)) return { undecided: `cannot be decided: ${why}, and ${metric} is not a 0/1 rate an unpaired test of proportions could use` }
  if (best.trials || later.trials) return { undecided: `cannot be decided: ${why}, and a run with trials has no plain proportion to test` }
  const sides = [best, later].map((r) => {
    const p = r.metrics[metric] as number
    const n = r.metricCounts[metric]
    if (n === undefined || n < 1) return undefined
    const x = Math.round(p * n)
    const interval = r.intervals[metric]
    const plain = wilson(p, n)
    // A clustered interval (dialogues) is wider than the plain one: samples are not independent, a z-test would lie.
    const clustered = interval && plain && (Math.abs(interval[0] - plain[0]) > 1e-9 || Math.abs(interval[1] - plain[1]) > 1e-9)
    if (Math.abs(x / n - p) > 1e-9 || clustered) return undefined
    return { x, n }
  })
  const [b, l] = sides
  if (!b || !l) return { undecided: `cannot be decided: ${why}, and a rate is not a plain proportion of independent samples (dialogues, or no count)` }
  const pb = b.x / b.n
  const pl = l.x / l.n
  const pooled = (b.x + l.x) / (b.n + l.n)
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / b.n + 1 / l.n))
  const delta = pl - pb
  const pValue = se === 0 ? (delta < 0 ? 0 : 1) : 1 - normalCdf((pb - pl) / se)
  return { test: 'unpaired two-proportion z-test', delta, pValue, note: `unpaired: ${why}; weaker than the paired test` }
}
