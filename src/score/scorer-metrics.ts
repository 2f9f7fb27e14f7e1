/**
 * Run-level numbers of the scorers an eval opts into (BFCL checker, DeepFabric-style schema metrics, judges), from
 * the per-sample values in SampleRecords. Like the NeMo aggregation (aggregate.ts) everything is counts and exact
 * sums, so the records of sharded runs give the numbers of one run whatever their order.
 *
 * Denominators: a skipped record (no score) is left out; an errored record counts with the zeros describeEval
 * records for it (a failure never raises a rate). A judgement without a label (the judge failed or answered
 * something unreadable) is counted under `errors` and left out of its rate.
 */
import { addExact, exactTotal, rate } from './aggregate.js'
import type {
  Aggregate,
  BfclAggregate,
  JudgeAggregate,
  JudgeKindName,
  SampleRecord,
  SchemaAggregate,
  ScorerMetric,
} from './types.js'

const JUDGE_KIND_NAMES: readonly JudgeKindName[] = ['tool_selection', 'tool_invocation']
const SCHEMA_KEYS = ['tool_selection', 'parameter_accuracy', 'execution_success'] as const

interface Counts {
  total: number
  correct: number
}

/** Counts and sums behind the scorer metrics of one scope (the run, or a suite). */
export interface ScorerAccumulator {
  bfcl: Counts & { categories: Map<string, Counts>; errorTypes: Map<string, number> }
  schema: SchemaAggregate & { overall: number[] }
  judge: Map<JudgeKindName, { judged: number; correct: number; errors: number }>
}

export function createScorerAccumulator(): ScorerAccumulator {
  return {
    bfcl: { total: 0, correct: 0, categories: new Map(), errorTypes: new Map() },
    schema: { samples: 0, tool_selection: 0, parameter_accuracy: 0, execution_success: 0, overall: [] },
    judge: new Map(),
  }
}

function counts<K>(map: Map<K, Counts>, key: K): Counts {
  let c = map.get(key)
  if (!c) {
    c = { total: 0, correct: 0 }
    map.set(key, c)
  }
  return c
}

function judgeCounts(acc: ScorerAccumulator, kind: JudgeKindName): { judged: number; correct: number; errors: number } {
  let c = acc.judge.get(kind)
  if (!c) {
    c = { judged: 0, correct: 0, errors: 0 }
    acc.judge.set(kind, c)
  }
  return c
}

/** Add one record's scorer values (constant work). Skipped records (policy) are left out. */
export function addScorerRecord(acc: ScorerAccumulator, record: SampleRecord): void {
  if (record.skipped !== undefined && record.error === undefined) return
  const b = record.bfcl
  if (b) {
    const valid = b.valid === true && record.error === undefined
    acc.bfcl.total++
    const cat = counts(acc.bfcl.categories, typeof b.category === 'string' ? b.category : '(unknown)')
    cat.total++
    if (valid) {
      acc.bfcl.correct++
      cat.correct++
    } else {
      const type = typeof b.error_type === 'string' ? b.error_type : 'invalid'
      acc.bfcl.errorTypes.set(type, (acc.bfcl.errorTypes.get(type) ?? 0) + 1)
    }
  }
  const s = record.schema
  if (s) {
    acc.schema.samples++
    const ok = record.error === undefined
    for (const k of SCHEMA_KEYS) if (ok && s[k] === 1) acc.schema[k]++
    addExact(acc.schema.overall, ok && typeof s.overall === 'number' && Number.isFinite(s.overall) ? s.overall : 0)
  }
  const j = record.judge
  if (j) {
    for (const kind of JUDGE_KIND_NAMES) {
      const r = j[kind]
      if (!r) continue
      const c = judgeCounts(acc, kind)
      c.judged++
      if (r.label === undefined) c.errors++
      else if (r.label === 'correct' && record.error === undefined) c.correct++
    }
  }
}

