import { afterEach, describe, expect, it } from 'vitest'
import type { Sample } from '../../../src/data/types.js'
import { Limiter } from '../../../src/models/concurrency.js'
import { openaiCompatible, scrub, type OpenAICompatibleOptions } from '../../../src/models/openai-compatible.js'
import { retryBudget } from '../../../src/eval/generations.js'
import { completion, startOpenAIServer, type OpenAIServer, type Responder } from '../../helpers/openai-server.js'

const weatherTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
}

function sample(id: string, content = `question ${id}`): Sample {
  return { id, messages: [{ role: 'user', content }], tools: [weatherTool], expected: [] }
}

let servers: OpenAIServer[] = []
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()))
  servers = []
})

async function serve(responder: Responder): Promise<OpenAIServer> {
  const s = await startOpenAIServer(responder)
  servers.push(s)
  return s
}

/** A provider with fast retries, so fault tests take milliseconds. */
function provider(server: OpenAIServer, extra: Partial<OpenAICompatibleOptions> = {}) {
  return openaiCompatible({
    baseURL: server.baseURL,
    model: `m-${Math.random()}`, // a fresh limiter per test
    retryDelayMs: 5,
    timeoutMs: 2000,
    ...extra,
  })
}

const weatherCall = (args: string, id = 'call_1') => ({ id, type: 'function', function: { name: 'get_weather', arguments: args } })

describe('openaiCompatible: requests and replies', () => {
  it('sends the messages, tools and greedy settings, and normalises native tool_calls', async () => {
    const server = await serve(() => ({ content: null, toolCalls: [weatherCall('{"city": "Paris", "days": 3.0}')] }))
    const out = await provider(server, { model: 'qwen' }).generate(sample('a', 'Weather in Paris?'))
    const body = server.requests[0]?.body
    expect(server.requests[0]?.path).toBe('/v1/chat/completions')
    expect(body).toMatchObject({ model: 'qwen', temperature: 0, stream: false, tools: [weatherTool] })
    expect(body.messages).toEqual([{ role: 'user', content: 'Weather in Paris?' }])
    expect(body.tool_choice).toBeUndefined()
    expect(out.calls).toEqual([
      {
        name: 'get_weather',
        arguments: { city: 'Paris', days: 3 },
        argumentsValid: true,
        format: 'openai',
        id: 'call_1',
        floatPaths: ['/days'],
        raw: JSON.stringify(weatherCall('{"city": "Paris", "days": 3.0}')),
      },
    ])
    expect(out.text).toBe('')
    expect(out.usage).toEqual({ promptTokens: 10, completionTokens: 5, latencyMs: expect.any(Number) })
  })

  it('keeps malformed native arguments as an invalid call, and object arguments (Ollama) as valid', async () => {
    const server = await serve(() => ({
      toolCalls: [
        weatherCall('{"city": "Par'),
        { id: 'c2', type: 'function', function: { name: 'get_weather', arguments: { city: 'Rome' } } },
      ],
    }))
    const out = await provider(server).generate(sample('a'))
    expect(out.calls?.map((c) => [c.name, c.arguments, c.argumentsValid])).toEqual([
      ['get_weather', {}, false],
      ['get_weather', { city: 'Rome' }, true],
    ])
  })

  it('returns text content for the parser when there are no native tool_calls, with the format hint', async () => {
    const text = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
    const server = await serve(() => ({ content: text }))
    const out = await provider(server, { format: 'hermes' }).generate(sample('a'))
    expect(out).toMatchObject({ text, format: 'hermes' })
    expect(out.calls).toBeUndefined()
  })

  it("mode 'text' sends tools with tool_choice none and ignores native tool_calls", async () => {
    const server = await serve(() => ({ content: 'raw text', toolCalls: [weatherCall('{}')] }))
    const out = await provider(server, { mode: 'text' }).generate(sample('a'))
    expect(server.requests[0]?.body.tool_choice).toBe('none')
    expect(server.requests[0]?.body.tools).toEqual([weatherTool])
    expect(out.text).toBe('raw text')
    expect(out.calls).toBeUndefined()
  })

  it('sends assistant tool_call arguments as JSON strings, and merges extra body fields last', async () => {
    const server = await serve(() => ({ content: 'ok' }))
    const s: Sample = {
      id: 'd#2',
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', function: { name: 'get_weather', arguments: { city: 'Paris' } } }] },
        { role: 'tool', tool_call_id: 'c1', content: '{"temp": 20}' },
      ],
      expected: [],
    }
    await provider(server, { maxTokens: 64, body: { seed: 7, temperature: 0.5 } }).generate(s)
    const body = server.requests[0]?.body
    expect(body.messages[1].tool_calls[0]).toEqual({
      id: 'c1',
      type: 'function',
      function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
    })
    expect(body).toMatchObject({ max_tokens: 64, seed: 7, temperature: 0.5 })
    expect(body.tools).toBeUndefined()
  })

  it('has an id and settings without secrets or credentials', () => {
    process.env['TE_TEST_KEY_ID'] = 'sk-very-secret'
    const p = openaiCompatible({ baseURL: 'http://user:pw@127.0.0.1:9/v1/?token=abc', model: 'x', apiKeyEnv: 'TE_TEST_KEY_ID' })
    expect(p.id).toBe('openai:x@http://127.0.0.1:9/v1')
    expect(JSON.stringify(p)).not.toContain('sk-very-secret')
    expect(p.concurrency).toBe(8)
  })
})

