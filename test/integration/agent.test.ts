// The agent loop in a real `vitest run` subprocess against the built package, with scripted in-memory models that
// answer by the conversation so far: two dependent calls, a tool that throws (fed back, not a crash), an unknown
// tool, a parallel step, the step limit, a multi-turn sample against a stateful environment, a BFCL environment,
// the trajectory matchers, and the trajectory metrics and counts in the JSON report (thresholds gating on them).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEvalProject, ensureBuilt, type EvalProject, type RunResult } from '../helpers/eval-project.js'

const fn = (name: string, properties: Record<string, unknown>) => ({ type: 'function', function: { name, parameters: { type: 'object', properties } } })
const travelTools = [fn('find_airport', { city: { type: 'string' } }), fn('book_hotel', { near: { type: 'string' } })]
const user = (content: string) => [{ role: 'user', content }]
const call = (name: string, args: unknown) => ({ name, arguments: args })

const travelData = [
  // Two dependent calls: the hotel is booked near the code the first call returned.
  { id: 'chain', messages: user('Book a hotel near the airport of Lisbon.'), tools: travelTools, expectedTrajectory: [[call('find_airport', { city: 'Lisbon' })], [call('book_hotel', { near: 'LIS' })]] },
  // The tool throws, then the model calls a tool that does not exist: both are fed back, the model answers.
  { id: 'errors', messages: user('Book a hotel near the airport of Atlantis.'), tools: travelTools, expectedTrajectory: [[call('book_hotel', { near: 'ATL' })]] },
  // One step with two calls (parallel), expected in the other order: calls within a step match in any order.
  { id: 'parallel', messages: user('Airports of Lisbon and Porto?'), tools: travelTools, expectedTrajectory: [[call('find_airport', { city: 'Porto' }), call('find_airport', { city: 'Lisbon' })]] },
  // The model never stops calling: the step limit (3) ends the run.
  { id: 'loop', messages: user('Keep looking for airports.'), tools: travelTools, expectedTrajectory: [[call('find_airport', { city: 'Faro' })]] },
]

const shopData = [
  // Two user turns in one conversation, a stateful environment, scored in subsequence mode.
  {
    id: 'two-turns',
    messages: user('Put apples in my cart.'),
    turns: ['Now add pears.'],
    tools: [fn('add_to_cart', { item: { type: 'string' } })],
    expectedTrajectory: [[call('add_to_cart', { item: 'apples' })], [call('add_to_cart', { item: 'pears' })]],
  },
]

const fsData = [
  {
    id: 'mkdir-cd',
    messages: user('Make a docs folder and go into it.'),
    expectedTrajectory: [[call('mkdir', { dir_name: 'docs' })], [call('cd', { folder: 'docs' }), call('touch', { file_name: 'a.txt' })], [call('cd', { folder: 'nowhere' })]],
  },
]

