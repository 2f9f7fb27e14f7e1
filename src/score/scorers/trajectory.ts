/**
 * The agent loop's trajectory as a scorer (describeEval's `trajectory` option; on by default in an agent eval, one
 * with `tools` or `environment`). Per sample it records the run's size (steps, calls, tool errors, whether the step
 * limit stopped it) and, when the sample has an `expectedTrajectory`, NeMo's metrics per expected step:
 *
 * - the model's steps that made calls are aligned with the expected steps by `mode`:
 *   'strict' (default): step i with expected step i, and nothing more;
 *   'subsequence': the expected steps in order, other steps allowed between and after them (best order-keeping
 *   alignment);
 *   'unordered': each expected step with some distinct model step, in any order (best one-to-one assignment);
 * - within a step, parallel calls are matched in any order (NeMo's metrics with optimal assignment);
 * - each metric is the mean over expected steps (an expected step left unmatched scores 0), and `trajectory_match`
 *   says whether every expected step was matched exactly (and, in strict mode, no step was made beyond them).
 *
 * The report's `trajectory` field carries the counts: samples, steps, mean steps, step-limit hits, tool errors, and
 * how many samples ran each number of steps.
 */
import { addExact, exactTotal, finite, mergeExact, rate, sortedObject, bump } from '../aggregate.js'
import { maxWeightAssignment } from '../match.js'
import { scoreSample, zeroMetrics } from '../nemo.js'
import type { BuiltinScorer, Scorer, ScorerTypesOf } from '../scorer.js'
import { NEMO_METRICS, type ExpectedCall, type NemoMetric } from '../types.js'
import type { ToolCall } from '../../calls/types.js'
import type { Trajectory } from '../trajectory.js'

export type TrajectoryMode = 'strict' | 'subsequence' | 'unordered'

export interface TrajectoryScorerOptions {
  /** How model steps align with expected steps (default 'strict'). */
  mode?: TrajectoryMode
  /** Exact match without Python's `true == 1` (see ScoreOptions.strictTypes). */
  strictTypes?: boolean
}

/** One sample's trajectory as recorded. */
export interface TrajectoryRecord {
  steps: number
  calls: number
  toolErrors: number
  stepLimitHit: boolean
  /** Present when the sample has an expected trajectory. */
  expectedSteps?: number
  match?: boolean
  /** NeMo's metrics, means over the expected steps (absent when no step is expected). */
  metrics?: Record<NemoMetric, number>
}

/** A trajectory's score against the expected one. */
export interface TrajectoryScore {
  match: boolean
  /** NeMo's metrics, means over the expected steps (absent when no step is expected). */
  metrics?: Record<NemoMetric, number>
  /** For each expected step, the index (among the steps that made calls) of the model step aligned with it; -1: none. */
  aligned: number[]
}

/** What `assert` gets as `result.trajectory`: the run, and its score when the sample has an expected trajectory. */
export type ScoredTrajectory = Trajectory & { score?: TrajectoryScore }

export interface TrajectoryAggregate {
  /** Samples run through the agent loop (errored ones included, with no steps). */
  samples: number
  steps: number
  meanSteps: number | null
  calls: number
  toolErrors: number
  stepLimitHit: number
  /** Samples that had an expected trajectory, and those matching it. */
  withExpected: number
  matched: number
  /** How many samples ran each number of steps. */
  stepCounts: Record<string, number>
}

export interface TrajectoryAccumulator {
  samples: number
  completed: number
  steps: number
  calls: number
  toolErrors: number
  stepLimitHit: number
  withExpected: number
  matched: number
  /** Samples with per-step metrics, and their exact sums. */
  scored: number
  sums: Record<NemoMetric, number[]>
  stepCounts: Map<string, number>
}

const NEMO_PREFIXED = NEMO_METRICS.map((m) => `trajectory_${m}` as const)
const metrics = ['trajectory_match', ...NEMO_PREFIXED, 'agent_completed'] as const

