/**
 * What one eval test case leaves in its Vitest task meta for the reporter: the sample's record (scores, or why it
 * errored or was skipped) and just enough to show it (expected and parsed calls, a truncated raw output). Task
 * meta travels to the main process, into blob reports and through `--merge-reports`, so it stays small and plain
 * JSON. This module has no Vitest runtime dependency: the reporter reads meta with it.
 */
import type { TaskMeta } from '@vitest/runner'
import { callLine } from '../calls/format.js'
import type { ToolCall } from '../calls/types.js'
import type { ExpectedCall, SampleRecord } from '../score/types.js'
import { JUDGE_RECORD_CHARS } from '../score/scorers/judge.js'
import { truncate } from '../score/text.js'
import type { StoredTrajectory } from '../score/trajectory.js'
import type { SampleSnapshotMeta, SuiteSnapshotMeta } from '../score/snapshot-format.js'

/** The task-meta key under which a test case stores its EvalMeta. */
export const META_KEY = 'toolEvals' satisfies keyof TaskMeta

/** A parsed call as stored in meta: no raw text (the output is stored once), arguments capped in size. */
export interface StoredCall {
  name: string
  arguments: Record<string, unknown>
  /** Present (false) only when the arguments were malformed. */
  argumentsValid?: false
  format?: string
}

// Vitest's task meta, typed: `task.meta.toolEvals` (and `testCase.meta().toolEvals`) is an EvalMeta. Blobs from
// other versions may still carry another shape: readers go through `readEvalMeta`, which checks it at run time.
declare module '@vitest/runner' {
  interface TaskMeta {
    toolEvals?: EvalMeta
  }
}

export interface EvalMeta {
  /** Version of this shape (readers skip what they do not know). */
  v: 1
  record: SampleRecord
  /** Full error message (file, line, field, provider message) when the record is errored. */
  detail?: string
  /** The expected calls; kept for every sample but the fully right ones (see `rightCalls`). */
  expected?: ExpectedCall[]
  /** The parsed calls; kept only for samples that are not fully right. */
  calls?: StoredCall[]
  /**
   * A fully right sample's calls as one line (`get_weather({"city":"Paris"})`, `; ` between calls), capped at
   * `META_LIMITS.rightCallsChars`: they matched the expected calls, so this line stands for both and the lists are
   * not kept. Absent when the sample made no call (it rightly made none) or is not fully right.
   */
  rightCalls?: string
  /** The raw output, cut to `maxOutputChars` (the cut is marked). */
  output?: string
  /** Why the sample's cache entry was unusable and regenerated (`cached()`), when it was. */
  cacheRegenerated?: string
  /** Hash of the sample's calls, normalised (see calls-hash.ts): tells a change of calls between runs. */
  callsHash?: string
  /** The output came from the generation cache (`cached()`). */
  cacheHit?: true
  /** Generations of this sample (trials, agent steps) answered from the run journal of an interrupted run. */
  resumed?: number
  /** The last user message, cut short; kept only for samples that are not fully right (the HTML report shows it). */
  prompt?: string
  /** The agent loop's run, steps and results cut short (see TRAJECTORY_LIMITS). */
  trajectory?: StoredTrajectory
  /** The sample's calls against its tool-call snapshot (describeEval's `snapshot`). */
  snapshot?: SampleSnapshotMeta
  /** On the last sample of a suite with `snapshot`: the suite's snapshot file, its obsolete ids, whether it was written. */
  snapshotSuite?: SuiteSnapshotMeta
  /** In a model matrix (describeEval's `models`): the model's key; the record's suite is `<eval> > <model>`. */
  model?: string
  /** In a model matrix: the key of the model the others are compared with. */
  reference?: string
}

/** Limits that keep one test's meta small however large the model's output was. */
export const META_LIMITS = {
  calls: 32,
  argumentsChars: 2000,
  outputChars: 2000,
  promptChars: 1000,
  detailChars: 2000,
  /** The one line of a fully right sample's calls (keeps its meta under 1 KB). */
  rightCallsChars: 300,
  /** A judge's explanation (or error), per judgement. */
  judgeChars: JUDGE_RECORD_CHARS,
}

export { truncate }

/** Calls in their stored form (see StoredCall). */
export function storedCalls(calls: readonly ToolCall[]): StoredCall[] {
  const out: StoredCall[] = []
  for (const c of calls.slice(0, META_LIMITS.calls)) {
    const s: StoredCall = { name: c.name, arguments: c.arguments }
    let size = 0
    try {
      size = JSON.stringify(c.arguments).length
    } catch {
      size = Infinity
    }
    if (size > META_LIMITS.argumentsChars) s.arguments = { '…': `arguments of ${size} chars left out` }
    if (!c.argumentsValid) s.argumentsValid = false
    if (c.format) s.format = c.format
    out.push(s)
  }
  return out
}

/** A fully right sample's calls as one capped line (see EvalMeta.rightCalls). */
export function rightCallsLine(calls: readonly ToolCall[]): string {
  return truncate(calls.map((c) => callLine(c, META_LIMITS.rightCallsChars)).join('; '), META_LIMITS.rightCallsChars)
}

/** The text of the last user message, cut to `META_LIMITS.promptChars`; undefined when there is none. */
export function lastUserPrompt(messages: readonly { role: string; content?: unknown }[] | undefined): string | undefined {
  for (let i = (messages?.length ?? 0) - 1; i >= 0; i--) {
    const m = messages?.[i]
    if (m?.role === 'user' && typeof m.content === 'string') return truncate(m.content, META_LIMITS.promptChars)
  }
  return undefined
}

/** Expected calls as stored (arguments capped the same way). */
export function storedExpected(expected: readonly ExpectedCall[]): ExpectedCall[] {
  return expected.slice(0, META_LIMITS.calls).map((e) => {
    const size = typeof e.arguments === 'string' ? e.arguments.length : JSON.stringify(e.arguments ?? {}).length
    return size > META_LIMITS.argumentsChars ? { name: e.name, arguments: { '…': `arguments of ${size} chars left out` } } : e
  })
}

/** Write EvalMeta into a task's meta object. */
export function writeEvalMeta(taskMeta: TaskMeta, meta: EvalMeta): void {
  taskMeta[META_KEY] = meta
}

/** The EvalMeta in a task's meta, or undefined when the test is not an eval sample (or ran an unknown version). */
export function readEvalMeta(taskMeta: unknown): EvalMeta | undefined {
  if (typeof taskMeta !== 'object' || taskMeta === null) return undefined
  const m = (taskMeta as Record<string, unknown>)[META_KEY]
  if (typeof m !== 'object' || m === null) return undefined
  const meta = m as Partial<EvalMeta>
  if (meta.v !== 1 || typeof meta.record !== 'object' || meta.record === null) return undefined
  if (typeof meta.record.id !== 'string') return undefined
  return meta as EvalMeta
}
