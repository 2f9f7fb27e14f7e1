// The endpoint provider against a misbehaving loopback server: a key echoed at every offset around the error
// snippet's cut and in encoded spellings, and bodies larger than the configured cap.
import { afterEach, describe, expect, it } from 'vitest'
import type { Sample } from '../../../src/data/types.js'
import { scrubDeep } from '../../../src/data/secrets.js'
import { openaiCompatible, type OpenAICompatibleOptions } from '../../../src/models/openai-compatible.js'
import { startOpenAIServer, type OpenAIServer, type Responder, type ScriptedReply } from '../../helpers/openai-server.js'

const sample: Sample = { id: 'a', messages: [{ role: 'user', content: 'hi' }], expected: [] }

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

function provider(server: OpenAIServer, extra: Partial<OpenAICompatibleOptions> = {}) {
  return openaiCompatible({ baseURL: server.baseURL, model: `m-${Math.random()}`, retryDelayMs: 1, timeoutMs: 5000, maxRetries: 0, ...extra })
}

async function errorOf(p: Promise<unknown>): Promise<Error> {
  return p.then(
    () => new Error('no error'),
    (e: Error) => e,
  )
}

const KEY = 'sk-live-9fQ2xLm7Pz4rTt0aBcDeFgHiJk'
process.env['TE_SAFETY_KEY'] = KEY

/** Every 8-character window of every spelling of the key: none may appear in anything we print. */
export function keyFragments(key: string): string[] {
  const bearer = `Bearer ${key}`
  const spellings = [key, encodeURIComponent(bearer), Buffer.from(bearer).toString('base64'), Buffer.from(key).toString('base64')]
  const out = new Set<string>()
  for (const s of spellings) for (let i = 0; i + 8 <= s.length; i++) out.add(s.slice(i, i + 8))
  return [...out]
}

const FRAGMENTS = keyFragments(KEY)

function expectNoKey(text: string): void {
  expect(FRAGMENTS.filter((f) => text.includes(f))).toEqual([])
}

describe('the API key in error bodies', () => {
  it('never survives the snippet cut, at any offset from 280 to 320, in raw, JSON and malformed-200 bodies', async () => {
    let offset = 0
    let shape: 'raw' | 'json' | 'malformed' = 'raw'
    const server = await serve((r): ScriptedReply => {
      const text = `${'x'.repeat(offset)}${String(r.headers.authorization).slice('Bearer '.length)} trailing words`
      if (shape === 'raw') return { status: 401, raw: text }
      if (shape === 'json') return { status: 401, json: { error: { message: text } } }
      return { status: 200, raw: `{"choices": ${text}` }
    })
    const p = provider(server, { apiKeyEnv: 'TE_SAFETY_KEY' })
    for (const s of ['raw', 'json', 'malformed'] as const) {
      shape = s
      for (offset = 280; offset <= 320; offset++) {
        const err = await errorOf(p.generate(sample))
        expect(err.message).toMatch(s === 'malformed' ? /malformed JSON/ : /HTTP 401: x+/)
        expectNoKey(err.message)
        expectNoKey(String(err.stack))
      }
    }
    expect(server.hits).toBe(3 * 41)
  })

  it('scrubs a key prefix of 8+ characters the server itself cut off, and URL-encoded and base64 Bearer headers', async () => {
    const bearer = `Bearer ${KEY}`
    const bodies = [
      `${'y'.repeat(250)} ${KEY.slice(0, 12)}`, // the server's own cut, inside our snippet
      `${'y'.repeat(290)}${KEY.slice(0, 20)}`, // the server's cut just past ours: 10 characters before it
      `header was ${encodeURIComponent(bearer)}`,
      `header was ${encodeURIComponent(bearer).replace('%20', '+')}`,
      `basic dump ${Buffer.from(bearer).toString('base64')} and ${Buffer.from(KEY).toString('base64url')}`,
    ]
    const server = await serve((r) => ({ status: 400, raw: bodies[r.hit - 1] ?? '' }))
    const p = provider(server, { apiKeyEnv: 'TE_SAFETY_KEY' })
    for (const _ of bodies) {
      const err = await errorOf(p.generate(sample))
      expect(err.message).toContain('***')
      expectNoKey(err.message)
    }
  })
})

