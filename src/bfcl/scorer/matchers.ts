/**
 * `expect(received).toMatchBfclAnswer(possibleAnswer, functions, options?)`: the model's calls pass the Berkeley
 * Function Calling Leaderboard's AST checker against a BFCL possible answer (every acceptable value it lists, its
 * type rules, order-free matching for parallel calls, no call for irrelevance).
 *
 * `received`: ToolCalls (a list, an eval result or ModelOutput with `calls`), a raw BFCL result (a string is BFCL's
 * prompting format, Python call syntax; a list of `{name: "json args"}` its function-calling format), or a
 * ModelOutput with only `text` (decoded as Python call syntax). `possibleAnswer`: the `ground_truth` list, or a whole
 * BfclAnswer / `sample.bfcl` (then `functions` may be left out).
 */
import type { MatcherState } from 'vitest'
import { isPlainObject } from '../../calls/call-object.js'
import type { ToolCall } from '../../calls/types.js'
import { checkBfclAnswer, type BfclAnswer } from '../checker/answer.js'
import type { BfclScoreOptions, BfclVerdict } from '../checker/score.js'
import { pyRepr } from '../../python/operations.js'
import { bfclErrorLines } from './scorer.js'
import { callList } from '../../calls/format.js'

export interface ToMatchBfclAnswerOptions extends BfclScoreOptions {
  /** BFCL category; inferred from the answer when absent (no answer: irrelevance; several: parallel). */
  category?: string
  /** JSON Pointers of integral floats in `possibleAnswer` (so `1.0` is not taken for the int `1`). */
  floatPaths?: readonly string[]
}

type Result = { pass: boolean; message: () => string }

function isToolCall(v: unknown): v is ToolCall {
  return isPlainObject(v) && typeof v['name'] === 'string' && 'argumentsValid' in v
}

/** What to hand the checker: ToolCalls when the received value carries them, else the raw result. */
function receivedForBfcl(received: unknown): unknown {
  if (isToolCall(received)) return [received]
  if (isPlainObject(received)) {
    if (Array.isArray(received['calls'])) return received['calls']
    if (typeof received['text'] === 'string') return received['text']
    if (isPlainObject(received['output']) && typeof received['output']['text'] === 'string') return received['output']['text']
  }
  return received
}

function answerOf(possibleAnswer: unknown, functions: readonly unknown[] | undefined, options: ToMatchBfclAnswerOptions): BfclAnswer {
  if (isPlainObject(possibleAnswer) && Array.isArray(possibleAnswer['functions'])) {
    const given = possibleAnswer as unknown as BfclAnswer
    return options.category === undefined ? given : { ...given, category: options.category }
  }
  const answer: BfclAnswer = { ground_truth: Array.isArray(possibleAnswer) ? possibleAnswer : [], functions: functions ?? [] }
  if (options.category !== undefined) answer.category = options.category
  if (options.floatPaths !== undefined) answer.floatPaths = options.floatPaths
  return answer
}

export { bfclErrorLines }

export function toMatchBfclAnswer(
  this: MatcherState,
  received: unknown,
  possibleAnswer: unknown,
  functions?: readonly unknown[],
  options: ToMatchBfclAnswerOptions = {},
): Result {
  const subject = receivedForBfcl(received)
  const verdict = checkBfclAnswer(subject, answerOf(possibleAnswer, functions, options), options)
  return {
    pass: verdict.valid,
    message: () => {
      const hint = this.utils.matcherHint(`${this.isNot ? '.not' : ''}.toMatchBfclAnswer`, 'received', 'possibleAnswer', {
        isNot: this.isNot,
      })
      const shown = Array.isArray(subject) && subject.every(isToolCall) ? callList(subject as ToolCall[]) : this.utils.printReceived(subject)
      const lines = [hint, '']
      if (this.isNot) lines.push('Expected the calls to fail the BFCL checker; they pass it.')
      else lines.push('Expected the calls to pass the BFCL checker:', `error_type: ${verdict.error_type ?? ''}`, ...bfclErrorLines(verdict))
      if (verdict.decoded !== undefined) lines.push('', `Decoded: ${pyRepr(verdict.decoded)}`)
      lines.push('', 'Received:', shown)
      return lines.join('\n')
    },
  }
}

export interface BfclMatchers<R = unknown> {
  /** The calls pass the BFCL AST checker against `possibleAnswer` (see `toMatchBfclAnswer`). */
  toMatchBfclAnswer(possibleAnswer: unknown, functions?: readonly unknown[], options?: ToMatchBfclAnswerOptions): R
}

export const bfclMatchers = { toMatchBfclAnswer }

declare module 'vitest' {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  interface Assertion<T = any> extends BfclMatchers<T> {}
  interface AsymmetricMatchersContaining extends BfclMatchers {}
}
