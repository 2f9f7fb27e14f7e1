// describeEval's `task` adapted into a provider, in process: every shape a task may return, the ones it may not, a
// throw and a late answer as the sample's error, usage as the task reports it; and the agent loop's usage counted per
// generation. The run through `vitest run`, with the AI SDK against a loopback server, is integration-task.test.ts.
import { describe, expect, it } from 'vitest'
import type { Sample } from '../../../src/data/types.js'
import { functionsEnvironment, runAgent, StepUsage } from '../../../src/eval/agent.js'
import { planSuite } from '../../../src/eval/suite-plan.js'
import { taskOutput, taskProvider, type EvalTask } from '../../../src/eval/task.js'
import { aiSdkTask, fromGenerateText } from '../../../src/eval/ai-sdk.js'
import type { ModelOutput, ModelProvider } from '../../../src/models/types.js'
import { usageRecord } from '../../../src/score/usage.js'
import { outputCalls } from '../../../src/eval/scorers.js'
import { scoreSample } from '../../../src/score/nemo.js'

const sample: Sample = { id: 's1', messages: [{ role: 'user', content: 'weather in Paris?' }], expected: [{ name: 'get_weather', arguments: { city: 'Paris' } }] }

describe('what a task returns', () => {
  it('raw text is left to the parser; calls, messages and trajectories become structured calls', () => {
    expect(taskOutput('<tool_call>{"name":"a","arguments":{}}</tool_call>')).toEqual({ text: '<tool_call>{"name":"a","arguments":{}}</tool_call>' })
    const listed = taskOutput([{ name: 'get_weather', arguments: { city: 'Paris' } }, { name: 'b', arguments: '{"x":1}' }])
    expect(listed.calls?.map((c) => [c.name, c.arguments, c.argumentsValid])).toEqual([['get_weather', { city: 'Paris' }, true], ['b', { x: 1 }, true]])
    const message = taskOutput({ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Par' } }] })
    // Broken JSON arguments stay a malformed call (scored as such), never a valid one with fewer arguments.
    expect(message.calls?.[0]).toMatchObject({ name: 'get_weather', argumentsValid: false, id: 'c1' })
    expect(taskOutput({ role: 'assistant', content: 'It is sunny.', tool_calls: [] })).toEqual({ text: 'It is sunny.' })
    expect(taskOutput({ role: 'assistant', content: [{ type: 'text', text: 'It is ' }, { type: 'text', text: 'sunny.' }] })).toEqual({ text: 'It is sunny.' })
    expect(() => taskOutput({ role: 'assistant', content: 42 })).toThrow(/`content` is neither text nor a list of text parts/)
    const run = taskOutput({
      steps: [
        { calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }], results: [{ value: { temp: 21 } }] },
        { calls: [{ name: 'bad', arguments: {} }], results: [{ error: 'boom' }] },
        { text: 'It is 21 degrees.' },
      ],
      usage: { promptTokens: 30, completionTokens: 9, latenciesMs: [10, 20, 30] },
    })
    expect(run.calls?.map((c) => c.name)).toEqual(['get_weather', 'bad'])
    expect(run.text).toBe('It is 21 degrees.')
    expect(run.trajectory).toMatchObject({ turns: 1, toolErrors: 1, stepLimitHit: false, answer: 'It is 21 degrees.' })
    expect(run.trajectory?.steps[0]?.results[0]).toMatchObject({ name: 'get_weather', content: '{"temp":21}', value: { temp: 21 } })
    expect(run.usage).toEqual({ promptTokens: 30, completionTokens: 9, latenciesMs: [10, 20, 30], requests: 3, latencyMs: 60 })
  })

  it('a shape it does not know is an error naming what came back', () => {
    expect(() => taskOutput(undefined)).toThrow(/returned nothing \(undefined\); expected text/)
    expect(() => taskOutput(42)).toThrow(/returned a number/)
    expect(() => taskOutput({ answer: 'x' })).toThrow(/an object with keys answer/)
    expect(() => taskOutput([{ tool: 'x' }])).toThrow(/call \[0\] has no `name` string/)
    expect(() => taskOutput([{ name: 'x', arguments: 5 }])).toThrow(/neither an object nor JSON text/)
    expect(() => taskOutput({ steps: [{ calls: [], results: [{ value: 1 }] }] })).toThrow(/more results \(1\) than calls \(0\)/)
    expect(() => taskOutput({ text: 'x', usage: { promptTokens: -1 } })).toThrow(/usage.promptTokens/)
    expect(() => taskOutput({ text: 'x', usage: { cost: 1 } })).toThrow(/`usage.cost`, which is not a usage field/)
  })
})

