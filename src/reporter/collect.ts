/**
 * Collecting the run from test cases' task meta: one accumulator for the run and one per suite (NeMo's sums and
 * every scorer's, counts and exact sums, never means, so sharded runs merge exactly), the few worst samples, and the errored ones. Constant work per
 * sample: the worst list is a small bounded array, the errored list is capped.
 */
import { addToRun, createRunAccumulator, finishRun, type RunAccumulator } from '../score/run.js'
import type { ScorerLookup } from '../score/scorer.js'
import type { Aggregate, ExpectedCall, NemoMetric, SampleRecord } from '../score/types.js'
import { NEMO_METRICS, NO_SUITE } from '../score/types.js'
import type { EvalMeta, StoredCall } from '../eval/meta.js'
import { UsageCollector } from './usage.js'

import { IntervalCollector } from './intervals.js'
import { SnapshotCollector } from './snapshots.js'
import { TrialsCollector } from './trials.js'

/** A sample shown in the summary as one of the worst. */
export interface WorstSample {
  id: string
  suite?: string
  failures: string[]
  /** 0 (nothing right) to 1; the ranking key. */
  quality: number
  expected: ExpectedCall[]
  calls: StoredCall[]
  output?: string
}

export interface ErroredSample {
  id: string
  suite?: string
  reason: string
  detail?: string
}

/** Errored samples listed by name in reports; beyond this only their count (by reason) is kept. */
export const MAX_LISTED_ERRORED = 200

export class RunCollector {
  readonly overall: RunAccumulator
  readonly suites = new Map<string, RunAccumulator>()
  readonly worst: WorstSample[] = []
  readonly errored: ErroredSample[] = []
  erroredUnlisted = 0
  /** Samples whose cache entry was unusable and regenerated (`cached()`). */
  cacheRegenerated = 0
  /** Generations answered from the run journal of an interrupted run (describeEval's resume). */
  resumed = 0
  /** Tokens and latencies, the model's and the judge's, overall and per suite. */
  readonly usage = new UsageCollector()

  /** What the rates' 95% intervals need (see intervals.ts). */
  readonly intervals = new IntervalCollector()
  /** Repeated trials' stability and tool-call snapshots' changes (describeEval's `trials`, `snapshot`). */
  readonly trials = new TrialsCollector()
  readonly snapshots = new SnapshotCollector()

  /** `lookup`: how scorer names in the records are summed (default: built-in scorers, else a mean per metric). */
  constructor(
    private readonly worstCount: number,
    private readonly lookup?: ScorerLookup,
  ) {
    this.overall = createRunAccumulator(lookup)
  }

  add(meta: EvalMeta): void {
    const record = meta.record
    if (meta.cacheRegenerated !== undefined) this.cacheRegenerated++
    if (typeof meta.resumed === 'number' && meta.resumed > 0) this.resumed += meta.resumed
    addToRun(this.overall, record)
    this.intervals.add(record)
    this.trials.add(meta)
    this.snapshots.add(meta)
    const suite = record.suite ?? NO_SUITE
    let acc = this.suites.get(suite)
    if (!acc) {
      acc = createRunAccumulator(this.lookup)
      this.suites.set(suite, acc)
    }
    addToRun(acc, record)
    this.usage.add(record, suite)
    if (record.error !== undefined) this.addErrored(meta)
    else if (record.skipped === undefined) this.considerWorst(meta)
  }

  private addErrored(meta: EvalMeta): void {
    if (this.errored.length >= MAX_LISTED_ERRORED) {
      this.erroredUnlisted++
      return
    }
    const e: ErroredSample = { id: meta.record.id, reason: meta.record.error as string }
    if (meta.record.suite !== undefined) e.suite = meta.record.suite
    if (meta.detail !== undefined) e.detail = meta.detail
    this.errored.push(e)
  }

  private considerWorst(meta: EvalMeta): void {
    const score = meta.record.score
    if (this.worstCount <= 0 || !score || score.failures.length === 0) return
    const quality = sampleQuality(meta.record)
    const list = this.worst
    const candidate = { quality, suite: meta.record.suite, id: meta.record.id }
    if (list.length >= this.worstCount && !isWorse(candidate, list[list.length - 1] as WorstSample)) return
    const w: WorstSample = {
      id: meta.record.id,
      failures: [...score.failures],
      quality,
      expected: meta.expected ?? [],
      calls: meta.calls ?? [],
    }
    if (meta.record.suite !== undefined) w.suite = meta.record.suite
    if (meta.output !== undefined) w.output = meta.output
    // Keep the list ordered worst first (ties by suite and id, so shards merged in any order agree).
    let i = list.length
    while (i > 0 && isWorse(w, list[i - 1] as WorstSample)) i--
    list.splice(i, 0, w)
    if (list.length > this.worstCount) list.pop()
  }

  overallAggregate(): Aggregate {
    return finishRun(this.overall)
  }

  suiteAggregates(): Map<string, Aggregate> {
    const out = new Map<string, Aggregate>()
    for (const name of [...this.suites.keys()].sort()) out.set(name, finishRun(this.suites.get(name) as RunAccumulator))
    return out
  }
}

type Ranked = { quality: number; suite?: string | undefined; id: string }

function isWorse(a: Ranked, b: Ranked): boolean {
  if (a.quality !== b.quality) return a.quality < b.quality
  const sa = a.suite ?? ''
  const sb = b.suite ?? ''
  if (sa !== sb) return sa < sb
  return a.id < b.id
}

/** Errored samples in a stable order (suite, then id): reports from merged shards list them alike. */
export function sortErrored(list: ErroredSample[]): ErroredSample[] {
  return list.sort((a, b) => {
    const sa = a.suite ?? ''
    const sb = b.suite ?? ''
    if (sa !== sb) return sa < sb ? -1 : 1
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
  })
}

/** How right a scored sample is: the mean of NeMo's six for call samples; 0 or 1 for no-call samples. */
export function sampleQuality(record: SampleRecord): number {
  const score = record.score
  if (!score) return 0
  if (score.expected === 0) return score.failures.length === 0 ? 1 : 0
  let sum = 0
  for (const k of NEMO_METRICS as readonly NemoMetric[]) sum += score.metrics[k]
  return sum / NEMO_METRICS.length
}
