// describeEval's `task` and the AI SDK adapter in one real `vitest run` of the built package, against one loopback
// OpenAI-compatible server: tasks returning raw text, an assistant message, calls and a trajectory; the AI SDK's
// single step (the sample's tools as schemas) and its agent loop (tools with `execute`, several steps); each scored
// as the same samples through `openaiCompatible` (the same server answers) are; usage counted per generation, and a
// cost the task reports carried to the report; a throwing task, a late one and one of the wrong shape, each one
// errored sample with its reason; and the "Testing your app" example of docs/writing-evals.md, its files as written.
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { blockFiles, blocksOf } from '../helpers/doc-blocks.js'
import { createEvalProject, ensureBuilt, REPO, type EvalProject, type RunResult } from '../helpers/eval-project.js'
import { completion, startOpenAIServer, type ChatRequest, type OpenAIServer } from '../helpers/openai-server.js'

const fn = (name: string) => ({ type: 'function', function: { name, description: `${name} of a city`, parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } })
const tools = [fn('get_weather'), fn('get_time')]
const gw = (city: string) => ({ name: 'get_weather', arguments: { city } })
const data = [
  { id: 'paris', messages: [{ role: 'user', content: 'Weather in Paris?' }], tools, expected: [gw('Paris')] },
  { id: 'tokyo', messages: [{ role: 'user', content: 'Weather in Tokyo?' }], tools, expected: [gw('Tokyo')] },
  { id: 'rome', messages: [{ role: 'user', content: 'Weather in Rome?' }], tools, expected: [gw('Rome')] },
  { id: 'hello', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hello' }], tools, expected: [] },
]

/** The model: a call (or two, or a wrong one) for a question, an answer once a tool has answered. */
function answer(req: ChatRequest) {
  const messages = req.body.messages as { role: string; content: unknown }[]
  const last = messages[messages.length - 1]!
  // `cost` in USD as some gateways bill it (OpenRouter's `usage.cost`): a microdollar a token.
  const usage = { prompt_tokens: 7 * messages.length, completion_tokens: 3, total_tokens: 7 * messages.length + 3, cost: (7 * messages.length + 3) / 1e6 }
  const reply = (content: string | null, calls?: unknown[]) => ({ json: { ...completion(content, calls), usage } })
  if (last.role === 'tool') return reply('Done.')
  const ask = JSON.stringify(messages)
  const call = (i: number, name: string, city: string) => ({ id: `call_${i}`, type: 'function', function: { name, arguments: JSON.stringify({ city }) } })
  if (ask.includes('Paris')) return reply(null, [call(0, 'get_weather', 'Paris')])
  if (ask.includes('Tokyo')) return reply(null, [call(0, 'get_weather', 'Tokyo'), call(1, 'get_time', 'Tokyo')])
  if (ask.includes('Rome')) return reply(null, [call(0, 'get_weather', 'Roma')])
  if (ask.includes('order A17')) return reply(null, [{ id: 'call_0', type: 'function', function: { name: 'getOrder', arguments: '{"orderId":"A17"}' } }])
  return reply('Hi!')
}

// docs/writing-evals.md, "Testing your app": its samples and its files, written into the project as they are shown.
const docBlocks = blocksOf('docs/writing-evals.md')
const docExample = docBlocks.find((b) => b.lang === 'ts' && b.code.includes('// evals/chat.eval.ts'))
const docFiles = Object.fromEntries((blockFiles(docExample?.code ?? '') ?? []).map((f) => [f.path, f.code]))
const docSamples = docBlocks.find((b) => b.lang === 'jsonl' && b.code.includes('Where is order A17?'))?.code

const evalFile = `
// The docs' example, in this file's worker (a worker of its own would cost a second load of the package and the SDK).
import './chat.eval.ts'
import { describeEval, openaiCompatible } from 'vitest-tool-evals'
import { aiSdkTask } from 'vitest-tool-evals/ai-sdk'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { jsonSchema, stepCountIs, tool } from 'ai'
import { readFileSync } from 'node:fs'

const data = JSON.parse(readFileSync('data.json', 'utf8'))
const baseURL = process.env.LOOP_URL
const weather = async ({ city }) => ({ city, temp: 21 })
const time = async ({ city }) => ({ city, time: '12:00' })

// The application's own client: one chat completion, usage in our names.
async function chat(messages, signal) {
  const res = await fetch(baseURL + '/chat/completions', { method: 'POST', signal, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'test-model', messages, tools: data[0].tools }) })
  const body = await res.json()
  return { message: body.choices[0].message, usage: { promptTokens: body.usage.prompt_tokens, completionTokens: body.usage.completion_tokens, costUsd: body.usage.cost } }
}
const hermes = (tc) => '<tool_call>\\n' + JSON.stringify({ name: tc.function.name, arguments: JSON.parse(tc.function.arguments) }) + '\\n</tool_call>'

describeEval('reference', { data, model: openaiCompatible({ baseURL, model: 'test-model' }) })

describeEval('task-text', {
  data,
  async task(sample, { signal }) {
    const { message } = await chat(sample.messages, signal)
    return message.tool_calls ? message.tool_calls.map(hermes).join('\\n') : message.content
  },
})

describeEval('task-message', {
  data,
  async task(sample, { signal }) {
    const { message, usage } = await chat(sample.messages, signal)
    return { ...message, usage }
  },
})

describeEval('task-calls', {
  data,
  async task(sample, { signal }) {
    const { message } = await chat(sample.messages, signal)
    return (message.tool_calls ?? []).map((tc) => ({ name: tc.function.name, arguments: tc.function.arguments }))
  },
})

// The application's own agent loop, handed over as a trajectory.
describeEval('task-trajectory', {
  data,
  trajectory: true,
  async task(sample, { signal }) {
    const messages = [...sample.messages]
    const steps = []
    const usage = { promptTokens: 0, completionTokens: 0, latenciesMs: [] }
    for (let k = 0; k < 4; k++) {
      const started = performance.now()
      const r = await chat(messages, signal)
      usage.latenciesMs.push(performance.now() - started)
      usage.promptTokens += r.usage.promptTokens
      usage.completionTokens += r.usage.completionTokens
      const calls = r.message.tool_calls ?? []
      if (calls.length === 0) {
        steps.push({ text: r.message.content })
        break
      }
      messages.push(r.message)
      const results = []
      for (const tc of calls) {
        const value = await (tc.function.name === 'get_weather' ? weather : time)(JSON.parse(tc.function.arguments))
        results.push({ value })
        messages.push({ role: 'tool', tool_call_id: tc.id, content: JSON.stringify(value) })
      }
      steps.push({ calls: calls.map((tc) => ({ id: tc.id, name: tc.function.name, arguments: tc.function.arguments })), results })
    }
    return { steps, usage }
  },
})

const provider = createOpenAICompatible({ name: 'loop', baseURL })
describeEval('ai-sdk', { data, task: aiSdkTask({ model: provider.chatModel('test-model') }) })

describeEval('ai-sdk-agent', {
  data,
  trajectory: true,
  task: aiSdkTask({
    model: provider.chatModel('test-model'),
    tools: {
      get_weather: tool({ description: 'get_weather of a city', inputSchema: jsonSchema(data[0].tools[0].function.parameters), execute: weather }),
      get_time: tool({ description: 'get_time of a city', inputSchema: jsonSchema(data[0].tools[1].function.parameters), execute: time }),
    },
    stopWhen: stepCountIs(4),
    // What the server billed each step, from its raw response (an OpenAI-compatible gateway's \`usage.cost\`).
    settings: { include: { responseBody: true } },
    stepCostUsd: (step) => step.response?.body?.usage?.cost,
  }),
})

describeEval('reference-agent', { data, model: openaiCompatible({ baseURL, model: 'test-model' }), tools: { get_weather: weather, get_time: time }, maxSteps: 4 })

describeEval('broken', {
  data,
  timeout: 1500,
  task(sample) {
    if (sample.id === 'paris') throw new Error('upstream said 500')
    if (sample.id === 'tokyo') return new Promise(() => {})
    if (sample.id === 'rome') return { reply: 'sunny' }
    return 'Hi!'
  },
})
`

const config = `
import { defineConfig } from 'vitest/config'
import ToolEvalsReporter from 'vitest-tool-evals/reporter'
export default defineConfig({
  test: { include: ['evals/*.eval.mjs'], reporters: ['default', new ToolEvalsReporter({ outputFile: 'report.json', markdownFile: false })] },
})
`

describe('tasks and the AI SDK in an eval project run by vitest', () => {
  let project: EvalProject
  let server: OpenAIServer
  let run: RunResult
  let report: any

  beforeAll(async () => {
    ensureBuilt()
    expect(Object.keys(docFiles), 'the example of docs/writing-evals.md').toEqual(['lib/chat.ts', 'evals/chat.eval.ts'])
    expect(docSamples, 'the samples of docs/writing-evals.md').toBeDefined()
    server = await startOpenAIServer(answer)
    project = createEvalProject({ 'vitest.config.mjs': config, 'evals/app.eval.mjs': evalFile, 'data.json': JSON.stringify(data), ...docFiles, 'evals/chat.jsonl': docSamples! })
    // The AI SDK's OpenAI-compatible provider, as the user's project would have it installed.
    mkdirSync(join(project.dir, 'node_modules/@ai-sdk'), { recursive: true })
    symlinkSync(join(REPO, 'node_modules/@ai-sdk/openai-compatible'), join(project.dir, 'node_modules/@ai-sdk/openai-compatible'), 'dir')
    run = await project.run(['run'], { LOOP_URL: server.baseURL, LLM_BASE_URL: server.baseURL })
    report = JSON.parse(readFileSync(join(project.dir, 'report.json'), 'utf8'))
  })
  afterAll(async () => {
    project?.remove()
    await server?.close()
  })

  it('runs every suite; only the broken tasks fail, each with its reason', () => {
    const out = run.stdout + run.stderr
    expect(out, out).toMatch(/Tests\s+3 failed \| 37 passed \(40\)/)
    expect(report.suites.broken.errored).toEqual({
      count: 3,
      byReason: {
        'the task threw: upstream said 500': 1,
        'the task ran past its deadline': 1,
        'the task returned an object with keys reply; expected text, an assistant message with tool_calls, a list of { name, arguments } calls, { steps } or { text, calls, usage }': 1,
      },
    })
    expect(out).toMatch(/the task did not answer within its deadline \(1\d{3} ms/)
    // The fourth sample of the suite ran on: its answer scored.
    expect(report.suites.broken.metrics.no_call_accuracy).toBe(1)
  })

  it('scores every task shape and the AI SDK as openaiCompatible scores the same answers', () => {
    const scored = (suite: string) => {
      const { metrics, failures, tools, errored } = report.suites[suite]
      return { metrics, failures, tools, errored }
    }
    const reference = scored('reference')
    // paris and hello right; tokyo calls a second tool, rome a wrong argument.
    expect(reference.metrics).toMatchObject({ name_correct: 1, args_exact_match: 2 / 3, no_call_accuracy: 1 })
    expect(reference.failures).toMatchObject({ wrong_arguments: 1, extra_call: 1 })
    for (const suite of ['task-text', 'task-message', 'task-calls', 'ai-sdk']) expect(scored(suite), suite).toEqual(reference)
    const agent = report.suites['reference-agent']
    expect(agent.trajectory).toMatchObject({ samples: 4, steps: 7, calls: 4, toolErrors: 0 })
    for (const suite of ['task-trajectory', 'ai-sdk-agent']) {
      expect(scored(suite), suite).toEqual(scored('reference-agent'))
      expect(report.suites[suite].trajectory, suite).toEqual(agent.trajectory)
    }
  })

  it('counts every generation of an agent loop in requests and tokens; a task that reports no usage has it unknown', () => {
    // The prompt grows by the messages of each step: 7 tokens per message sent.
    for (const suite of ['reference-agent', 'ai-sdk-agent', 'task-trajectory']) {
      const u = report.suites[suite].usage.model
      expect(u, suite).toMatchObject({ samples: 4, requests: 7, completionTokens: 21 })
      expect(u.latencyMs.samples, suite).toBe(7)
      expect(u.promptTokens, suite).toBe(report.suites['reference-agent'].usage.model.promptTokens)
    }
    for (const suite of ['reference', 'task-message', 'ai-sdk']) {
      expect(report.suites[suite].usage.model, suite).toMatchObject({ samples: 4, requests: 4, completionTokens: 12 })
    }
    expect(report.suites['ai-sdk'].usage.model.latencyMs.samples).toBe(4)
    // Raw text and bare calls carry no usage: counted, their tokens unknown, not zero.
    for (const suite of ['task-text', 'task-calls']) {
      expect(report.suites[suite].usage.model, suite).toMatchObject({ samples: 4, requests: 4, promptTokens: 0, promptTokensUnknown: 4, completionTokensUnknown: 4, meanPromptTokens: null })
    }
    expect(run.stdout).toMatch(/usage {2}model .*tokens \(mean [^)]*\), partial \(.*tokens unknown for 4 of 4 samples of task:task-calls/)
  })

  it('carries a cost the task reports to the report; the other suites\' cost is unknown, never counted as $0', () => {
    const usage = report.suites['task-message'].usage
    // A microdollar a token, as the server billed it.
    expect(usage.costUsd).toBeCloseTo((usage.model.promptTokens + usage.model.completionTokens) / 1e6, 15)
    expect(usage.unpriced).toBeUndefined()
    expect(usage.model.providers['task:task-message']).toMatchObject({ samples: 4, costUsd: usage.costUsd, costReported: 4 })
    // No pricing: every other provider's cost is unknown, so the run's is partial.
    expect(report.usage.unpriced).toContain('task:task-trajectory')
    expect(report.usage.unpriced).not.toContain('task:task-message')
    expect(report.suites['ai-sdk'].usage.unpriced).toEqual([expect.stringMatching(/^ai-sdk:loop\.chat:test-model$/)])
    // The AI SDK's loop: every step's cost, read by \`stepCostUsd\`, summed over its 7 generations.
    const agent = report.suites['ai-sdk-agent'].usage
    expect(agent.model.requests).toBe(7)
    expect(agent.costUsd).toBeCloseTo((agent.model.promptTokens + agent.model.completionTokens) / 1e6, 15)
    expect(agent.unpriced).toBeUndefined()
    expect(run.stdout).toMatch(/usage {2}model .*partial \(/)
  })

  it("runs the docs' Next.js example as written: the SDK's loop and the route's own function score the same", () => {
    const suite = (name: string) => {
      const { metrics, failures, trajectory, errored, usage } = report.suites[name]
      return { metrics, failures, trajectory, errored, requests: usage.model.requests, completionTokens: usage.model.completionTokens }
    }
    const tools = suite('chat route tools')
    // "Where is order A17?": getOrder, then an answer; "Hi there": an answer at once.
    expect(tools.metrics).toMatchObject({ name_correct: 1, args_exact_match: 1, no_call_accuracy: 1 })
    expect(tools.trajectory).toMatchObject({ samples: 2, steps: 3, calls: 1, toolErrors: 0 })
    expect(tools.requests).toBe(3)
    expect(suite('chat route')).toEqual(tools)
    // The route's tool ran on its own data, and the model was sent its result, with the route's instructions.
    const afterTool = server.requests.filter((r) => JSON.stringify(r.body.messages).includes('shipped'))
    expect(afterTool).toHaveLength(2)
    expect(JSON.stringify(afterTool[0]!.body.messages)).toContain('You are the shop assistant.')
  })
})
