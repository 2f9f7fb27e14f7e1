// A user's mistakes caught at run time (Vitest type-checks neither configs nor eval files): every options object
// rejects an unknown key naming it, the object and the closest known key; a threshold on a suite or tool the run did
// not have names the ones it had; an endpoint's 404 says what was asked; a base URL's query stays after the path.
// The same mistakes in a real `vitest run` are in integration-mistakes.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkOptionKeys, closest, editDistance } from '../../../src/calls/options.js'
import { mcpTools } from '../../../src/eval/mcp/tools.js'
import { cached } from '../../../src/models/cache.js'
import { local } from '../../../src/models/local.js'
import { openaiCompatible } from '../../../src/models/openai-compatible.js'
import { record } from '../../../src/models/record.js'
import { replay } from '../../../src/models/replay.js'
import { toolEvals } from '../../../src/plugin.js'
import ToolEvalsReporter from '../../../src/reporter/index.js'
import { checkThresholds, describeThreshold, validateThresholds } from '../../../src/reporter/thresholds.js'
import { validateMaxThresholds } from '../../../src/reporter/usage-thresholds.js'
import { aggregate } from '../../../src/score/aggregate.js'
import { scoreSample } from '../../../src/score/nemo.js'
import { completion, startOpenAIServer, type OpenAIServer } from '../../helpers/openai-server.js'

describe('did you mean', () => {
  it('counts a swap of neighbours as one edit, ignores case, and suggests only what is close', () => {
    expect(editDistance('modle', 'model')).toBe(1)
    expect(editDistance('tresholds', 'thresholds')).toBe(1)
    expect(editDistance('kitten', 'sitting')).toBe(3)
    expect(closest('modle', ['data', 'model'])).toBe('model')
    expect(closest('baseUrl', ['baseURL', 'model'])).toBe('baseURL')
    expect(closest('xyz', ['data', 'model'])).toBeUndefined()
  })

  it('names the key, the object and the closest known key, or lists the known ones', () => {
    expect(() => checkOptionKeys({ modle: 1 }, ['data', 'model'], 'describeEval("w")')).toThrow('describeEval("w"): unknown option `modle`; did you mean `model`?')
    expect(() => checkOptionKeys({ zzz: 1 }, ['data', 'model'], 'x')).toThrow('x: unknown option `zzz`; known options: data, model')
    expect(() => checkOptionKeys('model', ['model'], 'x')).toThrow('x: options must be an object, got string')
  })
})