describe('openaiCompatible: faults and retries', () => {
  it('retries 429 and honours Retry-After', async () => {
    const server = await serve((r) => (r.hit === 1 ? { status: 429, headers: { 'retry-after': '1' }, json: { error: { message: 'slow down' } } } : { content: 'ok' }))
    const started = Date.now()
    const out = await provider(server).generate(sample('a'))
    expect(out.text).toBe('ok')
    expect(server.hits).toBe(2)
    expect(Date.now() - started).toBeGreaterThanOrEqual(950)
  })

  it('retries 5xx, hangs past the timeout, connection resets and malformed JSON, then succeeds', async () => {
    const faults = [
      { status: 500, json: { error: { message: 'boom' } } },
      { fault: 'hang' as const },
      { fault: 'reset' as const },
      { raw: '{"choices": [' },
      { status: 503, raw: 'upstream unavailable' },
    ]
    const server = await serve((r) => faults[r.hit - 1] ?? { content: 'finally' })
    const out = await provider(server, { timeoutMs: 200, maxRetries: 5 }).generate(sample('a'))
    expect(out.text).toBe('finally')
    expect(server.hits).toBe(6)
  })

  it('gives up after maxRetries with the last reason as the error message', async () => {
    const server = await serve(() => ({ status: 500, json: { error: { message: 'model crashed' } } }))
    await expect(provider(server, { maxRetries: 2 }).generate(sample('a'))).rejects.toThrow(
      /HTTP 500: model crashed \(gave up after 3 attempts\)/,
    )
    expect(server.hits).toBe(3)
  })

  it('does not retry client errors', async () => {
    const server = await serve(() => ({ status: 400, json: { error: { message: 'tools not supported' } } }))
    await expect(provider(server).generate(sample('a'))).rejects.toThrow(/HTTP 400: tools not supported$/)
    expect(server.hits).toBe(1)
  })

  it('reports a timeout and a reset clearly when they persist', async () => {
    const hang = await serve(() => ({ fault: 'hang' }))
    await expect(provider(hang, { timeoutMs: 100, maxRetries: 1 }).generate(sample('a'))).rejects.toThrow(
      /request timed out after 100 ms \(gave up after 2 attempts\)/,
    )
    const reset = await serve(() => ({ fault: 'reset' }))
    await expect(provider(reset, { maxRetries: 0 }).generate(sample('a'))).rejects.toThrow(/connection failed/)
  })

  it('retries a response without choices or with an empty choices array, as any malformed response', async () => {
    const server = await serve(() => ({ json: { object: 'chat.completion' } }))
    await expect(provider(server, { maxRetries: 2 }).generate(sample('a'))).rejects.toThrow(
      /no choices\[0\]\.message: .*chat\.completion.* \(gave up after 3 attempts\)/,
    )
    expect(server.hits).toBe(3)
    const empty = await serve((r) => (r.hit === 1 ? { json: { object: 'chat.completion', choices: [] } } : { content: 'second try' }))
    expect((await provider(empty).generate(sample('a'))).text).toBe('second try')
    expect(empty.hits).toBe(2)
  })
})

