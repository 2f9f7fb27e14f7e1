// Harness overhead: the marginal cost per sample of running replayed samples through `vitest run` as eval test cases
// (describeEval + replay + ToolEvalsReporter), against a plain Vitest file that does the same parse-and-score work
// (parseToolCalls + scoreSample) in `test.for` with a do-nothing reporter. Each variant runs as a real
// `node node_modules/vitest/vitest.mjs run` subprocess in a throwaway project under os.tmpdir(), at N samples
// (default 1,000, 10,000 and 100,000), one fork worker, the same pool and isolation settings for both.
//
// Marginal cost per sample = (t(10k) − t(1k)) / 9,000 and (t(100k) − t(10k)) / 90,000: start-up (Vite, config,
// module loading) cancels out, what is left is per-sample work in the worker, the RPC of task results to the main
// process, and the reporters. Measured: wall time; CPU time (user + sys of the whole tree, GC threads included, from
// /usr/bin/time where present: less disturbed by other load than wall time); peak memory as the summed RSS of the
// tree (main process + worker) polled from /proc, and the largest single process's max RSS (/usr/bin/time).
// On a shared machine single runs vary by ±20%: the fastest of several repeats counts, and the 100k step (90,000
// samples apart) is the steadier figure.
//
// Run: npm run build && node bench/harness.js. Environment:
//   BENCH_HARNESS_SIZES=1000,10000,100000   sample counts (the first two give the 10k figure, the last two the 100k one)
//   BENCH_SKIP_100K=1                        leave out 100,000 (about 20 s a run per variant)
//   BENCH_HARNESS_REPEATS=3                  runs per (variant, N); times: the fastest run, memory: the highest
//   BENCH_HARNESS_VARIANTS=plain,tool-evals      (also: task, the same outputs through describeEval's `task`)
//   BENCH_KEEP=1                             keep the temporary projects (their paths are printed)
//   BENCH_HARNESS_PACKAGE=DIR                link this package root (package.json + dist/) as vitest-tool-evals
//                                            instead of the repository (A/B comparisons against an older build)
// Prints one JSON line per measurement and a summary line; nothing here passes or fails.
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { childEnv } from './child-env.js'

const REPO = fileURLToPath(new URL('..', import.meta.url))
const VITEST_BIN = join(REPO, 'node_modules/vitest/vitest.mjs')
const TIME_BIN = '/usr/bin/time'

const SIZES = (process.env.BENCH_HARNESS_SIZES ?? '1000,10000,100000')
  .split(',')
  .map(Number)
  .filter((n) => Number.isInteger(n) && n > 0)
  .filter((n) => !(process.env.BENCH_SKIP_100K && n >= 100_000))
const REPEATS = Math.max(1, Number(process.env.BENCH_HARNESS_REPEATS ?? 3))
const VARIANTS = (process.env.BENCH_HARNESS_VARIANTS ?? 'plain,tool-evals').split(',')
const POLL_MS = 50
const PACKAGE = process.env.BENCH_HARNESS_PACKAGE ? resolve(process.env.BENCH_HARNESS_PACKAGE) : REPO

if (!existsSync(join(PACKAGE, 'dist/index.js')) || !existsSync(join(PACKAGE, 'dist/reporter/index.js'))) {
  console.error(`[bench] ${join(PACKAGE, 'dist')} is missing: run \`npm run build\` first`)
  process.exit(1)
}

// ---------------------------------------------------------------------------------------------------------------
// Synthetic data: a few tools, Hermes-format raw outputs, a mix of right, wrong and missing calls.

const TOOLS = [
  tool('get_weather', 'Current weather for a city.', {
    city: { type: 'string', description: 'City name.' },
    unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
  }, ['city']),
  tool('search_flights', 'Search flights between two airports.', {
    from: { type: 'string', description: 'IATA code of the origin.' },
    to: { type: 'string', description: 'IATA code of the destination.' },
    passengers: { type: 'integer', minimum: 1 },
  }, ['from', 'to']),
  tool('create_event', 'Create a calendar event.', {
    title: { type: 'string' },
    date: { type: 'string', description: 'ISO date.' },
    attendees: { type: 'array', items: { type: 'string' } },
  }, ['title', 'date']),
  tool('send_email', 'Send an email.', {
    to: { type: 'string' },
    subject: { type: 'string' },
    body: { type: 'string' },
  }, ['to', 'subject']),
]

