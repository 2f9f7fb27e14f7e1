/**
 * Judged metrics as a scorer (describeEval's `judge` option: `{ model, kinds?, cache? }`): a model labels each
 * sample's calls `correct` or `incorrect` (score/judge.ts). Judging belongs with generation (`prepare`): each output
 * is judged as soon as it is made, sharing the suite's generation concurrency and lookahead.
 *
 * Reported as `judge_tool_selection` and `judge_tool_invocation` (share judged correct among the judgements that
 * have a label) and, under `judge`, `{judged, correct, errors}` per kind. A judgement without a label (the judge
 * failed or answered something unreadable) is counted under `errors` and left out of its rate. An errored sample is
 * recorded as `incorrect` without asking the judge (a failure never raises a rate).
 */
import { truncate } from '../text.js'
import { JUDGE_KINDS, judgeSample, type JudgeKind, type JudgeResult } from '../judge.js'
import type { BuiltinScorer, Scorer, ScorerModel, ScorerTypesOf } from '../scorer.js'

/** `judge` option: a model that judges each sample's calls (off unless given). */
export interface JudgeScorerOptions {
  /** The judge: any ModelProvider (an endpoint, a local model, a `replay` of judgements keyed by `judgeSampleId`). */
  model: ScorerModel
  /** Which judges run (default both: 'tool_selection' and 'tool_invocation'). */
  kinds?: readonly JudgeKind[]
  /**
   * Keep the judge's answers in the on-disk generation cache (`cached(model, ...)`), so a re-run over the same
   * outputs asks the judge nothing: `true` for the default folder `.tool-evals-cache`, or the cache's options.
   * Default false (wrap the model with `cached` yourself to share one cache between evals).
   */
  cache?: boolean | { dir?: string }
}

/**
 * One judgement as recorded: the label and score, or the error that left the judgement without one (left out of
 * the rate). The explanation is cut short so task meta stays small.
 */
export interface JudgeRecord {
  label?: 'correct' | 'incorrect'
  score?: 0 | 1
  explanation?: string
  error?: string
}

/** Judgement counts per judge kind: asked, judged correct, and left without a label (not in the rate). */
export type JudgeAggregate = Partial<Record<JudgeKind, { judged: number; correct: number; errors: number }>>

export type JudgeValue = Partial<Record<JudgeKind, JudgeRecord>>
export type JudgeAccumulator = Map<JudgeKind, { judged: number; correct: number; errors: number }>

/** A judge's explanation (or error) as kept per judgement, in characters. */
export const JUDGE_RECORD_CHARS = 300
const NOT_JUDGED = 'not judged: the sample could not be evaluated'

function judgeRecord(r: JudgeResult): JudgeRecord {
  const out: JudgeRecord = {}
  if (r.label !== undefined) out.label = r.label
  if (r.score !== undefined) out.score = r.score
  if (r.explanation) out.explanation = truncate(r.explanation, JUDGE_RECORD_CHARS)
  if (r.error !== undefined) out.error = truncate(r.error, JUDGE_RECORD_CHARS)
  return out
}

function kindCounts(acc: JudgeAccumulator, kind: JudgeKind): { judged: number; correct: number; errors: number } {
  let c = acc.get(kind)
  if (!c) {
    c = { judged: 0, correct: 0, errors: 0 }
    acc.set(kind, c)
  }
  return c
}

const accumulator: Scorer<JudgeValue, JudgeAccumulator, JudgeAggregate>['accumulator'] = {
  create: () => new Map(),
  add(acc, value, errored) {
    for (const kind of JUDGE_KINDS) {
      const r = value[kind]
      if (!r) continue
      const c = kindCounts(acc, kind)
      c.judged++
      if (r.label === undefined) c.errors++
      else if (r.label === 'correct' && !errored) c.correct++
    }
  },
  merge(into, from) {
    for (const [kind, c] of from) {
      const u = kindCounts(into, kind)
      u.judged += c.judged
      u.correct += c.correct
      u.errors += c.errors
    }
    return into
  },
  finish(acc) {
    const metrics: Record<string, number | null> = {}
    const counts: Record<string, number> = {}
    const details: JudgeAggregate = {}
    for (const kind of JUDGE_KINDS) {
      const c = acc.get(kind)
      if (!c) continue
      details[kind] = { ...c }
      // A judgement without a label is left out of the rate, so out of its denominator too.
      const labelled = c.judged - c.errors
      metrics[`judge_${kind}`] = labelled === 0 ? null : c.correct / labelled
      counts[`judge_${kind}`] = labelled
    }
    return acc.size === 0 ? { metrics, counts } : { metrics, counts, details }
  },
}

const metrics = JUDGE_KINDS.map((k) => `judge_${k}` as const)

export const judgeScorer: BuiltinScorer<JudgeScorerOptions, JudgeValue, JudgeAccumulator, JudgeAggregate, 'judge', `judge_${JudgeKind}`> = {
  name: 'judge',
  metrics,
  accumulator,
  configure(option, context) {
    if (!option) return undefined
    const judge = option.cache ? context.cached(option.model, option.cache) : option.model
    const kinds = option.kinds ?? JUDGE_KINDS
    return {
      name: 'judge',
      metrics,
      accumulator,
      providers: [option.model],
      prepare({ sample, calls }, signal) {
        const input = { messages: sample.messages, calls, sampleId: sample.id, ...(sample.tools ? { tools: sample.tools } : {}) }
        return judgeSample(judge, input, kinds, signal ? { signal } : {})
      },
      score({ prepared }) {
        if (!Array.isArray(prepared)) return undefined
        const judgements = prepared as JudgeResult[]
        const value: JudgeValue = {}
        for (const r of judgements) value[r.kind] = judgeRecord(r)
        return { value, result: [...judgements] }
      },
      errored() {
        const value: JudgeValue = {}
        for (const kind of kinds) value[kind] = { label: 'incorrect', score: 0, explanation: NOT_JUDGED }
        return value
      },
    }
  },
}

declare module '../types.js' {
  interface BuiltinScorerTypes {
    /** Hands `assert` each judge's result: label, score, full explanation, raw answer or error. */
    judge: ScorerTypesOf<typeof judgeScorer, JudgeResult[]>
  }
}
