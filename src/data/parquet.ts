/**
 * Rows of a Parquet file as plain JSON-like objects, ready for the same sample normalisation as JSONL lines.
 * hyparquet reads the file (snappy natively; hyparquet-compressors adds zstd, gzip, brotli and lz4, which files written
 * by polars or pyarrow with other settings use).
 */
import { parquetReadObjects } from 'hyparquet'
import { compressors } from 'hyparquet-compressors'

/**
 * The sample fields that Hub datasets often store as JSON text (a Parquet column needs one schema for all rows, and
 * tool schemas and call arguments differ from row to row): a string there is decoded.
 */
const JSON_TEXT_FIELDS = ['messages', 'tools', 'expected'] as const

/** One row, or the field that could not be made plain. */
export type ParquetRow = { value: Record<string, unknown>; field?: undefined } | { field: string; message: string; value?: undefined }

/** The first `maxRows` rows of a Parquet file's bytes. Throws when the file is not Parquet or cannot be decoded. */
export async function readParquetRows(bytes: Uint8Array, maxRows = Infinity): Promise<ParquetRow[]> {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer
  const options: Parameters<typeof parquetReadObjects>[0] = { file, compressors }
  if (Number.isFinite(maxRows)) options.rowEnd = maxRows
  const rows = await parquetReadObjects(options)
  return rows.map((row) => plainRow(row))
}

/** A decoded row with Parquet's own value types made JSON-like, and JSON text in sample fields decoded. */
export function plainRow(row: Record<string, unknown>): ParquetRow {
  const value = plain(row) as Record<string, unknown>
  for (const field of JSON_TEXT_FIELDS) {
    const v = value[field]
    if (typeof v !== 'string') continue
    try {
      value[field] = JSON.parse(v)
    } catch (err) {
      return { field, message: `a string that is not valid JSON (${(err as Error).message})` }
    }
  }
  return { value }
}

/**
 * INT64 columns come back as BigInt (exact within 2^53, else kept as a decimal string), dates as Date (ISO text),
 * binary as bytes (UTF-8 text): what a JSON line would have held.
 */
function plain(v: unknown): unknown {
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString()
  if (v instanceof Date) return v.toISOString()
  if (v instanceof Uint8Array) return new TextDecoder().decode(v)
  if (Array.isArray(v)) return v.map(plain)
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, x] of Object.entries(v)) out[k] = plain(x)
    return out
  }
  return v
}
