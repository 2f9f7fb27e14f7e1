/**
 * The Parquet page codecs other than zstd (zstd-page.ts), each held to the size the page header declares: the output
 * is never more than that size (plus node's 16 KB output chunk for zlib), and a page whose data decompresses to more
 * or less is an error that says so. The decoders of hyparquet-compressors write into a buffer of the declared size but
 * go on decoding past its end (gzip and lz4 drop the extra bytes silently, a thousandfold in CPU; lz4 and gzip pad a
 * short page with zeros), so gzip and brotli go to node's zlib, bounded by `maxOutputLength` (brotli's window cut to
 * the page), and lz4 to our own decoder (lz4-page.ts); snappy too has our own (snappy-page.ts), whose length preamble
 * must agree with the header.
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

/**
 * A brotli page of exactly `length` bytes. Its window is cut to the smallest that holds the page and has a header of
 * the same bit length (so nothing after it moves: uncompressed meta-blocks are byte-aligned): the decoder fills a
 * ring buffer of the window (16 MB at most) before it writes a byte, so a page of a few KB that declares 100 bytes
 * would otherwise cost 16 MB and its decoding each time; now at most 256 KB (a window of 18 to 24 bits), 64 KB (16)
 * or 1 KB (10 to 17, 7-bit headers). A distance past the window means a dictionary word, but no distance in a page
 * reaches past its own length, so with a window of at least that length plus 16 (RFC 7932, 9.1) it decodes the same.
 */
export function decompressBrotliPage(input: Uint8Array, length: number): Uint8Array {
  checkLength('brotli', length)
  return viaZlib('brotli', (b, o) => brotliDecompressSync(b, o), smallerWindow(input, length), length)
}

/** The stream with its WBITS header replaced by the smallest of the same bit length that holds `length`. */
function smallerWindow(input: Uint8Array, length: number): Uint8Array {
  if (input.length === 0) return input
  const b0 = input[0]!
  // WBITS is the stream's first 1, 4 or 7 bits, least significant first: 0 is 16; 1 then n (1-7) is 17 + n; 1, 000,
  // then m is 8 + m (m = 1 marks the large window, which zlib refuses), or 17 for m = 0.
  const candidates: { wbits: number; code: number }[] = []
  let wbits: number
  let len: number
  if ((b0 & 1) === 0) return input
  if ((b0 >> 1) & 7) {
    ;[wbits, len] = [17 + ((b0 >> 1) & 7), 4]
    for (let w = 18; w <= 24; w++) candidates.push({ wbits: w, code: 1 | ((w - 17) << 1) })
  } else {
    ;[wbits, len] = [(b0 >> 4) & 7 ? 8 + ((b0 >> 4) & 7) : 17, 7]
    if (wbits === 9) return input
    for (let w = 10; w <= 15; w++) candidates.push({ wbits: w, code: 1 | ((w - 8) << 4) })
    candidates.push({ wbits: 17, code: 1 })
  }
  const pick = candidates.find((c) => 2 ** c.wbits - 16 >= length)
  if (!pick || pick.wbits >= wbits) return input
  const out = input.slice()
  out[0] = (b0 & ~((1 << len) - 1) & 255) | pick.code
  return out
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