function tool(name, description, properties, required) {
  return { type: 'function', function: { name, description, parameters: { type: 'object', properties, required } } }
}

const CITIES = ['Paris', 'Tokyo', 'Lima', 'Oslo', 'Cairo', 'Austin', 'Hanoi', 'Porto']
const AIRPORTS = ['SFO', 'NRT', 'CDG', 'LIM', 'OSL', 'CAI', 'AUS', 'HAN']

/** The right call for sample i, and the user's request for it. */
function intended(i) {
  const city = CITIES[i % CITIES.length]
  switch (i % 4) {
    case 0:
      return { prompt: `What's the weather like in ${city} right now, in celsius?`, call: { name: 'get_weather', arguments: { city, unit: 'celsius' } } }
    case 1: {
      const from = AIRPORTS[i % AIRPORTS.length]
      const to = AIRPORTS[(i + 3) % AIRPORTS.length]
      return { prompt: `Find me flights from ${from} to ${to} for ${1 + (i % 3)} people.`, call: { name: 'search_flights', arguments: { from, to, passengers: 1 + (i % 3) } } }
    }
    case 2:
      return {
        prompt: `Put "Review ${i}" on my calendar for 2025-06-${String(1 + (i % 28)).padStart(2, '0')} with Ana and Bo.`,
        call: { name: 'create_event', arguments: { title: `Review ${i}`, date: `2025-06-${String(1 + (i % 28)).padStart(2, '0')}`, attendees: ['Ana', 'Bo'] } },
      }
    default:
      return { prompt: `Email bob@example.com that the report ${i} is ready.`, call: { name: 'send_email', arguments: { to: 'bob@example.com', subject: `Report ${i} is ready` } } }
  }
}

const hermes = (call) => `<tool_call>\n${JSON.stringify(call)}\n</tool_call>`

/**
 * Sample i and its recorded output. Out of 20: 12 right, 2 wrong argument values, 2 wrong tool, 2 with no call
 * where one was expected, 1 rightly without a call, 1 calling where none was expected.
 */
function syntheticSample(i) {
  const id = `s${i}`
  const kind = i % 20
  if (kind >= 18) {
    const sample = { id, messages: [{ role: 'user', content: `Just say hello, number ${i}.` }], tools: TOOLS, expected: [] }
    const output = kind === 18 ? `Hello! (${i})` : hermes({ name: 'get_weather', arguments: { city: 'Paris' } })
    return { sample, output }
  }
  const { prompt, call } = intended(i)
  const sample = { id, messages: [{ role: 'system', content: 'You are a helpful assistant.' }, { role: 'user', content: prompt }], tools: TOOLS, expected: [call] }
  let output
  if (kind < 12) output = `<think>\nThe user wants ${call.name}.\n</think>\n\n${hermes(call)}`
  else if (kind < 14) output = hermes({ name: call.name, arguments: { ...call.arguments, [Object.keys(call.arguments)[0]]: 'wrong' } })
  else if (kind < 16) output = hermes({ name: call.name === 'get_weather' ? 'send_email' : 'get_weather', arguments: call.arguments })
  else output = `I cannot help with that request (${i}).`
  return { sample, output }
}

// ---------------------------------------------------------------------------------------------------------------
// The two projects' files. Both: one test file, one fork worker, default isolation, no file parallelism.

const POOL_SETTINGS = `pool: 'forks', maxWorkers: 1, fileParallelism: false, isolate: true`

const EVAL_CONFIG = `import { defineConfig } from 'vitest/config'
import ToolEvalsReporter from 'vitest-tool-evals/reporter'
export default defineConfig({ test: {
  include: ['evals/**/*.eval.ts'], ${POOL_SETTINGS},
  reporters: [new ToolEvalsReporter({ outputFile: 'report.json', progress: false })],
} })
`

const EVAL_FILE = `import { describeEval, replay } from 'vitest-tool-evals'
describeEval('bench', { data: 'data.jsonl', model: replay('outputs.jsonl') })
`

