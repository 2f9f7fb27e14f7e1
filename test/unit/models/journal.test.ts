// The run journal in process (models/journal.ts): what a run writes, what the next run after an interruption takes
// from it, what it drops (a cut line, a finished run's journal), and the sample timeout derived from the provider.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { Sample } from '../../../src/data/types.js'
import { cached } from '../../../src/models/cache.js'
import { journaled, journalFolder, journalFor, openRunJournal, resumeEntries, retireRunJournal } from '../../../src/models/journal.js'
import { local } from '../../../src/models/local.js'
import { openaiCompatible } from '../../../src/models/openai-compatible.js'
import { replay } from '../../../src/models/replay.js'
import { record } from '../../../src/models/record.js'
import type { ModelOutput, ModelProvider } from '../../../src/models/types.js'
import { configuredTestTimeout, defaultSampleTimeout } from '../../../src/eval/timeout.js'
import { describeEval } from '../../../src/eval/describe-eval.js'
import { planSuite } from '../../../src/eval/suite-plan.js'
import { TestRunner } from 'vitest'
import { startOpenAIServer, type OpenAIServer } from '../../helpers/openai-server.js'

const sample = (id: string, trial?: number): Sample => ({ id, messages: [{ role: 'user', content: id }], expected: [], ...(trial === undefined ? {} : { trial }) })

/** A provider that answers each sample with its id (Infinity in an argument), counting what it was asked. */
function counting(): ModelProvider & { asked: string[] } {
  const asked: string[] = []
  return {
    id: 'counting',
    settings: { t: 0 },
    resumable: true,
    asked,
    async generate(s): Promise<ModelOutput> {
      const key = s.trial === undefined ? s.id : `${s.id}#${s.trial}`
      asked.push(key)
      if (s.id === 'fails') throw new Error('backend down')
      if (s.id === 'skip') return { skipped: 'too long' }
      return { calls: [{ name: 'f', arguments: { id: s.id, big: Infinity }, argumentsValid: true, format: 'json' }], usage: { latencyMs: 5 } }
    },
  }
}

let root: string
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'journal-'))
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

const linesIn = (dir: string) => readdirSync(dir).flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n').filter(Boolean))

