/**
 * Rows of a Parquet file as plain JSON-like objects, ready for the same sample normalisation as JSONL lines.
 * hyparquet reads the file; its pages are decompressed by our own codecs (snappy, gzip, brotli, lz4, zstd, which files
 * written by polars or pyarrow with various settings use), each bounded by the size the page header declares.
 */
import { parquetMetadata, parquetReadObjects, type AsyncBuffer, type Compressors, type FileMetaData } from 'hyparquet'
import { DEFAULT_HUB_LIMITS, formatBytes, HubLimitError, type ResolvedHubLimits } from './hub-limits.js'
import { footerCounts } from './parquet-footer.js'
import { decompressLz4Page, decompressLz4RawPage } from './lz4-page.js'
import { decompressBrotliPage, decompressGzipPage } from './page-codecs.js'
import { pageCheckedBuffer } from './parquet-pages.js'
import { decompressSnappyPage } from './snappy-page.js'
import { decompressZstdPage } from './zstd-page.js'

/**
 * The sample fields that Hub datasets often store as JSON text (a Parquet column needs one schema for all rows, and
 * tool schemas and call arguments differ from row to row): a string there is decoded.
 */
const JSON_TEXT_FIELDS = ['messages', 'tools', 'expected'] as const

/** One row, or the field that could not be made plain. */
export type ParquetRow = { value: Record<string, unknown>; field?: undefined } | { field: string; message: string; value?: undefined }

export type ParquetLimits = Pick<ResolvedHubLimits, 'maxRows' | 'maxRowGroups' | 'maxDecompressedBytes'>

/**
 * The first `maxRows` rows of a Parquet file: its bytes, or an AsyncBuffer that fetches ranges (then only the footer
 * and the row groups those rows lie in are read). The footer's counts are checked against `limits` before anything
 * is decoded, and the pages' decompressed sizes as they are read. Throws when the file is not Parquet, cannot be
 * decoded, or passes a limit (a HubLimitError).
 */
export async function readParquetRows(source: Uint8Array | AsyncBuffer, maxRows = Infinity, limits: ParquetLimits = DEFAULT_HUB_LIMITS): Promise<ParquetRow[]> {
  const file: AsyncBuffer = source instanceof Uint8Array ? (source.buffer.slice(source.byteOffset, source.byteOffset + source.byteLength) as ArrayBuffer) : source
  const metadata = await readFooter(file, maxRows, limits)
  const rowEnd = Math.min(Number(metadata.num_rows), maxRows)
  if (rowEnd <= 0) return []
  checkDecompressedSize(metadata, rowEnd, limits.maxDecompressedBytes)
  const rows = await parquetReadObjects({ file: pageCheckedBuffer(file, metadata), metadata, rowEnd, compressors: guardedCompressors(limits.maxDecompressedBytes) })
  return rows.map((row) => plainRow(row))
}

/** The footer, decoded only after its claimed counts pass the limits. */
async function readFooter(file: AsyncBuffer, maxRows: number, limits: ParquetLimits): Promise<FileMetaData> {
  const size = file.byteLength
  if (size < 12) throw new Error('not a Parquet file (too short)')
  const tail = new Uint8Array(await file.slice(size - 8, size))
  const view = new DataView(tail.buffer, tail.byteOffset, 8)
  if (view.getUint32(4, true) !== 0x31524150) throw new Error('not a Parquet file (no PAR1 at its end)')
  const length = view.getUint32(0, true)
  if (length > size - 12) throw new Error(`the Parquet footer claims ${length} bytes, more than the file holds`)
  const meta = new Uint8Array(await file.slice(size - 8 - length, size - 8))
  const counts = footerCounts(meta)
  if (counts.rowGroups > limits.maxRowGroups) {
    throw new HubLimitError(`the Parquet footer lists ${counts.rowGroups.toLocaleString('en-US')} row groups`, 'maxRowGroups', limits.maxRowGroups)
  }
  const rows = Math.min(counts.numRows, maxRows)
  if (rows > limits.maxRows) {
    const what = Number.isFinite(maxRows) ? `reading ${rows.toLocaleString('en-US')} rows (\`limit\`)` : `the Parquet footer lists ${counts.numRows.toLocaleString('en-US')} rows (no \`limit\` set)`
    throw new HubLimitError(what, 'maxRows', limits.maxRows)
  }
  const whole = new Uint8Array(length + 8)
  whole.set(meta)
  whole.set(tail, length)
  return parquetMetadata(whole.buffer)
}

/** The uncompressed sizes the footer gives for the row groups holding the first `rowEnd` rows, checked before reading. */
function checkDecompressedSize(metadata: FileMetaData, rowEnd: number, max: number): void {
  let rows = 0
  let bytes = 0
  let groups = 0
  for (const group of metadata.row_groups) {
    if (rows >= rowEnd) break
    rows += Number(group.num_rows)
    groups++
    for (const chunk of group.columns) bytes += Number(chunk.meta_data?.total_uncompressed_size ?? 0)
  }
  if (bytes > max) throw new HubLimitError(`the ${groups} row group(s) to read decompress to ${formatBytes(bytes)} by the footer`, 'maxDecompressedBytes', max)
}

/**
 * The codecs, each counting the page sizes it is asked to produce (before it allocates them) against `max`: the
 * footer may understate them. Each decodes to the page's declared size and never more, and refuses a page whose data
 * holds more or less (page-codecs.ts, lz4-page.ts, snappy-page.ts, zstd-page.ts), so the declared sizes bound memory
 * and time. Snappy is listed, so hyparquet never falls back to its own.
 */
function guardedCompressors(max: number): Compressors {
  let total = 0
  const all: Compressors = {
    SNAPPY: decompressSnappyPage,
    GZIP: decompressGzipPage,
    BROTLI: decompressBrotliPage,
    LZ4: decompressLz4Page,
    LZ4_RAW: decompressLz4RawPage,
    ZSTD: decompressZstdPage,
  }
  const guarded: Compressors = {}
  for (const [codec, decompress] of Object.entries(all) as [keyof Compressors, NonNullable<Compressors[keyof Compressors]>][]) {
    guarded[codec] = (input, length) => {
      total += length
      if (total > max) throw new HubLimitError(`its pages decompress to more than ${formatBytes(max)}`, 'maxDecompressedBytes', max)
      return decompress(input, length)
    }
  }
  return guarded
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
