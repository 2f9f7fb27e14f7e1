// The Hub loader's bounds and the token scrubber, against hostile Hub-shaped servers on 127.0.0.1 and hand-made
// Parquet files: an endless body, a decompression bomb, a footer of many row groups, a footer claiming 2^31 rows, a
// looping `Link: next`, `limit` reading only the row group it needs, and the token echoed in every spelling.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { parquetWriteBuffer } from 'hyparquet-writer'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { loadHfDataset, type HubConfig } from '../../../src/data/hf.js'
import { scrub, secretForms } from '../../../src/data/secrets.js'
import type { DataEntry } from '../../../src/data/types.js'
import { sampleParquet, startHubServer, type HubServer, type HubServerOptions } from '../../helpers/hub-server.js'

const REPO = 'acme/limits'
const URI = `hf://datasets/${REPO}`
const FILE = 'data/test-00000-of-00001.parquet'
const ask = (text: string) => [{ role: 'user', content: text }]

let cacheDir: string
const servers: HubServer[] = []
beforeEach(() => {
  cacheDir = mkdtempSync(join(tmpdir(), 'hf-limits-'))
})
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()))
  rmSync(cacheDir, { recursive: true, force: true })
})

async function serve(options: Omit<HubServerOptions, 'repo'>): Promise<HubServer> {
  const server = await startHubServer({ repo: REPO, ...options })
  servers.push(server)
  return server
}
const hubOf = (server: HubServer, token?: string): HubConfig => ({ endpoint: server.url, offline: false, cacheDir, timeoutMs: 20_000, ...(token && { token }) })
const only = (entries: DataEntry[]) => {
  expect(entries).toHaveLength(1)
  return entries[0]?.error
}

/** A deterministic pseudo-random hex string (incompressible enough that row groups keep their size). */
function noise(seed: number, length: number): string {
  let x = seed >>> 0 || 1
  let out = ''
  while (out.length < length) {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    out += (x >>> 0).toString(16).padStart(8, '0')
  }
  return out.slice(0, length)
}

/** A zstd block header: last-block bit, type (0 raw, 1 RLE), size. */
const zstdBlock = (last: boolean, type: 0 | 1, size: number) => {
  const h = (last ? 1 : 0) | (type << 1) | (size << 3)
  return [h & 255, (h >> 8) & 255, (h >> 16) & 255]
}

/**
 * A valid zstd frame of raw (stored) blocks holding `data`, with its content size in the header; with `bomb`, no
 * content size (a 128 KB window) and `bomb` RLE blocks of 128 KB after the data, 4 bytes each: a page that declares
 * `data.length` bytes and decompresses to `bomb` x 128 KB more.
 */
function zstdStored(data: Uint8Array, bomb = 0): Uint8Array {
  const out: number[] = bomb > 0 ? [0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38] : [0x28, 0xb5, 0x2f, 0xfd, 0xa0, ...[0, 8, 16, 24].map((s) => (data.length >>> s) & 255)]
  const blocks = Math.max(1, Math.ceil(data.length / 131_072))
  for (let k = 0; k < blocks; k++) {
    const part = data.subarray(k * 131_072, (k + 1) * 131_072)
    out.push(...zstdBlock(bomb === 0 && k === blocks - 1, 0, part.length), ...part)
  }
  for (let k = 0; k < bomb; k++) out.push(...zstdBlock(k === bomb - 1, 1, 131_072), 0x61)
  return new Uint8Array(out)
}

type Codec = { codec: 'GZIP' | 'ZSTD'; compressors: Record<string, (b: Uint8Array) => Uint8Array> }

function rowsParquet(n: number, options: { rowGroupSize?: number; pad?: (i: number) => string; gzip?: boolean; zstd?: (b: Uint8Array) => Uint8Array } = {}): Uint8Array {
  const ids = Array.from({ length: n }, (_, i) => `r${i}`)
  const codec: Codec | undefined = options.gzip
    ? { codec: 'GZIP', compressors: { GZIP: (b) => new Uint8Array(gzipSync(b)) } }
    : options.zstd && { codec: 'ZSTD', compressors: { ZSTD: options.zstd } }
  const buffer = parquetWriteBuffer({
    ...(options.rowGroupSize !== undefined && { rowGroupSize: options.rowGroupSize }),
    ...codec,
    columnData: [
      { name: 'id', data: ids, type: 'STRING' },
      { name: 'messages', data: ids.map((id) => JSON.stringify(ask(`hi ${id}`))), type: 'STRING' },
      { name: 'expected', data: ids.map(() => '[]'), type: 'STRING' },
      { name: 'pad', data: ids.map((_, i) => options.pad?.(i) ?? ''), type: 'STRING' },
    ],
  })
  return new Uint8Array(buffer)
}