// The same recorded outputs through describeEval's `task` (your application under test) instead of `model`: what
// the task path adds per sample over the model path (the task adapter, the shape check) on replayed outputs.
const TASK_CONFIG = EVAL_CONFIG.replace("include: ['evals/**/*.eval.ts']", "include: ['tasks/**/*.eval.ts']")
const TASK_FILE = `import { readFileSync } from 'node:fs'
import { describeEval } from 'vitest-tool-evals'
const outputs = new Map(readFileSync('outputs.jsonl', 'utf8').split('\\n').filter((l) => l.trim()).map((l) => JSON.parse(l)).map((o) => [o.id, o.output]))
describeEval('bench', { data: 'data.jsonl', task: (sample) => outputs.get(sample.id) })
`

// The plain variant's reporter does the least a reporter can: count the tests at the end of the run.
const PLAIN_CONFIG = `import { defineConfig } from 'vitest/config'
const minimal = {
  onTestRunEnd(modules) {
    let n = 0
    for (const m of modules) for (const t of m.children.allTests()) if (t.result().state === 'passed') n++
    console.log('plain: ' + n + ' passed')
  },
}
export default defineConfig({ test: {
  include: ['plain/**/*.test.ts'], ${POOL_SETTINGS},
  reporters: [minimal],
} })
`

// describeEval asserts nothing per sample by default (the reporter's thresholds are the gate), so neither does this
// file: a plain check instead of \`expect\`, whose per-call cost would flatter the harness.
const PLAIN_FILE = `import { readFileSync } from 'node:fs'
import { test } from 'vitest'
import { parseToolCalls, scoreSample } from 'vitest-tool-evals'
const lines = (file) => readFileSync(file, 'utf8').split('\\n').filter((l) => l.trim()).map((l) => JSON.parse(l))
const outputs = new Map(lines('outputs.jsonl').map((o) => [o.id, o.output]))
const samples = lines('data.jsonl')
test.for(samples)('$id', (sample) => {
  const calls = parseToolCalls(outputs.get(sample.id), { tools: sample.tools })
  const score = scoreSample(calls, sample.expected)
  if (score.expected !== sample.expected.length) throw new Error('scored against the wrong sample')
})
`

function createProject(n) {
  const dir = mkdtempSync(join(tmpdir(), `tool-evals-bench-${n}-`))
  mkdirSync(join(dir, 'node_modules'))
  symlinkSync(PACKAGE, join(dir, 'node_modules/vitest-tool-evals'), 'dir')
  symlinkSync(join(REPO, 'node_modules/vitest'), join(dir, 'node_modules/vitest'), 'dir')
  mkdirSync(join(dir, 'evals'))
  mkdirSync(join(dir, 'plain'))
  const data = []
  const outputs = []
  for (let i = 0; i < n; i++) {
    const { sample, output } = syntheticSample(i)
    data.push(JSON.stringify(sample))
    outputs.push(JSON.stringify({ id: sample.id, output }))
  }
  writeFileSync(join(dir, 'data.jsonl'), `${data.join('\n')}\n`)
  writeFileSync(join(dir, 'outputs.jsonl'), `${outputs.join('\n')}\n`)
  writeFileSync(join(dir, 'vitest.eval.config.mjs'), EVAL_CONFIG)
  writeFileSync(join(dir, 'evals/bench.eval.ts'), EVAL_FILE)
  mkdirSync(join(dir, 'tasks'))
  writeFileSync(join(dir, 'vitest.task.config.mjs'), TASK_CONFIG)
  writeFileSync(join(dir, 'tasks/bench.eval.ts'), TASK_FILE)
  writeFileSync(join(dir, 'vitest.plain.config.mjs'), PLAIN_CONFIG)
  writeFileSync(join(dir, 'plain/bench.test.ts'), PLAIN_FILE)
  return dir
}

// ---------------------------------------------------------------------------------------------------------------
// Running and measuring one subprocess tree.


const PAGE = 4096

