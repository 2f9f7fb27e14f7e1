/**
 * The built-in scorers, in report order. A new built-in metric family is one file in this folder (a BuiltinScorer)
 * and one line here: describeEval's option of its name, its metrics in the report, the terminal table and the
 * thresholds, and its counts in the report all follow from this list.
 */
import type { BuiltinScorer } from '../scorer.js'
import type { SchemaSampleMetrics } from '../schema.js'
import type { BfclVerdict } from '../../bfcl/checker/score.js'
import type { JudgeResult } from '../judge.js'
import type { ScoredTrajectory } from './trajectory.js'
import { bfclScorer } from '../../bfcl/scorer/scorer.js'
import { judgeScorer } from './judge.js'
import { schemaScorer } from './schema.js'
import { trajectoryScorer } from './trajectory.js'

export type { SchemaScorerOptions, SchemaRecord, SchemaAggregate } from './schema.js'

export const BUILTIN_SCORERS = [
  bfclScorer,
  schemaScorer,
  judgeScorer,
  trajectoryScorer,
] as const

type Builtin = (typeof BUILTIN_SCORERS)[number]
type OptionOf<S> = S extends BuiltinScorer<infer O, infer _V, infer _A, infer _D, infer _N, infer _M> ? O : never
type ValueOf<S> = S extends BuiltinScorer<infer _O, infer V, infer _A, infer _D, infer _N, infer _M> ? V : never
type DetailsOf<S> = S extends BuiltinScorer<infer _O, infer _V, infer _A, infer D, infer _N, infer _M> ? D : never

/** describeEval's options that turn the built-in scorers on, one per scorer, named after it. */
export type BuiltinScorerOptions = { [S in Builtin as S['name']]?: OptionOf<S> }
/** What the built-in scorers record per sample, by scorer name. */
export type BuiltinScorerValues = { [S in Builtin as S['name']]?: ValueOf<S> }
/** The built-in scorers' counts in a report, by scorer name (present when some sample in scope had them). */
export type BuiltinScorerDetails = { [S in Builtin as S['name']]?: DetailsOf<S> }

/** A metric the built-in scorers can report. */
export type BuiltinScorerMetric = Builtin['metrics'][number]
/** What the built-in scorers hand `assert` in full, by scorer name (a scorer that gives no full result needs none). */
export interface BuiltinScorerResults {
  /** The BFCL checker's verdict (`valid`, `error_type`, `error` messages, the decoded calls). */
  bfcl?: BfclVerdict
  /** The schema metrics with the `problems` found (`missing required parameter 'city'`, ...). */
  schema?: SchemaSampleMetrics
  /** Each judge's result: label, score, full explanation, raw answer or error. */
  judge?: JudgeResult[]
  /** The agent loop's run, with `score` against the expected trajectory when the sample has one. */
  trajectory?: ScoredTrajectory
}

/** Every metric the built-in scorers can report, in table order. */
export const BUILTIN_SCORER_METRICS: readonly BuiltinScorerMetric[] = BUILTIN_SCORERS.flatMap((s) => s.metrics)

export function builtinScorer(name: string): Builtin | undefined {
  return BUILTIN_SCORERS.find((s) => s.name === name)
}
