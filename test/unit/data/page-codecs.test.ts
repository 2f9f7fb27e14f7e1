// The bounded Parquet page codecs (issue 21, point 4): gzip and brotli through node's zlib, LZ4 (raw and Hadoop) and
// snappy through our own decoders. Each decodes honest data to exactly the declared size and refuses data that holds
// more or less, or is malformed, with a PageCodecError that says which. The LZ4 block was written by the lz4 CLI
// 1.9.4 (`lz4 -9 -B4`, taken out of its frame), the snappy stream by hyparquet-writer's encoder; both use
// overlapping copies and long length extensions.
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { decompressLz4Page, decompressLz4RawPage } from '../../../src/data/lz4-page.js'
import { decompressBrotliPage, decompressGzipPage, PageCodecError } from '../../../src/data/page-codecs.js'
import { decompressSnappyPage } from '../../../src/data/snappy-page.js'
import { hadoopFrame, lz4Block, snappyStream } from '../../helpers/page-bombs.js'

const LZ4_TEXT = 'hello hello hello hello lz4 page data '.repeat(40)
const LZ4_BLOCK = new Uint8Array(Buffer.from('6e68656c6c6f200600ef6c7a3420706167652064617461202600ffffffffffb7506461746120', 'hex'))
const SNAPPY_TEXT = 'hello hello hello hello snappy page data '.repeat(40)
const SNAPPY_STREAM = new Uint8Array(
  Buffer.from(`e80c1468656c6c6f204606003c736e61707079207061676520646174614a23000935${'fe2900'.repeat(24)}9a2900`, 'hex'),
)
const text = (b: Uint8Array) => Buffer.from(b).toString()
const bytes = (s: string) => new Uint8Array(Buffer.from(s))
const join = (...parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts))

type Decode = (input: Uint8Array, length: number) => Uint8Array
const CODECS: [string, Decode, (b: Uint8Array) => Uint8Array][] = [
  ['gzip', decompressGzipPage, (b) => new Uint8Array(gzipSync(b))],
  ['brotli', decompressBrotliPage, (b) => new Uint8Array(brotliCompressSync(b))],
  ['LZ4_RAW', decompressLz4RawPage, (b) => lz4Block(b)],
  ['LZ4', decompressLz4Page, (b) => hadoopFrame(b.length, lz4Block(b))],
  ['snappy', decompressSnappyPage, (b) => snappyStream(b)],
]
const article = (codec: string) => (codec.startsWith('LZ4') ? 'an' : 'a')

describe('bounded page codecs', () => {
  it('decode real encoders\' output: LZ4 blocks bare and in Hadoop frames, snappy streams', () => {
    expect(text(decompressLz4RawPage(LZ4_BLOCK, LZ4_TEXT.length))).toBe(LZ4_TEXT)
    expect(text(decompressLz4Page(LZ4_BLOCK, LZ4_TEXT.length))).toBe(LZ4_TEXT)
    // Two Hadoop frames make one page; a match never reaches into the frame before.
    const framed = join(hadoopFrame(LZ4_TEXT.length, LZ4_BLOCK), hadoopFrame(LZ4_TEXT.length, LZ4_BLOCK))
    expect(text(decompressLz4Page(framed, 2 * LZ4_TEXT.length))).toBe(LZ4_TEXT + LZ4_TEXT)
    expect(text(decompressSnappyPage(SNAPPY_STREAM, SNAPPY_TEXT.length))).toBe(SNAPPY_TEXT)
  })

  it.each(CODECS)('%s: exactly the declared size, or an error saying more or less', (codec, decode, compress) => {
    const data = bytes(LZ4_TEXT)
    expect(text(decode(compress(data), data.length))).toBe(LZ4_TEXT)
    expect(decode(compress(new Uint8Array(0)), 0)).toHaveLength(0)
    const page = `${article(codec)} ${codec} page`
    expect(() => decode(compress(data), data.length - 1)).toThrow(new RegExp(`^${page} decompresses to more than the ${data.length - 1} bytes its page header declares`))
    const short = codec === 'snappy' ? snappyStream(data, data.length + 1) : compress(data)
    expect(() => decode(short, data.length + 1)).toThrow(new RegExp(`^${page} decompresses to ${data.length} bytes, not the ${data.length + 1} its page header declares`))
    expect(() => decode(compress(data), -1)).toThrow(PageCodecError)
    expect(() => decode(new Uint8Array([0xff, 0xff, 0xff]), 10)).toThrow(PageCodecError)
  })

  it('stop at the declared size: a run of 1 GB in a 4 MB LZ4 page or 64 KB gzip page is refused at once', () => {
    const lz4 = lz4Block(bytes('a'), 1 << 30)
    expect(lz4.length).toBeLessThan(5 << 20)
    expect(() => decompressLz4RawPage(lz4, 100)).toThrow(/^an LZ4_RAW page decompresses to more than the 100 bytes/)
    const gzip = gzipSync(Buffer.alloc(64 << 20), { level: 1 })
    expect(() => decompressGzipPage(gzip, 100)).toThrow(/^a gzip page decompresses to more than the 100 bytes/)
  })

  it('brotli: a window cut to the page decodes every window size and quality the same (dictionary words too)', () => {
    const words = 'the quick brown fox jumps over the lazy dog, which is of course nothing new in this world '
    for (const size of [0, 1, 100, 5_000, 70_000, 300_000]) {
      const data = bytes(words.repeat(Math.ceil(size / words.length) + 1).slice(0, size))
      for (const lgwin of [10, 12, 15, 16, 17, 18, 20, 22, 24]) {
        for (const quality of [1, 5, 11]) {
          const page = brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_LGWIN]: lgwin, [constants.BROTLI_PARAM_QUALITY]: quality } })
          expect(Buffer.from(decompressBrotliPage(new Uint8Array(page), size)).equals(data)).toBe(true)
        }
      }
    }
    // A 16 MB window holding 64 MB of one byte, in a page that declares 100: refused (its window cut to 256 KB).
    const bomb = brotliCompressSync(Buffer.alloc(64 << 20, 97), { params: { [constants.BROTLI_PARAM_LGWIN]: 24, [constants.BROTLI_PARAM_QUALITY]: 1 } })
    expect(() => decompressBrotliPage(new Uint8Array(bomb), 100)).toThrow(/^a brotli page decompresses to more than the 100 bytes/)
  })

  it('refuse malformed LZ4 and snappy with the reason', () => {
    // A match before the block's start, and (in a Hadoop frame) before the frame's start.
    expect(() => decompressLz4RawPage(new Uint8Array([0x10, 0x61, 0x02, 0x00]), 10)).toThrow(/^an LZ4_RAW page is not valid LZ4_RAW \(a match offset of 2/)
    const second = hadoopFrame(4, new Uint8Array([0x00, 0x01, 0x00]))
    expect(() => decompressLz4Page(join(hadoopFrame(1, lz4Block(bytes('a'))), second), 5)).toThrow(/^an LZ4 page is not valid LZ4 \(a match offset of 1/)
    expect(() => decompressSnappyPage(new Uint8Array([10, 0x05, 0x01]), 10)).toThrow(/^a snappy page is not valid snappy \(a copy offset of 1 reaches before the page\)/)
    expect(() => decompressSnappyPage(new Uint8Array([]), 0)).toThrow(/no length preamble/)
    // A preamble that says less than the header, with data that fills the header's size.
    expect(() => decompressSnappyPage(snappyStream(bytes('abcd'), 3), 4)).toThrow(/preamble says 3 bytes where its page header declares 4/)
  })
})
