/**
 * Matchers on an agent run: `expect(result).toHaveCalledToolsInOrder(['find_airport', 'book_hotel'])` and
 * `expect(result).toEndWithState({ cwd: '/workspace' })`. `received` is an eval result of an agent eval (its
 * `trajectory`) or a Trajectory itself.
 */
import type { MatcherState } from 'vitest'
import { isPlainObject } from '../calls/call-object.js'
import type { ToolCall } from '../calls/types.js'
import type { Trajectory } from '../score/trajectory.js'
import { argumentsOf } from '../calls/format.js'

/** A step of `toHaveCalledToolsInOrder`: a tool name, or a call whose arguments must contain `arguments`. */
export type ExpectedToolStep = string | { name: string; arguments?: Record<string, unknown> | string }

type Result = { pass: boolean; message: () => string }

function trajectoryOf(ctx: MatcherState, matcher: string, received: unknown): Trajectory {
  const t = isPlainObject(received) && isPlainObject(received['trajectory']) ? received['trajectory'] : received
  if (isPlainObject(t) && Array.isArray(t['steps'])) return t as unknown as Trajectory
  throw new TypeError(
    `${ctx.utils.matcherHint(matcher)}\n\nreceived value must be an agent eval's result (an eval with \`tools\` or \`environment\`) or its trajectory; received: ${ctx.utils.printReceived(received)}`,
  )
}

function hint(ctx: MatcherState, matcher: string): string {
  return ctx.utils.matcherHint(`${ctx.isNot ? '.not' : ''}.${matcher}`, 'received', 'expected', { isNot: ctx.isNot })
}

function stepMatches(ctx: MatcherState, call: ToolCall, expected: ExpectedToolStep): boolean {
  if (typeof expected === 'string') return call.name === expected
  if (call.name !== expected.name) return false
  if (expected.arguments === undefined) return true
  const args = argumentsOf(expected) ?? expected.arguments
  return call.argumentsValid && ctx.equals(call.arguments, args, [...ctx.customTesters, ctx.utils.subsetEquality])
}

function callLine(call: ToolCall): string {
  return `${call.name}(${JSON.stringify(call.arguments)})`
}

/**
 * The run's calls include these, in this order (other calls may come between them: a subsequence). A string
 * matches a call by name; `{ name, arguments }` also needs the call's arguments to contain `arguments`.
 */
function toHaveCalledToolsInOrder(this: MatcherState, received: unknown, expected: readonly ExpectedToolStep[]): Result {
  const trajectory = trajectoryOf(this, 'toHaveCalledToolsInOrder', received)
  if (!Array.isArray(expected)) throw new TypeError('toHaveCalledToolsInOrder: expected must be a list of tool names or calls')
  const calls = trajectory.steps.flatMap((s) => s.calls)
  let next = 0
  for (const call of calls) {
    if (next < expected.length && stepMatches(this, call, expected[next] as ExpectedToolStep)) next++
  }
  const pass = next === expected.length
  return {
    pass,
    message: () => {
      const lines = [hint(this, 'toHaveCalledToolsInOrder'), '']
      lines.push(`Expected calls, in order: ${this.utils.printExpected(expected)}`)
      if (!pass) lines.push(`First one not found after the others: ${this.utils.printExpected(expected[next])}`)
      lines.push('', `Received calls (${calls.length}):`)
      for (const c of calls) lines.push(`  ${this.utils.RECEIVED_COLOR(callLine(c))}`)
      return lines.join('\n')
    },
  }
}

/** The run's end state (`environment.state()`) contains `expected` (as `toMatchObject` compares). */
function toEndWithState(this: MatcherState, received: unknown, expected: unknown): Result {
  const trajectory = trajectoryOf(this, 'toEndWithState', received)
  if (trajectory.state === undefined) {
    throw new TypeError(`${this.utils.matcherHint('toEndWithState')}\n\nthe run has no end state: its environment has no \`state()\``)
  }
  const state = trajectory.state
  const pass = this.equals(state, expected, [...this.customTesters, this.utils.subsetEquality])
  return {
    pass,
    message: () =>
      [
        hint(this, 'toEndWithState'),
        '',
        pass ? `Expected the end state not to contain: ${this.utils.printExpected(expected)}` : (this.utils.diff(expected, state) ?? ''),
      ].join('\n'),
  }
}

/** The trajectory matchers, ready for `expect.extend(trajectoryMatchers)`. */
export const trajectoryMatchers = { toHaveCalledToolsInOrder, toEndWithState }

export interface TrajectoryMatchers<R = unknown> {
  /** The agent run's calls include these, in order (a subsequence): names, or `{ name, arguments }` (contained). */
  toHaveCalledToolsInOrder(expected: readonly ExpectedToolStep[]): R
  /** The agent run's end state (its environment's `state()`) contains `expected`, as `toMatchObject` compares. */
  toEndWithState(expected: unknown): R
}

declare module 'vitest' {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  interface Assertion<T = any> extends TrajectoryMatchers<T> {}
  interface AsymmetricMatchersContaining extends TrajectoryMatchers {}
}
