/**
 * The run artifact's per-sample part: one compact outcome per sample (suite, id, every metric's per-sample value,
 * failure categories, a hash of the normalised calls, tokens and latency when the record has them, cache hit), made
 * from the sample's task meta only and kept in a JSONL sidecar beside the JSON report. Linear to write and read:
 * one header line naming the metrics, then one line per sample with the values as an array in that order.
 *
 * Per-sample values are the contributions the run-level rates average: NeMo's six for samples that expect calls,
 * `no_call_accuracy` for those that expect none, and each scorer's metrics as its own accumulator gives them for the
 * one record (so any scorer, built-in or user-defined, has per-sample values without knowing its value's shape).
 */
import type { EvalMeta } from '../../eval/meta.js'
import { callLine } from '../../calls/format.js'
import type { ScorerLookup } from '../../score/scorer.js'
import { reportScorer } from '../../score/run.js'
import { NEMO_METRICS, NO_SUITE, type SampleRecord } from '../../score/types.js'

/** One sample's outcome, as kept in the sidecar. */
export interface SampleOutcome {
  suite: string
  id: string
  /** Per-sample value of each metric that counts this sample (absent: not in that metric's denominator). */
  values: Record<string, number>
  failures: string[]
  errored?: true
  skipped?: true
  /** Trial index, when the run repeats samples. */
  trial?: number
  /** Hash of the normalised calls (scored samples). */
  callsHash?: string
  /** Numeric usage the record carries (tokens, latency, cost), by field. */
  usage?: Record<string, number>
  cacheHit?: true
  mustPass?: true
  /** For samples that are not fully right: expected and produced calls, one line each (for call diffs). */
  expected?: string
  calls?: string
}

const CALL_LINE_CHARS = 300

/** A scorer lookup that builds each name's scorer once (the reporter's lookup makes a new one per call). */
export function cachedLookup(lookup: ScorerLookup = reportScorer): ScorerLookup {
  const seen = new Map<string, ReturnType<ScorerLookup>>()
  return (name) => {
    let s = seen.get(name)
    if (!s) {
      s = lookup(name)
      seen.set(name, s)
    }
    return s
  }
}

/** Every metric's per-sample value for one record (see the module comment). */
export function sampleValues(record: SampleRecord, lookup: ScorerLookup): Record<string, number> {
  const out: Record<string, number> = {}
  const score = record.score
  const errored = record.error !== undefined || (record.skipped === undefined && score === undefined)
  if (!errored && record.skipped !== undefined) return out
  if (score) {
    if (score.expected > 0) for (const k of NEMO_METRICS) out[k] = errored ? 0 : finiteOr0(score.metrics[k])
    // Under `trials` with `mean` the record carries the share of trials right (the report's rate): compare that,
    // not noCallCorrect (right in every trial), or the gate tests pass^k while the report shows the mean.
    else out['no_call_accuracy'] = errored ? 0 : score.noCallShare !== undefined ? finiteOr0(score.noCallShare) : (score.noCallCorrect ?? score.predicted === 0) ? 1 : 0
  }
  for (const [name, value] of Object.entries(record.scores ?? {})) {
    if (value === undefined || value === null) continue
    const scorer = lookup(name)
    const acc = scorer.accumulator.create()
    scorer.accumulator.add(acc, value, errored)
    for (const [metric, v] of Object.entries(scorer.accumulator.finish(acc).metrics)) if (typeof v === 'number') out[metric] = v
  }
  return out
}

function finiteOr0(x: unknown): number {
  return typeof x === 'number' && Number.isFinite(x) ? x : 0
}

/** Numeric fields of `record.usage` (and a `latencyMs`, `costUsd` beside it), when the record has any. */
function usageOf(record: SampleRecord): Record<string, number> | undefined {
  const r = record as SampleRecord & Record<string, unknown>
  let out: Record<string, number> | undefined
  const take = (key: string, v: unknown) => {
    if (typeof v === 'number' && Number.isFinite(v)) (out ??= {})[key] = v
  }
  const usage = r['usage']
  if (typeof usage === 'object' && usage !== null) for (const [k, v] of Object.entries(usage)) take(k, v)
  for (const k of ['latencyMs', 'costUsd', 'cost']) take(k, r[k])
  return out
}

export function outcomeFromMeta(meta: EvalMeta, lookup: ScorerLookup): SampleOutcome {
  const record = meta.record
  const o: SampleOutcome = { suite: record.suite ?? NO_SUITE, id: record.id, values: sampleValues(record, lookup), failures: [...(record.score?.failures ?? [])] }
  if (record.error !== undefined || (record.skipped === undefined && record.score === undefined)) o.errored = true
  else if (record.skipped !== undefined) o.skipped = true
  const trial = (record as SampleRecord & { trial?: unknown }).trial
  if (typeof trial === 'number') o.trial = trial
  if (meta.callsHash !== undefined) o.callsHash = meta.callsHash
  const usage = usageOf(record)
  if (usage) o.usage = usage
  if (meta.cacheHit) o.cacheHit = true
  if (record.mustPass) o.mustPass = true
  if (!isRight(o) && !o.skipped) {
    if (meta.expected) o.expected = meta.expected.map((c) => callLine(c, CALL_LINE_CHARS)).join('; ') || '(no call)'
    if (meta.calls || !o.errored) o.calls = (meta.calls ?? []).map((c) => callLine(c, CALL_LINE_CHARS)).join('; ') || '(no call)'
  }
  return o
}

/**
 * Whether a sample counts as right when listing flips and checking `mustPass`: evaluated, no failure category, and
 * no metric at 0 (a scorer that marks it wrong makes it wrong).
 */
export function isRight(o: SampleOutcome): boolean {
  if (o.errored || o.skipped || o.failures.length > 0) return false
  for (const v of Object.values(o.values)) if (v === 0) return false
  return true
}

/** Outcomes in sidecar order (suite, id, trial): the order a comparison sums in, so reporter and CLI agree bit for bit. */
export function sortOutcomes<T extends SampleOutcome>(outcomes: T[]): T[] {
  return outcomes.sort(byKey)
}

/** Sample order: suite, id, trial (the file's order, and the order a comparison sums in). */
export function byKey(a: SampleOutcome, b: SampleOutcome): number {
  if (a.suite !== b.suite) return a.suite < b.suite ? -1 : 1
  if (a.id !== b.id) return a.id < b.id ? -1 : 1
  return (a.trial ?? 0) - (b.trial ?? 0)
}