/** Pids of `root` and all its descendants, through /proc/<pid>/task/<tid>/children (no /proc-wide scan). */
function processTree(root) {
  const out = []
  const stack = [root]
  while (stack.length > 0) {
    const pid = stack.pop()
    out.push(pid)
    let tids
    try {
      tids = readdirSync(`/proc/${pid}/task`)
    } catch {
      continue
    }
    for (const tid of tids) {
      let text = ''
      try {
        text = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8')
      } catch {
        continue
      }
      for (const c of text.split(' ')) if (c.trim()) stack.push(Number(c))
    }
  }
  return out
}

function treeRss(root) {
  let bytes = 0
  for (const pid of processTree(root)) {
    try {
      bytes += Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * PAGE
    } catch {
      // exited between listing and reading
    }
  }
  return bytes
}

const hasTime = existsSync(TIME_BIN)
const hasProc = existsSync('/proc/self/statm')

/** One `vitest run`; wall time, peak tree RSS (polled), the largest process's max RSS (/usr/bin/time). */
function runVitest(dir, config) {
  const timeFile = join(dir, 'time.txt')
  const vitestArgs = [VITEST_BIN, 'run', '--config', config]
  const [cmd, args] = hasTime ? [TIME_BIN, ['-f', '%M %U %S', '-o', timeFile, process.execPath, ...vitestArgs]] : [process.execPath, vitestArgs]
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint()
    const child = spawn(cmd, args, { cwd: dir, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    let peak = 0
    const poll = hasProc
      ? setInterval(() => {
          const rss = treeRss(child.pid)
          if (rss > peak) peak = rss
        }, POLL_MS)
      : undefined
    child.on('close', (code) => {
      const wallMs = Number(process.hrtime.bigint() - t0) / 1e6
      if (poll) clearInterval(poll)
      let maxProcessRssMB
      let cpuMs
      if (hasTime && existsSync(timeFile)) {
        // The last line (earlier ones are the command's own complaints, such as a non-zero exit status).
        const [kb, user, sys] = readFileSync(timeFile, 'utf8').trim().split('\n').pop().split(' ').map(Number)
        if (Number.isFinite(kb)) maxProcessRssMB = +(kb / 1024).toFixed(1)
        if (Number.isFinite(user) && Number.isFinite(sys)) cpuMs = Math.round((user + sys) * 1000)
      }
      resolve({ code, wallMs, cpuMs, peakTreeRssMB: hasProc ? +(peak / 2 ** 20).toFixed(1) : undefined, maxProcessRssMB, stdout, stderr })
    })
  })
}

/** Checks that the run did what it should (every sample ran), so a broken run is never reported as a fast one. */
function verify(variant, dir, n, run) {
  if (variant === 'plain') {
    const m = /plain: (\d+) passed/.exec(run.stdout)
    return m && Number(m[1]) === n ? undefined : `expected ${n} passed tests: ${tail(run)}`
  }
  const reportPath = join(dir, 'report.json')
  if (!existsSync(reportPath)) return `no report written: ${tail(run)}`
  const report = JSON.parse(readFileSync(reportPath, 'utf8'))
  rmSync(reportPath)
  if (report.samples !== n || report.errored.count !== 0) return `report has ${report.samples} samples, ${report.errored.count} errored`
  return run.code === 0 ? undefined : `exit code ${run.code}: ${tail(run)}`
}

function tail(run) {
  return `${run.stdout}\n${run.stderr}`.trim().slice(-1500)
}

const CONFIGS = { plain: 'vitest.plain.config.mjs', 'tool-evals': 'vitest.eval.config.mjs', task: 'vitest.task.config.mjs' }

// ---------------------------------------------------------------------------------------------------------------

const results = {} // variant -> n -> best measurement
const projects = []
const cleanup = () => {
  if (process.env.BENCH_KEEP) return
  for (const dir of projects) rmSync(dir, { recursive: true, force: true })
}
process.on('SIGINT', () => {
  cleanup()
  process.exit(130)
})