describe('taskProvider', () => {
  it('hands the task a copy of the sample and a signal; its id names it in the report', async () => {
    let seen: Sample | undefined
    const task: EvalTask = async (s, ctx) => {
      seen = s
      s.messages.push({ role: 'assistant', content: 'extended in place' }) // changes nothing scored
      expect(ctx.signal.aborted).toBe(false)
      return 'ok'
    }
    const provider = taskProvider(task, 'chat route')
    expect(provider.id).toBe('task:chat route')
    expect(await provider.generate(sample)).toEqual({ text: 'ok' })
    expect(seen?.id).toBe('s1')
    expect(sample.messages.length).toBe(1)
    expect(taskProvider(Object.assign(async () => 'x', { id: 'my-app' }), 's').id).toBe('my-app')
  })

  it('a throw, a late answer and a wrong shape are errors with their reason', async () => {
    await expect(taskProvider(async () => { throw new Error('upstream 500') }, 's').generate(sample)).rejects.toThrow('the task threw: upstream 500')
    await expect(taskProvider(() => { throw 'plain string' }, 's').generate(sample)).rejects.toThrow('the task threw: plain string')
    let aborted = false
    const slow: EvalTask = (_s, { signal }) => new Promise(() => signal.addEventListener('abort', () => (aborted = true)))
    const started = Date.now()
    await expect(taskProvider(slow, 's').generate(sample, { deadline: Date.now() + 50 })).rejects.toThrow(/did not answer within its deadline/)
    expect(Date.now() - started).toBeLessThan(2000)
    expect(aborted).toBe(true)
    await expect(taskProvider(async () => ({ nope: 1 }) as never, 's').generate(sample)).rejects.toThrow(/an object with keys nope/)
  })

  it('describeEval: `task` and `model` together, or a task that is no function, fail the suite with a clear message', () => {
    const model: ModelProvider = { id: 'm', generate: async () => ({ text: '' }) }
    expect(() => planSuite('e', { data: [], model, task: async () => '' })).toThrow('give `model` (a provider) or `task` (your own function), not both')
    expect(() => planSuite('e', { data: [], task: 'x' as never })).toThrow('option `task` must be a function')
    expect(() => planSuite('e', { data: [] })).toThrow(/option `model` must be a provider .*or give `task`/)
    expect(() => planSuite('e', { data: [], tsak: async () => '' } as never)).toThrow(/did you mean `task`/)
    expect(planSuite('e', { data: [], task: async () => '' }).model.id).toBe('task:e')
  })
})

describe('usage counted per generation', () => {
  it('an agent run counts every step: requests, tokens, each latency', async () => {
    let n = 0
    const model: ModelProvider = {
      id: 'scripted',
      async generate() {
        n++
        const output: ModelOutput = n < 3 ? { calls: [{ name: 'step', arguments: {}, argumentsValid: true, format: 'openai' }] } : { text: 'done' }
        output.usage = { promptTokens: 10 * n, completionTokens: 2, latencyMs: 100 * n }
        return output
      },
    }
    const run = await runAgent(model, sample, functionsEnvironment({ step: () => 'ok' }), { maxSteps: 5 })
    expect(run.usage).toEqual({ requests: 3, promptTokens: 60, completionTokens: 6, latenciesMs: [100, 200, 300], latencyMs: 600 })
    expect(usageRecord('scripted', { usage: run.usage! })).toEqual({ provider: 'scripted', promptTokens: 60, completionTokens: 6, latencyMs: 600, requests: 3, latenciesMs: [100, 200, 300] })
  })

  it('a count one step did not report is left out, not summed short; cached steps count in none', () => {
    const u = new StepUsage()
    u.add({ usage: { promptTokens: 5, completionTokens: 1, latencyMs: 10 } })
    u.add({ usage: { completionTokens: 1, latencyMs: 12 } })
    u.add({ cached: true, usage: { promptTokens: 5, completionTokens: 1 } })
    expect(u.total()).toEqual({ requests: 2, completionTokens: 2, latenciesMs: [10, 12], latencyMs: 22 })
    expect(new StepUsage().total()).toBeUndefined()
  })

  it('generations that reported nothing are counted with their usage unknown, the same on every path; a cache hit is none', async () => {
    // The agent loop over a provider that reports no usage: three generations, nothing known of them.
    let n = 0
    const silent: ModelProvider = {
      id: 'silent',
      async generate() {
        n++
        return n < 3 ? { calls: [{ name: 'step', arguments: {}, argumentsValid: true, format: 'openai' }] } : { text: 'done' }
      },
    }
    const run = await runAgent(silent, sample, functionsEnvironment({ step: () => 'ok' }), { maxSteps: 5 })
    expect(run.usage).toEqual({ requests: 3 })
    expect(usageRecord('silent', { usage: run.usage! })).toEqual({ provider: 'silent', requests: 3 })
    // The AI SDK's steps without usage, and a task returning text alone: the same.
    const sdk = taskOutput(fromGenerateText({ steps: [{ text: 'a', toolCalls: [] }, { text: 'b', toolCalls: [] }] }, { trajectory: true }))
    expect(usageRecord('task:e', sdk)).toEqual({ provider: 'task:e', requests: 2 })
    const text = await taskProvider(async () => 'It is sunny.', 'e').generate(sample)
    expect(usageRecord('task:e', text)).toEqual({ provider: 'task:e' })
    // Every step a cache hit (or replayed): no model ran, so the run is one too and has no usage record.
    const steps = (mark: 'cached' | 'replayed') => { const u = new StepUsage(); u.add({ [mark]: true }); u.add({ [mark]: true }); return u }
    expect([steps('cached').total(), steps('cached').noModelRan(), steps('replayed').noModelRan()]).toEqual([undefined, 'cached', 'replayed'])
    expect(usageRecord('m', { cached: true })).toBeUndefined()
    expect(usageRecord('m', { replayed: true })).toBeUndefined()
  })

  it('a summed latency of several requests without each one is no latency', () => {
    expect(usageRecord('t', { usage: { promptTokens: 3, latencyMs: 900, requests: 3 } })).toEqual({ provider: 't', promptTokens: 3, requests: 3 })
    // Three fresh generations that reported nothing: counted, their usage unknown (a cache hit of them: no record).
    expect(usageRecord('t', { usage: { requests: 3 } })).toEqual({ provider: 't', requests: 3 })
    expect(usageRecord('t', { usage: { requests: 3 }, cached: true })).toBeUndefined()
  })
})

