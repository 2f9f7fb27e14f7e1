/**
 * Snappy pages of Parquet files, decoded to the declared size and never more. Our own decoder, so that a page that
 * holds more or less than it declares says which (hyparquet's drops bytes past its buffer and then reports a
 * "premature end of input" either way). The stream's own length preamble must equal the page header's size.
 */
import { checkLength, invalid, PageCodecError, tooLarge, tooSmall } from './page-codecs.js'

/** A snappy page (the raw format, as Parquet uses it) of exactly `length` bytes. */
export function decompressSnappyPage(input: Uint8Array, length: number): Uint8Array {
  checkLength('snappy', length)
  const bad = (why: string) => new PageCodecError(invalid('snappy', why))
  let i = 0
  let declared = 0
  for (let shift = 0; ; shift += 7) {
    if (i >= input.length || i >= 5) throw bad('no length preamble')
    const b = input[i++]!
    declared += (b & 0x7f) * 2 ** shift
    if (b < 0x80) break
  }
  if (declared > length) throw new PageCodecError(`${tooLarge('snappy', length)} (its preamble says ${declared})`)
  const out = new Uint8Array(length)
  let o = 0
  while (i < input.length) {
    const tag = input[i++]!
    let n: number
    if ((tag & 3) === 0) {
      // A literal: its length - 1 in the tag, or in the 1 to 4 bytes after it.
      n = tag >> 2
      if (n >= 60) {
        const bytes = n - 59
        if (input.length - i < bytes) throw bad('it ends inside a literal length')
        n = 0
        for (let k = bytes - 1; k >= 0; k--) n = n * 256 + input[i + k]!
        i += bytes
      }
      n += 1
      if (n > input.length - i) throw bad('a literal passes its end')
      if (n > length - o) throw new PageCodecError(tooLarge('snappy', length))
      if (n > 32) out.set(input.subarray(i, i + n), o)
      else for (let k = 0; k < n; k++) out[o + k] = input[i + k]!
      i += n
      o += n
      continue
    }
    // A copy: 4 to 64 bytes from 1 to 2^32 - 1 bytes back, with a 1, 2 or 4-byte offset.
    let offset: number
    if ((tag & 3) === 1) {
      if (input.length - i < 1) throw bad('it ends inside a copy')
      n = ((tag >> 2) & 7) + 4
      offset = ((tag >> 5) << 8) | input[i++]!
    } else {
      const bytes = (tag & 3) === 2 ? 2 : 4
      if (input.length - i < bytes) throw bad('it ends inside a copy')
      n = (tag >> 2) + 1
      offset = 0
      for (let k = bytes - 1; k >= 0; k--) offset = offset * 256 + input[i + k]!
      i += bytes
    }
    if (offset === 0 || offset > o) throw bad(`a copy offset of ${offset} reaches before the page`)
    if (n > length - o) throw new PageCodecError(tooLarge('snappy', length))
    // At most 64 bytes: a byte loop beats copyWithin's call, and is right for overlapping copies too.
    for (let k = 0; k < n; k++) out[o + k] = out[o + k - offset]!
    o += n
  }
  if (o !== length) throw new PageCodecError(tooSmall('snappy', o, length))
  if (declared !== length) throw new PageCodecError(`a snappy page's preamble says ${declared} bytes where its page header declares ${length}`)
  return out
}
