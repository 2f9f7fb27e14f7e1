/**
 * LZ4 pages of Parquet files (LZ4_RAW: one LZ4 block; LZ4: the Hadoop framing of blocks, each after its big-endian
 * output and input sizes, or a bare block as some old writers left it), decoded to the declared size and never more.
 * Our own decoder: hyparquet-compressors' keeps decoding past the end of its output buffer (dropping the bytes), so a
 * page of 255-byte match lengths costs 255 loop turns per input byte, and a page that holds more or less than it
 * declares comes back truncated or zero-padded with no error.
 */
import { checkLength, invalid, PageCodecError, tooLarge, tooSmall } from './page-codecs.js'

/** Not valid LZ4, or more output than the room left: the Hadoop reading may fall back to a bare block. */
class Lz4Error extends PageCodecError {}

/** An LZ4_RAW page: one block of exactly `length` bytes. */
export function decompressLz4RawPage(input: Uint8Array, length: number): Uint8Array {
  checkLength('LZ4_RAW', length)
  const out = new Uint8Array(length)
  const end = block('LZ4_RAW', input, 0, input.length, out, 0)
  if (end !== length) throw new PageCodecError(tooSmall('LZ4_RAW', end, length))
  return out
}

/** An LZ4 page: Hadoop-framed blocks where the bytes read as such, else one bare block (as Arrow reads them). */
export function decompressLz4Page(input: Uint8Array, length: number): Uint8Array {
  checkLength('LZ4', length)
  const out = new Uint8Array(length)
  let framed: PageCodecError | undefined
  try {
    const held = hadoop(input, out)
    if (held === length) return out
    if (held >= 0) framed = new PageCodecError(tooSmall('LZ4', held, length))
  } catch (err) {
    if (!(err instanceof Lz4Error)) throw err
    framed = err
  }
  out.fill(0)
  try {
    const end = block('LZ4', input, 0, input.length, out, 0)
    if (end !== length) throw new PageCodecError(tooSmall('LZ4', end, length))
    return out
  } catch (err) {
    // Bytes whose frame headers all fit are Hadoop frames: their error says more than the bare block's.
    throw framed ?? err
  }
}

/** The bytes the Hadoop frames hold, or -1 when the bytes are not Hadoop frames. */
function hadoop(input: Uint8Array, out: Uint8Array): number {
  const view = new DataView(input.buffer, input.byteOffset, input.byteLength)
  let i = 0
  let o = 0
  while (input.length - i >= 8) {
    const outLen = view.getUint32(i)
    const inLen = view.getUint32(i + 4)
    i += 8
    if (inLen > input.length - i) return -1
    // Frame headers that fit the page's bytes are Hadoop's: one that declares more than the page is an error.
    if (outLen > out.length - o) throw new Lz4Error(tooLarge('LZ4', out.length))
    const end = block('LZ4', input, i, i + inLen, out, o, o + outLen)
    if (end - o !== outLen) throw new Lz4Error(`an LZ4 page has a Hadoop frame of ${end - o} bytes where it declares ${outLen}`)
    i += inLen
    o += outLen
  }
  return i === input.length ? o : -1
}

/**
 * Decodes the LZ4 block input[start, end) into `out` from `from`, writing nothing at or past `to` (a match refers
 * only to this block's output); returns where its output ends.
 */
function block(codec: string, input: Uint8Array, start: number, end: number, out: Uint8Array, from: number, to = out.length): number {
  let i = start
  let o = from
  const bad = (why: string) => new Lz4Error(invalid(codec, why))
  /** A length of 15 goes on in the bytes that follow, each added, until one is not 255: linear in the input. */
  const extend = (n: number) => {
    if (n !== 15) return n
    for (;;) {
      if (i >= end) throw bad('it ends inside a length')
      const b = input[i++]!
      n += b
      if (b !== 255) return n
    }
  }
  if (start === end) return o
  while (i < end) {
    const token = input[i++]!
    const literals = extend(token >> 4)
    if (literals > end - i) throw bad('a literal run passes its end')
    if (literals > to - o) throw new Lz4Error(tooLarge(codec, out.length))
    out.set(input.subarray(i, i + literals), o)
    i += literals
    o += literals
    if (i === end) return o // the last sequence is literals alone
    if (end - i < 2) throw bad('it ends inside a match offset')
    const offset = input[i]! | (input[i + 1]! << 8)
    i += 2
    if (offset === 0 || offset > o - from) throw bad(`a match offset of ${offset} reaches before the block`)
    const length = extend(token & 15) + 4
    if (length > to - o) throw new Lz4Error(tooLarge(codec, out.length))
    if (offset >= length) out.copyWithin(o, o - offset, o - offset + length)
    else for (let k = 0; k < length; k++) out[o + k] = out[o + k - offset]!
    o += length
  }
  return o
}
