// `tool-evals history` over 1,000 runs, end to end as a subprocess (reading every report, the checkpoint curves'
// paired comparisons, the page with uPlot inlined, written to disk). Two histories of 1,000 runs of 200 samples
// each, appended by the reporter's own `appendToHistory` (a report and its samples file per run): 1,000 CI runs
// without steps, and the worst case for the curves, 1,000 checkpoints of one training run (every later checkpoint
// compared with the best, per metric, from the samples files). Run: npm run build && node bench/history.js.
// Figures go to BENCHMARKS.md; nothing here passes or fails.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { appendToHistory, historyLabel } from '../dist/reporter/history.js'
import { wilson } from '../dist/score/intervals.js'
import { runCli } from '../dist/cli/command.js'
import { historyCommand } from '../dist/cli/history.js'
import { PassThrough } from 'node:stream'

const RUNS = Number(process.env.HISTORY_BENCH_RUNS ?? 1000)
const SAMPLES = 200
const NEMO = ['has_call', 'name_correct', 'args_json_valid', 'args_field_precision', 'args_field_recall', 'args_exact_match']
const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url))

function rng(seed) {
  let s = seed >>> 0
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32)
}

/** One run's outcomes and report: a quality that drifts with the run's index. */
function makeRun(i) {
  const rand = rng(i + 1)
  const p = 0.75 + 0.15 * Math.sin(i / 40)
  const outcomes = []
  const sums = Object.fromEntries(NEMO.map((m) => [m, 0]))
  for (let k = 0; k < SAMPLES; k++) {
    const wrong = rand() > p
    const values = Object.fromEntries(NEMO.map((m) => [m, wrong && m !== 'has_call' && m !== 'args_json_valid' ? 0 : 1]))
    for (const m of NEMO) sums[m] += values[m]
    outcomes.push({ suite: 'weather', id: `s${String(k).padStart(4, '0')}`, values, failures: wrong ? ['wrong_arguments'] : [] })
  }
  const metrics = Object.fromEntries(NEMO.map((m) => [m, sums[m] / SAMPLES]))
  const metricCounts = Object.fromEntries(NEMO.map((m) => [m, SAMPLES]))
  const metricIntervals = Object.fromEntries(NEMO.map((m) => [m, wilson(metrics[m], SAMPLES)]))
  const pass = metrics.args_exact_match >= 0.7
  const time = new Date(Date.UTC(2026, 0, 1) + i * 3_600_000).toISOString()
  const report = {
    samples: SAMPLES, metrics, metricCounts, metricIntervals, suites: {}, thresholds: [{ metric: 'args_exact_match', min: 0.7, actual: metrics.args_exact_match, pass }],
    pass, thresholdsPass: pass, testsPass: true, gate: { pass, reasons: pass ? [] : [{ kind: 'threshold', message: 'args_exact_match under 0.7' }] },
    scored: SAMPLES, withExpectedCalls: SAMPLES, noCallExpected: 0, errored: { count: 0, byReason: {}, samples: [] }, skipped: { count: 0, byReason: {} },
    failures: {}, tools: {}, worst: [], run: { time, version: '0.1.0', git: { commit: (i * 2654435761 >>> 0).toString(16).padStart(8, '0').repeat(5) }, suites: {} },
  }
  return { report, outcomes }
}

function makeHistory(withSteps) {
  const dir = mkdtempSync(join(tmpdir(), 'history-bench-'))
  for (let i = 0; i < RUNS; i++) {
    const { report, outcomes } = makeRun(i)
    appendToHistory(dir, report, outcomes, historyLabel(report, withSteps ? { step: (i + 1) * 100, label: 'sft' } : {}, {}))
  }
  return dir
}

function timeCli(dir) {
  const out = join(dir, 'history.html')
  const t0 = process.hrtime.bigint()
  const r = spawnSync(process.execPath, [CLI, 'history', dir, '--out', out], { encoding: 'utf8' })
  const ms = Number(process.hrtime.bigint() - t0) / 1e6
  if (r.status !== 0) throw new Error(`tool-evals history failed: ${r.stderr}`)
  return { ms, kb: statSync(out).size / 1024 }
}

/** The command in this process: its wall and CPU time (user + system), steadier than wall time on a shared machine. */
async function timeInProcess(dir) {
  const io = { stdin: new PassThrough(), stdout: new PassThrough(), stderr: new PassThrough() }
  io.stdout.resume()
  io.stderr.resume()
  const t0 = process.hrtime.bigint()
  const c0 = process.cpuUsage()
  const code = await runCli([historyCommand], ['history', dir, '--out', join(dir, 'history.html')], io)
  const cpu = process.cpuUsage(c0)
  if (code !== 0) throw new Error(`tool-evals history exited ${code}`)
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, cpuMs: (cpu.user + cpu.system) / 1000 }
}

for (const [name, withSteps] of [['1,000 CI runs (no steps)', false], ['1,000 checkpoints of one training run', true]]) {
  const dir = makeHistory(withSteps)
  try {
    const files = readdirSync(dir).length
    const times = [timeCli(dir), timeCli(dir), timeCli(dir)]
    const inProcess = [await timeInProcess(dir), await timeInProcess(dir), await timeInProcess(dir)]
    console.log(`history: ${name}: ${files} files; tool-evals history (subprocess, wall) ${times.map((t) => `${(t.ms / 1000).toFixed(2)} s`).join(', ')}; page ${times[0].kb.toFixed(0)} KB`)
    console.log(`history: ${name}: in process: wall ${inProcess.map((t) => `${(t.ms / 1000).toFixed(2)} s`).join(', ')}; CPU ${inProcess.map((t) => `${(t.cpuMs / 1000).toFixed(2)} s`).join(', ')}`)
  } finally {
    if (process.env.KEEP) console.log(dir); else rmSync(dir, { recursive: true, force: true })
  }
}
