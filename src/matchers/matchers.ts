/**
 * The tool-call matchers, as raw matcher functions for `expect.extend` (see `src/setup.ts`). Each accepts a raw
 * output string, a ToolCall list (or one ToolCall), or an eval result. Argument comparisons go through the matcher
 * context's `equals`, so Vitest's asymmetric matchers (`expect.any(Number)`, `expect.stringMatching(...)`) work inside
 * expected arguments.
 */
import type { MatcherState } from 'vitest'
import type { ToolCall } from '../calls/types.js'
import { argumentsOf, callList, callView, type CallView } from '../calls/format.js'
import { receivedCalls } from './received.js'
import { isOverCapMarker } from '../calls/call-limit.js'
import { normalizeTools } from '../data/tools.js'
import { argumentProblems } from './argument-schema.js'
import { snapshotMatchers } from './snapshot.js'

/** A call as a matcher expects it; `arguments` left out means "any arguments". */
export interface ExpectedToolCall {
  name: string
  arguments?: Record<string, unknown> | string
}

export interface ToHaveArgsOptions {
  /** 'exact' (default): the arguments equal `args`; 'subset': they contain `args` (as `toMatchObject` does). */
  match?: 'exact' | 'subset'
}

export interface ToMatchToolCallsOptions {
  /** 'strict' (default): call i matches expected call i; 'any': some one-to-one pairing of calls matches. */
  order?: 'strict' | 'any'
}

type Result = { pass: boolean; message: () => string }

function callsOrThrow(ctx: MatcherState, matcher: string, received: unknown): ToolCall[] {
  const calls = receivedCalls(received)
  if (calls) {
    // Past the cap the calls after it were not read: no assertion about them (least of all `.not`) can be decided.
    const over = calls.find(isOverCapMarker)
    if (over) throw new Error(`${ctx.utils.matcherHint(matcher)}\n\n${over.argumentsError}: raise maxCalls to assert on this output`)
    return calls
  }
  throw new TypeError(
    `${ctx.utils.matcherHint(matcher)}\n\nreceived value must be a raw output string, a ToolCall list or an eval result; received: ${ctx.utils.printReceived(received)}`,
  )
}

function hint(ctx: MatcherState, matcher: string, expected = 'expected'): string {
  return ctx.utils.matcherHint(`${ctx.isNot ? '.not' : ''}.${matcher}`, 'received', expected, { isNot: ctx.isNot })
}

/** A value on one line in the expected colour (asymmetric matchers print as themselves: `Any<Number>`). */
function oneLine(ctx: MatcherState, value: unknown): string {
  return ctx.utils.EXPECTED_COLOR(ctx.utils.stringify(value, undefined, { min: true }))
}

function argsEqual(ctx: MatcherState, actual: Record<string, unknown>, expected: unknown, match: 'exact' | 'subset'): boolean {
  if (match === 'subset') return ctx.equals(actual, expected, [...ctx.customTesters, ctx.utils.subsetEquality])
  return ctx.equals(actual, expected, ctx.customTesters)
}

function expectedArgs(args: unknown): unknown {
  return typeof args === 'string' ? (argumentsOf({ arguments: args }) ?? args) : args
}

/** `expect(output).toCallTool('get_weather', { city: 'Paris' })`: some call has that name (and contains `args`). */
function toCallTool(this: MatcherState, received: unknown, name: string, args?: Record<string, unknown>): Result {
  const calls = callsOrThrow(this, 'toCallTool', received)
  const sameName = calls.filter((c) => c.name === name)
  const pass = sameName.some((c) => args === undefined || (c.argumentsValid && argsEqual(this, c.arguments, args, 'subset')))
  const what = `call of ${this.utils.printExpected(name)}${args === undefined ? '' : ` with arguments containing ${oneLine(this, args)}`}`
  return {
    pass,
    message: () => {
      const lines = [hint(this, 'toCallTool', 'name'), '', `Expected ${this.isNot ? 'no' : 'a'} ${what}`, '', 'Received calls:', callList(calls)]
      const closest = sameName[0]
      if (!pass && args !== undefined && closest) {
        lines.push('', `Arguments of the received ${name} call:`, this.utils.diff(args, closest.arguments) ?? '')
      }
      return lines.join('\n')
    },
  }
}

