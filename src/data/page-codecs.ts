/**
 * The Parquet page codecs other than zstd (zstd-page.ts), each held to the size the page header declares: the output
 * is never more than that size (plus node's 16 KB output chunk for zlib), and a page whose data decompresses to more
 * or less is an error that says so. The decoders of hyparquet-compressors write into a buffer of the declared size but
 * go on decoding past its end (gzip and lz4 drop the extra bytes silently, a thousandfold in CPU; lz4 and gzip pad a
 * short page with zeros), so gzip and brotli go to node's zlib, bounded by `maxOutputLength`, and lz4 to our own
 * decoder (lz4-page.ts); snappy too has our own (snappy-page.ts), whose length preamble must agree with the header.
 */
import { brotliDecompressSync, gunzipSync, type ZlibOptions, type BrotliOptions } from 'node:zlib'

/** A page whose bytes disagree with its header, or that is not valid data of its codec. */
export class PageCodecError extends Error {}

/** `a gzip page`, `an LZ4 page`. */
const aPage = (codec: string) => `${/^(LZ4|[aeiou])/.test(codec) ? 'an' : 'a'} ${codec} page`
export const tooLarge = (codec: string, length: number) => `${aPage(codec)} decompresses to more than the ${length} bytes its page header declares`
export const tooSmall = (codec: string, got: number, length: number) => `${aPage(codec)} decompresses to ${got} bytes, not the ${length} its page header declares`
export const invalid = (codec: string, why: string) => `${aPage(codec)} is not valid ${codec} (${why})`

/** A declared size that is no size (a v2 page whose level lengths pass its own size comes out negative). */
export function checkLength(codec: string, length: number): void {
  if (!Number.isSafeInteger(length) || length < 0) throw new PageCodecError(`${aPage(codec)} header declares an impossible size (${length})`)
}

/** A gzip page (RFC 1952, one member or several) of exactly `length` bytes. */
export function decompressGzipPage(input: Uint8Array, length: number): Uint8Array {
  return viaZlib('gzip', (b, o) => gunzipSync(b, o), input, length)
}

/** A brotli page of exactly `length` bytes. */
export function decompressBrotliPage(input: Uint8Array, length: number): Uint8Array {
  return viaZlib('brotli', (b, o) => brotliDecompressSync(b, o), input, length)
}

function viaZlib(codec: string, inflate: (b: Uint8Array, o: ZlibOptions & BrotliOptions) => Buffer, input: Uint8Array, length: number): Uint8Array {
  checkLength(codec, length)
  let out: Buffer
  try {
    // zlib stops as soon as its output passes maxOutputLength (which must be at least 1).
    out = inflate(input, { maxOutputLength: Math.max(length, 1) })
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw new PageCodecError(tooLarge(codec, length))
    throw new PageCodecError(invalid(codec, (err as Error).message))
  }
  if (out.length > length) throw new PageCodecError(tooLarge(codec, length))
  if (out.length < length) throw new PageCodecError(tooSmall(codec, out.length, length))
  // A plain Uint8Array view: Buffer's slice() shares memory where hyparquet may expect a copy.
  return new Uint8Array(out.buffer, out.byteOffset, out.length)
}