const evalFile = `
import { describeEval } from 'vitest-tool-evals'
import { bfclEnvironment } from 'vitest-tool-evals/bfcl'
import { expect } from 'vitest'
import { readFileSync } from 'node:fs'

const data = (name) => JSON.parse(readFileSync('data/' + name + '.json', 'utf8'))
const text = (m) => (typeof m.content === 'string' ? m.content : '')
const lastTool = (messages) => [...messages].reverse().find((m) => m.role === 'tool')
const hermes = (name, args) => '<tool_call>\\n' + JSON.stringify({ name, arguments: args }) + '\\n</tool_call>'
const calls = (...cs) => ({ calls: cs.map(([name, args]) => ({ name, arguments: args, argumentsValid: true, format: 'openai' })) })

// Answers by the conversation so far: the first user message picks the script, tool messages say where it is.
const travelModel = {
  id: 'scripted-travel',
  async generate(sample) {
    const m = sample.messages
    const ask = text(m.find((x) => x.role === 'user'))
    const tools = m.filter((x) => x.role === 'tool')
    if (ask.includes('Lisbon.')) {
      if (tools.length === 0) return { text: hermes('find_airport', { city: 'Lisbon' }) }
      if (tools.length === 1) return { text: hermes('book_hotel', { near: JSON.parse(tools[0].content).code }) }
      return { text: 'Booked: ' + tools[1].content }
    }
    if (ask.includes('Atlantis')) {
      if (tools.length === 0) return calls(['book_hotel', { near: 'ATL' }])
      if (tools.length === 1) return calls(['teleport', { to: 'Atlantis' }])
      return { text: 'Sorry: ' + tools.map((t) => t.content).join(' | ') }
    }
    if (ask.includes('Porto')) {
      if (tools.length === 0) return calls(['find_airport', { city: 'Lisbon' }], ['find_airport', { city: 'Porto' }])
      return { text: tools.map((t) => JSON.parse(t.content).code).join(' and ') }
    }
    return calls(['find_airport', { city: 'Faro' }])
  },
}

describeEval('travel-agent', {
  data: data('travel'),
  model: travelModel,
  maxSteps: 3,
  tools: {
    find_airport: async ({ city }) => ({ code: { Lisbon: 'LIS', Porto: 'OPO', Faro: 'FAO' }[city] }),
    book_hotel: ({ near }) => {
      if (near === 'ATL') throw new Error('no airport with code ATL')
      return 'Hotel Aeroporto near ' + near
    },
  },
  assert(result, sample) {
    const t = result.trajectory
    if (sample.id === 'chain') {
      expect(result).toHaveCalledToolsInOrder(['find_airport', { name: 'book_hotel', arguments: { near: 'LIS' } }])
      expect(result).not.toHaveCalledToolsInOrder(['book_hotel', 'find_airport'])
      expect(t.steps.length).toBe(3)
      expect(t.answer).toBe('Booked: Hotel Aeroporto near LIS')
      expect(t.score.match).toBe(true)
    }
    if (sample.id === 'errors') {
      expect(t.toolErrors).toBe(2)
      expect(t.answer).toContain('Error during execution: no airport with code ATL')
      expect(t.answer).toContain('unknown tool "teleport"')
      // The conversation as the model saw it: assistant tool_calls answered by tool messages with their ids.
      const asked = t.messages.find((m) => m.role === 'assistant' && m.tool_calls)
      const answered = t.messages.find((m) => m.role === 'tool')
      expect(answered.tool_call_id).toBe(asked.tool_calls[0].id)
    }
    if (sample.id === 'parallel') {
      expect(t.steps[0].calls.map((c) => c.arguments.city)).toEqual(['Lisbon', 'Porto'])
      expect(t.answer).toBe('LIS and OPO')
      expect(t.score.match).toBe(true)
    }
    if (sample.id === 'loop') {
      expect(t.stepLimitHit).toBe(true)
      expect(t.steps.length).toBe(3)
    }
  },
})

const shopModel = {
  id: 'scripted-shop',
  async generate(sample) {
    const m = sample.messages
    const last = m[m.length - 1]
    if (last.role === 'tool') return { text: 'Done: ' + last.content }
    const item = text(last).includes('pears') ? 'pears' : 'apples'
    return { text: hermes('add_to_cart', { item }) }
  },
}

describeEval('shop-agent', {
  data: data('shop'),
  model: shopModel,
  trajectory: { mode: 'subsequence' },
  environment: () => {
    const cart = []
    return { call: (name, { item }) => (cart.push(item), cart.length + ' items'), state: () => ({ cart: [...cart] }) }
  },
  assert(result) {
    expect(result).toEndWithState({ cart: ['apples', 'pears'] })
    expect(result).not.toEndWithState({ cart: ['pears'] })
    expect(result.trajectory.turns).toBe(2)
    expect(result.trajectory.answer).toBe('Done: 2 items')
  },
})

const fsModel = {
  id: 'scripted-fs',
  async generate(sample) {
    const tools = sample.messages.filter((x) => x.role === 'tool')
    if (tools.length === 0) return calls(['mkdir', { dir_name: 'docs' }])
    if (tools.length === 1) return calls(['cd', { folder: 'docs' }], ['touch', { file_name: 'a.txt' }])
    if (tools.length === 3) return calls(['cd', { folder: 'nowhere' }])
    return { text: 'Now in: ' + tools[1].content }
  },
}

describeEval('files-agent', {
  data: data('fs'),
  model: fsModel,
  environment: bfclEnvironment('GorillaFileSystem', { root: { alex: { type: 'directory', contents: {} } } }),
  assert(result) {
    expect(result).toEndWithState({ GorillaFileSystem: { root: { name: 'alex', contents: { docs: { type: 'directory', contents: { 'a.txt': { type: 'file', content: '' } } } } } } })
    // BFCL's own result strings come back to the model.
    expect(result.trajectory.steps[1].results[0].content).toBe('{"current_working_directory": "docs"}')
  },
})
`

