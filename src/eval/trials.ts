/**
 * Repeated trials: `describeEval(name, { trials: 5 })` generates each sample 5 times and reduces the trials' scores
 * into the sample's one record, per metric:
 *
 * - `mean` (default): the mean over trials (a rate of means is the expected score of one generation);
 * - `all`: the minimum, so a 0/1 metric is 1 only when every trial got it right (pass^k);
 * - `any`: the maximum, 1 when some trial got it right (pass@k).
 *
 *   trials: { count: 5, reduce: { name_correct: 'all', 'units.celsius': 'any' } }   // per metric, others 'mean'
 *   trials: { count: 5, reduce: 'all' }                                           // every metric
 *
 * One Vitest test per sample runs its k generations, so sample ids (and pairing with a baseline) stay as they are.
 * NeMo's six, `no_call_accuracy` and user scorers' metrics reduce per metric as above. Built-in scorers with
 * structured values (`bfcl`, `schema`, `judge`) keep one trial's value: the worst trial's under `all`, the best's
 * under `any`, the most frequent outcome's under `mean` (their accumulators count verdicts, which a mean over
 * trials is not); their reducer is the one named for the scorer (`bfcl: 'all'`) or for its first metric. Failure
 * categories, the per-tool breakdown and what the reports show come from the sample's most frequent calls. A trial
 * that errored makes the sample errored (its generation failed; it counts as no prediction, as always). Usage is
 * every trial's: tokens and cost summed, each request's latency kept.
 */
import { builtinScorer } from '../score/scorers/index.js'
import { reportScorer } from '../score/run.js'
import { sumTrialUsage } from '../score/usage.js'
import { NEMO_METRICS, type SampleRecord, type SampleScore, type TrialSummary } from '../score/types.js'

export type TrialReducer = 'mean' | 'all' | 'any'

/** describeEval's `trials`: a count, or a count with reducers (one for every metric, or per metric name). */
export type TrialsOption = number | { count: number; reduce?: TrialReducer | Record<string, TrialReducer> }

export interface TrialsPlan {
  count: number
  reducerOf(metric: string): TrialReducer
}

const REDUCERS: readonly string[] = ['mean', 'all', 'any']
/** More trials than this is most likely a mistake (a sample id typed as a count). */
const MAX_TRIALS = 1000

/** The plan for `option` (undefined: one generation per sample, no trials); throws a clear error for a bad option. */
export function trialsPlan(option: TrialsOption | undefined, where: string): TrialsPlan | undefined {
  if (option === undefined) return undefined
  const count = typeof option === 'number' ? option : option?.count
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > MAX_TRIALS) {
    const field = typeof option === 'number' ? 'trials' : 'trials.count'
    throw new Error(`${where}: option \`${field}\` must be a whole number from 1 to ${MAX_TRIALS}`)
  }
  const reduce = typeof option === 'number' ? undefined : option.reduce
  if (typeof reduce === 'string' || reduce === undefined) {
    if (reduce !== undefined && !REDUCERS.includes(reduce)) throw new Error(`${where}: option \`trials.reduce\` must be 'mean', 'all' or 'any'`)
    const all = reduce ?? 'mean'
    return { count, reducerOf: () => all }
  }
  if (typeof reduce !== 'object' || reduce === null || Array.isArray(reduce)) {
    throw new Error(`${where}: option \`trials.reduce\` must be 'mean', 'all', 'any' or an object of them by metric`)
  }
  for (const [metric, r] of Object.entries(reduce)) {
    if (!REDUCERS.includes(r)) throw new Error(`${where}: option \`trials.reduce.${metric}\` must be 'mean', 'all' or 'any'`)
  }
  const byMetric = new Map(Object.entries(reduce))
  return { count, reducerOf: (metric) => byMetric.get(metric) ?? 'mean' }
}

/** One trial as the reduction sees it: its record and a key of its normalised calls (equal calls, equal key). */
export interface TrialOutcome {
  record: SampleRecord
  callsKey: string
}

function reduceNumbers(values: readonly number[], reducer: TrialReducer): number {
  if (reducer === 'all') return Math.min(...values)
  if (reducer === 'any') return Math.max(...values)
  let sum = 0
  for (const v of values) sum += v
  return sum / values.length
}

/** Whether a trial was fully right (no error, no failure category). */
function trialRight(record: SampleRecord): boolean {
  return record.error === undefined && record.skipped === undefined && (record.score?.failures.length ?? 1) === 0
}

/** The trials' summary: how many were fully right, and the share that disagrees with the majority (the flip rate). */
export function trialSummary(records: readonly SampleRecord[]): TrialSummary {
  const right = records.filter(trialRight).length
  return { count: records.length, right, flipRate: Math.min(right, records.length - right) / records.length }
}

/** Index of the trial with the most frequent calls (the earliest such trial on a tie), and that frequency. */
export function modalTrial(outcomes: readonly TrialOutcome[]): { index: number; frequency: number } {
  const counts = new Map<string, number>()
  for (const o of outcomes) counts.set(o.callsKey, (counts.get(o.callsKey) ?? 0) + 1)
  let index = 0
  let frequency = 0
  outcomes.forEach((o, i) => {
    const n = counts.get(o.callsKey) as number
    if (n > frequency) {
      frequency = n
      index = i
    }
  })
  return { index, frequency }
}