/** NeMo's metrics of one model step against one expected step (parallel calls in any order). */
function stepMetrics(calls: readonly ToolCall[] | undefined, expected: readonly ExpectedCall[], strictTypes: boolean) {
  const s = scoreSample(calls ?? [], expected, { match: 'unordered', strictTypes })
  const exact = calls !== undefined && s.failures.length === 0
  return { metrics: s.metrics, exact, weight: NEMO_METRICS.reduce((w, m) => w + s.metrics[m], 0) + (exact ? 1 : 0) }
}

/** For each expected step, the index of the model step aligned with it (-1: none), by mode. */
export function alignSteps(weights: readonly (readonly number[])[], mode: TrajectoryMode, modelSteps: number): number[] {
  const n = weights.length
  if (mode === 'strict') return weights.map((_, i) => (i < modelSteps ? i : -1))
  if (mode === 'unordered') return maxWeightAssignment(weights).map((j) => (j < modelSteps ? j : -1))
  // Subsequence: the best order-keeping alignment (a weighted longest common subsequence), O(n * m).
  const m = modelSteps
  const best: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0))
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      const w = weights[i]![j]!
      best[i]![j] = Math.max(best[i + 1]![j]!, best[i]![j + 1]!, w > 0 ? w + best[i + 1]![j + 1]! : 0)
    }
  }
  const out = new Array<number>(n).fill(-1)
  let i = 0
  let j = 0
  while (i < n && j < m) {
    const w = weights[i]![j]!
    if (w > 0 && best[i]![j] === w + best[i + 1]![j + 1]!) {
      out[i++] = j++
    } else if (best[i]![j] === best[i + 1]![j]) i++
    else j++
  }
  return out
}

/** Score model call-steps against expected steps. */
export function scoreTrajectory(
  modelSteps: readonly (readonly ToolCall[])[],
  expected: readonly (readonly ExpectedCall[])[],
  options: TrajectoryScorerOptions = {},
): TrajectoryScore {
  const mode = options.mode ?? 'strict'
  const strictTypes = options.strictTypes ?? false
  if (expected.length === 0) return { match: modelSteps.length === 0, aligned: [] }
  const weights = expected.map((e) => modelSteps.map((calls) => stepMetrics(calls, e, strictTypes).weight))
  const aligned = alignSteps(weights, mode, modelSteps.length)
  const sums = zeroMetrics()
  let match = mode !== 'strict' || modelSteps.length === expected.length
  expected.forEach((e, i) => {
    const j = aligned[i] ?? -1
    const s = stepMetrics(j >= 0 ? modelSteps[j] : undefined, e, strictTypes)
    for (const k of NEMO_METRICS) sums[k] += s.metrics[k]
    if (!s.exact) match = false
  })
  const out = zeroMetrics()
  for (const k of NEMO_METRICS) out[k] = sums[k] / expected.length
  return { match, metrics: out, aligned }
}