const config = `
import { defineConfig } from 'vitest/config'
import ToolEvalsReporter from 'vitest-tool-evals/reporter'
export default defineConfig({
  test: {
    include: ['evals/*.eval.mjs'],
    reporters: ['default', new ToolEvalsReporter({ thresholds: JSON.parse(process.env.EVAL_THRESHOLDS ?? '{}'), outputFile: 'report.json', markdownFile: false })],
  },
})
`

describe('the agent loop in an eval project run by vitest', () => {
  let project: EvalProject
  let run: RunResult
  const report = () => JSON.parse(readFileSync(join(project.dir, 'report.json'), 'utf8'))

  beforeAll(async () => {
    ensureBuilt()
    project = createEvalProject({
      'vitest.config.mjs': config,
      'evals/agent.eval.mjs': evalFile,
      'data/travel.json': JSON.stringify(travelData),
      'data/shop.json': JSON.stringify(shopData),
      'data/fs.json': JSON.stringify(fsData),
    })
    run = await project.run(['run'], { EVAL_THRESHOLDS: JSON.stringify({ trajectory_match: 0.5, suites: { 'shop-agent': { trajectory_match: 1 } } }) })
  })
  afterAll(() => project?.remove())

  it('runs every sample to its end: tool errors and the step limit fail no test, the assertions pass', () => {
    expect(run.stdout + run.stderr).toMatch(/Tests\s+6 passed \(6\)/)
    expect(run.code, run.stdout + run.stderr).toBe(0)
    expect(run.stdout).toContain('agent: 6 run(s), 19 steps (mean 3.2), 15 calls, 2 tool error(s), 1 at the step limit, 4/6 match the expected trajectory')
  })

  it('reports the trajectories per step and per sample, and the trajectory metrics', () => {
    const r = report()
    // travel: chain 3 steps, errors 3, parallel 2, loop 3 (limit); shop: 2 turns x 2 steps; fs: 4 steps.
    expect(r.trajectory).toEqual({
      samples: 6,
      steps: 3 + 3 + 2 + 3 + 4 + 4,
      meanSteps: 19 / 6,
      calls: 2 + 2 + 2 + 3 + 2 + 4,
      toolErrors: 2,
      stepLimitHit: 1,
      withExpected: 6,
      matched: 4,
      stepCounts: { '2': 1, '3': 3, '4': 2 },
    })
    // chain, parallel, two-turns and mkdir-cd match; errors and loop made steps beyond the expected ones (strict).
    expect(r.metrics.trajectory_match).toBe(4 / 6)
    // Per-step NeMo metrics: every expected step of the six has the right names.
    expect(r.metrics.trajectory_name_correct).toBe(1)
    expect(r.metrics.agent_completed).toBe(5 / 6)
    expect(r.suites['shop-agent'].metrics.trajectory_match).toBe(1)
    expect(r.suites['travel-agent'].trajectory.stepLimitHit).toBe(1)
    // The NeMo metrics compare every call of the run with the expected trajectory's calls, in order.
    expect(r.thresholds.every((t: { pass: boolean }) => t.pass)).toBe(true)
  })
})