/** `expect(output).toHaveArgs({ city: 'Paris' }, { match: 'subset' })`: some call's arguments match. */
function toHaveArgs(this: MatcherState, received: unknown, args: Record<string, unknown>, options: ToHaveArgsOptions = {}): Result {
  const match = options.match ?? 'exact'
  const calls = callsOrThrow(this, 'toHaveArgs', received)
  const expected = expectedArgs(args)
  const pass = calls.some((c) => c.argumentsValid && argsEqual(this, c.arguments, expected, match))
  return {
    pass,
    message: () => {
      const lines = [
        hint(this, 'toHaveArgs', 'args'),
        '',
        `Expected ${this.isNot ? 'no call' : 'a call'} whose arguments ${match === 'exact' ? 'equal' : 'contain'}: ${oneLine(this, expected)}`,
        '',
        'Received calls:',
        callList(calls),
      ]
      const only = calls.length === 1 ? calls[0] : undefined
      if (!pass && only && only.argumentsValid) lines.push('', this.utils.diff(expected, only.arguments) ?? '')
      return lines.join('\n')
    },
  }
}

function callMatches(ctx: MatcherState, call: ToolCall, expected: ExpectedToolCall): boolean {
  if (call.name !== expected.name) return false
  if (expected.arguments === undefined) return true
  return call.argumentsValid && argsEqual(ctx, call.arguments, expectedArgs(expected.arguments), 'exact')
}

/**
 * A one-to-one pairing of expected calls to received calls under `fits[e][c]`, as `pairOf[e] = c`, or undefined when
 * none covers every expected call. Augmenting paths found breadth-first (no recursion).
 */
export function perfectMatching(fits: readonly (readonly boolean[])[], received: number): number[] | undefined {
  const pairOf: number[] = new Array<number>(fits.length).fill(-1)
  const ownerOf: number[] = new Array<number>(received).fill(-1)
  for (let start = 0; start < fits.length; start++) {
    // BFS over expected calls; `via[c]` is the expected call from which received call c was reached.
    const via: number[] = new Array<number>(received).fill(-1)
    const queue = [start]
    let free = -1
    for (let q = 0; q < queue.length && free < 0; q++) {
      const e = queue[q] as number
      const row = fits[e] as readonly boolean[]
      for (let c = 0; c < received; c++) {
        if (!row[c] || (via[c] as number) >= 0) continue
        via[c] = e
        const owner = ownerOf[c] as number
        if (owner < 0) {
          free = c
          break
        }
        queue.push(owner)
      }
    }
    if (free < 0) return undefined
    // Flip the path back to `start`.
    let c = free
    while (c >= 0) {
      const e = via[c] as number
      const previous = pairOf[e] as number
      pairOf[e] = c
      ownerOf[c] = e
      c = e === start ? -1 : previous
    }
  }
  return pairOf
}

