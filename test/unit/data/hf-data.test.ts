// `hf://` datasets against a Hub-shaped server on 127.0.0.1: splits from JSONL and Parquet, errors that name the
// file, row and field, the token, the disk cache and HF_HUB_OFFLINE, `limit` and `maxSamples`.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { gzipSync } from 'node:zlib'
import { parquetWriteBuffer } from 'hyparquet-writer'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { chooseSplitFiles, splitOfPath, type RepoFile } from '../../../src/data/hf-splits.js'
import { loadHfDataset, type HubConfig } from '../../../src/data/hf.js'
import { loadData, loadDataAsync } from '../../../src/data/load.js'
import { readParquetRows } from '../../../src/data/parquet.js'
import type { DataEntry } from '../../../src/data/types.js'
import { sampleParquet, startHubServer, type HubServer } from '../../helpers/hub-server.js'

const REPO = 'acme/tool-calls'
const URI = `hf://datasets/${REPO}`
const TOKEN = 'hf_SeCrEtToKeN1234567890'
const weatherTool = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }

const ask = (text: string) => [{ role: 'user', content: text }]
const call = (city: string) => [{ name: 'get_weather', arguments: { city } }]

/** The validation split: 3 lines, the second a dialogue of two tool-calling turns (two samples). */
const VALIDATION_JSONL = [
  JSON.stringify({ id: 'v1', messages: ask('weather in Paris?'), tools: [weatherTool], expected: call('Paris') }),
  JSON.stringify({
    id: 'v2',
    tools: [weatherTool],
    messages: [
      { role: 'user', content: 'Rome, then Oslo' },
      { role: 'assistant', tool_calls: [{ function: { name: 'get_weather', arguments: '{"city":"Rome"}' } }] },
      { role: 'tool', content: 'sunny' },
      { role: 'assistant', tool_calls: [{ function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] },
    ],
  }),
  JSON.stringify({ id: 'v3', messages: ask('hello'), expected: [] }),
].join('\n')

/** The test split, in Parquet: the third row's first expected call has no name. */
const TEST_PARQUET = sampleParquet([
  { id: 't1', messages: ask('weather in Lima?'), tools: [weatherTool], expected: call('Lima') },
  { id: 't2', messages: ask('weather in Quito?'), tools: [weatherTool], expected: call('Quito') },
  { id: 't3', messages: ask('weather in Bogota?'), tools: [weatherTool], expected: [{ arguments: { city: 'Bogota' } }] },
  { id: 't4', messages: ask('hi'), expected: [] },
])

const FILES = {
  'README.md': '# acme/tool-calls\n',
  'data/validation.jsonl': VALIDATION_JSONL,
  'data/test-00000-of-00001.parquet': TEST_PARQUET,
}

let server: HubServer
let cacheDir: string
const hub = (extra: Partial<HubConfig> = {}): HubConfig => ({ endpoint: server.url, offline: false, cacheDir, token: TOKEN, ...extra })
const ids = (entries: DataEntry[]) => entries.map((e) => e.sample?.id ?? `error:${e.error?.where}`)

beforeAll(async () => {
  server = await startHubServer({ repo: REPO, files: FILES, token: TOKEN, pageSize: 2 })
})
afterAll(() => server.close())
beforeEach(() => {
  cacheDir = mkdtempSync(join(tmpdir(), 'hf-cache-'))
  server.requests.length = 0
})
afterEach(() => rmSync(cacheDir, { recursive: true, force: true }))

describe('hf:// datasets', () => {
  it('loads a JSONL split (dialogues expanded) and a Parquet split through the tree API and resolve URLs', async () => {
    const validation = await loadHfDataset(URI, { split: 'validation' }, hub())
    expect(ids(validation)).toEqual(['v1', 'v2#1', 'v2#2', 'v3'])
    expect(validation.every((e) => e.sample)).toBe(true)
    expect(validation[0]?.sample?.expected).toEqual(call('Paris'))
    expect(validation[0]?.sample?.source).toEqual({ file: `${URI}/data/validation.jsonl`, line: 1 })

    const test = await loadHfDataset(URI, { split: 'test' }, hub())
    expect(ids(test).slice(0, 2)).toEqual(['t1', 't2'])
    expect(test[0]?.sample?.tools).toEqual([weatherTool]) // JSON text column decoded
    expect(test[1]?.sample?.expected).toEqual(call('Quito'))
    expect(test[1]?.sample?.extra).toEqual({ difficulty: 1 }) // INT64 as a number
    // The tree came in pages (pageSize 2), and each file was fetched from its resolve URL.
    expect(server.requests.filter((r) => r.path.startsWith('/api/datasets/')).length).toBeGreaterThan(1)
    expect(server.requests.map((r) => r.path)).toContain(`/datasets/${REPO}/resolve/main/data/test-00000-of-00001.parquet`)
  })

  it('a bad Parquet row is one errored entry naming the file, row and field; the others load', async () => {
    const test = await loadHfDataset(URI, { split: 'test' }, hub())
    expect(test).toHaveLength(4)
    const bad = test[2]?.error
    expect(bad).toMatchObject({ where: `${URI}/data/test-00000-of-00001.parquet row 2`, id: 't3', field: 'expected[0].name' })
    expect(test[3]?.sample?.id).toBe('t4')
  })

  it('a missing split is a clear error listing the splits available; no split at all says so too', async () => {
    const [missing, ...rest] = await loadHfDataset(URI, { split: 'train' }, hub())
    expect(rest).toEqual([])
    expect(missing?.error).toMatchObject({ where: URI, field: 'split' })
    expect(missing?.error?.message).toBe('split "train" not found; splits available: test, validation')
    const [none] = await loadHfDataset(URI, {}, hub())
    expect(none?.error?.message).toBe('missing: give the split to read; splits available: test, validation')
    // A synonym finds its canonical split.
    expect(ids(await loadHfDataset(URI, { split: 'dev' }, hub()))[0]).toBe('v1')
  })

  it('sends HF_TOKEN as a bearer token, and never shows it in an error, even when the server echoes it', async () => {
    await loadHfDataset(URI, { split: 'validation' }, hub())
    expect(server.requests.length).toBeGreaterThan(0)
    expect(server.requests.every((r) => r.authorization === `Bearer ${TOKEN}`)).toBe(true)

    const wrong = `${TOKEN}-revoked`
    const [denied] = await loadHfDataset(URI, { split: 'validation' }, hub({ token: wrong }))
    expect(denied?.error?.message).toContain('HTTP 401')
    expect(denied?.error?.message).toContain('Authorization header (***)') // the echo, scrubbed
    expect(JSON.stringify(denied)).not.toContain(TOKEN.slice(3))

    const [anonymous] = await loadHfDataset(URI, { split: 'validation' }, hub({ token: undefined }))
    expect(anonymous?.error?.message).toContain('set HF_TOKEN')
  })

  it('follows the Hub\'s redirect to its CDN without the token (another origin)', async () => {
    const cdn = await startHubServer({ repo: REPO, files: FILES })
    const hubSide = await startHubServer({ repo: REPO, files: FILES, token: TOKEN, cdn: cdn.url })
    try {
      const entries = await loadHfDataset(URI, { split: 'test' }, hub({ endpoint: hubSide.url }))
      expect(ids(entries).slice(0, 2)).toEqual(['t1', 't2'])
      expect(cdn.requests.map((r) => r.path)).toEqual(['/cdn/data/test-00000-of-00001.parquet'])
      expect(cdn.requests[0]?.authorization).toBeUndefined()
    } finally {
      await cdn.close()
      await hubSide.close()
    }
  })

  it('caches files on disk: HF_HUB_OFFLINE reads the cache with the server gone; offline without a cache is a clear error', async () => {
    const own = await startHubServer({ repo: REPO, files: FILES })
    try {
      const online = await loadHfDataset(URI, { split: 'test' }, hub({ endpoint: own.url }))
      const downloads = () => own.requests.filter((r) => r.path.includes('/resolve/')).length
      expect(downloads()).toBe(1)
      // Online again: the tree is listed, the unchanged file is not fetched again.
      await loadHfDataset(URI, { split: 'test' }, hub({ endpoint: own.url }))
      expect(downloads()).toBe(1)
      await own.close()
      const offline = await loadHfDataset(URI, { split: 'test' }, hub({ endpoint: own.url, offline: true }))
      expect(offline).toEqual(online)
    } finally {
      await own.close()
    }
    const [uncached] = await loadHfDataset(URI, { split: 'test' }, hub({ offline: true, cacheDir: join(cacheDir, 'empty') }))
    expect(uncached?.error?.message).toMatch(/^HF_HUB_OFFLINE is set and hf:\/\/datasets\/acme\/tool-calls at this revision is not in the cache/)
  })

  it('reads another revision (the Parquet conversion branch, its name URL-encoded) and a config', async () => {
    const revision = 'refs/convert/parquet'
    const files = { 'default/test/0000.parquet': TEST_PARQUET, 'default/validation/0000.parquet': TEST_PARQUET }
    const converted = await startHubServer({ repo: REPO, revision, files })
    try {
      const entries = await loadHfDataset(URI, { split: 'test', revision, config: 'default', limit: 2 }, hub({ endpoint: converted.url }))
      expect(ids(entries)).toEqual(['t1', 't2'])
      expect(converted.requests.map((r) => r.path)).toContain(`/datasets/${REPO}/resolve/refs%2Fconvert%2Fparquet/default/test/0000.parquet`)
      const [bad] = await loadHfDataset(URI, { split: 'test', revision: '..' }, hub({ endpoint: converted.url }))
      expect(bad?.error).toMatchObject({ field: 'revision' })
    } finally {
      await converted.close()
    }
  })

  it('an unreachable Hub is one clear error entry', async () => {
    const [e] = await loadHfDataset(URI, { split: 'test' }, hub({ endpoint: 'http://127.0.0.1:1' }))
    expect(e?.error?.message).toMatch(/^cannot reach the Hub at http:\/\/127\.0\.0\.1:1/)
  })

  it('`limit` caps rows and lines read (a dialogue counts once), `maxSamples` caps expanded samples, across files', async () => {
    const limited = await loadHfDataset(URI, { split: 'validation', limit: 2 }, hub())
    expect(ids(limited)).toEqual(['v1', 'v2#1', 'v2#2'])
    const capped = await loadHfDataset(URI, { split: 'validation', maxSamples: 2 }, hub())
    expect(ids(capped)).toEqual(['v1', 'v2#1'])
    expect(await loadHfDataset(URI, { split: 'test', limit: 1 }, hub())).toHaveLength(1)
    expect(await loadHfDataset(URI, { split: 'test', limit: 0 }, hub())).toHaveLength(0)
  })

  it('`limit` and `maxSamples` cap local sources too; Hub-only options on a local source are an error', async () => {
    const items = JSON.parse(`[${VALIDATION_JSONL.split('\n').join(',')}]`) as unknown[]
    expect(loadData(items, { limit: 2 })).toHaveLength(3)
    expect(loadData(items, { maxSamples: 1 })).toHaveLength(1)
    expect(() => loadData(items, { limit: -1 })).toThrow('`limit` must be a whole number >= 0')
    const [e] = await loadDataAsync(items, { split: 'test' })
    expect(e?.error).toMatchObject({ field: 'split' })
  })
})

describe('Parquet rows', () => {
  it('reads codecs beyond hyparquet\'s native snappy (here gzip), and a row with JSON text that is not JSON is an error', async () => {
    const buffer = parquetWriteBuffer({
      codec: 'GZIP',
      compressors: { GZIP: (b: Uint8Array) => new Uint8Array(gzipSync(b)) },
      columnData: [
        { name: 'id', data: ['g1', 'g2'], type: 'STRING' },
        { name: 'expected', data: ['[]', '[{"name": '], type: 'STRING' },
      ],
    })
    const rows = await readParquetRows(new Uint8Array(buffer))
    expect(rows[0]).toEqual({ value: { id: 'g1', expected: [] } })
    expect(rows[1]).toMatchObject({ field: 'expected', message: expect.stringMatching(/^a string that is not valid JSON/) })
  })
})

describe('split naming (the Hub conventions)', () => {
  const files = (...paths: string[]): RepoFile[] => paths.map((path) => ({ path, size: 1, oid: path }))
  it('reads splits from shard names, folders, keywords, and the Parquet conversion layout', () => {
    expect(splitOfPath('data/train-00000-of-00002.parquet')).toBe('train')
    expect(splitOfPath('data/my_split-00001-of-00002.parquet')).toBe('my_split')
    expect(splitOfPath('test.jsonl')).toBe('test')
    expect(splitOfPath('data/dev/part1.jsonl')).toBe('validation')
    expect(splitOfPath('calls_eval.jsonl')).toBe('test')
    expect(splitOfPath('default/holdout/0000.parquet')).toBe('holdout')
    expect(splitOfPath('weather.jsonl')).toBeUndefined()
    expect(splitOfPath('contest.jsonl')).toBeUndefined() // a keyword inside a word is not one
  })

  it('a repository that names no split is all `train`; configs are top folders, required when there are several', () => {
    const plain = chooseSplitFiles(files('weather.jsonl', 'more.jsonl', 'README.md'), 'train')
    expect(plain.ok && plain.value.files.map((f) => f.path)).toEqual(['more.jsonl', 'weather.jsonl'])
    const multi = files('simple/test-00000-of-00001.parquet', 'parallel/test-00000-of-00001.parquet')
    expect(chooseSplitFiles(multi, 'test')).toMatchObject({ ok: false, field: 'config', message: expect.stringContaining('parallel, simple') })
    const chosen = chooseSplitFiles(multi, 'test', 'simple')
    expect(chosen.ok && chosen.value.files.map((f) => f.path)).toEqual(['simple/test-00000-of-00001.parquet'])
    expect(chooseSplitFiles(multi, 'test', 'nope')).toMatchObject({ ok: false, message: 'config "nope" not found; configs: parallel, simple' })
  })
})
