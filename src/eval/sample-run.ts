/**
 * One sample's test with the options that change how it runs: repeated trials (`trials`, see trials.ts) and the
 * tool-call snapshot (`snapshot`, see snapshot.ts). describeEval calls `generateAndEvaluate` for every sample: with
 * neither option it is the single generation and evaluation it always was.
 */
import type { Sample } from '../data/types.js'
import type { Generation } from './generations.js'
import { changedMessage, type SuiteSnapshot } from './snapshot.js'
import type { SampleSnapshotMeta } from '../score/snapshot-format.js'
import { callsKey, normaliseCalls, type SnapshotCall } from '../score/snapshot-format.js'
import { modalTrial, reduceTrials, type TrialOutcome, type TrialsPlan } from './trials.js'
import type { EvalMeta } from './meta.js'
import type { ToolCall } from '../calls/types.js'
import type { SampleRecord, SampleScore } from '../score/types.js'

/** What evaluating one generation gives (describeEval's `Evaluated`, kept structural here). */
export interface EvaluatedLike {
  stored: EvalMeta
  result: { calls: ToolCall[]; record: SampleRecord; score: SampleScore }
}

export interface SampleRun<E extends EvaluatedLike> {
  evaluated: E
  /** The calls a snapshot keeps (normalised, volatile paths masked) and, with trials, how often they came. */
  snapshotCalls: SnapshotCall[]
  frequency?: string
}

/** A sample as its trial `t` is generated (same id: the generation cache and replay key on `trial`). */
export function trialSample(sample: Sample, t: number): Sample {
  return { ...sample, trial: t }
}

/** The samples generation plans for, in test order: each sample's trials one after another. */
export function expandTrials(samples: readonly Sample[], trials: TrialsPlan | undefined): Sample[] {
  if (!trials) return [...samples]
  return samples.flatMap((s) => Array.from({ length: trials.count }, (_, t) => trialSample(s, t)))
}

/**
 * Generate and evaluate one sample (all its trials); undefined when the test was aborted meanwhile (a timeout: the
 * provisional record stands).
 */
export async function generateAndEvaluate<E extends EvaluatedLike>(
  sample: Sample,
  trials: TrialsPlan | undefined,
  ignore: readonly string[],
  get: (sample: Sample) => Promise<Generation>,
  evaluate: (generation: Generation) => Promise<E>,
  aborted: () => boolean,
): Promise<SampleRun<E> | undefined> {
  if (!trials) {
    const generation = await get(sample)
    if (aborted()) return undefined
    const evaluated = await evaluate(generation)
    return { evaluated, snapshotCalls: normaliseCalls(evaluated.result.calls, ignore) }
  }
  const generations = await Promise.all(Array.from({ length: trials.count }, (_, t) => get(trialSample(sample, t))))
  if (aborted()) return undefined
  const all: E[] = []
  // In trial order, one at a time: scorers see the trials as they would see samples.
  for (const g of generations) all.push(await evaluate(g))
  const normalised = all.map((e) => normaliseCalls(e.result.calls, ignore))
  const outcomes: TrialOutcome[] = all.map((e, i) => ({ record: e.stored.record, callsKey: callsKey(normalised[i] as SnapshotCall[]) }))
  const { index, frequency } = modalTrial(outcomes)
  // The most frequent outcome is what the sample shows (calls, output, assert); its record is the trials' reduction.
  const evaluated = all[index] as E
  // Every trial's resumed generations, not only the shown trial's.
  const resumed = all.reduce((n, e) => n + (e.stored.resumed ?? 0), 0)
  if (resumed > 0) evaluated.stored.resumed = resumed
  else delete evaluated.stored.resumed
  const record = reduceTrials(outcomes, trials)
  evaluated.stored.record = record
  evaluated.result.record = record
  if (record.score) evaluated.result.score = record.score
  return { evaluated, snapshotCalls: normalised[index] as SnapshotCall[], frequency: `${frequency}/${trials.count}` }
}

/**
 * Compare the sample's calls with its stored snapshot line (into its meta); the suite's last planned sample also
 * writes the file as the update mode allows and lists the obsolete ids.
 */
export async function keepSnapshot(
  snapshot: SuiteSnapshot,
  task: { id: string; file: TaskTree & { filepath: string } },
  suite: string,
  id: string,
  run: SampleRun<EvaluatedLike>,
  last: boolean,
  dataIds: ReadonlyMap<string, unknown>,
): Promise<void> {
  const root = process.cwd() // Vitest's workers run in the project root: report paths are relative to it
  const site = { evalFile: task.file.filepath, suite, suitesInFile: suiteNames(task.file) }
  const stored = run.evaluated.stored
  // Errored and skipped samples have no calls to keep: their stored lines stay as they are.
  if (stored.record.error === undefined && stored.record.skipped === undefined) {
    stored.snapshot = await snapshot.check(site, root, id, run.snapshotCalls, run.frequency)
  }
  if (last) stored.snapshotSuite = await snapshot.finish(new Set(dataIds.keys()), root, task.id, site)
}

/** The bit of Vitest's task tree read here: suites and their children. */
interface TaskTree {
  type?: string
  name?: string
  tasks?: readonly TaskTree[]
}

/** Every describe block's name in a test file (collection is over when a test runs, so all are there). */
function suiteNames(file: TaskTree): string[] {
  const names: string[] = []
  const stack = [...(file.tasks ?? [])]
  while (stack.length > 0) {
    const t = stack.pop()!
    if (t.type === 'suite' && typeof t.name === 'string') names.push(t.name)
    stack.push(...(t.tasks ?? []))
  }
  return names
}

/** Why the sample's test fails on its snapshot ('fail' mode), if it does. */
export function snapshotVerdict(snapshot: SuiteSnapshot, id: string, meta: SampleSnapshotMeta | undefined): string | undefined {
  if (snapshot.plan.mode !== 'fail' || !meta) return undefined
  const update = snapshot.updateMode()
  if (meta.status === 'changed' && update !== 'all') return changedMessage(id, meta)
  // As Vitest does with a missing snapshot when it may not write one (CI).
  if (meta.status === 'added' && update === 'none') return `sample "${id}": no stored tool-call snapshot in ${meta.file}, and this run may not write one (CI): run with -u`
  return undefined
}
