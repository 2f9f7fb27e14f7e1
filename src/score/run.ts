/**
 * Run-level numbers of a scope (the run, or a suite): NeMo's aggregate (aggregate.ts) and every scorer's sums
 * (scorer.ts) in one accumulator. Counts and exact sums only, so the records of sharded runs, or the accumulators
 * of shards merged, give the numbers of one run, bit for bit, in any order.
 */
import { addRecord, createAccumulator, finishAggregate, mergeAccumulators, type Accumulator } from './aggregate.js'
import { meanScorer } from './define-scorer.js'
import { ScoreSums, type ScorerLookup } from './scorer.js'
import { BUILTIN_SCORERS, builtinScorer } from './scorers/index.js'
import type { Aggregate, SampleRecord } from './types.js'

/**
 * The scorer the reporter sums a name with: a built-in one, else the mean accumulator of user scorers (whose code
 * the reporter's process never loads; their values carry what it needs).
 */
export const reportScorer: ScorerLookup = (name) => builtinScorer(name) ?? meanScorer(name)

/** Report order of scorers: built-in ones in registry order, then user scorers by name. */
export function scorerRank(name: string): number {
  const i = BUILTIN_SCORERS.findIndex((s) => s.name === name)
  return i < 0 ? BUILTIN_SCORERS.length : i
}

export interface RunAccumulator {
  core: Accumulator
  scores: ScoreSums
}

export function createRunAccumulator(lookup: ScorerLookup = reportScorer): RunAccumulator {
  return { core: createAccumulator(), scores: new ScoreSums(lookup) }
}

export function addToRun(acc: RunAccumulator, record: SampleRecord): void {
  addRecord(acc.core, record)
  acc.scores.add(record)
}

/** Fold `from` into `into` (e.g. two shards'). */
export function mergeRuns(into: RunAccumulator, from: RunAccumulator): RunAccumulator {
  mergeAccumulators(into.core, from.core)
  into.scores.merge(from.scores)
  return into
}

/**
 * The Aggregate: NeMo's numbers, then each scorer's metrics (after NeMo's) with their denominators, and its counts
 * (under its name).
 */
export function finishRun(acc: RunAccumulator): Aggregate {
  const agg = finishAggregate(acc.core)
  const out = { ...agg, metrics: { ...agg.metrics }, metricCounts: { ...agg.metricCounts } } as Aggregate & Record<string, unknown>
  for (const [name, summary] of acc.scores.finish(scorerRank)) {
    Object.assign(out.metrics, summary.metrics)
    for (const metric of Object.keys(summary.metrics)) {
      const n = summary.counts[metric]
      // A rate without its denominator would show a made-up n: a scorer must declare every one.
      if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) throw new Error(`scorer "${name}": no count for metric "${metric}" in its summary`)
      out.metricCounts[metric] = n
    }
    if (summary.details !== undefined) out[name] = summary.details
  }
  return out
}

/** Run-level numbers of a list of records, scorers included. */
export function aggregateRun(records: Iterable<SampleRecord>, lookup?: ScorerLookup): Aggregate {
  const acc = createRunAccumulator(lookup)
  for (const r of records) addToRun(acc, r)
  return finishRun(acc)
}
