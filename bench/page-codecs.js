// Parquet page decoding (issue 21, point 4): the bounded codecs (dist/data: snappy-page, page-codecs) against the
// decoders they replace (hyparquet's snappy, hyparquet-compressors' gzip and brotli), on one 8 MB page of word-like
// text, alternating, best of 7. LZ4 is left out: no LZ4 encoder runs here without a new dependency. Prints one JSON
// line per codec: ms per page for each and the ratio ours / theirs. Then a hostile brotli page (a 16 MB window, 64 MB of
// one byte, declaring 100 bytes): node's zlib as is against our page with its window cut to 256 KB.
// Run: npm run build && node bench/page-codecs.js.
import { brotliCompressSync, brotliDecompressSync, constants, gzipSync } from 'node:zlib'
import { snappyUncompress } from 'hyparquet'
import { compressors } from 'hyparquet-compressors'
import { decompressBrotliPage, decompressGzipPage } from '../dist/data/page-codecs.js'
import { decompressSnappyPage } from '../dist/data/snappy-page.js'

const SIZE = 8 << 20
let x = 1
let text = ''
while (text.length < SIZE) {
  x ^= x << 13
  x ^= x >>> 17
  x ^= x << 5
  text += `word${(x >>> 0) % 5000} `
}
const page = new TextEncoder().encode(text.slice(0, SIZE))

// hyparquet-writer's own snappy encoder (not among its exports, so by path).
const { snappyCompress } = await import('../node_modules/hyparquet-writer/src/snappy.js')
const snappy = snappyCompress(page)

const CASES = [
  ['gzip', new Uint8Array(gzipSync(page)), (b) => decompressGzipPage(b, SIZE), (b) => compressors.GZIP(b, SIZE)],
  ['brotli', new Uint8Array(brotliCompressSync(page)), (b) => decompressBrotliPage(b, SIZE), (b) => compressors.BROTLI(b, SIZE)],
]
CASES.unshift(['snappy', snappy, (b) => decompressSnappyPage(b, SIZE), (b) => snappyUncompress(b, new Uint8Array(SIZE))])

const once = (f, b) => {
  const t = performance.now()
  f(b)
  return performance.now() - t
}
for (const [codec, bytes, ours, theirs] of CASES) {
  let a = Infinity
  let b = Infinity
  for (let k = 0; k < 7; k++) {
    a = Math.min(a, once(ours, bytes))
    b = Math.min(b, once(theirs, bytes))
  }
  console.log(JSON.stringify({ codec, pageBytes: SIZE, compressedBytes: bytes.length, oursMs: +a.toFixed(1), theirsMs: +b.toFixed(1), ratio: +(a / b).toFixed(2) }))
}

const bomb = brotliCompressSync(Buffer.alloc(64 << 20, 97), { params: { [constants.BROTLI_PARAM_LGWIN]: 24, [constants.BROTLI_PARAM_QUALITY]: 1 } })
const refused = (f) => () => {
  try {
    f()
  } catch {
    return
  }
  throw new Error('the hostile brotli page was not refused')
}
let full = Infinity
let cut = Infinity
for (let k = 0; k < 20; k++) {
  full = Math.min(full, once(refused(() => brotliDecompressSync(bomb, { maxOutputLength: 100 }))))
  cut = Math.min(cut, once(refused(() => decompressBrotliPage(new Uint8Array(bomb), 100))))
}
console.log(JSON.stringify({ codec: 'brotli, hostile', pageBytes: bomb.length, declared: 100, fullWindowMs: +full.toFixed(2), cutWindowMs: +cut.toFixed(2) }))
