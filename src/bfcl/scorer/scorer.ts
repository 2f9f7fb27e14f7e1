/**
 * The BFCL checker as a scorer (describeEval's `bfcl` option: `true`, or the checker's options): samples that carry
 * a BFCL answer (`sample.answers.bfcl`, or `sample.bfcl`, its former name; as `loadBfclCategory` makes them) pass or fail the leaderboard's AST checker, with
 * every acceptable value, BFCL's type rules and order-free parallel calls. Samples without an answer get no verdict.
 *
 * Reported as `bfcl_accuracy` (share of samples with a verdict that pass; an errored sample counts as invalid) and,
 * under `bfcl`, counts overall, per BFCL category and per error type. In strict mode the checker decides.
 */
import { isPlainObject } from '../../calls/call-object.js'
import { bump, rate, sortedObject } from '../../score/aggregate.js'
import { checkBfclAnswer, type BfclAnswer } from '../checker/answer.js'
import type { BfclScoreOptions, BfclVerdict } from '../checker/score.js'
import type { BuiltinScorer, Scorer, ScorerTypesOf } from '../../score/scorer.js'
import type { Sample } from '../../score/types.js'

/** One sample's BFCL verdict as recorded. An errored sample is invalid with `error_type` `sample_errored`. */
export interface BfclRecord {
  valid: boolean
  /** The BFCL category the answer belongs to (`simple_python`, `live_parallel`, ...). */
  category?: string
  /** The leaderboard's error type when invalid (`ast_checker:...`, `irrelevance_error:...`, `sample_errored`). */
  error_type?: string
}

/** BFCL verdicts of a run or suite: counts, overall and per BFCL category. */
export interface BfclAggregate {
  /** Samples with a verdict (errored ones included, as invalid). */
  total: number
  correct: number
  /** Per BFCL category (as in the leaderboard's score files: accuracy = correct / total). */
  categories: Record<string, { total: number; correct: number; accuracy: number | null }>
  /** Invalid samples by the leaderboard's error type. */
  errorTypes: Record<string, number>
}

interface Counts {
  total: number
  correct: number
}

export interface BfclAccumulator extends Counts {
  categories: Map<string, Counts>
  errorTypes: Map<string, number>
}

function counts(map: Map<string, Counts>, key: string): Counts {
  let c = map.get(key)
  if (!c) {
    c = { total: 0, correct: 0 }
    map.set(key, c)
  }
  return c
}

/** The checker's errors of a verdict, one indented line each (nested per model call for parallel checks). */
export function bfclErrorLines(v: BfclVerdict): string[] {
  const lines: string[] = []
  for (const e of v.error) {
    if (typeof e === 'string') lines.push(`  ${e}`)
    else {
      lines.push(`  model call ${e.index}: ${e.sub_error_type}`)
      for (const s of e.sub_error) if (typeof s === 'string') lines.push(`    ${s}`)
    }
  }
  return lines
}

/** The sample's BFCL answer, `null` when it carries something unreadable, `undefined` when none. */
/** The sample's BFCL answer: `answers.bfcl`, else the former `bfcl` field; null when it is not a BFCL answer. */
function answerOf(sample: Sample): BfclAnswer | null | undefined {
  const answer = sample.answers?.['bfcl'] ?? sample.bfcl
  if (answer === undefined) return undefined
  return isPlainObject(answer) && Array.isArray(answer['functions']) ? (answer as unknown as BfclAnswer) : null
}

function categoryOf(answer: BfclAnswer | null | undefined): string | undefined {
  return answer && typeof answer.category === 'string' ? answer.category : undefined
}

function bfclRecord(verdict: BfclVerdict, category: string | undefined): BfclRecord {
  const r: BfclRecord = { valid: verdict.valid }
  if (category !== undefined) r.category = category
  if (!verdict.valid && verdict.error_type !== undefined) r.error_type = verdict.error_type
  return r
}

const accumulator: Scorer<BfclRecord, BfclAccumulator, BfclAggregate>['accumulator'] = {
  create: () => ({ total: 0, correct: 0, categories: new Map(), errorTypes: new Map() }),
  add(acc, b, errored) {
    const valid = b.valid === true && !errored
    acc.total++
    const cat = counts(acc.categories, typeof b.category === 'string' ? b.category : '(unknown)')
    cat.total++
    if (valid) {
      acc.correct++
      cat.correct++
    } else bump(acc.errorTypes, typeof b.error_type === 'string' ? b.error_type : 'invalid')
  },
  merge(into, from) {
    into.total += from.total
    into.correct += from.correct
    for (const [k, c] of from.categories) {
      const u = counts(into.categories, k)
      u.total += c.total
      u.correct += c.correct
    }
    for (const [k, n] of from.errorTypes) bump(into.errorTypes, k, n)
    return into
  },
  finish(acc) {
    const details: BfclAggregate = {
      total: acc.total,
      correct: acc.correct,
      categories: sortedObject(acc.categories, (c) => ({ total: c.total, correct: c.correct, accuracy: rate(c.correct, c.total) })),
      errorTypes: sortedObject(acc.errorTypes, (n) => n),
    }
    return { metrics: { bfcl_accuracy: rate(acc.correct, acc.total) }, counts: { bfcl_accuracy: acc.total }, details }
  },
}

const metrics = ['bfcl_accuracy'] as const

export const bfclScorer: BuiltinScorer<boolean | BfclScoreOptions, BfclRecord, BfclAccumulator, BfclAggregate, 'bfcl', (typeof metrics)[number]> = {
  name: 'bfcl',
  metrics,
  accumulator,
  configure(option) {
    if (!option) return undefined
    const checkerOptions = option === true ? {} : option
    return {
      name: 'bfcl',
      metrics,
      accumulator,
      score({ sample, calls }) {
        const answer = answerOf(sample)
        if (answer === undefined) return undefined
        if (answer === null) {
          const error = ['sample.answers.bfcl is not a BFCL answer (no `functions` list)']
          const verdict: BfclVerdict = { id: sample.id, valid: false, error, error_type: 'bfcl_answer_unreadable', format: 'function-calling' }
          return { value: bfclRecord(verdict, undefined), result: verdict }
        }
        const verdict = checkBfclAnswer(calls, answer, checkerOptions)
        verdict.id = sample.id
        return { value: bfclRecord(verdict, categoryOf(answer)), result: verdict }
      },
      errored(sample) {
        const answer = sample ? answerOf(sample) : undefined
        // An invalid data line (no sample) still counts: the leaderboard counts every entry.
        if (answer === undefined && sample !== undefined) return undefined
        const r: BfclRecord = { valid: false, error_type: 'sample_errored' }
        const category = categoryOf(answer)
        if (category !== undefined) r.category = category
        return r
      },
      strict(outcome) {
        const v = outcome.result as BfclVerdict
        return v.valid ? { pass: true } : { pass: false, message: [`BFCL checker: ${v.error_type ?? 'invalid'}`, ...bfclErrorLines(v)].join('\n') }
      },
    }
  },
}

// BFCL types itself into the layers below, which never name it (bfcl/register.ts adds the scorer at run time).
declare module '../../score/types.js' {
  interface BuiltinScorerTypes {
    /** Hands `assert` the BFCL checker's verdict (`valid`, `error_type`, `error` messages, the decoded calls). */
    bfcl: ScorerTypesOf<typeof bfclScorer, BfclVerdict>
  }
  interface Sample {
    /**
     * `answers.bfcl` under its former name, still accepted: a data line's `bfcl` field is read as `answers.bfcl`, and
     * the loaders set both to the same object.
     */
    bfcl?: BfclAnswer
  }
}
