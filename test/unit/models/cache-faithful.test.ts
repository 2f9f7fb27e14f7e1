// The cache gives back exactly what the provider returned (non-finite numbers included), survives an entry path it
// cannot read, and keys every own property (`__proto__` too); data lines keep such keys and reject non-finite
// expected values.
import { mkdirSync, mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { callsFromOpenAI } from '../../../src/models/replay.js'
import { formatSampleError, parseJsonlSamples } from '../../../src/data/load.js'
import { samplesFromObject } from '../../../src/data/sample.js'
import type { Sample } from '../../../src/data/types.js'
import { cached, generationKey, stableJson } from '../../../src/models/cache.js'
import { openaiCompatible } from '../../../src/models/openai-compatible.js'
import { completeCalls, type ModelOutput } from '../../../src/models/types.js'
import { scoreSample } from '../../../src/score/nemo.js'
import { startOpenAIServer, type OpenAIServer } from '../../helpers/openai-server.js'

const tmp = () => mkdtempSync(join(tmpdir(), 'te-cache-faithful-'))
const sample = (content: string): Sample => ({ id: content, messages: [{ role: 'user', content }], expected: [] })

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
}

let servers: OpenAIServer[] = []
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()))
  servers = []
})

describe('non-finite numbers', () => {
  it('a cached output scores exactly as the fresh one: 1e999 in native arguments stays Infinity warm and cold', async () => {
    const args = '{"big": 1e999, "small": -1e999, "list": [1e999, 2], "__proto__": {"n": 1e999}}'
    const server = await startOpenAIServer(() => ({ content: null, toolCalls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: args } }] }))
    servers.push(server)
    const dir = tmp()
    const endpoint = () => openaiCompatible({ baseURL: server.baseURL, model: 'inf', maxRetries: 0 })
    const s = sample('overflow')
    const cold = await cached(endpoint(), { dir }).generate(s)
    const warmCache = cached(endpoint(), { dir })
    const warm = await warmCache.generate(s)
    expect(warmCache.stats.hits).toBe(1)
    expect(server.hits).toBe(1)
    expect(cold.calls?.[0]?.arguments['big']).toBe(Infinity)
    expect(warm).toEqual({ ...cold, cached: true }) // toEqual tells Infinity from null; a hit is marked
    expect(Object.getOwnPropertyDescriptor(warm.calls?.[0]?.arguments, '__proto__')?.value).toEqual({ n: Infinity })
    // Scored against every plausible expectation, cold and warm agree.
    const expectations = [
      [{ name: 'f', arguments: { big: null, small: null, list: [null, 2] } }],
      [{ name: 'f', arguments: JSON.parse(args.replace(/-?1e999/g, '0')) as Record<string, unknown> }],
      [{ name: 'f' }],
    ]
    for (const expected of expectations) {
      expect(scoreSample(completeCalls(warm.calls ?? [], undefined), expected)).toEqual(scoreSample(completeCalls(cold.calls ?? [], undefined), expected))
    }
    // The same rule as replay's native calls: an overflowing literal is Infinity, not null.
    const replayed = callsFromOpenAI([{ type: 'function', function: { name: 'f', arguments: args } }])
    expect(typeof replayed === 'string' ? replayed : replayed[0]?.arguments['big']).toBe(Infinity)
  })

  it('a data line whose expected value overflows to Infinity is an invalid sample naming file, line and field', () => {
    const good = JSON.stringify({ id: 'ok', messages: [{ role: 'user', content: 'q' }], expected: [{ name: 'f', arguments: { x: 1 } }] })
    const text = `${good}\n{"id": "inf", "messages": [{"role": "user", "content": "q"}], "expected": [{"name": "f", "arguments": {"a": {"b": [1, 1e999]}}}]}\n{"id": "str", "messages": [{"role": "user", "content": "q"}], "expected": [{"name": "f", "arguments": "{\\"x\\": -1e999}"}]}\n`
    const entries = parseJsonlSamples(text, 'data/overflow.jsonl')
    expect(entries[0]?.sample?.id).toBe('ok')
    const errors = entries.slice(1).map((e) => (e.error ? formatSampleError(e.error) : 'no error'))
    expect(errors[0]).toMatch(/data\/overflow\.jsonl:2.*field `expected\[0\]\.arguments\.a\.b\[1\]`: number out of range/)
    expect(errors[1]).toMatch(/data\/overflow\.jsonl:3.*field `expected\[0\]\.arguments\.x`: number out of range/)
  })
})

describe('unusable entries', () => {
  it('an entry path that is a directory: the sample is regenerated and marked, counted, and no .tmp file is left', async () => {
    const dir = tmp()
    let calls = 0
    const inner = {
      id: 'dir-test',
      async generate(): Promise<ModelOutput> {
        calls++
        return { text: 'fresh' }
      },
    }
    const c = cached(inner, { dir })
    const s = sample('q')
    mkdirSync(join(c.entryPath(s), 'inner'), { recursive: true })
    const out = await c.generate(s)
    expect(out.text).toBe('fresh')
    expect(out.cacheRegenerated).toMatch(/cache entry unreadable \(EISDIR\); not rewritten: cache entry could not be written/)
    expect(c.stats).toEqual({ hits: 0, misses: 1, corrupt: 1, regenerated: 1, unwritable: 1 })
    expect(calls).toBe(1)
    expect(filesUnder(dir).filter((f) => f.endsWith('.tmp'))).toEqual([])
    // The next run regenerates it again, as clearly: never an errored sample.
    await expect(cached(inner, { dir }).generate(s)).resolves.toMatchObject({ text: 'fresh', cacheRegenerated: expect.stringMatching(/EISDIR/) })
    expect(filesUnder(dir).filter((f) => f.endsWith('.tmp'))).toEqual([])
  })
})

describe('keys with __proto__', () => {
  it('stableJson keeps __proto__ and constructor as keys, so such samples get different cache keys', () => {
    const withProto = JSON.parse('{"b": 1, "__proto__": {"x": 1}, "constructor": 2}') as Record<string, unknown>
    expect(stableJson(withProto)).toBe('{"__proto__":{"x":1},"b":1,"constructor":2}')
    expect(stableJson(JSON.parse('{"__proto__": 1}'))).not.toBe(stableJson({}))
    const tool = (parameters: unknown) => [{ type: 'function', function: { name: 'f', parameters: parameters as Record<string, unknown> } }]
    const p = { id: 'm' }
    const a: Sample = { ...sample('q'), tools: tool(JSON.parse('{"type": "object", "__proto__": {"a": 1}}')) }
    const b: Sample = { ...sample('q'), tools: tool(JSON.parse('{"type": "object", "__proto__": {"a": 2}}')) }
    const none: Sample = { ...sample('q'), tools: tool({ type: 'object' }) }
    expect(new Set([generationKey(p, a), generationKey(p, b), generationKey(p, none)]).size).toBe(3)
  })

  it("a sample line's extra __proto__ field stays an own property and changes no prototype", () => {
    const line = JSON.parse('{"id": "p", "messages": [{"role": "user", "content": "q"}], "expected": [], "__proto__": {"polluted": true}, "constructor": "c"}') as unknown
    const result = samplesFromObject(line)
    const extra = result.samples?.[0]?.extra as Record<string, unknown>
    expect(Object.getPrototypeOf(extra)).toBe(Object.prototype)
    expect(Object.keys(extra)).toEqual(['__proto__', 'constructor'])
    expect(Object.getOwnPropertyDescriptor(extra, '__proto__')?.value).toEqual({ polluted: true })
    expect((extra as { polluted?: unknown }).polluted).toBeUndefined()
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined()
  })
})
