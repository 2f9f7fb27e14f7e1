/**
 * The paired test of one metric between two checkpoints, from their samples files: the test the gate makes
 * (`testMetric`: exact McNemar for 0/1 values of single samples, sign-flip or clustered t over dialogues), on the
 * samples both runs have, trials folded into their mean and a dialogue's turns one cluster, as `compareRuns` pairs
 * them. Not `compareRuns` itself: the whole comparison also works out the gate's power and MDE for every metric, 98%
 * of its time, which a curve of 1,000 checkpoints cannot afford a thousand times over.
 */
import { testMetric, type Column } from '../reporter/compare/metric-tests.js'
import type { SampleOutcome } from '../reporter/compare/outcomes.js'

/** One run's samples: each sample's metric values (the mean over its trials), its key and its cluster's key. */
export interface FoldedRun {
  keys: string[]
  values: Record<string, number>[]
  /** A dialogue's turns (`id#k`) share their dialogue's key, as in the gate. */
  clusters: string[]
  index: Map<string, number>
}

export function foldOutcomes(outcomes: readonly SampleOutcome[]): FoldedRun {
  const run: FoldedRun = { keys: [], values: [], clusters: [], index: new Map() }
  // Without trials each sample is one outcome: its values serve as they are.
  const trials = outcomes.some((o) => o.trial !== undefined)
  const counts: Record<string, number>[] = []
  for (const o of outcomes) {
    const key = `${o.suite}\u0000${o.id}`
    const at = run.index.get(key)
    if (at === undefined || !trials) {
      run.index.set(key, run.keys.length)
      run.keys.push(key)
      run.values.push(trials ? { ...o.values } : o.values)
      run.clusters.push(key.replace(/#\d+$/, ''))
      if (trials) counts.push(Object.fromEntries(Object.keys(o.values).map((m) => [m, 1])))
      continue
    }
    const v = run.values[at] as Record<string, number>
    const n = counts[at] as Record<string, number>
    for (const m in o.values) {
      v[m] = (v[m] ?? 0) + (o.values[m] as number)
      n[m] = (n[m] ?? 0) + 1
    }
  }
  if (trials) run.values.forEach((v, i) => {
    for (const m in v) v[m] = (v[m] as number) / ((counts[i] as Record<string, number>)[m] as number)
  })
  return run
}

/** The samples two runs share: indices into each, and cluster ids numbered over the shared samples. */
export interface Pairing {
  base: number[]
  head: number[]
  cluster: number[]
}

export function pairRuns(base: FoldedRun, head: FoldedRun): Pairing {
  const out: Pairing = { base: [], head: [], cluster: [] }
  const ids = new Map<string, number>()
  for (let h = 0; h < head.keys.length; h++) {
    const b = base.index.get(head.keys[h] as string)
    if (b === undefined) continue
    const c = head.clusters[h] as string
    let id = ids.get(c)
    if (id === undefined) ids.set(c, (id = ids.size))
    out.base.push(b)
    out.head.push(h)
    out.cluster.push(id)
  }
  return out
}

export interface PairedResult {
  n: number
  delta: number
  /** One-sided p-value of a drop (head below base). */
  pDrop: number
  test: string
  note?: string
}

/** The paired test of `metric`, base against head; undefined when no shared sample has the metric in both runs. */
export function pairedMetricTest(base: FoldedRun, head: FoldedRun, pairing: Pairing, metric: string): PairedResult | undefined {
  const column: Column = { base: [], head: [], cluster: [], length: 0 }
  for (let i = 0; i < pairing.base.length; i++) {
    const bv = (base.values[pairing.base[i] as number] as Record<string, number>)[metric]
    const hv = (head.values[pairing.head[i] as number] as Record<string, number>)[metric]
    if (hv === undefined || bv === undefined) continue
    column.base.push(bv)
    column.head.push(hv)
    column.cluster.push(pairing.cluster[i] as number)
    column.length++
  }
  if (column.length === 0) return undefined
  const t = testMetric(column, true)
  const out: PairedResult = { n: t.n, delta: t.delta, pDrop: t.drop, test: t.test }
  if (t.note) out.note = t.note
  return out
}
