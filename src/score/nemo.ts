/**
 * NeMo-compatible per-sample metrics: the same six values NeMo's `compute_sample_metrics`
 * gives, plus what NeMo leaves out (whether an abstention was right, why a sample failed, per-position detail, and
 * an order-free alignment).
 */
import type { ToolCall } from '../calls/types.js'
import { isPlainObject } from '../calls/call-object.js'
import { parseJson } from '../calls/json.js'
import { bigIntsIn, exactInteger } from '../calls/big-ints.js'
import { maxWeightAssignment } from './match.js'
import {
  FAILURE_CATEGORIES,
  NEMO_METRICS,
  type ExpectedCall,
  type FailureCategory,
  type NemoMetric,
  type PositionScore,
  type SampleScore,
  type ScoreOptions,
} from './types.js'

/** The six metrics, all 0: a missing prediction, and NeMo's value for a sample that expects no call. */
export function zeroMetrics(): Record<NemoMetric, number> {
  return {
    has_call: 0,
    name_correct: 0,
    args_json_valid: 0,
    args_field_precision: 0,
    args_field_recall: 0,
    args_exact_match: 0,
  }
}

/**
 * Ground-truth arguments as an object, NeMo's way: an object as is, a string JSON-decoded (an object, or `{}`), and
 * anything else (absent, null, a list) `{}`.
 */
export function expectedArguments(args: unknown): Record<string, unknown> {
  if (isPlainObject(args)) return args
  if (typeof args === 'string') {
    const r = parseJson(args)
    if (r.ok && isPlainObject(r.value)) return r.value
  }
  return {}
}

/** Exact digits of integers beyond 2^53 by JSON Pointer, for each side of a comparison (see calls/big-ints.ts). */
export interface ExactIntegers {
  a?: Record<string, string>
  b?: Record<string, string>
}

/**
 * Deep equality of decoded JSON values: object key order ignored, list order significant. By default with Python's
 * semantics, which NeMo's `==` has: `true == 1 == 1.0` and `false == 0`, at any depth. With `strictTypes` a boolean
 * never equals a number. Integers are compared exactly: a `bigint` by its value, and a number beyond 2^53 by the
 * digits `exact` records for its path (`ToolCall.bigInts`), so 9007199254740993 never equals 9007199254740992.
 * Iterative, so deeply nested values cannot overflow the stack.
 */
