/**
 * Zstandard pages of Parquet files, decompressed to the size the page header declares and never more. A zstd frame
 * says nothing binding about its output: RLE blocks of 128 KB cost 4 bytes each (a 200 KB page is 6 GB), and a frame
 * header may claim a content or window size of up to 2 GB, which a decoder allocates at once. So the frames are
 * walked first (headers only, linear in the page's bytes): a frame whose content size, or whose raw and RLE blocks
 * alone, pass the declared size is refused before anything is decoded; a frame's window is cut to the declared size
 * (no valid page refers further back than its own length); and the compressed blocks are decoded one at a time,
 * stopping at the first byte past the declared size. fzstd does the decoding.
 */
import { Decompress } from 'fzstd'

const ZSTD_MAGIC = 0xfd2fb528
/** Skippable frames: magic 0x184D2A50 to 0x184D2A5F, then a 4-byte length. */
const SKIPPABLE = 0x184d2a50
const BLOCK_MAX = 128 * 1024

/** A page whose bytes disagree with its header, or that is not zstd at all. */
export class ZstdPageError extends Error {}

interface Frame {
  start: number
  end: number
  /** Offset of the window descriptor (non-single-segment frames), or -1. */
  windowAt: number
  windowSize: number
}

/**
 * The bytes of a zstd-compressed page that must decompress to exactly `length` bytes (the page header's
 * `uncompressed_page_size`). Throws a ZstdPageError when it does not, or when the data is not valid zstd.
 */
export function decompressZstdPage(input: Uint8Array, length: number): Uint8Array {
  const frames = walkFrames(input, length)
  const out = new Uint8Array(length)
  let written = 0
  for (const f of frames) {
    let bytes = input.subarray(f.start, f.end)
    const needed = Math.max(length, 1024)
    if (f.windowAt >= 0 && f.windowSize > needed) {
      // The decoder allocates the window up front: the smallest one that holds the whole page does.
      bytes = bytes.slice()
      bytes[f.windowAt - f.start] = windowDescriptor(needed)
    }
    const d = new Decompress((chunk) => {
      if (written + chunk.length > length) throw new ZstdPageError(tooLarge(length))
      out.set(chunk, written)
      written += chunk.length
    })
    try {
      d.push(bytes, true)
    } catch (err) {
      if (err instanceof ZstdPageError) throw err
      throw new ZstdPageError(`a zstd page is not valid zstd (${(err as Error).message})`)
    }
  }
  if (written !== length) throw new ZstdPageError(`a zstd page decompresses to ${written} bytes, not the ${length} its page header declares`)
  return out
}

function tooLarge(length: number): string {
  return `a zstd page decompresses to more than the ${length} bytes its page header declares`
}

/** The page's frames, checked against `length` by their headers and their raw and RLE blocks. */
function walkFrames(d: Uint8Array, length: number): Frame[] {
  const frames: Frame[] = []
  let i = 0
  let known = 0 // bytes the frames' content sizes and raw and RLE blocks account for
  const need = (n: number) => {
    if (i + n > d.length) throw new ZstdPageError('a zstd page ends inside a frame')
  }
  const u32 = (at: number) => (d[at]! | (d[at + 1]! << 8) | (d[at + 2]! << 16) | (d[at + 3]! << 24)) >>> 0
  while (i < d.length) {
    need(4)
    const magic = u32(i)
    if ((magic & 0xfffffff0) >>> 0 === SKIPPABLE) {
      need(8)
      i += 8 + u32(i + 4)
      if (i > d.length) throw new ZstdPageError('a zstd page ends inside a frame')
      continue
    }
    if (magic !== ZSTD_MAGIC) throw new ZstdPageError('a zstd page holds data that is not a zstd frame')
    const start = i
    need(5)
    const fhd = d[i + 4]!
    i += 5
    const single = (fhd >> 5) & 1
    const fcsFlag = fhd >> 6
    const dictBytes = [0, 1, 2, 4][fhd & 3]!
    const checksum = (fhd >> 2) & 1
    if (fhd & 8) throw new ZstdPageError('a zstd page has a frame header with its reserved bit set')
    let windowAt = -1
    let windowSize = 0
    if (!single) {
      need(1)
      windowAt = i
      const wd = d[i]!
      const base = 2 ** (10 + (wd >> 3))
      windowSize = base + (base / 8) * (wd & 7)
      i++
    }
    need(dictBytes)
    i += dictBytes
    const fcsBytes = fcsFlag === 0 ? single : 1 << fcsFlag
    need(fcsBytes)
    let contentSize = -1
    if (fcsBytes > 0) {
      contentSize = 0
      for (let k = fcsBytes - 1; k >= 0; k--) contentSize = contentSize * 256 + d[i + k]!
      if (fcsBytes === 2) contentSize += 256
      i += fcsBytes
      if (known + contentSize > length) throw new ZstdPageError(tooLarge(length))
    }
    if (single) windowSize = contentSize
    let blocks = 0
    for (let last = 0; !last; ) {
      need(3)
      const h = d[i]! | (d[i + 1]! << 8) | (d[i + 2]! << 16)
      i += 3
      last = h & 1
      const type = (h >> 1) & 3
      const size = h >>> 3
      if (type === 3) throw new ZstdPageError('a zstd page has a block of the reserved type')
      if (size > BLOCK_MAX) throw new ZstdPageError('a zstd page has a block over 128 KB')
      if (type === 1) {
        need(1)
        i++
      } else {
        need(size)
        i += size
      }
      // Raw and RLE blocks give exactly their size; a compressed block at least nothing, at most 128 KB.
      if (type !== 2) blocks += size
      if (contentSize < 0 && known + blocks > length) throw new ZstdPageError(tooLarge(length))
    }
    if (contentSize >= 0 && blocks > contentSize) throw new ZstdPageError(`a zstd frame holds more than the ${contentSize} bytes its header declares`)
    need(checksum * 4)
    i += checksum * 4
    known += contentSize >= 0 ? contentSize : blocks
    frames.push({ start, end: i, windowAt, windowSize })
  }
  return frames
}

/** The window descriptor of the smallest window of at least `size` bytes (1 KB to 2 GB). */
function windowDescriptor(size: number): number {
  for (let exp = 0; exp < 31; exp++) {
    const base = 2 ** (10 + exp)
    for (let m = 0; m < 8; m++) if (base + (base / 8) * m >= size) return (exp << 3) | m
  }
  return 31 << 3
}