describe('a provider of your own', () => {
  it('may leave out `format` and `argumentsValid` of its structured calls; arguments that are no object stay invalid', () => {
    const output: ModelOutput = { calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }, { name: 'x', arguments: 'oops' as never }] }
    const calls = outputCalls(output, sample, undefined)
    expect(calls.map((c) => [c.format, c.argumentsValid, c.arguments])).toEqual([['structured', true, { city: 'Paris' }], ['structured', false, {}]])
    expect(scoreSample(calls.slice(0, 1), sample.expected).failures).toEqual([])
    const named: ModelOutput = { format: 'openai', calls: [{ name: 'a', arguments: {}, argumentsValid: true, format: 'hermes' }, { name: 'b', arguments: {} }] }
    expect(outputCalls(named, sample, undefined).map((c) => c.format)).toEqual(['hermes', 'openai'])
  })
})

describe('fromGenerateText (an AI SDK result)', () => {
  const usage = (i: number, o: number) => ({ inputTokens: i, outputTokens: o })
  const perf = (ms: number) => ({ responseTimeMs: ms })

  it('one step without executed tools: its calls (an input the SDK could not parse stays malformed) and usage', () => {
    const out = fromGenerateText({
      steps: [{ text: '', toolCalls: [{ toolCallId: 'a', toolName: 'get_weather', input: { city: 'Paris' } }, { toolCallId: 'b', toolName: 'get_time', input: '{"city": "Par' }], usage: usage(12, 4), performance: perf(80) }],
    })
    const output = taskOutput(out)
    expect(output.calls?.map((c) => [c.name, c.argumentsValid])).toEqual([['get_weather', true], ['get_time', false]])
    expect(output.usage).toEqual({ requests: 1, promptTokens: 12, completionTokens: 4, latenciesMs: [80], latencyMs: 80 })
    expect(taskOutput(fromGenerateText({ steps: [{ text: 'Hi!', toolCalls: [], usage: usage(5, 1), performance: perf(9) }] })).text).toBe('Hi!')
  })

  it('a loop: each step a generation, tool results and errors from the content parts, the last text the answer', () => {
    const out = fromGenerateText({
      steps: [
        {
          toolCalls: [{ toolCallId: 'a', toolName: 'get_weather', input: { city: 'Paris' } }, { toolCallId: 'b', toolName: 'get_time', input: { city: 'Paris' } }],
          content: [
            { type: 'tool-result', toolCallId: 'a', toolName: 'get_weather', output: { temp: 21 } },
            { type: 'tool-error', toolCallId: 'b', toolName: 'get_time', error: new Error('clock down') },
          ],
          usage: usage(10, 3),
          performance: perf(50),
        },
        { text: 'It is 21.', toolCalls: [], content: [], usage: { inputTokens: undefined, outputTokens: 2 }, performance: perf(40) },
      ],
    })
    const output = taskOutput(out)
    expect(output.trajectory?.steps.map((s) => s.calls.length)).toEqual([2, 0])
    expect(output.trajectory?.steps[0]?.results.map((r) => [r.content, r.error])).toEqual([['{"temp":21}', undefined], ['Error during execution: clock down', 'clock down']])
    expect(output.trajectory).toMatchObject({ toolErrors: 1, answer: 'It is 21.' })
    // A step without its input tokens: the prompt total is left out, not summed short.
    expect(output.usage).toEqual({ requests: 2, completionTokens: 5, latenciesMs: [50, 40], latencyMs: 90 })
    expect(taskOutput(fromGenerateText({ steps: [{ text: 'Hi', toolCalls: [] }] }, { trajectory: true })).trajectory?.steps.length).toBe(1)
    expect(() => fromGenerateText({} as never)).toThrow(/has no `steps`/)
  })
})