describe('openaiCompatible: the API key', () => {
  it('sends the key from the named variable and scrubs it from error messages', async () => {
    const secret = 'sk-test-Zq81xYf0K3'
    process.env['TE_TEST_KEY'] = secret
    // The server echoes the request headers into its error body, as some proxies do.
    const server = await serve((r) => ({ status: 401, json: { error: { message: `bad credentials: ${JSON.stringify(r.headers)} ${encodeURIComponent(secret)}` } } }))
    const p = provider(server, { apiKeyEnv: 'TE_TEST_KEY' })
    const err: Error = await p.generate(sample('a')).then(
      () => new Error('no error'),
      (e: Error) => e,
    )
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${secret}`)
    expect(err.message).toMatch(/HTTP 401: bad credentials/)
    expect(err.message).toContain('***')
    expect(err.message).not.toContain(secret)
    expect(String(err.stack)).not.toContain(secret)
    expect(JSON.stringify(p)).not.toContain(secret)
  })

  it('fails each sample with a clear reason when the variable is unset', async () => {
    delete process.env['TE_TEST_MISSING']
    const server = await serve(() => ({ content: 'ok' }))
    await expect(provider(server, { apiKeyEnv: 'TE_TEST_MISSING' }).generate(sample('a'))).rejects.toThrow(
      'environment variable TE_TEST_MISSING (apiKeyEnv) is not set',
    )
    expect(server.hits).toBe(0)
  })
})

describe('openaiCompatible: concurrency', () => {
  it('bounds requests in flight across provider instances of the same endpoint and accounts for every sample', async () => {
    // Every fifth request fails once with 500 and every seventh is dropped once: retries must still account for all.
    const seen = new Map<string, number>()
    const server = await serve((r) => {
      const id = String(r.body.messages[0].content)
      const n = (seen.get(id) ?? 0) + 1
      seen.set(id, n)
      const k = Number(id.split(' ')[1])
      if (n === 1 && k % 5 === 0) return { status: 500, delayMs: 5 }
      if (n === 1 && k % 7 === 0) return { fault: 'reset' }
      return { content: `answer to ${id}`, delayMs: 10 }
    })
    const options = { baseURL: server.baseURL, model: 'shared-model', concurrency: 4, retryDelayMs: 5, timeoutMs: 300 }
    const a = openaiCompatible(options)
    const b = openaiCompatible(options)
    const samples = Array.from({ length: 60 }, (_, i) => sample(String(i)))
    const results = await Promise.allSettled(samples.map((s, i) => (i % 2 ? a : b).generate(s)))
    expect(results).toHaveLength(60)
    results.forEach((r, i) => {
      expect(r.status).toBe('fulfilled')
      if (r.status === 'fulfilled') expect(r.value.text).toBe(`answer to question ${i}`)
    })
    expect(server.peak).toBeLessThanOrEqual(4)
    expect(server.peak).toBeGreaterThanOrEqual(2)
  })

  it('turns every sample into an answer or an errored sample, never a lost one', async () => {
    const server = await serve((r) => {
      const k = Number(String(r.body.messages[0].content).split(' ')[1])
      return k % 3 === 0 ? { status: 500 } : k % 3 === 1 ? { raw: 'not json' } : { content: 'ok' }
    })
    const p = provider(server, { maxRetries: 1, concurrency: 8 })
    const results = await Promise.allSettled(Array.from({ length: 30 }, (_, i) => p.generate(sample(String(i)))))
    const fulfilled = results.filter((r) => r.status === 'fulfilled').length
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected')
    expect(fulfilled).toBe(10)
    expect(rejected).toHaveLength(20)
    for (const r of rejected) expect((r.reason as Error).message).toMatch(/HTTP 500|malformed JSON/)
  })

  it('stops waiting when the caller aborts', async () => {
    const server = await serve(() => ({ fault: 'hang' }))
    const controller = new AbortController()
    const pending = provider(server, { timeoutMs: 10_000 }).generate(sample('a'), { signal: controller.signal })
    // Abort once the request is in flight (the server has it), however slow the machine.
    const deadline = Date.now() + 10_000
    while (server.hits === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10))
    controller.abort(new Error('run cancelled'))
    await expect(pending).rejects.toThrow(/cancelled|abort/i)
    expect(server.hits).toBe(1)
  })
})

it('completion() builds a chat.completion body', () => {
  expect(completion('hi')).toMatchObject({ choices: [{ message: { role: 'assistant', content: 'hi' } }] })
})

describe('Limiter and scrub', () => {
  it('grants slots first come first served, never more than the limit, and drops aborted waiters', async () => {
    const limiter = new Limiter(2)
    const order: number[] = []
    const releases = await Promise.all([limiter.acquire(), limiter.acquire()])
    const controller = new AbortController()
    const waiting = [1, 2, 3].map((n) =>
      limiter.acquire(n === 2 ? controller.signal : undefined).then((release) => {
        order.push(n)
        return release
      }),
    )
    controller.abort(new Error('gone'))
    await expect(waiting[1]).rejects.toThrow('gone')
    expect(limiter.inFlight).toBe(2)
    releases.forEach((r) => r())
    const [r1, , r3] = await Promise.all([waiting[0], waiting[1]?.catch(() => undefined), waiting[2]])
    expect(order).toEqual([1, 3])
    expect(limiter.peak).toBe(2)
    r1?.()
    r3?.()
    expect(limiter.inFlight).toBe(0)
  })

  it('replaces the raw, JSON-escaped, URL-encoded and base64 forms of a secret and of its Bearer header', () => {
    const secret = 'sk-a/b"c'
    expect(scrub(`x ${secret} ${JSON.stringify(secret)} ${encodeURIComponent(secret)} y`, secret)).toBe('x *** "***" *** y')
    const bearer = `Bearer ${secret}`
    const b64 = (t: string) => Buffer.from(t).toString('base64')
    const forms = [encodeURIComponent(bearer), encodeURIComponent(bearer).replace('%20', '+'), b64(bearer), b64(secret), Buffer.from(bearer).toString('base64url')]
    // base64 keeps at most its last character (it holds the neighbour's bits too) and its padding.
    for (const part of scrub(forms.join(' | '), secret).split(' | ')) expect(part).toMatch(/^\*\*\*[A-Za-z0-9+/_-]?=*$/)
  })
})

describe('retries within a deadline', () => {
  it("the budget is the test timeout less a tenth (100 ms to 1 s); none without a timeout", () => {
    expect(retryBudget(5000)).toBe(4500)
    expect(retryBudget(60_000)).toBe(59_000)
    expect(retryBudget(500)).toBe(400)
    expect(retryBudget(50)).toBe(0)
    expect(retryBudget(0)).toBeUndefined()
    expect(retryBudget(Infinity)).toBeUndefined()
    expect(retryBudget(undefined)).toBeUndefined()
  })

  it('stops retrying before the deadline, with the last real error and how many attempts it made', async () => {
    const server = await serve(() => ({ status: 503, json: { error: { message: 'overloaded' } } }))
    const p = provider(server, { retryDelayMs: 200, maxRetries: 10 })
    const started = Date.now()
    const error = (await p.generate(sample('a'), { deadline: started + 500 }).catch((e: unknown) => e)) as Error & { retries?: number }
    expect(Date.now() - started).toBeLessThan(500)
    expect(error).toBeInstanceOf(Error)
    expect(error.message).toMatch(/HTTP 503: overloaded \(gave up after \d attempts?: no time for another before the sample's timeout\)/)
    const attempts = Number(/gave up after (\d+)/.exec(error.message)?.[1])
    expect(server.hits).toBe(attempts)
    expect(error.retries).toBe(attempts - 1 || undefined)
  })

  it('counts the retries before an answer on its usage', async () => {
    const server = await serve((r) => (r.hit <= 2 ? { status: 503 } : { content: 'ok' }))
    const out = await provider(server).generate(sample('a'), { deadline: Date.now() + 5000 })
    expect(out.usage?.retries).toBe(2)
    const first = await provider(server).generate(sample('b'))
    expect(first.usage?.retries).toBeUndefined()
  })
})
