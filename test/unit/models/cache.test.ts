import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { Sample } from '../../../src/data/types.js'
import { cached, generationKey } from '../../../src/models/cache.js'
import { local } from '../../../src/models/local.js'
import { openaiCompatible } from '../../../src/models/openai-compatible.js'
import { record } from '../../../src/models/record.js'
import { replay } from '../../../src/models/replay.js'
import type { ModelOutput, ModelProvider } from '../../../src/models/types.js'
import { ensureFixtureModel } from '../../../fixtures/build-models.mjs'
import { startOpenAIServer, type OpenAIServer } from '../../helpers/openai-server.js'

const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }]
const sample = (id: string, content = `Weather in city ${id}?`): Sample => ({ id, messages: [{ role: 'user', content }], tools, expected: [] })
const tmp = () => mkdtempSync(join(tmpdir(), 'te-cache-'))

/** A provider that counts its calls and answers with the question. */
function counting(id = 'fake', settings: Record<string, unknown> = {}) {
  const p = {
    id,
    settings,
    calls: 0,
    async generate(s: Sample): Promise<ModelOutput> {
      p.calls++
      if (String(s.messages[0]?.content).includes('fail')) throw new Error('model failed')
      return { text: `answer: ${String(s.messages[0]?.content)}`, usage: { completionTokens: 3 } }
    },
  }
  return p
}

let servers: OpenAIServer[] = []
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()))
  servers = []
})

describe('cached()', () => {
  it('answers a re-run from disk without calling the endpoint', async () => {
    const server = await startOpenAIServer((r) => ({ content: `re: ${r.body.messages[0].content}` }))
    servers.push(server)
    const dir = tmp()
    const endpoint = () => openaiCompatible({ baseURL: server.baseURL, model: 'm' })
    const samples = Array.from({ length: 5 }, (_, i) => sample(String(i)))

    const first = cached(endpoint(), { dir })
    const a = await Promise.all(samples.map((s) => first.generate(s)))
    expect(server.hits).toBe(5)
    expect(first.stats).toEqual({ hits: 0, misses: 5, corrupt: 0, regenerated: 0, unwritable: 0 })

    const second = cached(endpoint(), { dir })
    const b = await Promise.all(samples.map((s) => second.generate(s)))
    expect(server.hits).toBe(5)
    expect(second.stats).toEqual({ hits: 5, misses: 0, corrupt: 0, regenerated: 0, unwritable: 0 })
    expect(b).toEqual(a.map((o) => ({ ...o, cached: true }))) // the same outputs, marked as cache hits

    // Other settings are another key.
    await cached(openaiCompatible({ baseURL: server.baseURL, model: 'm', temperature: 0.7 }), { dir }).generate(samples[0] as Sample)
    expect(server.hits).toBe(6)
  })

  it('keys on identity, settings, messages and tools, not on the sample id or key order', () => {
    const p = { id: 'x', settings: { a: 1, b: 2 } }
    const k = generationKey(p, sample('1', 'q'))
    expect(generationKey(p, { ...sample('2', 'q') })).toBe(k)
    expect(generationKey({ id: 'x', settings: { b: 2, a: 1 } }, sample('1', 'q'))).toBe(k)
    expect(generationKey({ id: 'y', settings: p.settings }, sample('1', 'q'))).not.toBe(k)
    expect(generationKey({ id: 'x', settings: { a: 1, b: 3 } }, sample('1', 'q'))).not.toBe(k)
    expect(generationKey(p, sample('1', 'q2'))).not.toBe(k)
    expect(generationKey(p, { ...sample('1', 'q'), tools: [] })).not.toBe(k)
    expect(k).toMatch(/^[0-9a-f]{64}$/)
  })

  it('detects truncated, altered and foreign entries and regenerates them', async () => {
    const dir = tmp()
    const inner = counting()
    const s = sample('1')
    const c = cached(inner, { dir })
    const good = await c.generate(s)
    const path = c.entryPath(s)
    const whole = readFileSync(path, 'utf8')

    const damage = [
      whole.slice(0, whole.length - 10), // truncated
      whole.replace('answer', 'answeR'), // same length, wrong checksum
      whole.split('\n')[0] as string, // header only
      'not json at all',
      readFileSync(path, 'utf8').replace(/"key":"[0-9a-f]+"/, `"key":"${'0'.repeat(64)}"`), // another key's entry
    ]
    for (const [i, bad] of damage.entries()) {
      writeFileSync(path, bad)
      const again = cached(inner, { dir })
      expect(await again.generate(s)).toEqual({ ...good, cacheRegenerated: 'cache entry corrupt' })
      expect(again.stats).toEqual({ hits: 0, misses: 1, corrupt: 1, regenerated: 1, unwritable: 0 })
      expect(inner.calls).toBe(i + 2)
      expect(readFileSync(path, 'utf8')).toBe(whole)
    }
  })

  it('does not cache failures, and shares one generation between concurrent identical requests', async () => {
    const dir = tmp()
    const inner = counting()
    const c = cached(inner, { dir })
    await expect(c.generate(sample('f', 'please fail'))).rejects.toThrow('model failed')
    await expect(c.generate(sample('f', 'please fail'))).rejects.toThrow('model failed')
    expect(inner.calls).toBe(2)
    await Promise.all([c.generate(sample('a', 'same')), c.generate(sample('b', 'same'))])
    expect(inner.calls).toBe(3)
  })

  it('makes a warm re-run of the local model call no generate at all', async () => {
    const dir = tmp()
    const path = await ensureFixtureModel('scripted')
    const model = local(path, { maxNewTokens: 40 })
    const samples = ['Weather in Paris?', 'Time in London?', 'Hello'].map((q, i) => sample(`l${i}`, q))
    const cold = await Promise.all(samples.map((s) => cached(model, { dir }).generate(s)))
    const before = await model.stats()
    const warm = cached(local(path, { maxNewTokens: 40 }), { dir })
    expect(await Promise.all(samples.map((s) => warm.generate(s)))).toEqual(cold.map((o) => ({ ...o, cached: true })))
    expect((await model.stats()).rows).toBe(before.rows)
    expect(warm.stats.hits).toBe(3)
  })
})