describe('every entry point checks its options', () => {
  const model = replay('never-read.jsonl')
  const cases: [string, () => unknown, string | RegExp][] = [
    ['toolEvals()', () => toolEvals({ tresholds: { name_correct: 0.9 } } as never), 'toolEvals(): unknown option `tresholds`; did you mean `thresholds`?'],
    ['toolEvals() regression', () => toolEvals({ regression: { minDorp: 0.1 } } as never), 'toolEvals(): `regression`: unknown option `minDorp`; did you mean `minDrop`?'],
    ['ToolEvalsReporter', () => new ToolEvalsReporter({ outputfile: 'r.json' } as never), 'ToolEvalsReporter: unknown option `outputfile`; did you mean `outputFile`?'],
    ['the plugin-only options are the plugin\'s', () => new ToolEvalsReporter({ watchData: false } as never), 'ToolEvalsReporter: unknown option `watchData`'],
    ['openaiCompatible', () => openaiCompatible({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm' } as never), 'openaiCompatible: unknown option `baseUrl`; did you mean `baseURL`?'],
    ['local', () => local('fixtures/none', { maxNewToken: 5 } as never), 'local("fixtures/none"): unknown option `maxNewToken`; did you mean `maxNewTokens`?'],
    ['replay', () => replay('r.jsonl', { fromat: 'hermes' } as never), 'replay(r.jsonl): unknown option `fromat`; did you mean `format`?'],
    ['cached', () => cached(model, { directory: '.c' } as never), 'cached: unknown option `directory`'],
    ['record', () => record(model, 'r.jsonl', { apend: true } as never), 'record(r.jsonl): unknown option `apend`; did you mean `append`?'],
    ['mcpTools', () => mcpTools({ command: 'node' }, { recordng: 'x.jsonl' } as never), 'mcpTools: unknown option `recordng`; did you mean `recording`?'],
    ['mcpTools server', () => mcpTools({ comand: 'node' } as never), 'mcpTools: the server: unknown option `comand`; did you mean `command`?'],
    ['a threshold', () => validateThresholds({ suite: { weather: { name_correct: 0.9 } } }), /unknown metric in `thresholds.suite`; known: .*; did you mean `suites`\?$/],
    ['a metric', () => validateThresholds({ suites: { weather: { name_corect: 0.9 } } }), /unknown metric in `thresholds.suites.weather.name_corect`; known: .*; did you mean `name_correct`\?$/],
    ['a usage bound', () => validateMaxThresholds({ latency_p95ms: 1 }), 'did you mean `latency_p95_ms`?'],
  ]
  it.each(cases)('%s', (_name, make, message) => {
    expect(make).toThrow(message)
  })
})

describe('a threshold on a suite or tool the run did not have', () => {
  const record = scoreSample([{ name: 'get_weather', arguments: { city: 'Paris' }, argumentsValid: true, format: 'json' }], [{ name: 'get_weather', arguments: { city: 'Paris' } }])
  const overall = aggregate([{ id: 'w1', suite: 'weather', score: record }])
  const suites = new Map([['weather', overall], ['travel', overall]])

  it('fails, naming the suites or tools the run had and the closest', () => {
    const thresholds = validateThresholds({ suites: { wether: { name_correct: 0.5 } }, tools: { get_wether: { name_correct: 0.5 } } })
    const [suite, tool] = checkThresholds(thresholds, overall, suites)
    expect(suite).toMatchObject({ pass: false, suite: 'wether', known: ['weather', 'travel'] })
    expect(describeThreshold(suite!)).toBe('name_correct (suite wether): no suite named "wether" in this run; did you mean `weather`? (suites in this run: weather, travel) (required 0.500)')
    expect(describeThreshold(tool!)).toBe('name_correct (tool get_wether): no tool named "get_wether" in this run; did you mean `get_weather`? (tools in this run: get_weather) (required 0.500)')
  })

  it('is "not run" in a partial run, where its scope was not selected', () => {
    const [suite] = checkThresholds(validateThresholds({ suites: { wether: { name_correct: 0.5 } } }), overall, suites, { partial: true })
    expect(suite).toEqual({ metric: 'name_correct', min: 0.5, actual: null, pass: true, suite: 'wether', notRun: true })
  })
})

describe('openaiCompatible and the base URL', () => {
  let server: OpenAIServer
  const sample = { id: 's1', messages: [{ role: 'user' as const, content: 'hi' }], expected: [] }
  beforeAll(async () => {
    // Served under /v1 only, as vLLM, SGLang, llama.cpp and Ollama serve it.
    server = await startOpenAIServer((req) => (req.path.startsWith('/v1/') ? { json: completion('hello') } : { status: 404, json: { detail: 'Not Found' } }))
  })
  afterAll(() => server?.close())

  it('keeps the query of the base URL after the path (Azure-style api-version)', async () => {
    const provider = openaiCompatible({ baseURL: `${server.baseURL}?api-version=2024-06-01`, model: 'm', maxRetries: 0 })
    expect((await provider.generate(sample)).text).toBe('hello')
    expect(server.requests.at(-1)?.path).toBe('/v1/chat/completions?api-version=2024-06-01')
    // The query may hold a key: never part of the provider's id.
    expect(provider.id).not.toContain('api-version')
  })

  it('a 404 says what was requested and suggests /v1', async () => {
    const root = server.baseURL.replace(/\/v1$/, '')
    const provider = openaiCompatible({ baseURL: `${root}?api-key=secret-value`, model: 'm', maxRetries: 0 })
    const error = await provider.generate(sample).then(() => undefined, (e: Error) => e.message)
    expect(error).toBe(`openai:m@${root}: HTTP 404: Not Found (POST ${root}/chat/completions; OpenAI-compatible servers serve it under /v1: did you mean baseURL '${root}/v1'?)`)
    expect(server.requests.at(-1)?.path).toBe('/chat/completions?api-key=secret-value')
  })
})
