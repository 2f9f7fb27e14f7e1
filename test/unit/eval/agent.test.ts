// The agent loop in process (a scripted provider answering by the conversation so far), the trajectory's scoring in
// its three modes, the trajectory accumulator's shard-safe sums, agent sample data and its errors, and the BFCL
// environments. The end-to-end run through `vitest run` is in integration-agent.test.ts.
import { describe, expect, it } from 'vitest'
import type { ToolCall } from '../../../src/calls/types.js'
import { loadArray } from '../../../src/data/load.js'
import type { Sample } from '../../../src/data/types.js'
import { agentOptionsOf, functionsEnvironment, runAgent } from '../../../src/eval/agent.js'
import { bfclEnvironment } from '../../../src/bfcl/protocol/environment.js'
import { storedTrajectory, TRAJECTORY_LIMITS } from '../../../src/score/trajectory.js'
import type { ModelOutput, ModelProvider } from '../../../src/models/types.js'
import { scoreTrajectory, trajectoryScorer, type TrajectoryRecord } from '../../../src/score/scorers/trajectory.js'

const c = (name: string, args: Record<string, unknown> = {}): ToolCall => ({ name, arguments: args, argumentsValid: true, format: 'openai' })
const e = (name: string, args: Record<string, unknown> = {}) => ({ name, arguments: args })

function scripted(reply: (messages: Sample['messages']) => ModelOutput): ModelProvider {
  return { id: 'scripted', generate: async (s) => reply(s.messages) }
}

const sample = (over: Partial<Sample> = {}): Sample => ({ id: 's', messages: [{ role: 'user', content: 'go' }], expected: [], ...over })

describe('scoreTrajectory', () => {
  const A = [c('a', { x: 1 })]
  const B = [c('b', { y: 2 })]
  const X = [c('x')]
  const eA = [e('a', { x: 1 })]
  const eB = [e('b', { y: 2 })]

  it('strict: step i against expected step i, and nothing more', () => {
    expect(scoreTrajectory([A, B], [eA, eB]).match).toBe(true)
    expect(scoreTrajectory([A, B, X], [eA, eB]).match).toBe(false)
    const swapped = scoreTrajectory([B, A], [eA, eB])
    expect(swapped.match).toBe(false)
    expect(swapped.metrics?.name_correct).toBe(0)
    expect(swapped.aligned).toEqual([0, 1])
  })

  it('subsequence: the expected steps in order, other steps between them allowed', () => {
    const r = scoreTrajectory([X, A, X, B], [eA, eB], { mode: 'subsequence' })
    expect(r).toMatchObject({ match: true, aligned: [1, 3] })
    expect(r.metrics?.args_exact_match).toBe(1)
    // Out of order: only one of the two can be matched.
    const out = scoreTrajectory([B, A], [eA, eB], { mode: 'subsequence' })
    expect(out.match).toBe(false)
    expect(out.metrics?.name_correct).toBe(0.5)
  })

  it('unordered: each expected step with some distinct model step', () => {
    expect(scoreTrajectory([B, X, A], [eA, eB], { mode: 'unordered' })).toMatchObject({ match: true, aligned: [2, 0] })
    expect(scoreTrajectory([A], [eA, eA], { mode: 'unordered' }).match).toBe(false)
  })

  it('parallel calls within a step match in any order; a missing one fails the step', () => {
    expect(scoreTrajectory([[...B, ...A]], [[...eA, ...eB]]).match).toBe(true)
    const half = scoreTrajectory([A], [[...eA, ...eB]])
    expect(half.match).toBe(false)
    expect(half.metrics?.name_correct).toBe(0.5)
  })

  it('no expected step: a match only when the model made no call', () => {
    expect(scoreTrajectory([], []).match).toBe(true)
    expect(scoreTrajectory([A], []).match).toBe(false)
  })
})

