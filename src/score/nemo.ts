/**
 * NeMo-compatible per-sample metrics: the same six values NeMo's `compute_sample_metrics`
 * gives, plus what NeMo leaves out (whether an abstention was right, why a sample failed, per-position detail, and
 * an order-free alignment).
 */
import type { ToolCall } from '../calls/types.js'
import { isPlainObject } from '../calls/call-object.js'
import { parseJson } from '../calls/json.js'
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

/**
 * Deep equality of decoded JSON values: object key order ignored, list order significant. By default with Python's
 * semantics, which NeMo's `==` has: `true == 1 == 1.0` and `false == 0`, at any depth. With `strictTypes` a boolean
 * never equals a number. Iterative, so deeply nested values cannot overflow the stack.
 */
export function argumentsEqual(a: unknown, b: unknown, strictTypes = false): boolean {
  const stack: [unknown, unknown][] = [[a, b]]
  while (stack.length > 0) {
    const [x, y] = stack.pop()!
    if (x === y) continue
    const tx = typeof x
    const ty = typeof y
    if ((tx === 'number' || tx === 'boolean') && (ty === 'number' || ty === 'boolean')) {
      if (tx !== ty && strictTypes) return false
      if (Number(x) !== Number(y)) return false
      continue
    }
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false
      for (let i = 0; i < x.length; i++) stack.push([x[i], y[i]])
      continue
    }
    if (isPlainObject(x)) {
      if (!isPlainObject(y)) return false
      const keys = Object.keys(x)
      if (keys.length !== Object.keys(y).length) return false
      for (const k of keys) {
        if (!Object.prototype.hasOwnProperty.call(y, k)) return false
        stack.push([x[k], y[k]])
      }
      continue
    }
    // Different strings, null against a value, mismatched kinds.
    return false
  }
  return true
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

  m.args_exact_match = call.argumentsValid && argumentsEqual(call.arguments, gtArgs, options.strictTypes) ? 1 : 0
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

function failureOf(call: ToolCall | undefined, m: Record<NemoMetric, number>, expected: ExpectedCall): FailureCategory | undefined {
  if (call === undefined) return 'no_call'
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
    const f = failureOf(call, m, e)
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