/** A copy of a Parquet file whose footer claims `rows` rows (FileMetaData field 3, the i64 after the schema list). */
function claimRows(file: Uint8Array, rows: bigint): Uint8Array {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength)
  const length = view.getUint32(file.byteLength - 8, true)
  const meta = file.subarray(file.byteLength - 8 - length, file.byteLength - 8)
  const actual = 3n // the file it is given has 3 rows
  const varint = (n: bigint) => {
    const out: number[] = []
    for (let z = (n << 1n) ^ (n >> 63n); ; z >>= 7n) {
      if (z < 0x80n) return [...out, Number(z)]
      out.push(Number(z & 0x7fn) | 0x80)
    }
  }
  const old = [0x16, ...varint(actual)]
  const at = meta.findIndex((_, i) => old.every((b, k) => meta[i + k] === b))
  expect(at).toBeGreaterThan(0)
  const patched = [...meta.subarray(0, at), 0x16, ...varint(rows), ...meta.subarray(at + old.length)]
  const out = new Uint8Array(file.byteLength - 8 - length + patched.length + 8)
  out.set(file.subarray(0, file.byteLength - 8 - length))
  out.set(patched, file.byteLength - 8 - length)
  new DataView(out.buffer).setUint32(out.byteLength - 8, patched.length, true)
  out.set([0x50, 0x41, 0x52, 0x31], out.byteLength - 4)
  return out
}