try {
  for (const n of SIZES) {
    const dir = createProject(n)
    projects.push(dir)
    if (process.env.BENCH_KEEP) console.error(`[bench] project for N=${n}: ${dir}`)
    for (let r = 0; r < REPEATS; r++) {
      // Alternate the variants so slow drifts in machine load hit both alike.
      for (const variant of r % 2 === 0 ? VARIANTS : [...VARIANTS].reverse()) {
        const run = await runVitest(dir, CONFIGS[variant])
        const problem = verify(variant, dir, n, run)
        const line = {
          bench: 'harness',
          variant,
          samples: n,
          run: r + 1,
          wallMs: Math.round(run.wallMs),
          cpuMs: run.cpuMs,
          peakTreeRssMB: run.peakTreeRssMB,
          maxProcessRssMB: run.maxProcessRssMB,
        }
        if (problem) line.error = problem
        console.log(JSON.stringify(line))
        if (problem) continue
        const byN = (results[variant] ??= {})
        const best = (byN[n] ??= { wallMs: Infinity, cpuMs: Infinity, peakTreeRssMB: 0, maxProcessRssMB: 0 })
        // Times: the least disturbed run. Memory: the highest seen (a peak is a peak).
        best.wallMs = Math.min(best.wallMs, run.wallMs)
        if (run.cpuMs !== undefined) best.cpuMs = Math.min(best.cpuMs, run.cpuMs)
        best.peakTreeRssMB = Math.max(best.peakTreeRssMB, run.peakTreeRssMB ?? 0)
        best.maxProcessRssMB = Math.max(best.maxProcessRssMB, run.maxProcessRssMB ?? 0)
      }
    }
    if (!process.env.BENCH_KEEP) rmSync(dir, { recursive: true, force: true })
  }
} finally {
  cleanup()
}

// ---------------------------------------------------------------------------------------------------------------
// Summary: marginal ms per sample between consecutive sizes, the ratio to plain Vitest, peak memory at each N.

/** Marginal cost per sample between consecutive sizes (ms of wall or CPU time; KB of memory with `scale` 1024). */
function marginal(byN, key, scale = 1) {
  const out = {}
  const ns = SIZES.filter((n) => byN?.[n] && Number.isFinite(byN[n][key]))
  for (let i = 1; i < ns.length; i++) {
    const [a, b] = [ns[i - 1], ns[i]]
    out[`${a}->${b}`] = +(((byN[b][key] - byN[a][key]) * scale) / (b - a)).toFixed(scale === 1 ? 4 : 1)
  }
  return out
}

function ratios(own, plain) {
  if (!plain) return {}
  return Object.fromEntries(Object.keys(own).filter((k) => plain[k] > 0).map((k) => [k, +(own[k] / plain[k]).toFixed(2)]))
}

const perN = (byN, key) => Object.fromEntries(SIZES.filter((n) => byN?.[n]).map((n) => [n, Math.round(byN[n][key] * 10) / 10]))

const summary = { bench: 'harness-summary', repeats: REPEATS, package: PACKAGE, node: process.version }
for (const key of ['msPerSample', 'ratioToPlain', 'cpuMsPerSample', 'cpuRatioToPlain', 'wallMs', 'cpuMs', 'peakTreeRssMB', 'maxProcessRssMB', 'peakTreeKBPerSample']) {
  summary[key] = {}
}
for (const variant of VARIANTS) {
  const byN = results[variant]
  summary.msPerSample[variant] = marginal(byN, 'wallMs')
  summary.cpuMsPerSample[variant] = marginal(byN, 'cpuMs')
  summary.peakTreeKBPerSample[variant] = marginal(byN, 'peakTreeRssMB', 1024)
  for (const key of ['wallMs', 'cpuMs', 'peakTreeRssMB', 'maxProcessRssMB']) summary[key][variant] = perN(byN, key)
}
for (const variant of VARIANTS) {
  if (variant === 'plain') continue
  summary.ratioToPlain[variant] = ratios(summary.msPerSample[variant], summary.msPerSample.plain)
  summary.cpuRatioToPlain[variant] = ratios(summary.cpuMsPerSample[variant], summary.cpuMsPerSample.plain)
}
// The task path against the model path (describeEval with replay), when both ran.
if (summary.msPerSample.task && summary.msPerSample['tool-evals']) {
  summary.taskRatioToModel = ratios(summary.msPerSample.task, summary.msPerSample['tool-evals'])
  summary.taskCpuRatioToModel = ratios(summary.cpuMsPerSample.task, summary.cpuMsPerSample['tool-evals'])
}
console.log(JSON.stringify(summary))
