/**
 * A run's outcomes folded to one per sample, in sample order, for `compareRuns`: trials averaged per metric, a
 * sample right only when every trial was, and what the comparison needs to know of its trials (scored, skipped by
 * policy, errored), its calls and its usage.
 */
import { isRight, type SampleOutcome } from './outcomes.js'

/** A sample's key in the comparison's lists: `<suite> > <id>`. */
export const keyOf = (suite: string, id: string) => `${suite} > ${id}`

/** A sample's outcome with its trials folded: the mean per metric, right only when every trial was. */
export interface Folded {
  suite: string
  id: string
  values: Record<string, number>
  right: boolean
  evaluated: boolean
  /** Every evaluated trial errored (false until one is evaluated). */
  erroredOnly: boolean
  /** Trials scored (evaluated without error), skipped by policy, and errored. */
  scoredTrials: number
  skippedTrials: number
  erroredTrials: number
  mustPass: boolean
  failures: string[]
  hash?: string
  /** Mean usage per evaluated trial, by field: only the fields every evaluated trial reported. */
  usage?: Record<string, number>
  /** Evaluated (not skipped) trials, and per usage field how many of them reported it (from the second trial on). */
  usageTrials: number
  usageCounts?: Record<string, number>
  expected?: string
  calls?: string
  /** Trials folded in (1 without trials). */
  trials: number
  /** Per metric, how many trials gave a value (only once a second trial came). */
  counts?: Record<string, number>
}

function newFolded(o: SampleOutcome): Folded {
  return { suite: o.suite, id: o.id, values: o.values, right: true, evaluated: false, erroredOnly: false, scoredTrials: 0, skippedTrials: 0, erroredTrials: 0, mustPass: false, failures: [], trials: 1, usageTrials: 0 }
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
export function compareKeys(aSuite: string, aId: string, bSuite: string, bId: string): number {
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
export function fold(input: readonly SampleOutcome[], repeated: string[]): Folded[] {
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
    if (o.skipped) {
      f.skippedTrials++
      continue
    }
    if (o.errored) f.erroredTrials++
    else f.scoredTrials++
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
    // From the second evaluated trial on, which fields each reported (the first one's: what the sum holds so far).
    if (++f.usageTrials === 2) {
      f.usageCounts = {}
      for (const k in f.usage) f.usageCounts[k] = 1
    }
    if (o.usage) {
      if (f.usage === undefined) f.usage = f.trials === 1 ? o.usage : { ...o.usage }
      else {
        if (f.usage === o.usage) f.usage = { ...o.usage }
        for (const k in o.usage) f.usage[k] = (f.usage[k] ?? 0) + (o.usage[k] as number)
      }
      if (f.usageCounts) for (const k in o.usage) f.usageCounts[k] = (f.usageCounts[k] ?? 0) + 1
    }
  }
  for (const x of out) {
    // A sample with no evaluated trial (skipped by policy) is not right either.
    if (!x.evaluated) x.right = false
    if (x.counts) for (const m in x.values) x.values[m] = (x.values[m] as number) / (x.counts[m] as number)
    // A field some evaluated trial lacks is unknown for the sample (a mean over the others would be short or biased).
    if (x.usage && x.usageTrials > 1) {
      const usage: Record<string, number> = {}
      for (const k in x.usage) {
        const n = x.usageCounts?.[k] ?? 0
        if (n === x.usageTrials) usage[k] = (x.usage[k] as number) / n
      }
      x.usage = Object.keys(usage).length > 0 ? usage : undefined
    } else if (x.usage && x.usageTrials === 0) x.usage = undefined
  }
  return out
}