describe('a task reports its own cost', () => {
  it('`usage.costUsd` is kept as billed; a value that is no amount is the sample\'s error, named', () => {
    expect(taskOutput({ text: 'x', usage: { promptTokens: 3, costUsd: 0.000125 } }).usage).toEqual({ promptTokens: 3, costUsd: 0.000125 })
    expect(usageRecord('t', taskOutput({ text: 'x', usage: { costUsd: 0.000125 } }))).toEqual({ provider: 't', costUsd: 0.000125 })
    for (const bad of ['0.01', -0.5, Number.NaN, Number.POSITIVE_INFINITY, null]) {
      expect(() => taskOutput({ text: 'x', usage: { costUsd: bad } }), String(bad)).toThrow(/`usage.costUsd` that is not a number >= 0/)
    }
    expect(() => taskOutput({ text: 'x', usage: { costUSD: 1 } })).toThrow(/`usage.costUSD`, which is not a usage field .*did you mean `costUsd`\?/)
    // An object where the amount belongs (a whole response, its key included) is named by its kind, never printed.
    const response = { cost: 0.01, headers: { authorization: 'Bearer sk-secret-1234' } }
    expect(() => taskOutput({ text: 'x', usage: { costUsd: response } })).toThrow(/`usage.costUsd` that is not a number >= 0 \(a value of type object\)/)
    const cyclic: Record<string, unknown> = {}
    cyclic['self'] = cyclic
    expect(() => taskOutput({ text: 'x', usage: { costUsd: cyclic } })).toThrow(/that is not a number >= 0 \(a value of type object\)/)
    expect(() => taskOutput({ text: 'x', usage: { costUsd: 10n } })).toThrow(/that is not a number >= 0 \(a value of type bigint\)/)
  })

  it('an agent run sums every step\'s cost; one step without a cost leaves the run\'s cost unknown', () => {
    const u = new StepUsage()
    u.add({ usage: { promptTokens: 5, costUsd: 0.25 } })
    u.add({ usage: { promptTokens: 6, costUsd: 0.5 } })
    expect(u.total()).toMatchObject({ requests: 2, promptTokens: 11, costUsd: 0.75 })
    u.add({ usage: { promptTokens: 7 } })
    expect(u.total()).not.toHaveProperty('costUsd')
    // A step's amount that is no amount (a provider's negative or NaN cost) leaves the sum unknown, never offset.
    const bad = new StepUsage()
    bad.add({ usage: { promptTokens: 5, costUsd: 1 } })
    bad.add({ usage: { promptTokens: -2, costUsd: -0.5 } })
    expect(bad.total()).toEqual({ requests: 2 })
  })

  it('fromGenerateText: `stepCostUsd` read per step and summed; a step without one leaves it unknown; a bad one is named', () => {
    const step = (cost: unknown) => ({ text: 'Hi', toolCalls: [], usage: { inputTokens: 4, outputTokens: 1 }, providerMetadata: { gateway: { cost } } })
    const stepCostUsd = (s: { providerMetadata?: Record<string, Record<string, unknown> | undefined> | undefined }) => s.providerMetadata?.['gateway']?.['cost'] as number | undefined
    const two = { steps: [step(0.125), step(0.25)] }
    expect(taskOutput(fromGenerateText(two, { stepCostUsd })).usage).toMatchObject({ requests: 2, promptTokens: 8, costUsd: 0.375 })
    expect(taskOutput(fromGenerateText({ steps: [step(0.125), step(undefined)] }, { stepCostUsd })).usage).not.toHaveProperty('costUsd')
    // Without the option, no cost is guessed from the metadata.
    expect(taskOutput(fromGenerateText(two)).usage).not.toHaveProperty('costUsd')
    expect(() => fromGenerateText({ steps: [step(0.1), step('0.2')] }, { stepCostUsd })).toThrow('`stepCostUsd` gave step 2 a cost that is not a number >= 0 ("0.2")')
    expect(() => fromGenerateText(two, { stepCost: stepCostUsd } as never)).toThrow(/unknown option `stepCost`/)
    expect(() => aiSdkTask({ model: 'gateway/model', stepCostUsd: 0.01 as never })).toThrow('aiSdkTask: option `stepCostUsd` must be a function of a step')
  })
})
