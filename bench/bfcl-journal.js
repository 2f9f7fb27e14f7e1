// What `tool-evals bfcl run` adds per category to keep every answer: the result file opened with its record of
// options, the data's digest, one synchronous append per entry, the sorted rewrite at the end; and, for comparison,
// reading the data's and the results' ids again (what scoring no longer does for single-turn and multi-turn).
// Real result lines: simple_python (glyphh-ada-1.1, 400) and multi_turn_base (gpt-oss-120b, 200), appended in reverse.
// Plain Node ESM over the built library: `npm run build && node bench/bfcl-journal.js`. BENCH_BFCL_DIR (../shared/bfcl).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { entriesFile, expectedIds, lineIds } from '../dist/bfcl/cli/expected-ids.js'
import { filesDigest, ResultJournal } from '../dist/bfcl/cli/result-journal.js'

const DATA = process.env.BENCH_BFCL_DIR ?? fileURLToPath(new URL('../../shared/bfcl', import.meta.url))
const CATEGORIES = [
  ['simple_python', DATA, join(DATA, 'recorded/glyphh-ada-1.1/BFCL_v4_simple_python_result.json')],
  ['multi_turn_base', join(DATA, 'multi_turn'), join(DATA, 'recorded/gpt-oss-120b-vllm/BFCL_v4_multi_turn_base_result.json')],
]
const ROUNDS = 15
const times = {}
for (let round = 0; round < ROUNDS; round++) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-bfcl-journal-'))
  const parts = {}
  for (const [category, dataIn, recorded] of CATEGORIES) {
    const lines = readFileSync(recorded, 'utf8').trim().split('\n').map((l) => [JSON.parse(l).id, l]).reverse()
    const add = (name, f) => {
      const t = performance.now()
      const r = f()
      parts[name] = (parts[name] ?? 0) + performance.now() - t
      return r
    }
    const identity = { model: 'm', mode: 'fc', temperature: 0.001, data: add('digest', () => filesDigest([entriesFile(category, dataIn)])) }
    const file = join(dir, `BFCL_v4_${category}_result.json`)
    const journal = add('open', () => new ResultJournal(file, identity))
    add('appends', () => {
      for (const [id, line] of lines) journal.append(id, line)
    })
    add('sorted rewrite', () => journal.finish())
    add('ids read again', () => {
      const present = new Set(lineIds(file))
      return expectedIds(category, dataIn).filter((id) => !present.has(id))
    })
  }
  for (const [name, ms] of Object.entries(parts)) (times[name] ??= []).push(ms)
  rmSync(dir, { recursive: true, force: true })
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
for (const [name, xs] of Object.entries(times)) console.log(`${name}: median ${median(xs).toFixed(1)} ms per run of both categories (600 entries), ${ROUNDS} rounds`)
