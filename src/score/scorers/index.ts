/**
 * The built-in scorers' registry, in report order. A new built-in metric family is one file in this folder (a
 * BuiltinScorer that types itself into `BuiltinScorerTypes`, score/types.ts) and one line here: describeEval's
 * option of its name, its metrics in the report, the terminal table and the thresholds, and its counts in the report
 * all follow from this list. A family from a part above (BFCL's `bfcl`) adds itself with `registerBuiltinScorer`
 * from its own entry, so nothing here names it.
 */
import type { BuiltinScorer } from '../scorer.js'
import type { BuiltinScorerMetric } from '../types.js'
// Side-effect imports too: they keep each scorer's entry in BuiltinScorerTypes in the emitted declarations.
import './judge.js'
import './schema.js'
import './trajectory.js'
import { judgeScorer } from './judge.js'
import { schemaScorer } from './schema.js'
import { trajectoryScorer } from './trajectory.js'

export type { SchemaScorerOptions, SchemaRecord, SchemaAggregate } from './schema.js'
export type {
  BuiltinScorerDetails,
  BuiltinScorerMetric,
  BuiltinScorerOptions,
  BuiltinScorerResults,
  BuiltinScorerValues,
} from '../types.js'

type AnyBuiltin = BuiltinScorer<never, unknown, unknown, unknown, string, string>

/** The registered built-in scorers, in registration order (the core's first). Live: registration appends. */
export const BUILTIN_SCORERS: readonly AnyBuiltin[] = [schemaScorer, judgeScorer, trajectoryScorer] as AnyBuiltin[]

/** Every metric the built-in scorers can report, in table order. Live: registration appends. */
export const BUILTIN_SCORER_METRICS: readonly BuiltinScorerMetric[] = BUILTIN_SCORERS.flatMap((s) => s.metrics as BuiltinScorerMetric[])

/**
 * Add a built-in scorer from a part above `score/` (its entry calls this when loaded). Registering the same object
 * again does nothing; another scorer under a registered name is an error, since two could not share a report key.
 */
export function registerBuiltinScorer(scorer: BuiltinScorer<never, unknown, unknown, unknown, string, string>): void {
  const known = BUILTIN_SCORERS.find((s) => s.name === scorer.name)
  if (known === scorer) return
  if (known !== undefined) throw new Error(`a built-in scorer named "${scorer.name}" is registered already`)
  ;(BUILTIN_SCORERS as AnyBuiltin[]).push(scorer)
  ;(BUILTIN_SCORER_METRICS as string[]).push(...scorer.metrics)
}

export function builtinScorer(name: string): AnyBuiltin | undefined {
  return BUILTIN_SCORERS.find((s) => s.name === name)
}