/** Fold `from` into `into` (e.g. two shards' accumulators). */
export function mergeScorerAccumulators(into: ScorerAccumulator, from: ScorerAccumulator): ScorerAccumulator {
  into.bfcl.total += from.bfcl.total
  into.bfcl.correct += from.bfcl.correct
  for (const [k, c] of from.bfcl.categories) {
    const u = counts(into.bfcl.categories, k)
    u.total += c.total
    u.correct += c.correct
  }
  for (const [k, n] of from.bfcl.errorTypes) into.bfcl.errorTypes.set(k, (into.bfcl.errorTypes.get(k) ?? 0) + n)
  into.schema.samples += from.schema.samples
  for (const k of SCHEMA_KEYS) into.schema[k] += from.schema[k]
  for (const x of from.schema.overall) addExact(into.schema.overall, x)
  for (const [kind, c] of from.judge) {
    const u = judgeCounts(into, kind)
    u.judged += c.judged
    u.correct += c.correct
    u.errors += c.errors
  }
  return into
}

function sortedKeys<V>(map: Map<string, V>): string[] {
  return [...map.keys()].sort()
}

/** The scorer part of an Aggregate: metrics present only for the scorers some record had. */
export interface ScorerSummary {
  metrics: Partial<Record<ScorerMetric, number | null>>
  bfcl?: BfclAggregate
  schema?: SchemaAggregate
  judge?: JudgeAggregate
}

export function finishScorerMetrics(acc: ScorerAccumulator): ScorerSummary {
  const out: ScorerSummary = { metrics: {} }
  const b = acc.bfcl
  if (b.total > 0) {
    out.metrics.bfcl_accuracy = rate(b.correct, b.total)
    const categories: BfclAggregate['categories'] = {}
    for (const k of sortedKeys(b.categories)) {
      const c = b.categories.get(k)!
      categories[k] = { total: c.total, correct: c.correct, accuracy: rate(c.correct, c.total) }
    }
    const errorTypes: Record<string, number> = {}
    for (const k of sortedKeys(b.errorTypes)) errorTypes[k] = b.errorTypes.get(k)!
    out.bfcl = { total: b.total, correct: b.correct, categories, errorTypes }
  }
  const s = acc.schema
  if (s.samples > 0) {
    out.metrics.schema_tool_selection = rate(s.tool_selection, s.samples)
    out.metrics.schema_parameter_accuracy = rate(s.parameter_accuracy, s.samples)
    out.metrics.schema_execution_success = rate(s.execution_success, s.samples)
    out.metrics.schema_overall = rate(exactTotal(s.overall), s.samples)
    out.schema = { samples: s.samples, tool_selection: s.tool_selection, parameter_accuracy: s.parameter_accuracy, execution_success: s.execution_success }
  }
  if (acc.judge.size > 0) {
    const judge: JudgeAggregate = {}
    for (const kind of JUDGE_KIND_NAMES) {
      const c = acc.judge.get(kind)
      if (!c) continue
      judge[kind] = { ...c }
      out.metrics[`judge_${kind}`] = rate(c.correct, c.judged - c.errors)
    }
    out.judge = judge
  }
  return out
}

/** An Aggregate with the scorer summary folded in (metrics merged after NeMo's, details as their own fields). */
export function withScorerMetrics(agg: Aggregate, summary: ScorerSummary): Aggregate {
  const out: Aggregate = { ...agg, metrics: { ...agg.metrics, ...summary.metrics } }
  if (summary.bfcl) out.bfcl = summary.bfcl
  if (summary.schema) out.schema = summary.schema
  if (summary.judge) out.judge = summary.judge
  return out
}

/** Scorer metrics of a list of records (see `aggregate` for the NeMo part). */
export function aggregateScorers(records: Iterable<SampleRecord>): ScorerSummary {
  const acc = createScorerAccumulator()
  for (const r of records) addScorerRecord(acc, r)
  return finishScorerMetrics(acc)
}