describe('the run journal', () => {
  it('journals each answer at once; the next run after an interruption answers from it and asks only for the rest', async () => {
    const folder = journalFolder(join(root, 'a'))
    // Nothing journaled yet: nothing is created until a worker writes (a replay-only project gets no folder).
    expect(openRunJournal(folder)).toEqual({ resumable: 0, dropped: 0 })
    expect(existsSync(join(root, 'a'))).toBe(false)
    const first = counting()
    const m1 = journaled(first, folder)
    await m1.generate(sample('s1'))
    await m1.generate(sample('s2', 1))
    await expect(m1.generate(sample('fails'))).rejects.toThrow('backend down')
    expect(await m1.generate(sample('skip'))).toEqual({ skipped: 'too long' })
    // Durable before the next generation: two whole lines (errors and skips are asked again, never journaled).
    expect(linesIn(join(folder, 'current'))).toHaveLength(2)

    // The run was cut short: the next one starts.
    expect(openRunJournal(folder)).toEqual({ resumable: 2, dropped: 0 })
    const second = counting()
    const m2 = journaled(second, folder)
    const resumed = await m2.generate(sample('s1'))
    expect(resumed.resumed).toBe(1)
    expect(resumed.calls?.[0]?.arguments).toEqual({ id: 's1', big: Infinity }) // kept exactly, as the cache keeps it
    expect(resumed.usage).toEqual({ latencyMs: 5 })
    // A copy each time: scoring one answer cannot change the next.
    ;(resumed.calls as { arguments: Record<string, unknown> }[])[0]!.arguments['id'] = 'changed'
    expect((await m2.generate(sample('s1'))).calls?.[0]?.arguments['id']).toBe('s1')
    // Each trial is its own generation: trial 1 was journaled, trial 2 was not.
    expect((await m2.generate(sample('s2', 1))).resumed).toBe(1)
    expect((await m2.generate(sample('s2', 2))).resumed).toBeUndefined()
    await m2.generate(sample('s3'))
    expect(second.asked).toEqual(['s2#2', 's3'])
  })

  it('a line cut by a kill is dropped and its sample asked again; a finished run leaves nothing to replay', async () => {
    const folder = journalFolder(join(root, 'b'), { index: 2, count: 3 })
    expect(folder).toContain('shard-2-of-3')
    openRunJournal(folder)
    const m1 = journaled(counting(), folder)
    await m1.generate(sample('whole'))
    await m1.generate(sample('cut'))
    const [file] = readdirSync(join(folder, 'current'))
    const path = join(folder, 'current', file as string)
    truncateSync(path, readFileSync(path).length - 7)
    writeFileSync(join(folder, 'current', 'garbage.jsonl'), '{"k":"not a key","o":{}}\nnot json\n')
    expect(openRunJournal(folder)).toEqual({ resumable: 1, dropped: 3 })
    const loaded = resumeEntries(folder)
    expect([...loaded.outputs.keys()]).toHaveLength(1)
    expect(loaded.dropped).toBe(3)
    const second = counting()
    const m2 = journaled(second, folder)
    expect((await m2.generate(sample('whole'))).resumed).toBe(1)
    expect((await m2.generate(sample('cut'))).resumed).toBeUndefined()
    expect(second.asked).toEqual(['cut'])

    // A filtered run (-t) that finishes retires its own generations only: the unfinished run's stay for the whole run.
    retireRunJournal(folder, { keepResume: true })
    expect(openRunJournal(folder)).toEqual({ resumable: 1, dropped: 3 })
    expect((await journaled(counting(), folder).generate(sample('cut'))).resumed).toBeUndefined()

    // This run finishes: its journal is retired, and the next run asks for everything (a changed model is not replayed).
    retireRunJournal(folder)
    expect(openRunJournal(folder)).toEqual({ resumable: 0, dropped: 0 })
    const third = counting()
    const m3 = journaled(third, folder)
    expect((await m3.generate(sample('whole'))).resumed).toBeUndefined()
    expect(third.asked).toEqual(['whole'])
  })

  it('holds no request and no API key: the key hash and the output only', async () => {
    const KEY = 'sk-journal-Zq8w7e6r5t4y3u2i1o0p'
    const server: OpenAIServer = await startOpenAIServer(() => ({ content: 'fine' }))
    process.env['TE_JOURNAL_KEY'] = KEY
    try {
      const folder = journalFolder(join(root, 'c'))
      openRunJournal(folder)
      const model = journaled(openaiCompatible({ baseURL: server.baseURL, model: 'm', apiKeyEnv: 'TE_JOURNAL_KEY' }), folder)
      await model.generate({ ...sample('secret prompt'), tools: [{ type: 'function', function: { name: 'tool_x', parameters: {} } }] })
      expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`)
      const text = linesIn(join(folder, 'current')).join('\n')
      expect(text).toContain('"text":"fine"')
      for (const secret of [KEY.slice(3, 15), 'secret prompt', 'tool_x', 'Bearer']) expect(text).not.toContain(secret)
    } finally {
      delete process.env['TE_JOURNAL_KEY']
      await server.close()
    }
  })

  it('a journal that cannot be written costs the resume, never the sample: one warning', async () => {
    const folder = journalFolder(join(root, 'unwritable'))
    mkdirSync(join(root, 'unwritable', '.tool-evals', 'journal'), { recursive: true })
    writeFileSync(folder, 'a file where the folder goes')
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    try {
      const model = journaled(counting(), folder)
      expect((await model.generate(sample('u1'))).calls?.[0]?.name).toBe('f')
      expect((await model.generate(sample('u2'))).calls?.[0]?.name).toBe('f')
      const warnings = stderr.mock.calls.map((c) => String(c[0])).filter((l) => l.includes('the run journal'))
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).toContain('an interrupted run will not resume')
    } finally {
      stderr.mockRestore()
    }
  })

  it('is on for resumable providers when the reporter set its folder, and off when told', () => {
    const env = { TOOL_EVALS_JOURNAL: '/j' }
    const endpoint = openaiCompatible({ baseURL: 'http://127.0.0.1:9/v1', model: 'm' })
    expect(journalFor(endpoint, undefined, env)).toBe('/j')
    expect(journalFor(local('./nowhere'), undefined, env)).toBe('/j')
    expect(journalFor(endpoint, false, env)).toBeUndefined()
    expect(journalFor(endpoint, undefined, { ...env, TOOL_EVALS_RESUME: '0' })).toBeUndefined()
    expect(journalFor(endpoint, true, {})).toBeUndefined() // no reporter: nobody would retire it
    const replayed = replay(join(root, 'none.jsonl'))
    expect(journalFor(replayed, undefined, env)).toBeUndefined()
    expect(journalFor(replayed, true, env)).toBe('/j')
    expect(journalFor(cached(endpoint), undefined, env)).toBeUndefined() // the cache keeps outputs already
    expect(journalFor(record(endpoint, join(root, 'rec.jsonl')), undefined, env)).toBeUndefined() // so does a recording
  })
})

// describeEval in this file: the timeout each sample's test got.
const timeouts: Record<string, number | undefined> = {}
const bounded: ModelProvider = { id: 'bounded', generationTimeoutMs: 20_000, async generate() { return { text: '' } } }
const data = [{ id: 't1', messages: [{ role: 'user' as const, content: 'x' }], expected: [] }]
describeEval('derived timeout', { data, model: bounded, assert: () => void (timeouts['derived'] = TestRunner.getCurrentTest()?.timeout) })
describeEval('given timeout', { data, model: bounded, timeout: 1234, assert: () => void (timeouts['given'] = TestRunner.getCurrentTest()?.timeout) })

describe('the default sample timeout', () => {
  it("is the provider's bound plus 5 s; describeEval's `timeout` wins, and so does a testTimeout the user set", () => {
    expect(timeouts).toEqual({ derived: 25_000, given: 1234 })
    expect(() => planSuite('bad', { data, model: bounded, resume: 'yes' as never })).toThrow('describeEval("bad"): option `resume` must be true or false')
    expect(configuredTestTimeout({ TOOL_EVALS_TEST_TIMEOUT: '60000' })).toBe(60_000)
    expect(configuredTestTimeout({ TOOL_EVALS_TEST_TIMEOUT: 'soon' })).toBeUndefined()
    expect(configuredTestTimeout({})).toBeUndefined()
  })


  const plan = { concurrency: 4 }
  it('covers every attempt and back-off of an endpoint, a local model loading, trial rounds and agent steps', () => {
    const endpoint = openaiCompatible({ baseURL: 'http://127.0.0.1:9/v1', model: 'm' })
    // 5 attempts of 120 s, 4 back-offs of up to 60 s, 5 s to score.
    expect(defaultSampleTimeout(endpoint, {}, plan)).toBe(845_000)
    const quick = openaiCompatible({ baseURL: 'http://127.0.0.1:9/v1', model: 'm', timeoutMs: 10_000, maxRetries: 1, maxRetryDelayMs: 1000 })
    expect(defaultSampleTimeout(quick, {}, plan)).toBe(26_000)
    expect(defaultSampleTimeout(cached(quick), {}, plan)).toBe(26_000)
    // 5 minutes to load, two batches of 512 steps at 0.5 s.
    expect(defaultSampleTimeout(local('./nowhere'), {}, plan)).toBe(300_000 + 512_000 + 5000)
    // 5 trials, 4 at a time: two rounds; an agent of 3 steps a turn over 2 turns: 6 generations.
    expect(defaultSampleTimeout(quick, {}, { concurrency: 4, trials: 5 })).toBe(2 * 21_000 + 5000)
    expect(defaultSampleTimeout(quick, { turns: [[{ role: 'user', content: 'more' }]] }, { concurrency: 4, maxSteps: 3 })).toBe(6 * 21_000 + 5000)
    // A provider that does not say: Vitest's testTimeout.
    expect(defaultSampleTimeout(replay(join(root, 'none.jsonl')), {}, plan)).toBeUndefined()
  })
})