describe('record()', () => {
  it('writes replay lines that replay() turns back into the same outputs', async () => {
    const server = await startOpenAIServer((r) => {
      const q = String(r.body.messages[0].content)
      if (q.includes('native')) {
        return {
          content: null,
          toolCalls: [
            { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris", "n": 2.0}' } },
            { id: 'c2', type: 'function', function: { name: 'get_weather', arguments: '{"city": ' } },
          ],
        }
      }
      if (q.includes('broken')) return { status: 400, json: { error: { message: 'bad request' } } }
      return { content: '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Rome"}}\n</tool_call>' }
    })
    servers.push(server)
    const file = join(tmp(), 'rec', 'outputs.jsonl')
    const skipping: ModelProvider = {
      id: 'skipper',
      async generate(s) {
        return s.id === 'skip' ? { skipped: 'prompt of 9000 tokens is over maxPromptTokens (8000)' } : endpoint.generate(s)
      },
    }
    const endpoint = openaiCompatible({ baseURL: server.baseURL, model: 'm', format: 'hermes', maxRetries: 0 })
    const rec = record(skipping, file)
    const samples = [sample('native', 'native calls'), sample('text', 'text call'), sample('skip', 'long'), sample('err', 'broken')]
    const results = await Promise.allSettled(samples.map((s) => rec.generate(s)))
    await rec.close?.()

    const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)
    const byId = new Map(lines.map((l) => [l['id'], l]))
    expect(lines).toHaveLength(4)
    expect(byId.get('native')?.['tool_calls']).toEqual([
      { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris", "n": 2.0}' } },
      { id: 'c2', type: 'function', function: { name: 'get_weather', arguments: '{"city": ' } },
    ])
    expect(byId.get('text')).toEqual({
      id: 'text',
      output: '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Rome"}}\n</tool_call>',
      format: 'hermes',
    })
    expect(byId.get('skip')).toEqual({ id: 'skip', skipped: 'prompt of 9000 tokens is over maxPromptTokens (8000)' })
    expect(byId.get('err')?.['error']).toMatch(/HTTP 400: bad request/)

    const replayed = replay(file)
    for (const [i, s] of samples.entries()) {
      const r = results[i]
      if (r?.status === 'fulfilled') {
        const again = await replayed.generate(s)
        expect(again.calls?.map(({ raw: _raw, ...c }) => c)).toEqual(r.value.calls?.map(({ raw: _raw, ...c }) => c))
        if (r.value.calls === undefined) expect(again.text).toBe(r.value.text)
        expect(again.skipped).toBe(r.value.skipped)
      } else {
        await expect(replayed.generate(s)).rejects.toThrow(/HTTP 400: bad request/)
      }
    }
  })

  it('starts the file afresh on its first write unless asked to append', async () => {
    const file = join(tmp(), 'out.jsonl')
    writeFileSync(file, '{"id": "old", "output": "x"}\n')
    const fresh = record(counting(), file)
    await fresh.generate(sample('1'))
    await fresh.generate(sample('2'))
    expect(readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l).id)).toEqual(['1', '2'])
    const more = record(counting(), file, { append: true })
    await more.generate(sample('3'))
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(3)
  })
})