describe('the API key in successful replies', () => {
  it('is scrubbed from the output whole (text, call names, arguments, keys; raw, \\u-escaped, encoded), and parsing goes on', async () => {
    const escaped = [...KEY].map((ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')
    const args = JSON.stringify({ token: KEY, [KEY]: 1, nested: [{ b64: Buffer.from(`Bearer ${KEY}`).toString('base64') }] })
    const raw = `{"choices": [{"message": {"role": "assistant", "content": "key ${escaped} and ${encodeURIComponent(KEY)}", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "${escaped}", "arguments": ${JSON.stringify(args)}}}]}}]}`
    const server = await serve(() => ({ raw }))
    const out = await provider(server, { apiKeyEnv: 'TE_SAFETY_KEY' }).generate(sample)
    expectNoKey(JSON.stringify(out))
    expect(out.text).toBe('key *** and ***')
    expect(out.calls?.map((c) => [c.name, c.arguments])).toEqual([['***', { token: '***', '***': 1, nested: [{ b64: expect.stringMatching(/^\*\*\*[A-Za-z0-9+/=]{0,3}$/) }] }]])
  })

  it('a placeholder key under 8 characters (vLLM\'s EMPTY) leaves the reply as it is', async () => {
    process.env['TE_SAFETY_SHORT'] = 'EMPTY'
    const server = await serve(() => ({ content: 'EMPTY list', toolCalls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{"a":"EMPTY"}' } }] }))
    const out = await provider(server, { apiKeyEnv: 'TE_SAFETY_SHORT' }).generate(sample)
    delete process.env['TE_SAFETY_SHORT']
    expect([out.text, out.calls?.[0]?.arguments]).toEqual(['EMPTY list', { a: 'EMPTY' }])
  })

  it('scrubDeep: in place, keys renamed in order as own properties, 100,000 levels deep without recursion', () => {
    const v = JSON.parse(`{"a": "x${KEY}", "${KEY}": [1, "${KEY}"], "__proto__": {"k": "${KEY}"}, "z": null}`)
    expect(scrubDeep(v, KEY)).toBe(v)
    expect(Object.keys(v)).toEqual(['a', '***', '__proto__', 'z'])
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype)
    expect(JSON.stringify(v)).toBe('{"a":"x***","***":[1,"***"],"__proto__":{"k":"***"},"z":null}')
    let deep: unknown = KEY
    for (let i = 0; i < 100_000; i++) deep = i % 2 ? [deep] : { d: deep }
    let inner: unknown = scrubDeep(deep, KEY)
    while (typeof inner === 'object' && inner !== null) inner = Array.isArray(inner) ? inner[0] : (inner as { d: unknown }).d
    expect(inner).toBe('***')
    const plain = { a: 'nothing secret' }
    expect(scrubDeep(plain, undefined)).toEqual({ a: 'nothing secret' })
  })
})

describe('maxResponseBytes', () => {
  it('rejects a cap that would turn itself off (0, negative, NaN) when the provider is made', () => {
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => openaiCompatible({ baseURL: 'http://127.0.0.1:9/v1', model: 'm', maxResponseBytes: bad })).toThrow(/maxResponseBytes must be a positive, finite number/)
    }
  })

  it('abandons an endless body once it passes the cap: one errored sample with the true reason, not retried', async () => {
    const server = await serve(() => ({ endless: `"${'z'.repeat(16 * 1024)}",` }))
    const err = await errorOf(provider(server, { maxResponseBytes: 256 * 1024, maxRetries: 3, timeoutMs: 10_000 }).generate(sample))
    expect(err.message).toMatch(/: response body exceeded 256 KB$/)
    expect(server.hits).toBe(1)
  })

  it('refuses a body whose Content-Length is over the cap, and accepts one under it', async () => {
    const big = JSON.stringify({ choices: [{ message: { role: 'assistant', content: 'w'.repeat(5000) } }] })
    const server = await serve(() => ({ raw: big }))
    const err = await errorOf(provider(server, { maxResponseBytes: 4096 }).generate(sample))
    expect(err.message).toMatch(/response body exceeded 4 KB$/)
    const out = await provider(server, { maxResponseBytes: 8192 }).generate(sample)
    expect(out.text).toHaveLength(5000)
  })
})