export function argumentsEqual(a: unknown, b: unknown, strictTypes = false, exact: ExactIntegers = {}): boolean {
  const track = exact.a !== undefined || exact.b !== undefined
  const stack: [unknown, unknown, string][] = [[a, b, '']]
  while (stack.length > 0) {
    const [x, y, path] = stack.pop()!
    const tx = typeof x
    const ty = typeof y
    if (x === y && tx !== 'number') continue
    if (isNumeric(tx) && isNumeric(ty)) {
      if (tx !== ty && strictTypes && (tx === 'boolean' || ty === 'boolean')) return false
      if (!numbersEqual(x, y, track ? exact.a?.[path] : undefined, track ? exact.b?.[path] : undefined)) return false
      continue
    }
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false
      for (let i = 0; i < x.length; i++) stack.push([x[i], y[i], track ? path + '/' + i : ''])
      continue
    }
    if (isPlainObject(x)) {
      if (!isPlainObject(y)) return false
      const keys = Object.keys(x)
      if (keys.length !== Object.keys(y).length) return false
      for (const k of keys) {
        if (!Object.prototype.hasOwnProperty.call(y, k)) return false
        stack.push([x[k], y[k], track ? path + '/' + k.replace(/~/g, '~0').replace(/\//g, '~1') : ''])
      }
      continue
    }
    // Different strings, null against a value, mismatched kinds.
    return false
  }
  return true
}

function isNumeric(t: string): boolean {
  return t === 'number' || t === 'boolean' || t === 'bigint'
}

/** Python's `==` on numbers and booleans, exact on integers (digits recorded for a side win over its number). */
function numbersEqual(x: unknown, y: unknown, xDigits: string | undefined, yDigits: string | undefined): boolean {
  if (xDigits === undefined && yDigits === undefined && typeof x === 'number' && typeof y === 'number') return x === y
  const xi = xDigits ?? exactInteger(typeof x === 'boolean' ? Number(x) : x)
  const yi = yDigits ?? exactInteger(typeof y === 'boolean' ? Number(y) : y)
  if (xi !== undefined && yi !== undefined) return xi === yi
  return Number(x) === Number(y)
}

/** Digits of the integers beyond 2^53 in ground-truth arguments written as a JSON string (else none). */
export function expectedBigInts(args: unknown): Record<string, string> | undefined {
  if (typeof args !== 'string') return undefined
  const r = parseJson(args)
  return r.ok ? bigIntsIn(r.value, args) : undefined
}

/** NeMo's `_score_one_pair`: one prediction (or none) against one expected call. */
export function scorePair(
  call: ToolCall | undefined,
  expected: ExpectedCall,
  options: ScoreOptions = {},
): Record<NemoMetric, number> {
  const m = zeroMetrics()
  if (call === undefined) return m
  const gtArgs = expectedArguments(expected.arguments)
  m.has_call = 1
  m.name_correct = call.name === expected.name ? 1 : 0
  m.args_json_valid = call.argumentsValid ? 1 : 0

  // Invalid arguments count as an empty key set.
  const predKeys = call.argumentsValid ? Object.keys(call.arguments) : []
  const gtKeys = Object.keys(gtArgs)
  let common = 0
  for (const k of predKeys) if (Object.prototype.hasOwnProperty.call(gtArgs, k)) common++

  if (gtKeys.length > 0) m.args_field_recall = common / gtKeys.length
  else m.args_field_recall = predKeys.length === 0 ? 1 : 0
  if (predKeys.length > 0) m.args_field_precision = common / predKeys.length
  else m.args_field_precision = gtKeys.length === 0 ? 1 : 0

  const exact = { a: call.bigInts, b: expectedBigInts(expected.arguments) }
  m.args_exact_match = call.argumentsValid && argumentsEqual(call.arguments, gtArgs, options.strictTypes, exact) ? 1 : 0
  return m
}

/** Sum of the six values: the weight the order-free alignment maximises. */
function metricSum(m: Record<NemoMetric, number>): number {
  let s = 0
  for (const k of NEMO_METRICS) s += m[k]
  return s
}

/**
 * Among alignments with the same summed score, prefer the one with more right names (a right tool with wrong
 * arguments reads as "that call, wrong arguments"). The bonus is far below any difference the metrics can make in
 * practice (they move in steps of 1 / key count).
 */
const NAME_TIE_BREAK = 1e-7

/**
 * Which prediction each expected position is scored against (-1: none). Positional: prediction i for position i.
 * Unordered: the one-to-one assignment maximising the summed per-position score.
 */
export function alignCalls(calls: readonly ToolCall[], expected: readonly ExpectedCall[], options: ScoreOptions = {}): number[] {
  if (options.match !== 'unordered') return expected.map((_, i) => (i < calls.length ? i : -1))
  const weights = expected.map((e) =>
    calls.map((c) => {
      const m = scorePair(c, e, options)
      return metricSum(m) + NAME_TIE_BREAK * m.name_correct
    }),
  )
  return maxWeightAssignment(weights)
}

function failureOf(call: ToolCall | undefined, m: Record<NemoMetric, number>, expected: ExpectedCall, calls: number): FailureCategory | undefined {
  // A position left without a prediction: no call at all, or fewer calls than expected (a parallel turn cut short).
  if (call === undefined) return calls === 0 ? 'no_call' : 'missing_call'
  if (!call.argumentsValid) return 'malformed_call'
  if (call.name !== expected.name) return 'wrong_name'
  if (m.args_exact_match !== 1) return 'wrong_arguments'
  return undefined
}

/**
 * Score one sample's predicted calls against its expected calls.
 *
 * `metrics` are NeMo's values: each metric averaged over the expected positions; extra predictions are ignored by
 * the metrics; all 0 when nothing is expected (NeMo's rule, kept for parity; `noCallCorrect` says whether that
 * abstention was right). `failures` lists each category that applies once, in FAILURE_CATEGORIES order.
 */
export function scoreSample(calls: readonly ToolCall[], expected: readonly ExpectedCall[], options: ScoreOptions = {}): SampleScore {
  const alignment = alignCalls(calls, expected, options)
  const sums = zeroMetrics()
  const positions: PositionScore[] = []
  const found = new Set<FailureCategory>()
  const usedCalls = new Set<number>()

  expected.forEach((e, i) => {
    const j = alignment[i] ?? -1
    const call = j >= 0 ? calls[j] : undefined
    if (call !== undefined) usedCalls.add(j)
    const m = scorePair(call, e, options)
    for (const k of NEMO_METRICS) sums[k] += m[k]
    const pos: PositionScore = { expected: e.name, metrics: m }
    if (call !== undefined) pos.predicted = call.name
    positions.push(pos)
    const f = failureOf(call, m, e, calls.length)
    if (f !== undefined) found.add(f)
  })

  if (expected.length === 0) {
    if (calls.length > 0) found.add('unexpected_call')
  } else if (usedCalls.size < calls.length) {
    found.add('extra_call')
  }
  // A malformed call is worth naming even when it is an extra one.
  if (calls.some((c, j) => !usedCalls.has(j) && !c.argumentsValid)) found.add('malformed_call')

  const metrics = zeroMetrics()
  if (expected.length > 0) for (const k of NEMO_METRICS) metrics[k] = sums[k] / expected.length

  const score: SampleScore = {
    expected: expected.length,
    predicted: calls.length,
    metrics,
    positions,
    failures: FAILURE_CATEGORIES.filter((f) => found.has(f)),
  }
  if (expected.length === 0) score.noCallCorrect = calls.length === 0
  return score
}