/** The sample's one record from its trials' (see the module comment). */
export function reduceTrials(outcomes: readonly TrialOutcome[], plan: TrialsPlan): SampleRecord {
  const records = outcomes.map((o) => o.record)
  const summary = trialSummary(records)
  const failed = records.find((r) => r.error !== undefined) ?? records.find((r) => r.skipped !== undefined)
  if (failed) return withTrialUsage({ ...failed, trials: summary }, records)
  const modal = records[modalTrial(outcomes).index] as SampleRecord
  const out: SampleRecord = withTrialUsage({ ...modal, trials: summary }, records)
  if (modal.score) out.score = reduceScore(records.map((r) => r.score as SampleScore), modal.score, plan)
  const scores = reduceScores(records, modal, plan)
  if (scores) out.scores = scores
  return out
}

/** Every trial made its requests: the record's usage and retries are their sums, not the shown trial's (see sumTrialUsage). */
function withTrialUsage(out: SampleRecord, records: readonly SampleRecord[]): SampleRecord {
  delete out.usage
  delete out.judgeUsage
  delete out.retries
  const retries = records.reduce((n, r) => n + (r.retries ?? 0), 0)
  if (retries > 0) out.retries = retries
  const usage = sumTrialUsage(records.map((r) => r.usage))
  if (usage) out.usage = usage
  const judgeUsage = sumTrialUsage(records.map((r) => r.judgeUsage))
  if (judgeUsage) out.judgeUsage = judgeUsage
  return out
}

function reduceScore(scores: readonly SampleScore[], modal: SampleScore, plan: TrialsPlan): SampleScore {
  const out: SampleScore = { ...modal, metrics: { ...modal.metrics } }
  for (const k of NEMO_METRICS) out.metrics[k] = reduceNumbers(scores.map((s) => s.metrics[k]), plan.reducerOf(k))
  if (modal.expected === 0) {
    const shares = scores.map((s) => ((s.noCallCorrect ?? s.predicted === 0) ? 1 : 0))
    const share = reduceNumbers(shares, plan.reducerOf('no_call_accuracy'))
    out.noCallCorrect = share === 1
    if (share !== 0 && share !== 1) out.noCallShare = share
  }
  return out
}

function isFlatMetricValues(value: unknown): value is Record<string, number | boolean | null> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  return Object.values(value).every((v) => v === null || typeof v === 'number' || typeof v === 'boolean')
}

function reduceScores(records: readonly SampleRecord[], modal: SampleRecord, plan: TrialsPlan): SampleRecord['scores'] {
  if (modal.scores === undefined) return undefined
  const out: Record<string, unknown> = {}
  for (const name of Object.keys(modal.scores)) {
    const values = records.map((r) => r.scores?.[name])
    const builtin = builtinScorer(name)
    if (!builtin && values.every(isFlatMetricValues)) {
      out[name] = reduceFlat(name, values as Record<string, number | boolean | null>[], plan)
      continue
    }
    const reducer = plan.reducerOf(name) !== 'mean' || !builtin ? plan.reducerOf(name) : plan.reducerOf(builtin.metrics[0] ?? name)
    out[name] = reducer === 'mean' ? modal.scores[name] : values[extremeTrial(name, values, reducer)]
  }
  return out as SampleRecord['scores']
}

/** A user scorer's values reduced metric by metric (`<scorer>.<metric>` names the reducer). */
function reduceFlat(name: string, values: readonly Record<string, number | boolean | null>[], plan: TrialsPlan): Record<string, number | boolean | null> {
  const out: Record<string, number | boolean | null> = {}
  const metrics = new Set(values.flatMap((v) => Object.keys(v)))
  for (const metric of metrics) {
    const present = values.map((v) => v[metric]).filter((x): x is number | boolean => x !== null && x !== undefined)
    if (present.length === 0) {
      out[metric] = null
      continue
    }
    const reducer = plan.reducerOf(`${name}.${metric}`)
    const reduced = reduceNumbers(present.map(Number), reducer)
    // A boolean metric keeps its type under all/any (a mean is a fraction).
    out[metric] = reducer !== 'mean' && present.every((x) => typeof x === 'boolean') ? reduced === 1 : reduced
  }
  return out
}

/** The trial whose value of a structured scorer scores lowest (`all`) or highest (`any`), summed over its metrics. */
function extremeTrial(name: string, values: readonly unknown[], reducer: TrialReducer): number {
  const { accumulator } = reportScorer(name)
  let best = 0
  let bestScore = reducer === 'all' ? Infinity : -Infinity
  values.forEach((value, i) => {
    if (value === undefined || value === null) return
    const acc = accumulator.create()
    accumulator.add(acc, value, false)
    let total = 0
    for (const v of Object.values(accumulator.finish(acc).metrics)) total += typeof v === 'number' ? v : 0
    if (reducer === 'all' ? total < bestScore : total > bestScore) {
      bestScore = total
      best = i
    }
  })
  return best
}
