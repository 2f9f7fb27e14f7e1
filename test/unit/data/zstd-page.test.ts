// Zstandard Parquet pages decompressed to their declared size and never more (issue 21, point 4). The compressed
// frames below were written by the zstd CLI 1.5.4 from `'hello hello hello hello zstd page data '.repeat(40)`.
import { describe, expect, it } from 'vitest'
import { decompressZstdPage, ZstdPageError } from '../../../src/data/zstd-page.js'

const TEXT = 'hello hello hello hello zstd page data '.repeat(40)
const hex = (h: string) => new Uint8Array(Buffer.from(h, 'hex'))
/** `zstd -19`: single segment, content size 1,560 in the header, checksum. */
const ONE_SHOT = hex('28b52ffd641805fd0000a868656c6c6f207a73746420706167652064617461200200ee29f5d778050e1313bfba')
/** `zstd -3` from a pipe: no content size, a 2 MB window. */
const STREAMED = hex('28b52ffd0058150100a068656c6c6f207a737464207061676520646174610400d629f501600051898a578a')

const block = (last: boolean, type: number, size: number) => {
  const h = (last ? 1 : 0) | (type << 1) | (size << 3)
  return [h & 255, (h >> 8) & 255, (h >> 16) & 255]
}
const text = (b: Uint8Array) => Buffer.from(b).toString()

describe('decompressZstdPage', () => {
  it('decodes compressed frames to exactly the declared size, also with a window far larger than the page', () => {
    expect(text(decompressZstdPage(ONE_SHOT, TEXT.length))).toBe(TEXT)
    expect(text(decompressZstdPage(STREAMED, TEXT.length))).toBe(TEXT)
    // Two frames, and a skippable frame between them, make one page.
    const skippable = [0x50, 0x2a, 0x4d, 0x18, 2, 0, 0, 0, 9, 9]
    const two = new Uint8Array([...ONE_SHOT, ...skippable, ...STREAMED])
    expect(text(decompressZstdPage(two, 2 * TEXT.length))).toBe(TEXT + TEXT)
  })

  it('a page that holds more or less than it declares is an error', () => {
    for (const frame of [ONE_SHOT, STREAMED]) {
      expect(() => decompressZstdPage(frame, TEXT.length - 1)).toThrow(/decompresses to more than the 1559 bytes its page header declares/)
      expect(() => decompressZstdPage(frame, TEXT.length + 1)).toThrow(/decompresses to 1560 bytes, not the 1561 its page header declares/)
    }
  })

  it('refuses a bomb by its block headers and a huge content size by the frame header, before decoding', () => {
    // 8,192 RLE blocks of 128 KB (1 GB) in 32 KB; declared: 10 bytes.
    const rle: number[] = [0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38]
    for (let k = 0; k < 8192; k++) rle.push(...block(k === 8191, 1, 131_072), 0x61)
    expect(() => decompressZstdPage(new Uint8Array(rle), 10)).toThrow(/decompresses to more than the 10 bytes/)
    // Single segment claiming 2 GB (8-byte content size): the decoder would allocate it.
    const huge = new Uint8Array([0x28, 0xb5, 0x2f, 0xfd, 0xe0, 0, 0, 0, 0x80, 0, 0, 0, 0, ...block(true, 0, 1), 0x61])
    expect(() => decompressZstdPage(huge, 1)).toThrow(/decompresses to more than the 1 bytes/)
  })

  it('data that is not zstd, or ends inside a frame, is an error', () => {
    expect(() => decompressZstdPage(new Uint8Array([1, 2, 3, 4, 5]), 5)).toThrow(/not a zstd frame/)
    expect(() => decompressZstdPage(ONE_SHOT.subarray(0, 20), TEXT.length)).toThrow(/ends inside a frame/)
    const reserved = STREAMED.slice()
    reserved[6] = reserved[6]! | 0x06 // block type 3, reserved
    expect(() => decompressZstdPage(reserved, TEXT.length)).toThrow(/a block of the reserved type/)
    // A compressed block whose literals header is garbage: the decoder's own error, as a ZstdPageError.
    const garbage = STREAMED.slice()
    garbage.fill(0xff, 9, 14)
    expect(() => decompressZstdPage(garbage, TEXT.length)).toThrow(ZstdPageError)
  })
})
