// Baseline comparison at scale: two runs of 100,000 synthetic samples (10 suites, dialogues of 1-3 turns as
// clusters, NeMo's six + no_call_accuracy + a user scorer's fractional metric, tokens and latency, a few per cent of
// samples flipping each way and a seeded drop in one suite). Times writing each run's samples sidecar, reading both
// back, the comparison and the Markdown comment, and `tool-evals compare` end to end as a subprocess (reports and
// sidecars from disk). Run: npm run bench (or node bench/compare.js after npm run build). Figures go to
// BENCHMARKS.md; nothing here passes or fails.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { compareRuns } from '../dist/reporter/compare/compare.js'
import { readOutcomes, writeOutcomes } from '../dist/reporter/compare/outcomes.js'
import { renderComparisonMarkdown } from '../dist/reporter/compare/render.js'

const N = Number(process.env.COMPARE_BENCH_SAMPLES ?? 100_000)
const SUITES = Array.from({ length: 10 }, (_, i) => `suite_${i}`)
const NEMO = ['has_call', 'name_correct', 'args_json_valid', 'args_field_precision', 'args_field_recall', 'args_exact_match']
const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url))

function rng(seed) {
  let s = seed >>> 0
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32)
}

/** One run: `flip` decides per sample index whether this run gets it wrong. */
function makeRun(seed, wrongness) {
  const rand = rng(seed)
  const out = []
  let i = 0
  let dialogue = 0
  while (out.length < N) {
    const turns = 1 + Math.floor(rand() * 3)
    const suite = SUITES[dialogue % SUITES.length]
    for (let k = 1; k <= turns && out.length < N; k++, i++) {
      const wrong = wrongness(i, suite, rand)
      const noCall = i % 17 === 0
      const values = {}
      if (noCall) values.no_call_accuracy = wrong ? 0 : 1
      else for (const m of NEMO) values[m] = wrong && m !== 'has_call' && m !== 'args_json_valid' ? 0 : 1
      values['units.quality'] = wrong ? 0.3 + rand() * 0.3 : 0.7 + rand() * 0.3
      const o = { suite, id: `d${dialogue}#${k}`, values, failures: wrong ? ['wrong_name'] : [], callsHash: (wrong ? 'bad' : 'good') + String(i).padStart(13, '0'), usage: { promptTokens: 300 + (i % 50), completionTokens: 20 + Math.floor(rand() * 10), latencyMs: 200 + Math.floor(rand() * 100) } }
      if (wrong) {
        o.expected = `get_weather({"city":"City${i}"})`
        o.calls = `get_time({"city":"City${i}"})`
      }
      out.push(o)
    }
    dialogue++
  }
  return out
}

/** Wall time and this process's CPU time (user + system): on a shared machine the CPU time is the steadier figure. */
function time(label, fn) {
  const t0 = process.hrtime.bigint()
  const c0 = process.cpuUsage()
  const r = fn()
  const ms = Number(process.hrtime.bigint() - t0) / 1e6
  const cpu = process.cpuUsage(c0)
  console.log(`  ${label.padEnd(44)} ${ms.toFixed(0).padStart(6)} ms wall ${((cpu.user + cpu.system) / 1000).toFixed(0).padStart(6)} ms CPU`)
  return r
}

const dir = mkdtempSync(join(tmpdir(), 'tool-evals-compare-bench-'))
try {
  console.log(`compare: two runs of ${N.toLocaleString('en')} samples`)
  // Base: 10% wrong at random. Head: the same, 3% of samples flipping each way, and suite_3 losing 5 points.
  const base = makeRun(1, (_i, _s, rand) => rand() < 0.1)
  const baseWrong = new Set(base.filter((o) => o.failures.length > 0).map((o) => `${o.suite}/${o.id}`))
  let idx = 0
  const head = makeRun(2, (_i, suite, rand) => {
    const key = `${base[idx]?.suite}/${base[idx]?.id}`
    idx++
    const was = baseWrong.has(key)
    const r = rand()
    if (suite === 'suite_3' && !was && r < 0.06) return true
    return r < 0.03 ? !was : was
  })
  const basePath = join(dir, 'base.samples.jsonl')
  const headPath = join(dir, 'head.samples.jsonl')
  time('write base sidecar', () => writeOutcomes(basePath, base))
  time('write head sidecar', () => writeOutcomes(headPath, head))
  console.log(`  sidecar size: ${(statSync(basePath).size / 1e6).toFixed(1)} MB per run`)
  const [b, h] = time('read both sidecars', () => [readOutcomes(basePath), readOutcomes(headPath)])
  const c = time('compare (every metric, 10 suites)', () => compareRuns({ outcomes: b }, { outcomes: h }))
  time('render the Markdown comment', () => renderComparisonMarkdown(c))
  const m = c.metrics.name_correct
  console.log(`  name_correct: ${m.verdict}, Δ ${(m.delta * 100).toFixed(2)} pts, discordant ${m.discordant.regressed}/${m.discordant.improved}; suite_3: ${c.suites.suite_3.metrics.name_correct.verdict}`)

  for (const [name, file] of [['base', 'base.samples.jsonl'], ['head', 'head.samples.jsonl']]) {
    writeFileSync(join(dir, `${name}.json`), JSON.stringify({ samplesFile: file, run: { time: new Date().toISOString(), version: 'bench', suites: {} } }))
  }
  const t0 = process.hrtime.bigint()
  const c0 = process.resourceUsage()
  const r = spawnSync(process.execPath, [CLI, 'compare', join(dir, 'base.json'), join(dir, 'head.json'), '--format', 'md'], { encoding: 'utf8', maxBuffer: 64 << 20 })
  const ms = Number(process.hrtime.bigint() - t0) / 1e6
  console.log(`  ${'tool-evals compare --format md (subprocess)'.padEnd(44)} ${ms.toFixed(0).padStart(6)} ms wall (exit ${r.status}, ${r.stdout.length} chars of Markdown)`)
  void c0
  console.log(`  machine load average: ${(await import('node:os')).loadavg().map((x) => x.toFixed(1)).join(' ')} on ${(await import('node:os')).availableParallelism()} cores`)
} finally {
  rmSync(dir, { recursive: true, force: true })
}
