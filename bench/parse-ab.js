// Before/after on the corpus mix, in one process: the build in BENCH_DIST (an older commit's) and this one parse the
// same texts in alternation, so load on the machine weighs on both alike. Per format (the corpus case's format) and
// for the whole mix, microseconds per KB, best of the rounds; and a megabyte of `{` against the mix's cost per byte.
// Run: npm run build, then BENCH_DIST=/path/to/old/dist node bench/parse-ab.js. BENCH_CORPUS overrides the corpus path.
import { existsSync, readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

if (!process.env.BENCH_DIST) throw new Error('BENCH_DIST=/path/to/old/dist is required')
const before = await import(pathToFileURL(resolve(process.env.BENCH_DIST, 'calls/index.js')).href)
const after = await import('../dist/calls/index.js')
const corpusPath = process.env.BENCH_CORPUS ?? fileURLToPath(new URL('../../shared/corpus/cases.jsonl', import.meta.url))
if (!existsSync(corpusPath)) throw new Error(`no corpus at ${corpusPath}`)

const groups = new Map()
for (const line of readFileSync(corpusPath, 'utf8').split('\n')) {
  if (!line.trim()) continue
  const c = JSON.parse(line)
  if (c.contested || c.expected.length === 0) continue
  groups.set(c.format, [...(groups.get(c.format) ?? []), c.text])
}
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15)
const timeOnce = (parse, texts, reps) => {
  const t0 = process.hrtime.bigint()
  for (let r = 0; r < reps; r++) for (const t of texts) parse(t)
  return Number(process.hrtime.bigint() - t0) / 1e3 / reps
}
const rows = []
let mixBytes = 0
const mix = { before: 0, after: 0 }
for (const [format, texts] of groups) {
  const bytes = texts.reduce((n, t) => n + t.length, 0)
  const reps = Math.max(1, Math.ceil(100_000 / bytes))
  let b = Infinity
  let a = Infinity
  for (let r = 0; r < ROUNDS; r++) {
    b = Math.min(b, timeOnce(before.parseToolCalls, texts, reps))
    a = Math.min(a, timeOnce(after.parseToolCalls, texts, reps))
  }
  mixBytes += bytes
  mix.before += b
  mix.after += a
  rows.push({ format, outputs: texts.length, beforeUsPerKB: +((b / bytes) * 1024).toFixed(1), afterUsPerKB: +((a / bytes) * 1024).toFixed(1) })
}
rows.sort((x, y) => y.afterUsPerKB - x.afterUsPerKB)
const perKB = (us) => +((us / mixBytes) * 1024).toFixed(1)
console.log(JSON.stringify({ bench: 'parse-ab-mix', bytes: mixBytes, beforeUsPerKB: perKB(mix.before), afterUsPerKB: perKB(mix.after) }))
console.log(JSON.stringify({ bench: 'parse-ab-slowest-formats', slowest: rows.slice(0, 5) }))
const braces = '{'.repeat(1 << 20)
let bb = Infinity
let ba = Infinity
for (let r = 0; r < 7; r++) {
  bb = Math.min(bb, timeOnce(before.parseToolCalls, [braces], 1))
  ba = Math.min(ba, timeOnce(after.parseToolCalls, [braces], 1))
}
const mixPerByte = { before: mix.before / mixBytes, after: mix.after / mixBytes }
console.log(JSON.stringify({
  bench: 'parse-ab-open-braces-1MB',
  beforeMs: +(bb / 1000).toFixed(1),
  afterMs: +(ba / 1000).toFixed(1),
  beforePerByteVsMix: +(bb / (1 << 20) / mixPerByte.before).toFixed(2),
  afterPerByteVsMix: +(ba / (1 << 20) / mixPerByte.after).toFixed(2),
}))
