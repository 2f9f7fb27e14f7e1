/**
 * Types of the tool-call matchers, added to Vitest's `expect` by module augmentation. Importing this package (or
 * its `matchers` / `setup` entry) brings them into scope; `setup` also registers the matchers at run time.
 */
import type { ExpectedToolCall, ToHaveArgsOptions, ToMatchToolCallsOptions } from './matchers.js'
import type { ToMatchToolCallsSnapshotOptions } from './snapshot.js'

export interface ToolCallMatchers<R = unknown> {
  /** Some call has this name and, when `args` is given, arguments containing them (asymmetric matchers allowed). */
  toCallTool(name: string, args?: Record<string, unknown>): R
  /** Some call's arguments equal `args` (default) or contain them (`{ match: 'subset' }`). */
  toHaveArgs(args: Record<string, unknown>, options?: ToHaveArgsOptions): R
  /** Exactly these calls, in this order (default) or in any order (`{ order: 'any' }`). */
  toMatchToolCalls(expected: readonly ExpectedToolCall[], options?: ToMatchToolCallsOptions): R
  /** No tool call at all. */
  toHaveNoToolCall(): R
  /** At least one call, each naming a tool on offer with arguments valid against its parameter schema. */
  toHaveValidArgs(tools: readonly unknown[]): R
  /** The calls, normalised (see describeEval's `snapshot`), match their Vitest snapshot (`-u` writes it). */
  toMatchToolCallsSnapshot(options?: ToMatchToolCallsSnapshotOptions): R
}

declare module 'vitest' {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  interface Assertion<T = any> extends ToolCallMatchers<T> {}
  interface AsymmetricMatchersContaining extends ToolCallMatchers {}
}
