/**
 * `expect(calls).toMatchToolCallsSnapshot()`: the calls, normalised as describeEval's `snapshot` keeps them (keys
 * sorted, parallel calls as an unordered set, call ids dropped, numbers normalised, volatile paths masked: see
 * eval/snapshot-format.ts), matched with Vitest's own `toMatchSnapshot`, so `-u`, `--update=new`, CI (never
 * writes) and obsolete snapshots behave as for any snapshot. Accepts what the other matchers accept (a raw output,
 * a ToolCall list, an eval result).
 */
import { expect, type MatcherState } from 'vitest'
import { normaliseCalls } from '../score/snapshot-format.js'
import { receivedCalls } from './received.js'

export interface ToMatchToolCallsSnapshotOptions {
  /** Paths whose values are volatile (`'arguments.request_id'`, `*` for any one key): masked before comparing. */
  ignore?: readonly string[]
  /** Names the snapshot when a test takes several (as `toMatchSnapshot(hint)`). */
  hint?: string
}

function toMatchToolCallsSnapshot(this: MatcherState, received: unknown, options: ToMatchToolCallsSnapshotOptions = {}): { pass: boolean; message: () => string } {
  if (this.isNot) throw new Error('toMatchToolCallsSnapshot cannot be negated')
  const calls = receivedCalls(received)
  if (!calls) throw new TypeError(`toMatchToolCallsSnapshot: received value must be a raw output string, a ToolCall list or an eval result`)
  const normalised = normaliseCalls(calls, options.ignore ?? [])
  try {
    if (options.hint === undefined) expect(normalised).toMatchSnapshot()
    else expect(normalised).toMatchSnapshot(options.hint)
    return { pass: true, message: () => 'tool calls match their snapshot' }
  } catch (err) {
    return { pass: false, message: () => (err as Error).message }
  }
}

export const snapshotMatchers = { toMatchToolCallsSnapshot }
