// The model matrix's cost: a replayed eval of N samples (default 2,000) run by `vitest run` with one model, against
// the same eval with `models: { a, b, c }` (three replayed models, each answering differently on some samples), the
// report with its per-model block and paired comparisons built. Each variant runs as a real
// `node node_modules/vitest/vitest.mjs run` subprocess in a throwaway project (one fork worker, as bench/harness.js),
// timed by /usr/bin/time (user + sys of the whole tree) and wall clock; the fastest of BENCH_MATRIX_REPEATS runs
// counts. Prints one line per variant and the ratios; nothing passes or fails. Figures go to BENCHMARKS.md.
//
//   npm run build && node bench/matrix.js        (BENCH_MATRIX_SAMPLES=2000, BENCH_MATRIX_REPEATS=3)
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { childEnv } from './child-env.js'

const REPO = fileURLToPath(new URL('..', import.meta.url))
const N = Number(process.env.BENCH_MATRIX_SAMPLES ?? 2000)
const REPEATS = Math.max(1, Number(process.env.BENCH_MATRIX_REPEATS ?? 3))
const TIME_BIN = '/usr/bin/time'
const POOL_SETTINGS = `pool: 'forks', maxWorkers: 1, fileParallelism: false, isolate: true`

const TOOLS = ['get_weather', 'get_forecast', 'send_email'].map((name) => ({
  type: 'function',
  function: { name, parameters: { type: 'object', properties: { city: { type: 'string' }, to: { type: 'string' } } } },
}))
const hermes = (call) => `<tool_call>\n${JSON.stringify(call)}\n</tool_call>`

/** Sample i, and what model `k` (0, 1, 2) answers: k = 2 fixes some arguments the others miss. */
function sample(i) {
  const call = i % 2 === 0 ? { name: 'get_weather', arguments: { city: `c${i % 50}` } } : { name: 'send_email', arguments: { to: `u${i % 30}@example.com` } }
  return { id: `s${i}`, messages: [{ role: 'user', content: `request ${i}` }], tools: TOOLS, expected: [call] }
}
function output(i, k) {
  const s = sample(i)
  const call = s.expected[0]
  if (i % 10 === 0) return hermes({ name: call.name === 'get_weather' ? 'get_forecast' : 'get_weather', arguments: call.arguments })
  if (i % 10 === 1 && k < 2) return hermes({ name: call.name, arguments: { ...call.arguments, city: 'wrong' } })
  if (i % 10 === 2 && k === 1) return 'No call this time.'
  return `<think>\nThe user wants ${call.name}.\n</think>\n\n${hermes(call)}`
}

function project() {
  const dir = mkdtempSync(join(tmpdir(), 'tool-evals-bench-matrix-'))
  mkdirSync(join(dir, 'node_modules'))
  symlinkSync(REPO, join(dir, 'node_modules/vitest-tool-evals'), 'dir')
  symlinkSync(join(REPO, 'node_modules/vitest'), join(dir, 'node_modules/vitest'), 'dir')
  mkdirSync(join(dir, 'evals'))
  const lines = (f) => `${Array.from({ length: N }, (_, i) => JSON.stringify(f(i))).join('\n')}\n`
  writeFileSync(join(dir, 'data.jsonl'), lines(sample))
  for (const k of [0, 1, 2]) writeFileSync(join(dir, `outputs-${k}.jsonl`), lines((i) => ({ id: `s${i}`, output: output(i, k) })))
  const config = (include) => `import { defineConfig } from 'vitest/config'
import ToolEvalsReporter from 'vitest-tool-evals/reporter'
export default defineConfig({ test: { include: ['${include}'], ${POOL_SETTINGS},
  reporters: [new ToolEvalsReporter({ outputFile: 'report.json', progress: false, summary: false })] } })
`
  writeFileSync(join(dir, 'one.config.mjs'), config('evals/one.eval.ts'))
  writeFileSync(join(dir, 'matrix.config.mjs'), config('evals/matrix.eval.ts'))
  writeFileSync(join(dir, 'evals/one.eval.ts'), `import { describeEval, replay } from 'vitest-tool-evals'
describeEval('bench', { data: 'data.jsonl', model: replay('outputs-0.jsonl') })
`)
  writeFileSync(join(dir, 'evals/matrix.eval.ts'), `import { describeEval, replay } from 'vitest-tool-evals'
describeEval('bench', { data: 'data.jsonl', models: { a: replay('outputs-0.jsonl'), b: replay('outputs-1.jsonl'), c: replay('outputs-2.jsonl') } })
`)
  return dir
}


function runOnce(dir, variant) {
  const vitest = [join(REPO, 'node_modules/vitest/vitest.mjs'), 'run', '--config', `${variant}.config.mjs`]
  const timed = existsSync(TIME_BIN)
  const t0 = process.hrtime.bigint()
  const r = timed
    ? spawnSync(TIME_BIN, ['-f', 'CPU %U %S', process.execPath, ...vitest], { cwd: dir, env: childEnv(), encoding: 'utf8' })
    : spawnSync(process.execPath, vitest, { cwd: dir, env: childEnv(), encoding: 'utf8' })
  const wall = Number(process.hrtime.bigint() - t0) / 1e9
  const m = /CPU ([\d.]+) ([\d.]+)/.exec(r.stderr ?? '')
  const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'))
  if (report.samples !== (variant === 'one' ? N : 3 * N)) throw new Error(`${variant}: ${report.samples} samples in the report`)
  if (variant === 'matrix' && !report.models?.comparisons?.c) throw new Error('matrix: no comparison in the report')
  return { wall, cpu: m ? Number(m[1]) + Number(m[2]) : null }
}

const dir = project()
try {
  const best = {}
  for (let rep = 0; rep < REPEATS; rep++) {
    for (const variant of ['one', 'matrix']) {
      const r = runOnce(dir, variant)
      const b = (best[variant] ??= { wall: Infinity, cpu: Infinity })
      b.wall = Math.min(b.wall, r.wall)
      if (r.cpu !== null) b.cpu = Math.min(b.cpu, r.cpu)
    }
  }
  for (const [variant, b] of Object.entries(best)) console.log(JSON.stringify({ variant, samples: variant === 'one' ? N : 3 * N, wallS: +b.wall.toFixed(2), cpuS: +b.cpu.toFixed(2) }))
  console.log(`matrix of 3 models × ${N} samples / one model × ${N}: CPU ${(best.matrix.cpu / best.one.cpu).toFixed(2)}×, wall ${(best.matrix.wall / best.one.wall).toFixed(2)}× (fastest of ${REPEATS})`)
} finally {
  if (!process.env.BENCH_KEEP) rmSync(dir, { recursive: true, force: true })
}