describe('runAgent', () => {
  it('feeds results back as tool messages, one per call, with the call ids, until the model answers', async () => {
    const model = scripted((m) => {
      const tools = m.filter((x) => x.role === 'tool')
      if (tools.length === 0) return { calls: [c('add', { a: 1, b: 2 })] }
      if (tools.length === 1) return { calls: [c('add', { a: Number(tools[0]!.content), b: 10 })] }
      return { text: `= ${tools[1]!.content}` }
    })
    const env = functionsEnvironment({ add: ({ a, b }) => (a as number) + (b as number) })
    const { trajectory } = await runAgent(model, sample(), env, { maxSteps: 5 })
    expect(trajectory.answer).toBe('= 13')
    expect(trajectory.steps.map((s) => s.calls.length)).toEqual([1, 1, 0])
    expect(trajectory.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant'])
    expect(trajectory.messages[2]).toMatchObject({ role: 'tool', tool_call_id: 'call_1_0', content: '3' })
    expect(trajectory.messages[1]?.tool_calls?.[0]).toMatchObject({ id: 'call_1_0', function: { name: 'add', arguments: { a: 1, b: 2 } } })
  })

  it('a throwing tool, an unknown tool and malformed arguments are tool errors fed back; the run goes on', async () => {
    const bad: ToolCall = { name: 'f', arguments: {}, argumentsValid: false, format: 'hermes', raw: '{"a": ' }
    const model = scripted((m) => (m.some((x) => x.role === 'tool') ? { text: 'ok' } : { calls: [c('boom'), c('nope'), bad] }))
    const env = functionsEnvironment({
      boom: () => {
        throw new Error('kaput')
      },
      f: () => 'never',
    })
    const { trajectory } = await runAgent(model, sample(), env, { maxSteps: 5 })
    expect(trajectory.toolErrors).toBe(3)
    expect(trajectory.steps[0]?.results.map((r) => r.content)).toEqual([
      'Error during execution: kaput',
      'Error during execution: unknown tool "nope" (known: boom, f)',
      'Error during execution: the arguments of f are not a well-formed object',
    ])
    expect(trajectory.answer).toBe('ok')
  })

  it('a tool that throws something unprintable (toString, message or everything throwing) is still a tool error', async () => {
    const unprintable = {
      toString() {
        throw new Error('no toString for you')
      },
    }
    const badMessage = new Error('x')
    Object.defineProperty(badMessage, 'message', { get: () => { throw new Error('no message') } })
    const trap = new Proxy({}, { get: () => { throw new Error('trap') }, getPrototypeOf: () => { throw new Error('trap') } })
    // A value JSON and String both refuse: its tool result still becomes content.
    const cyclic: Record<string, unknown> = { toString: () => { throw new Error('no') } }
    cyclic['self'] = cyclic
    const model = scripted((m) => (m.some((x) => x.role === 'tool') ? { text: 'ok' } : { calls: [c('a'), c('b'), c('p'), c('v')] }))
    const env = functionsEnvironment({
      a: () => { throw unprintable },
      b: () => { throw badMessage },
      p: () => { throw trap },
      v: () => cyclic,
    })
    const { trajectory } = await runAgent(model, sample(), env, { maxSteps: 5 })
    expect(trajectory.toolErrors).toBe(3)
    expect(trajectory.steps[0]?.results.map((r) => r.content)).toEqual([
      'Error during execution: [object Object]',
      'Error during execution: [object Error]',
      'Error during execution: a thrown value that cannot be printed',
      '[object Object]',
    ])
    expect(trajectory.answer).toBe('ok')
  })

  it('stops the run at the step limit, later turns included', async () => {
    const model = scripted(() => ({ calls: [c('again')] }))
    const { trajectory } = await runAgent(model, sample({ turns: [[{ role: 'user', content: 'more' }]] }), functionsEnvironment({ again: () => 1 }), { maxSteps: 2 })
    expect(trajectory).toMatchObject({ stepLimitHit: true, turns: 1 })
    expect(trajectory.steps).toHaveLength(2)
  })

  it('a provider error names the step and turn', async () => {
    const model: ModelProvider = { id: 'x', generate: async () => Promise.reject(new Error('HTTP 500')) }
    await expect(runAgent(model, sample(), functionsEnvironment({}), { maxSteps: 2 })).rejects.toThrow('agent step 1 (turn 1): HTTP 500')
  })

  it('stores a trajectory cut to its limits', () => {
    const big = 'x'.repeat(5000)
    const steps = Array.from({ length: 100 }, () => ({ turn: 0, calls: [c('f', { big })], results: [{ id: '1', name: 'f', content: big }] }))
    const stored = storedTrajectory({ steps, turns: 1, stepLimitHit: true, toolErrors: 0, messages: [] })
    expect(stored.stepCount).toBe(100)
    expect(stored.steps).toHaveLength(TRAJECTORY_LIMITS.steps)
    expect(JSON.stringify(stored).length).toBeLessThan(60_000)
  })
})

describe('agent options and data', () => {
  it('rejects contradictory or bad options by name', () => {
    expect(() => agentOptionsOf({ tools: {}, environment: () => ({ call: () => 1 }) }, 'describeEval("x")')).toThrow('give `tools` or `environment`, not both')
    expect(() => agentOptionsOf({ tools: {}, maxSteps: 0 }, 'describeEval("x")')).toThrow('`maxSteps` must be a positive integer')
    expect(() => agentOptionsOf({ maxSteps: 3 }, 'describeEval("x")')).toThrow('`maxSteps` needs `tools` or `environment`')
    expect(() => agentOptionsOf({ tools: { f: 1 as never } }, 'describeEval("x")')).toThrow('`tools.f` must be a function')
    expect(agentOptionsOf({}, 'x')).toBeUndefined()
  })

  it('reads turns and expectedTrajectory; expected defaults to every expected call', () => {
    const [entry] = loadArray([{ id: 'a', messages: [{ role: 'user', content: 'hi' }], turns: ['next', [{ role: 'user', content: 'last' }]], expectedTrajectory: [[e('f')], [e('g'), e('h')]] }])
    expect(entry?.sample?.turns).toEqual([[{ role: 'user', content: 'next' }], [{ role: 'user', content: 'last' }]])
    expect(entry?.sample?.expected.map((x) => x.name)).toEqual(['f', 'g', 'h'])
    expect(entry?.sample?.extra).toBeUndefined()
  })

  it('names the field at fault in a bad agent sample', () => {
    const bad = (o: object) => loadArray([{ id: 'a', messages: [{ role: 'user', content: 'hi' }], ...o }])[0]?.error
    expect(bad({ turns: [[{ content: 'x' }]], expectedTrajectory: [] })).toMatchObject({ field: 'turns[0][0].role' })
    expect(bad({ expectedTrajectory: [[]] })).toMatchObject({ field: 'expectedTrajectory[0]' })
    expect(bad({ expectedTrajectory: [[{ arguments: {} }]] })).toMatchObject({ field: 'expectedTrajectory[0][0].name' })
    expect(bad({ turns: ['more'] })).toMatchObject({ field: 'expectedTrajectory' })
  })
})

describe('the trajectory scorer', () => {
  const scorer = trajectoryScorer.configure(true, { cached: (p) => p })!
  const record = (over: Partial<TrajectoryRecord>): TrajectoryRecord => ({ steps: 2, calls: 1, toolErrors: 0, stepLimitHit: false, ...over })

  it('sums the same in any order and across merged shards; an errored sample never counts as matched', () => {
    const values: [TrajectoryRecord, boolean][] = [
      [record({ expectedSteps: 1, match: true, metrics: { has_call: 1, name_correct: 1, args_json_valid: 1, args_field_precision: 1, args_field_recall: 1, args_exact_match: 1 } }), false],
      [record({ steps: 5, stepLimitHit: true, toolErrors: 2 }), false],
      [record({ expectedSteps: 1, match: true, metrics: { has_call: 1, name_correct: 1, args_json_valid: 1, args_field_precision: 1, args_field_recall: 1, args_exact_match: 1 } }), true],
    ]
    const acc = scorer.accumulator
    const one = acc.create()
    for (const [v, errored] of values) acc.add(one, v, errored)
    const a = acc.create()
    const b = acc.create()
    acc.add(b, values[2]![0], true)
    acc.add(a, values[0]![0], false)
    acc.add(b, values[1]![0], false)
    expect(acc.finish(acc.merge(a, b))).toEqual(acc.finish(one))
    const { metrics, details } = acc.finish(one)
    expect(metrics).toMatchObject({ trajectory_match: 0.5, trajectory_name_correct: 0.5, agent_completed: 1 / 3 })
    expect(details).toMatchObject({ samples: 3, steps: 9, meanSteps: 3, stepLimitHit: 1, toolErrors: 2, stepCounts: { '2': 2, '5': 1 } })
  })

  it('declares each metric\'s denominator: samples with an expected trajectory, those with per-step metrics, all run', () => {
    const full = { has_call: 1, name_correct: 1, args_json_valid: 1, args_field_precision: 1, args_field_recall: 1, args_exact_match: 0.5 }
    const acc = scorer.accumulator
    const sums = acc.create()
    acc.add(sums, record({ expectedSteps: 2, match: false, metrics: full }), false)
    acc.add(sums, record({ expectedSteps: 1, match: true, metrics: full }), true) // errored: still in every denominator
    acc.add(sums, record({ expectedSteps: 0, match: true }), false) // nothing expected: a match, but no per-step metrics
    acc.add(sums, record({}), false) // no expected trajectory: only agent_completed
    acc.add(sums, record({ stepLimitHit: true }), false)
    const { metrics, counts } = acc.finish(sums)
    expect(counts).toEqual({
      trajectory_match: 3,
      trajectory_has_call: 2, trajectory_name_correct: 2, trajectory_args_json_valid: 2, trajectory_args_field_precision: 2, trajectory_args_field_recall: 2, trajectory_args_exact_match: 2,
      agent_completed: 5,
    })
    expect(Object.keys(counts)).toEqual(Object.keys(metrics))
    expect(metrics).toMatchObject({ trajectory_match: 1 / 3, trajectory_args_exact_match: 0.25, agent_completed: 3 / 5 })
    expect(acc.finish(acc.create()).counts).toEqual({ agent_completed: 0 })
  })

  it('rejects an unknown mode', () => {
    expect(() => trajectoryScorer.configure({ mode: 'loose' as never }, { cached: (p) => p })).toThrow('`trajectory.mode` must be one of strict, subsequence, unordered')
  })
})

describe('bfclEnvironment', () => {
  it("executes calls as BFCL does, Python's errors as tool errors, a fresh state per sample", async () => {
    const make = bfclEnvironment(['GorillaFileSystem', 'MathAPI'], { GorillaFileSystem: { root: { u: { type: 'directory', contents: { 'a.txt': { type: 'file', content: 'hi there' } } } } } })
    const env = await make(sample())
    expect(env.call('wc', { file_name: 'a.txt', mode: 'w' }, {} as never)).toBe('{"count": 2, "type": "words"}')
    expect(env.call('add', { a: 1, b: 2.5 }, {} as never)).toBe('{"result": 3.5}')
    // The call's integral floats (`1.0` in the arguments' JSON) stay floats, as json.loads keeps them.
    expect(env.call('add', { a: 1, b: 2 }, { call: { floatPaths: ['/a'] } } as never)).toBe('{"result": 3.0}')
    expect(env.call('add', { a: 1, b: 2 }, {} as never)).toBe('{"result": 3}')
    expect(() => env.call('cd', {}, {} as never)).toThrow("GorillaFileSystem.cd() missing 1 required positional argument: 'folder'")
    // Built into the call string as BFCL builds it; the executor only dispatches to the simulated APIs, never evaluates.
    expect(() => env.call('os.system', {}, {} as never)).toThrow("name 'os' is not defined")
    expect(() => env.call('ls<|channel|>commentary', {}, {} as never)).toThrow('invalid syntax (<string>, line 1)')
    env.call('touch', { file_name: 'b.txt' }, {} as never)
    expect(Object.keys((env.state!() as { GorillaFileSystem: { root: { contents: object } } }).GorillaFileSystem.root.contents)).toEqual(['a.txt', 'b.txt'])
    const fresh = await make(sample())
    expect(Object.keys((fresh.state!() as { GorillaFileSystem: { root: { contents: object } } }).GorillaFileSystem.root.contents)).toEqual(['a.txt'])
  })

  it('takes the initial config from the sample when none is given, and names unknown classes', async () => {
    const env = await bfclEnvironment('TwitterAPI')(sample({ extra: { initial_config: { TwitterAPI: { username: 'ann', password: 'pw' } } } }))
    expect(env.state!()).toMatchObject({ TwitterAPI: { username: 'ann' } })
    expect(() => bfclEnvironment('Nope' as never)).toThrow('unknown class "Nope"')
  })
})
