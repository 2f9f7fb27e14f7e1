/**
 * The counts a Parquet footer claims (rows, row groups), read without decoding it. Decoding a footer of 200,000 row
 * groups takes minutes and gigabytes; its counts sit in the first fields of the Thrift `FileMetaData`
 * (1 version, 2 schema, 3 num_rows, 4 row_groups), so a linear skim of the compact protocol finds them at once.
 */

export interface FooterCounts {
  numRows: number
  rowGroups: number
}

/** Nested structs deeper than this are not a Parquet footer (and would overflow a recursive skim). */
const MAX_DEPTH = 64

class Reader {
  offset = 0
  constructor(readonly bytes: Uint8Array) {}

  byte(): number {
    if (this.offset >= this.bytes.length) throw new Error('the Parquet footer ends early')
    return this.bytes[this.offset++] as number
  }

  /** An unsigned LEB128 varint, as a bigint (an i64 does not fit a number). */
  varint(): bigint {
    let result = 0n
    for (let shift = 0n; shift < 70n; shift += 7n) {
      const b = this.byte()
      result |= BigInt(b & 0x7f) << shift
      if ((b & 0x80) === 0) return result
    }
    throw new Error('the Parquet footer has a malformed varint')
  }

  zigzag(): bigint {
    const n = this.varint()
    return (n >> 1n) ^ -(n & 1n)
  }

  skipBytes(n: number): void {
    if (n < 0 || this.offset + n > this.bytes.length) throw new Error('the Parquet footer ends early')
    this.offset += n
  }
}

/** Compact protocol type ids. */
const T = { TRUE: 1, FALSE: 2, BYTE: 3, I16: 4, I32: 5, I64: 6, DOUBLE: 7, BINARY: 8, LIST: 9, SET: 10, MAP: 11, STRUCT: 12 }

/** A list or set header: its size and element type. */
function listHeader(r: Reader): { size: number; type: number } {
  const head = r.byte()
  const short = head >> 4
  return { size: short === 15 ? Number(r.varint()) : short, type: head & 0x0f }
}

function skipValue(r: Reader, type: number, depth: number): void {
  if (depth > MAX_DEPTH) throw new Error('the Parquet footer nests too deeply')
  switch (type) {
    case T.TRUE:
    case T.FALSE:
    case T.BYTE:
      if (type === T.BYTE) r.skipBytes(1)
      return
    case T.I16:
    case T.I32:
    case T.I64:
      r.varint()
      return
    case T.DOUBLE:
      r.skipBytes(8)
      return
    case T.BINARY:
      r.skipBytes(Number(r.varint()))
      return
    case T.LIST:
    case T.SET: {
      const { size, type: elem } = listHeader(r)
      // Booleans in a list take a byte each (not folded into a header as in a field).
      for (let i = 0; i < size; i++) elem === T.TRUE || elem === T.FALSE ? r.skipBytes(1) : skipValue(r, elem, depth + 1)
      return
    }
    case T.MAP: {
      const size = Number(r.varint())
      if (size === 0) return
      const kv = r.byte()
      for (let i = 0; i < size; i++) {
        skipValue(r, kv >> 4, depth + 1)
        skipValue(r, kv & 0x0f, depth + 1)
      }
      return
    }
    case T.STRUCT:
      skipStruct(r, depth + 1)
      return
    default:
      throw new Error(`the Parquet footer has an unknown Thrift type ${type}`)
  }
}

function skipStruct(r: Reader, depth: number): void {
  for (let id = 0; ; ) {
    const head = r.byte()
    if (head === 0) return
    id = head >> 4 === 0 ? Number(r.zigzag()) : id + (head >> 4)
    skipValue(r, head & 0x0f, depth)
  }
}

/** The row and row-group counts of a `FileMetaData` (the footer's Thrift bytes, without length and magic). */
export function footerCounts(metadata: Uint8Array): FooterCounts {
  const r = new Reader(metadata)
  let numRows: number | undefined
  let rowGroups: number | undefined
  for (let id = 0; numRows === undefined || rowGroups === undefined; ) {
    const head = r.byte()
    if (head === 0) break
    id = head >> 4 === 0 ? Number(r.zigzag()) : id + (head >> 4)
    const type = head & 0x0f
    if (id === 3 && type === T.I64) numRows = Number(r.zigzag())
    else if (id === 4 && type === T.LIST) rowGroups = listHeader(r).size
    else skipValue(r, type, 1)
  }
  if (numRows === undefined || rowGroups === undefined) throw new Error('the Parquet footer has no row count or row group list')
  return { numRows, rowGroups }
}
