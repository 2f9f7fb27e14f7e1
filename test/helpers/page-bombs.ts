// Hand-made compressed Parquet pages for the codec bounds (issue 21, point 4): honest encoders for snappy and LZ4
// (literals only, enough to be valid), and pages that hold more or less than their page header declares.
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'

/** Codec names as hyparquet-writer takes them. */
export type PageCodec = 'SNAPPY' | 'GZIP' | 'BROTLI' | 'LZ4' | 'LZ4_RAW'

/** An LZ4 length past 15: the rest in bytes of 255 and a last byte below it. */
function lz4Extra(n: number): Uint8Array {
  const rest = n - 15
  const out = new Uint8Array(Math.floor(rest / 255) + 1).fill(255)
  out[out.length - 1] = rest % 255
  return out
}

/** One LZ4 block: `data` as literals, then, with `bomb` > 0, a match of `bomb` bytes at offset 1 (a run of the last byte). */
export function lz4Block(data: Uint8Array, bomb = 0): Uint8Array {
  const lit = data.length
  const match = bomb - 4
  const token = (Math.min(lit, 15) << 4) | (bomb > 0 ? Math.min(match, 15) : 0)
  const parts = [new Uint8Array([token]), lit >= 15 ? lz4Extra(lit) : new Uint8Array(0), data]
  if (bomb > 0) parts.push(new Uint8Array([1, 0]), match >= 15 ? lz4Extra(match) : new Uint8Array(0))
  return new Uint8Array(Buffer.concat(parts))
}

/** The Hadoop framing of one LZ4 block: big-endian output size, input size, then the block. */
export function hadoopFrame(declared: number, block: Uint8Array): Uint8Array {
  const out = new Uint8Array(8 + block.length)
  const view = new DataView(out.buffer)
  view.setUint32(0, declared)
  view.setUint32(4, block.length)
  out.set(block, 8)
  return out
}

/** A snappy stream: the length preamble `declared`, `data` as literals, then `bomb` bytes of 64-byte copies at offset 1. */
export function snappyStream(data: Uint8Array, declared = data.length, bomb = 0): Uint8Array {
  const out: number[] = []
  for (let n = declared; ; n = Math.floor(n / 128)) {
    if (n < 128) {
      out.push(n)
      break
    }
    out.push((n % 128) | 128)
  }
  for (let at = 0; at < data.length; at += 60) {
    const part = data.subarray(at, at + 60)
    out.push((part.length - 1) << 2, ...part)
  }
  for (let k = 0; k < bomb; k += 64) out.push((63 << 2) | 2, 1, 0)
  return new Uint8Array(out)
}

const zeros = (n: number) => new Uint8Array(n)
const join = (a: Uint8Array, b: Uint8Array) => {
  const out = new Uint8Array(a.length + b.length)
  out.set(a)
  out.set(b, a.length)
  return out
}

/** An honest compressor of each codec. */
export function honest(codec: PageCodec): (b: Uint8Array) => Uint8Array {
  switch (codec) {
    case 'SNAPPY':
      return (b) => snappyStream(b)
    case 'GZIP':
      return (b) => new Uint8Array(gzipSync(b))
    case 'BROTLI':
      return (b) => new Uint8Array(brotliCompressSync(b, { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } }))
    case 'LZ4':
      return (b) => hadoopFrame(b.length, lz4Block(b))
    case 'LZ4_RAW':
      return (b) => lz4Block(b)
  }
}

/** A compressor whose page holds the page and then `extra` more bytes (zeros, or a run): the header declares the page. */
export function bomb(codec: PageCodec, extra: number): (b: Uint8Array) => Uint8Array {
  switch (codec) {
    case 'SNAPPY':
      return (b) => snappyStream(b, b.length, extra)
    case 'GZIP': {
      const tail = gzipSync(zeros(extra), { level: 1 }) // a second gzip member, made once
      return (b) => join(gzipSync(b), tail)
    }
    case 'BROTLI':
      return (b) => new Uint8Array(brotliCompressSync(join(b, zeros(extra)), { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } }))
    case 'LZ4':
      return (b) => hadoopFrame(b.length, lz4Block(b, extra))
    case 'LZ4_RAW':
      return (b) => lz4Block(b, extra)
  }
}

/** A compressor whose page holds one byte less than the page: the header declares the page. */
export function short(codec: PageCodec): (b: Uint8Array) => Uint8Array {
  if (codec === 'SNAPPY') return (b) => snappyStream(b.subarray(0, -1), b.length)
  const compress = honest(codec)
  return (b) => compress(b.subarray(0, -1))
}