describe('Hub loader limits', () => {
  it('abandons an endless body at maxBytes: one error naming the file and the limit', async () => {
    let written = 0
    const server = await serve({
      files: { [FILE]: 'placeholder' },
      intercept: (req, res) => {
        if (!req.url?.includes('/resolve/')) return false
        res.writeHead(200, { 'content-type': 'application/octet-stream' })
        const chunk = Buffer.alloc(64 * 1024, 0x61)
        // Endless to the client, bounded here: 64 MB at most, stopping once the client hangs up.
        const pump = () => {
          while (written < 64 * 1024 * 1024 && !res.destroyed) {
            written += chunk.length
            if (!res.write(chunk)) return void res.once('drain', pump)
          }
          res.end()
        }
        pump()
        return true
      },
    })
    const error = only(await loadHfDataset(URI, { split: 'test', hub: { maxBytes: 1024 * 1024 } }, hubOf(server)))
    expect(error?.where).toBe(`${URI}/${FILE}`)
    expect(error?.message).toMatch(/^data\/test-00000-of-00001\.parquet grew past the limit while downloading, over maxBytes \(1 MB\); .*hub: \{ maxBytes/)
    expect(written).toBeLessThan(64 * 1024 * 1024)
  })

  it('refuses a Parquet file that decompresses past maxDecompressedBytes', async () => {
    // 40 distinct rows of 100,000 mostly repeated characters: 4 MB of text in a file of a few KB.
    const bomb = rowsParquet(40, { gzip: true, pad: (i) => `${i}`.padEnd(100_000, 'a') })
    expect(bomb.byteLength).toBeLessThan(200_000)
    const server = await serve({ files: { [FILE]: bomb } })
    const error = only(await loadHfDataset(URI, { split: 'test', hub: { maxDecompressedBytes: 1024 * 1024 } }, hubOf(server)))
    expect(error?.where).toBe(`${URI}/${FILE}`)
    expect(error?.message).toMatch(/decompress to .*, over maxDecompressedBytes \(1 MB\)/)
    // Under a cap it fits, the same file loads.
    expect((await loadHfDataset(URI, { split: 'test' }, hubOf(server))).every((e) => e.sample)).toBe(true)
  })

  it('a zstd page that decompresses to more than its header declares is an error, found before it is decoded', async () => {
    // Each page's frame holds the page, then 512 RLE blocks of 128 KB (64 MB) in 2 KB: the footer and the page
    // headers declare only the page.
    const bomb = rowsParquet(3, { zstd: (b) => zstdStored(b, 512) })
    expect(bomb.byteLength).toBeLessThan(20_000)
    const server = await serve({ files: { [FILE]: bomb } })
    const error = only(await loadHfDataset(URI, { split: 'test' }, hubOf(server)))
    expect(error?.where).toBe(`${URI}/${FILE}`)
    expect(error?.message).toMatch(/a zstd page decompresses to more than the \d+ bytes its page header declares/)
    // The same rows in honest zstd frames load.
    const honest = await serve({ files: { [FILE]: rowsParquet(3, { zstd: (b) => zstdStored(b) }) } })
    expect((await loadHfDataset(URI, { split: 'test' }, hubOf(honest))).map((e) => e.sample?.id)).toEqual(['r0', 'r1', 'r2'])
  })

  it("a page header whose value count disagrees with the footer's is an error, before the page is decoded", async () => {
    // 100 rows in one page per column; the first page header (column `id`) is made to claim 8,000 values: the
    // same varint length, so every offset in the file stays right.
    const file = rowsParquet(100)
    const zigzag2 = (n: number) => [((n << 1) & 0x7f) | 0x80, (n << 1) >> 7]
    // Data page v2 header (field 8, a struct) whose first field, num_values (i32), is 100.
    const old = [0x5c, 0x15, ...zigzag2(100)]
    const at = file.findIndex((_, i) => old.every((b, k) => file[i + k] === b))
    expect(at).toBeGreaterThan(3)
    const patched = file.slice()
    patched.set([0x5c, 0x15, ...zigzag2(8_000)], at)
    const server = await serve({ files: { [FILE]: patched } })
    const error = only(await loadHfDataset(URI, { split: 'test' }, hubOf(server)))
    expect(error?.where).toBe(`${URI}/${FILE}`)
    expect(error?.message).toMatch(/the page headers of column id of row group 0 give 8000 values where the footer lists 100/)
    // Unpatched, the file loads (a fresh cache: the patched file has the same size).
    rmSync(cacheDir, { recursive: true, force: true })
    const honest = await serve({ files: { [FILE]: file } })
    const entries = await loadHfDataset(URI, { split: 'test' }, hubOf(honest))
    expect(entries.map((e) => e.error?.message)).toEqual(Array(100).fill(undefined))
  })

  it('refuses a footer of more row groups than maxRowGroups before decoding it', async () => {
    const server = await serve({ files: { [FILE]: rowsParquet(2_000, { rowGroupSize: 1 }) } })
    const error = only(await loadHfDataset(URI, { split: 'test', limit: 5, hub: { maxRowGroups: 100 } }, hubOf(server)))
    expect(error?.message).toMatch(/^the Parquet footer lists 2,000 row groups, over maxRowGroups \(100\)/)
  })

  it('a footer claiming 2^31 rows without `limit` is a clear error, not an out-of-memory crash', async () => {
    const small = sampleParquet([1, 2, 3].map((i) => ({ id: `c${i}`, messages: ask('hi'), expected: [] })))
    const server = await serve({ files: { [FILE]: claimRows(small, 2n ** 31n) } })
    const error = only(await loadHfDataset(URI, { split: 'test' }, hubOf(server)))
    expect(error?.message).toMatch(/^the Parquet footer lists 2,147,483,648 rows \(no `limit` set\), over maxRows \(1,000,000\)/)
  })

  it('stops a looping `Link: next` after maxPages', async () => {
    let pages = 0
    const server = await serve({
      files: {},
      intercept: (req, res) => {
        if (!req.url?.startsWith('/api/datasets/')) return false
        pages++
        res.writeHead(200, { 'content-type': 'application/json', link: `<${req.url}>; rel="next"` })
        res.end('[]')
        return true
      },
    })
    const error = only(await loadHfDataset(URI, { split: 'test', hub: { maxPages: 5 } }, hubOf(server)))
    expect(error?.message).toMatch(/^the file list of acme\/limits@main kept paging \(Link: rel="next"\), over maxPages \(5\)/)
    expect(pages).toBe(5)
  })

  it('with `limit: 10`, reads the footer and the first row group only, by ranges', async () => {
    const file = rowsParquet(100, { rowGroupSize: 10, pad: (i) => noise(i + 1, 20_000) })
    expect(file.byteLength).toBeGreaterThan(1_000_000)
    const server = await serve({ files: { [FILE]: file } })
    const entries = await loadHfDataset(URI, { split: 'test', limit: 10 }, hubOf(server))
    expect(entries.map((e) => e.sample?.id)).toEqual(Array.from({ length: 10 }, (_, i) => `r${i}`))
    expect(server.requests.filter((r) => r.path.includes('/resolve/')).every((r) => r.range !== undefined)).toBe(true)
    // The first row group (about a tenth) and the 64 KB tail; never the whole file.
    expect(server.fileBytesServed()).toBeLessThan(file.byteLength / 4)
  })
})

describe('the token, echoed by the server in every spelling', () => {
  const TOKEN = 'hf_Sec"re\\t/Tok+en 0123456789abcdef'
  const b64 = (prefix: string) => Buffer.from(prefix + TOKEN).toString('base64')
  const echoes: Record<string, string> = {
    raw: TOKEN,
    url: encodeURIComponent(TOKEN),
    json: JSON.stringify(TOKEN).slice(1, -1),
    base64: b64(''),
    'base64 +1': b64('X'),
    'base64 +2': b64('XY'),
    hex: Buffer.from(TOKEN).toString('hex'),
    HEX: Buffer.from(TOKEN).toString('hex').toUpperCase(),
  }

  /** No 6-character run of what was echoed survives. */
  const expectNoFragment = (text: string, echoed: string) => {
    for (let i = 0; i + 6 <= echoed.length; i++) expect(text, `fragment ${echoed.slice(i, i + 6)}`).not.toContain(echoed.slice(i, i + 6))
  }

  it('scrubs each spelling, and a token cut at the 300-character boundary, from the errored entry', async () => {
    const cases = Object.entries(echoes).flatMap(([name, echoed]) => [
      { name, header: `bad token ${echoed} given`, echoed },
      // The token across our 300-character cut, and a token the server cut itself (its first 15 characters).
      { name: `${name} at the cut`, header: `${'y'.repeat(290)}${echoed}`, echoed },
      { name: `${name} cut by the server`, header: `${'y'.repeat(280)}${echoed.slice(0, 15)}`, echoed: echoed.slice(0, 15) },
    ])
    let current = cases[0]!
    const server = await serve({
      files: {},
      intercept: (_req, res) => {
        res.writeHead(401, { 'x-error-message': current.header })
        res.end()
        return true
      },
    })
    for (const c of cases) {
      current = c
      const [entry] = await loadHfDataset(URI, { split: 'test' }, hubOf(server, TOKEN))
      const text = JSON.stringify(entry)
      expect(text, c.name).toContain('HTTP 401')
      expectNoFragment(text, c.echoed)
      expectNoFragment(entry?.error?.message ?? '', c.echoed)
    }
  })

  it('scrubs each spelling from the samples of a 200 reply that echoes it in its rows', async () => {
    const rows = Object.entries(echoes).map(([name, echoed], i) => ({ id: `r${i}`, messages: ask(`${name}: ${echoed}`), expected: [{ name: 'f', arguments: { [echoed]: echoed } }] }))
    const server = await serve({ files: { 'data/test-00000-of-00001.jsonl': rows.map((r) => JSON.stringify(r)).join('\n') } })
    const entries = await loadHfDataset(URI, { split: 'test' }, hubOf(server, TOKEN))
    expect(entries.map((e) => e.sample?.id)).toEqual(rows.map((r) => r.id))
    const text = JSON.stringify(entries)
    for (const echoed of Object.values(echoes)) expectNoFragment(text, echoed)
    expect(entries[0]?.sample?.expected).toEqual([{ name: 'f', arguments: { '***': '***' } }])
  })

  it('secretForms covers base64 at every alignment, hex in both cases, and the Bearer header', () => {
    for (const prefix of ['', 'X', 'XY', 'XYZ', 'Bearer ']) {
      const stream = Buffer.from(`${prefix}${TOKEN} and more`).toString('base64')
      expect(scrub(stream, TOKEN)).toContain('***')
    }
    const forms = secretForms(TOKEN)
    expect(forms).toContain(Buffer.from(TOKEN).toString('hex').toUpperCase())
    expect(forms.every((f) => f.length >= 6)).toBe(true)
    expect(scrub('nothing here', TOKEN)).toBe('nothing here')
  })
})
