/**
 * The cap on calls per output (`ParseOptions.maxCalls`). No real answer holds thousands of calls, but a model stuck
 * in a loop can write one short call every few bytes (`[f(a=1),f(a=1),...]`: 150,000 a megabyte), and building
 * that many ToolCalls costs far more than reading the text. Past the cap the output is marked, never cut to a
 * shorter list that looks like an answer: the first `maxCalls` calls are kept and one last call says why the rest
 * are missing (no name, arguments invalid, `argumentsError` giving the reason), so every scorer counts the output
 * as wrong and a report shows the reason.
 */
import type { ParseOptions, ToolCall } from './types.js'

/** The default of `ParseOptions.maxCalls`. */
export const DEFAULT_MAX_CALLS = 10_000

/** `argumentsError` of the call that marks an output over the cap starts with this. */
export const TOO_MANY_CALLS = 'too many calls'

/** The options' cap, checked: a positive integer or Infinity; anything else is a programming error (TypeError). */
export function maxCallsOf(options: ParseOptions): number {
  const max = options.maxCalls
  if (max === undefined) return DEFAULT_MAX_CALLS
  if (typeof max !== 'number' || !(max === Infinity || (Number.isInteger(max) && max > 0))) {
    throw new TypeError(`parseToolCalls: options.maxCalls must be a positive integer or Infinity (got ${String(max)})`)
  }
  return max
}

/**
 * How many calls a format need build to show the cap is passed (one more than it). Formats that can write a call
 * every few bytes stop building calls there; the rest of the text is still read, so the result does not change.
 */
export function callLimit(options: ParseOptions): number {
  const max = options.maxCalls
  return (typeof max === 'number' && max > 0 ? max : DEFAULT_MAX_CALLS) + 1
}

/** `calls` within the cap, or its first `max` calls and the call that marks the output as over it. */
export function capCalls(calls: ToolCall[], max: number): ToolCall[] {
  if (calls.length <= max) return calls
  const kept = calls.slice(0, max)
  kept.push({
    name: '',
    arguments: {},
    argumentsValid: false,
    argumentsError: `${TOO_MANY_CALLS}: the output holds more than ${max} calls (ParseOptions.maxCalls); the calls after the first ${max} were not read`,
    format: calls[max]!.format,
  })
  return kept
}

/** Whether `call` is the one that marks an output over the cap (see `capCalls`). */
export function isOverCapMarker(call: ToolCall): boolean {
  return call.name === '' && call.argumentsValid === false && (call.argumentsError ?? '').startsWith(TOO_MANY_CALLS)
}
