// Each Parquet page codec held to the size its page header declares (issue 21, point 4), through the Hub loader
// against a server on 127.0.0.1: a page that decompresses to megabytes more than it declares is refused with an error
// that says so (before, gzip and lz4 decoded it all and dropped the extra silently, and brotli and snappy failed with
// a message about buffers); a page that holds a byte less is refused (gzip and lz4 padded it with zeros); honest
// pages load; and maxDecompressedBytes bounds the pages' total.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parquetWriteBuffer } from 'hyparquet-writer'
import { afterEach, describe, expect, it } from 'vitest'
import { loadHfDataset, type HubConfig } from '../../../src/data/hf.js'
import type { HubLimits } from '../../../src/data/hub-limits.js'
import type { DataEntry } from '../../../src/data/types.js'
import { startHubServer, type HubServer } from '../../helpers/hub-server.js'
import { bomb, honest, short, type PageCodec } from '../../helpers/page-bombs.js'

const REPO = 'acme/codecs'
const URI = `hf://datasets/${REPO}`
const FILE = 'data/test-00000-of-00001.parquet'
const NAME: Record<PageCodec, string> = { SNAPPY: 'a snappy', GZIP: 'a gzip', BROTLI: 'a brotli', LZ4: 'an LZ4', LZ4_RAW: 'an LZ4_RAW' }
/** Bytes each hostile page holds past its page: 32 MB from at most a few hundred KB (snappy, 21x at most: 4 MB). */
const EXTRA: Record<PageCodec, number> = { SNAPPY: 4 << 20, GZIP: 32 << 20, BROTLI: 32 << 20, LZ4: 32 << 20, LZ4_RAW: 32 << 20 }
const PREFIX = 'cannot read the Parquet file: '

const cleanup: (() => unknown)[] = []
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((f) => f()))
})

/** Three rows in pages of `codec`, by `compress` (without one, hyparquet-writer's own: snappy). */
function rows(codec: PageCodec, compress?: (b: Uint8Array) => Uint8Array): Uint8Array {
  const ids = ['r0', 'r1', 'r2']
  const buffer = parquetWriteBuffer({
    codec,
    ...(compress && { compressors: { [codec]: compress } }),
    columnData: [
      { name: 'id', data: ids, type: 'STRING' },
      { name: 'messages', data: ids.map((id) => JSON.stringify([{ role: 'user', content: `hi ${id} ${'x'.repeat(200)}` }])), type: 'STRING' },
      { name: 'expected', data: ids.map(() => '[]'), type: 'STRING' },
    ],
  })
  return new Uint8Array(buffer)
}

/** Loads the file from a fresh server and a fresh cache. */
async function load(file: Uint8Array, hub?: HubLimits): Promise<DataEntry[]> {
  const server: HubServer = await startHubServer({ repo: REPO, files: { [FILE]: file } })
  const cacheDir = mkdtempSync(join(tmpdir(), 'hf-codecs-'))
  cleanup.push(() => server.close(), () => rmSync(cacheDir, { recursive: true, force: true }))
  const config: HubConfig = { endpoint: server.url, offline: false, cacheDir, timeoutMs: 20_000 }
  return loadHfDataset(URI, { split: 'test', ...(hub && { hub }) }, config)
}
const only = (entries: DataEntry[]) => {
  expect(entries).toHaveLength(1)
  expect(entries[0]?.error?.where).toBe(`${URI}/${FILE}`)
  return entries[0]?.error?.message
}

describe.each(['SNAPPY', 'GZIP', 'BROTLI', 'LZ4', 'LZ4_RAW'] as const)('%s pages', (codec) => {
  const name = NAME[codec]
  it('holding megabytes more than their header declares are refused', async () => {
    const file = rows(codec, bomb(codec, EXTRA[codec]))
    expect(file.byteLength).toBeLessThan(1024 * 1024)
    expect(only(await load(file))).toMatch(new RegExp(`^${PREFIX}${name} page decompresses to more than the \\d+ bytes its page header declares`))
  })

  it('holding a byte less than their header declares are refused', async () => {
    expect(only(await load(rows(codec, short(codec))))).toMatch(new RegExp(`^${PREFIX}${name} page decompresses to \\d+ bytes, not the \\d+ its page header declares`))
  })

  it('that are honest load, and maxDecompressedBytes bounds their total', async () => {
    const file = rows(codec, codec === 'SNAPPY' ? undefined : honest(codec))
    expect((await load(file)).map((e) => e.sample?.id)).toEqual(['r0', 'r1', 'r2'])
    expect(only(await load(file, { maxDecompressedBytes: 512 }))).toMatch(/decompress to .*, over maxDecompressedBytes \(512 bytes\)/)
  })
})