const accumulator: Scorer<TrajectoryRecord, TrajectoryAccumulator, TrajectoryAggregate>['accumulator'] = {
  create: () => ({
    samples: 0,
    completed: 0,
    steps: 0,
    calls: 0,
    toolErrors: 0,
    stepLimitHit: 0,
    withExpected: 0,
    matched: 0,
    scored: 0,
    sums: Object.fromEntries(NEMO_METRICS.map((m) => [m, [] as number[]])) as Record<NemoMetric, number[]>,
    stepCounts: new Map(),
  }),
  add(acc, r, errored) {
    acc.samples++
    const steps = Math.max(0, Math.floor(finite(r.steps)))
    acc.steps += steps
    acc.calls += Math.max(0, Math.floor(finite(r.calls)))
    acc.toolErrors += Math.max(0, Math.floor(finite(r.toolErrors)))
    if (r.stepLimitHit === true) acc.stepLimitHit++
    if (!errored && r.stepLimitHit !== true) acc.completed++
    bump(acc.stepCounts, String(steps))
    if (r.expectedSteps !== undefined) {
      acc.withExpected++
      if (r.match === true && !errored) acc.matched++
      if (r.metrics !== undefined) {
        acc.scored++
        for (const m of NEMO_METRICS) addExact(acc.sums[m], errored ? 0 : finite(r.metrics[m]))
      }
    }
  },
  merge(into, from) {
    for (const k of ['samples', 'completed', 'steps', 'calls', 'toolErrors', 'stepLimitHit', 'withExpected', 'matched', 'scored'] as const) {
      into[k] += from[k]
    }
    for (const m of NEMO_METRICS) mergeExact(into.sums[m], from.sums[m])
    for (const [k, n] of from.stepCounts) bump(into.stepCounts, k, n)
    return into
  },
  finish(acc) {
    const out: Record<string, number | null> = {}
    const denominators: Record<string, number> = {}
    if (acc.withExpected > 0) {
      out['trajectory_match'] = rate(acc.matched, acc.withExpected)
      denominators['trajectory_match'] = acc.withExpected
    }
    if (acc.scored > 0) {
      for (const m of NEMO_METRICS) {
        out[`trajectory_${m}`] = rate(exactTotal(acc.sums[m]), acc.scored)
        denominators[`trajectory_${m}`] = acc.scored
      }
    }
    out['agent_completed'] = rate(acc.completed, acc.samples)
    denominators['agent_completed'] = acc.samples
    const counts = [...acc.stepCounts].sort((a, b) => Number(a[0]) - Number(b[0]))
    const details: TrajectoryAggregate = {
      samples: acc.samples,
      steps: acc.steps,
      meanSteps: rate(acc.steps, acc.samples),
      calls: acc.calls,
      toolErrors: acc.toolErrors,
      stepLimitHit: acc.stepLimitHit,
      withExpected: acc.withExpected,
      matched: acc.matched,
      stepCounts: sortedObject(new Map(counts), (n) => n),
    }
    return { metrics: out, counts: denominators, details }
  },
}

const MODES: readonly TrajectoryMode[] = ['strict', 'subsequence', 'unordered']

export const trajectoryScorer: BuiltinScorer<
  boolean | TrajectoryScorerOptions,
  TrajectoryRecord,
  TrajectoryAccumulator,
  TrajectoryAggregate,
  'trajectory',
  (typeof metrics)[number]
> = {
  name: 'trajectory',
  metrics,
  accumulator,
  configure(option) {
    if (!option) return undefined
    const options = option === true ? {} : option
    if (options.mode !== undefined && !MODES.includes(options.mode)) {
      throw new Error(`describeEval: \`trajectory.mode\` must be one of ${MODES.join(', ')} (got ${JSON.stringify(options.mode)})`)
    }
    return {
      name: 'trajectory',
      metrics,
      accumulator,
      score({ sample, trajectory }) {
        if (trajectory === undefined) return undefined
        const callSteps = trajectory.steps.filter((s) => s.calls.length > 0).map((s) => s.calls)
        const value: TrajectoryRecord = {
          steps: trajectory.steps.length,
          calls: callSteps.reduce((n, c) => n + c.length, 0),
          toolErrors: trajectory.toolErrors,
          stepLimitHit: trajectory.stepLimitHit,
        }
        if (sample.expectedTrajectory === undefined) return { value, result: trajectory }
        const score = scoreTrajectory(callSteps, sample.expectedTrajectory, options)
        value.expectedSteps = sample.expectedTrajectory.length
        value.match = score.match
        if (score.metrics) value.metrics = score.metrics
        const result: ScoredTrajectory = { ...trajectory, score }
        return { value, result }
      },
      errored(sample) {
        const value: TrajectoryRecord = { steps: 0, calls: 0, toolErrors: 0, stepLimitHit: false }
        const expected = sample?.expectedTrajectory
        if (expected !== undefined) {
          value.expectedSteps = expected.length
          value.match = false
          if (expected.length > 0) value.metrics = zeroMetrics()
        }
        return value
      },
    }
  },
}

declare module '../types.js' {
  interface BuiltinScorerTypes {
    /** Hands `assert` the agent loop's run, with `score` against the expected trajectory when the sample has one. */
    trajectory: ScorerTypesOf<typeof trajectoryScorer, ScoredTrajectory>
  }
}