/** `expect(output).toMatchToolCalls([{ name, arguments }], { order: 'any' })`: exactly these calls. */
function toMatchToolCalls(
  this: MatcherState,
  received: unknown,
  expected: readonly ExpectedToolCall[],
  options: ToMatchToolCallsOptions = {},
): Result {
  const order = options.order ?? 'strict'
  const calls = callsOrThrow(this, 'toMatchToolCalls', received)
  let aligned: readonly ToolCall[] = calls
  let pass = calls.length === expected.length
  if (pass && order === 'strict') {
    pass = expected.every((e, i) => callMatches(this, calls[i] as ToolCall, e))
  } else if (pass) {
    const fits = expected.map((e) => calls.map((c) => callMatches(this, c, e)))
    const pairOf = perfectMatching(fits, calls.length)
    pass = pairOf !== undefined
    if (!pass) aligned = alignForDiff(this, expected, calls)
  } else if (order === 'any') {
    aligned = alignForDiff(this, expected, calls)
  }
  return {
    pass,
    message: () => {
      const expectedViews: CallView[] = expected.map((e) => {
        const v: CallView = { name: e.name }
        if (e.arguments !== undefined) v.arguments = expectedArgs(e.arguments)
        return v
      })
      const receivedViews: CallView[] = aligned.map((c, i) => (expected[i] && expected[i].arguments === undefined && expected[i].name === c.name ? { name: c.name } : callView(c)))
      const head = `Expected ${this.isNot ? 'calls other than' : 'exactly'} ${expected.length} call(s)${order === 'any' ? ' in any order' : ' in this order'}, received ${calls.length}`
      const lines = [hint(this, 'toMatchToolCalls'), '', head, '']
      lines.push(this.isNot ? this.utils.printReceived(receivedViews) : (this.utils.diff(expectedViews, receivedViews) ?? ''))
      return lines.join('\n')
    },
  }
}

/** For the diff of an order-free comparison: each expected call's best-named counterpart first, the rest after. */
function alignForDiff(ctx: MatcherState, expected: readonly ExpectedToolCall[], calls: readonly ToolCall[]): ToolCall[] {
  const used = new Set<number>()
  const out: ToolCall[] = []
  for (const e of expected) {
    let pick = calls.findIndex((c, i) => !used.has(i) && callMatches(ctx, c, e))
    if (pick < 0) pick = calls.findIndex((c, i) => !used.has(i) && c.name === e.name)
    if (pick < 0) continue
    used.add(pick)
    out.push(calls[pick] as ToolCall)
  }
  calls.forEach((c, i) => {
    if (!used.has(i)) out.push(c)
  })
  return out
}

/** `expect(output).toHaveNoToolCall()`: the model answered without calling a tool. */
function toHaveNoToolCall(this: MatcherState, received: unknown): Result {
  const calls = callsOrThrow(this, 'toHaveNoToolCall', received)
  return {
    pass: calls.length === 0,
    message: () =>
      [hint(this, 'toHaveNoToolCall', ''), '', this.isNot ? 'Expected a tool call, received none' : 'Expected no tool call, received:', this.isNot ? '' : callList(calls)].join('\n'),
  }
}

/**
 * `expect(output).toHaveValidArgs(tools)`: at least one call, every call names a tool on offer and its arguments are
 * well-formed and valid against that tool's parameter schema (JSON Schema or BFCL's dialect).
 */
function toHaveValidArgs(this: MatcherState, received: unknown, tools: readonly unknown[]): Result {
  const calls = callsOrThrow(this, 'toHaveValidArgs', received)
  const defs = normalizeTools(tools)
  const problems: string[] = []
  calls.forEach((c, i) => {
    for (const p of argumentProblems(c, defs)) problems.push(`  call ${i + 1} ${c.name || '<no name>'}: ${p}`)
  })
  const pass = calls.length > 0 && problems.length === 0
  return {
    pass,
    message: () => {
      const lines = [hint(this, 'toHaveValidArgs', 'tools'), '']
      if (this.isNot) lines.push('Expected some call with arguments invalid for its tool, all were valid:', callList(calls))
      else if (calls.length === 0) lines.push('Expected tool calls with valid arguments, received no tool call')
      else lines.push('Expected every call to be valid for its tool:', ...problems, '', 'Received calls:', callList(calls))
      return lines.join('\n')
    },
  }
}

/** The matchers, ready for `expect.extend(toolMatchers)`. */
export const toolMatchers = {
  toCallTool,
  toHaveArgs,
  toMatchToolCalls,
  toHaveNoToolCall,
  toHaveValidArgs,
  ...snapshotMatchers,
}
