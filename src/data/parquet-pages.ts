/**
 * Page headers checked against the footer before hyparquet decodes them. hyparquet sizes its arrays by each page
 * header's value count (`new Array(num_values)`, then fills it), so a page claiming 2^31 values in a file whose
 * footer lists ten would end the worker in a heap out-of-memory abort, which no `try` catches. Every byte range
 * hyparquet fetches passes through here first: the page headers of each column chunk starting in the range are read
 * (headers only: a page's data is stepped over) and their value counts must add up to the chunk's `num_values`,
 * which for a top-level column that repeats nothing is the row group's `num_rows`; the rows of version-2 pages must
 * add up to the row group's. Any mismatch is an error on the file, raised before its pages are decoded. The reads
 * start at row 0, so every column chunk read is read from its start and is checked.
 */
import type { AsyncBuffer, FileMetaData } from 'hyparquet'
import { parquetHeader } from 'hyparquet/src/column.js'

interface Chunk {
  start: number
  end: number
  values: number
  rows: number
  /** Whether the column is top level and repeats nothing: one value per row. */
  flat: boolean
  name: string
  group: number
  checked: boolean
}

/** `file`, with the pages of every column chunk checked against `metadata` as its bytes are fetched. */
export function pageCheckedBuffer(file: AsyncBuffer, metadata: FileMetaData): AsyncBuffer {
  const chunks = chunksOf(metadata)
  const check = (buffer: ArrayBuffer, from: number): ArrayBuffer => {
    const to = from + buffer.byteLength
    for (const c of chunks) if (!c.checked && c.start >= from && c.start < to) checkChunk(c, buffer, from)
    return buffer
  }
  return {
    byteLength: file.byteLength,
    slice(start: number, end?: number) {
      const got = file.slice(start, end)
      return got instanceof Promise ? got.then((b) => check(b, start)) : check(got, start)
    },
  }
}

function chunksOf(metadata: FileMetaData): Chunk[] {
  const repeated = new Set<string>()
  for (const el of metadata.schema) if (el.repetition_type === 'REPEATED') repeated.add(el.name)
  const chunks: Chunk[] = []
  metadata.row_groups.forEach((group, g) => {
    for (const column of group.columns) {
      const meta = column.meta_data
      if (!meta) continue
      const start = Number(meta.dictionary_page_offset || meta.data_page_offset)
      const path = meta.path_in_schema
      chunks.push({
        start,
        end: start + Number(meta.total_compressed_size),
        values: Number(meta.num_values),
        rows: Number(group.num_rows),
        flat: path.length === 1 && !repeated.has(path[0]!),
        name: path.join('.'),
        group: g,
        checked: false,
      })
    }
  })
  return chunks
}

/** Walk the chunk's page headers within `buffer` (which holds the file from `from`); throws on a mismatch. */
function checkChunk(c: Chunk, buffer: ArrayBuffer, from: number): void {
  c.checked = true
  const where = `column ${c.name} of row group ${c.group}`
  if (c.flat && c.values !== c.rows) {
    throw new Error(`the Parquet footer gives ${where} ${c.values} values for ${c.rows} rows`)
  }
  const view = new DataView(buffer)
  const end = Math.min(c.end, from + buffer.byteLength) - from
  const reader = { view, offset: c.start - from }
  let values = 0
  let rows = 0
  let v2 = true
  while (reader.offset < end) {
    let header
    try {
      header = parquetHeader(reader)
    } catch (err) {
      throw new Error(`a page header of ${where} cannot be read (${(err as Error).message})`)
    }
    const v1 = header.data_page_header
    const two = header.data_page_header_v2
    if (v1 || two) {
      values += Number((v1 ?? two)!.num_values)
      if (two) rows += Number(two.num_rows)
      else v2 = false
      if (!(values <= c.values) || (two && !(rows <= c.rows))) throw mismatch(where, c, values, rows, !!two)
    }
    const size = Number(header.compressed_page_size)
    if (!(size >= 0)) throw new Error(`a page header of ${where} gives a negative page size`)
    reader.offset += size
  }
  // Only a chunk read whole can be summed (a read that stops early, with `limit`, checked its pages one by one).
  if (c.end - from <= buffer.byteLength) {
    if (values !== c.values || (v2 && rows !== c.rows)) throw mismatch(where, c, values, rows, v2)
  }
}

function mismatch(where: string, c: Chunk, values: number, rows: number, v2: boolean): Error {
  const what = v2 && rows !== c.rows ? `${rows} rows where the footer lists ${c.rows}` : `${values} values where the footer lists ${c.values}`
  return new Error(`the page headers of ${where} give ${what}`)
}
