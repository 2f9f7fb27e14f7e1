/**
 * Small throwaway eval projects for the integration tests: a temp directory whose node_modules holds
 * `vitest-tool-evals` as an install does (package.json and the built dist/, hard-linked) beside links to its
 * dependencies and to the repository's `vitest`, so an eval file there imports the package exactly as a user's
 * would. Vitest runs as a real subprocess (node_modules/vitest/vitest.mjs), one per `run()`, or one for several runs
 * (`runs()`, where the process is not what is tested).
 */
import { execFile, execFileSync, fork, spawn, type ChildProcess } from 'node:child_process'
import { copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const REPO = fileURLToPath(new URL('../..', import.meta.url))
const VITEST_BIN = join(REPO, 'node_modules/vitest/vitest.mjs')

/** Make sure dist/ exists (`npm test` builds it in `pretest`; a direct run of one test file may not have). */
export function ensureBuilt(): void {
  if (existsSync(join(REPO, 'dist/index.js')) && existsSync(join(REPO, 'dist/reporter/index.js'))) return
  try {
    execFileSync(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', join(REPO, 'tsconfig.build.json')], { stdio: 'pipe' })
  } catch {
    // Type errors still emit JavaScript; the check below is what matters.
  }
  if (!existsSync(join(REPO, 'dist/reporter/index.js'))) throw new Error('dist/ is missing: run `npm run build` first')
}

export interface EvalProject {
  dir: string
  write(path: string, content: string): void
  run(args: string[], env?: Record<string, string>): Promise<RunResult>
  /**
   * Several `vitest <args>` runs, in order, in ONE Node process (Vitest's public `startVitest`, see
   * test/helpers/vitest-driver.mjs): for runs whose subject is the report or the files written, not the process.
   * Each run's result is what `run()` returns for it: exit code, stdout and stderr.
   */
  runs(runs: SharedRun[]): Promise<RunResult[]>
  /** Vitest as a live child (for signals and watch mode): its output so far, and its end. */
  start(args: string[], env?: Record<string, string>): LiveVitest
  remove(): void
}

/** One run of `project.runs(...)`. */
export interface SharedRun {
  args: string[]
  /** Variables of this run only, on top of the environment `run()` gives (the others are restored after it). */
  env?: Record<string, string>
  /** Called in the test process just before this run starts (edit the project's files here). */
  before?: () => void | Promise<void>
  /** Called in the test process once this run has ended, before the next starts (read what it wrote here). */
  after?: (result: RunResult) => void | Promise<void>
}

export interface RunResult {
  code: number
  stdout: string
  stderr: string
}

// Hard links until one fails (the temp folder on another file system): copies from then on.
let canLink = true

/** dist/ file by file into `to`: hard links (no copying of megabytes per project), a copy where linking fails. */
function linkTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true })
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const [src, dst] = [join(from, entry.name), join(to, entry.name)]
    if (entry.isDirectory()) linkTree(src, dst)
    else if (!canLink) copyFileSync(src, dst)
    else {
      try {
        linkSync(src, dst)
      } catch {
        canLink = false
        copyFileSync(src, dst)
      }
    }
  }
}

/**
 * The package inside `node_modules/` as npm installs it, not a link to this repository: Vitest runs a package under
 * node_modules natively, as it does for a user, where through a link it would see source outside node_modules and
 * transform every dist/ file in each run (twice the CPU time of a whole subprocess run). Its dependencies and the
 * optional peers this repository has are links, so the package imports them as from an install.
 */
export function installPackage(dir: string): void {
  const target = join(dir, 'node_modules/vitest-tool-evals')
  linkTree(join(REPO, 'dist'), join(target, 'dist'))
  copyFileSync(join(REPO, 'package.json'), join(target, 'package.json'))
  const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { dependencies?: object; peerDependencies?: object }
  for (const name of [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})]) {
    const from = join(REPO, 'node_modules', name)
    const to = join(dir, 'node_modules', name)
    if (!existsSync(from) || existsSync(to)) continue
    mkdirSync(dirname(to), { recursive: true })
    symlinkSync(from, to, 'dir')
  }
}

export function createEvalProject(files: Record<string, string>): EvalProject {
  const dir = mkdtempSync(join(tmpdir(), 'tool-evals-project-'))
  mkdirSync(join(dir, 'node_modules'))
  installPackage(dir)
  const write = (path: string, content: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), content)
  }
  for (const [path, content] of Object.entries(files)) write(path, content)
  return {
    dir,
    write,
    run: (args, env) => runVitest(dir, args, env),
    runs: (runs) => runVitestShared(dir, runs),
    start: (args, env) => startVitest(dir, args, env),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  }
}

/** The parent test run's own variables would make the child think it is a worker of ours. */
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('VITEST') || k === 'TEST' || k === 'NODE_ENV' || k === 'GITHUB_STEP_SUMMARY' || k === 'GITHUB_ACTIONS') continue
    env[k] = v
  }
  return { ...env, CI: 'true', NO_COLOR: '1', FORCE_COLOR: '0', ...extra }
}

export function runVitest(cwd: string, args: string[], env?: Record<string, string>): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [VITEST_BIN, ...args], { cwd, env: childEnv(env), timeout: 90_000, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0
      resolve({ code, stdout, stderr })
    })
  })
}

const DRIVER = join(REPO, 'test/helpers/vitest-driver.mjs')
const END = (i: number) => `\u001eend of run ${i}\u001e`

/**
 * `runs` in one Node process forked in `cwd` (the driver is copied there, so it imports the project's `vitest` as
 * the command line does). The driver asks for each run in turn; between two runs, the last one's `after` and the
 * next one's `before` run here. Rejects with the driver's output when it dies before the last run.
 */
export function runVitestShared(cwd: string, runs: SharedRun[]): Promise<RunResult[]> {
  const driver = join(cwd, '.vitest-driver.mjs')
  copyFileSync(DRIVER, driver)
  const child = fork(driver, [], { cwd, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe', 'ipc'] })
  const streams = { stdout: '', stderr: '' }
  const waiters = new Set<() => void>()
  const onData = (which: 'stdout' | 'stderr') => (text: string) => {
    streams[which] += text
    for (const w of [...waiters]) w()
  }
  // Decoded as a stream: a character split between two chunks stays whole.
  child.stdout?.setEncoding('utf8').on('data', onData('stdout'))
  child.stderr?.setEncoding('utf8').on('data', onData('stderr'))
  const results: RunResult[] = []
  const codes: number[] = []
  const from = { stdout: 0, stderr: 0 }
  // Run i's output: each stream up to its end marker (written before the driver said the run was done).
  const take = (which: 'stdout' | 'stderr', i: number) => {
    const at = streams[which].indexOf(END(i), from[which])
    if (at < 0) return undefined
    const text = streams[which].slice(from[which], at)
    from[which] = at + END(i).length
    return text
  }
  const collect = (i: number) =>
    new Promise<RunResult>((resolve) => {
      const parts: Partial<Record<'stdout' | 'stderr', string>> = {}
      const check = () => {
        parts.stdout ??= take('stdout', i)
        parts.stderr ??= take('stderr', i)
        if (parts.stdout === undefined || parts.stderr === undefined) return
        waiters.delete(check)
        resolve({ code: codes[i] as number, stdout: parts.stdout, stderr: parts.stderr })
      }
      waiters.add(check)
      check()
    })
  const killTimer = setTimeout(() => child.kill('SIGKILL'), 30_000 + 60_000 * runs.length)
  return new Promise((resolve, reject) => {
    const between = async (next: number) => {
      if (next > 0) {
        const result = await collect(next - 1)
        results.push(result)
        await runs[next - 1]?.after?.(result)
      }
      const run = runs[next]
      if (!run) return void child.send({ end: true })
      await run.before?.()
      child.send({ args: run.args, env: run.env ?? {} })
    }
    child.on('message', (message: { ready?: number; done?: number; code?: number }) => {
      if (message.done !== undefined) codes[message.done] = message.code as number
      if (message.ready === undefined) return
      between(message.ready).catch((err) => {
        child.kill('SIGKILL')
        reject(err)
      })
    })
    child.on('close', (code, signal) => {
      clearTimeout(killTimer)
      if (results.length === runs.length && code === 0) return resolve(results)
      reject(new Error(`the Vitest driver ended (${signal ?? code}) after ${results.length} of ${runs.length} runs:\n${streams.stdout}\n${streams.stderr}`))
    })
  })
}

export interface LiveVitest {
  child: ChildProcess
  /** stdout and stderr so far, interleaved. */
  output(): string
  /** Resolves when `pattern` appears in the output (rejects after `timeoutMs`). */
  waitFor(pattern: RegExp | string, timeoutMs?: number): Promise<void>
  /** The exit: code (or 128 + signal number when killed by a signal) and output. */
  done: Promise<RunResult>
}

export function startVitest(cwd: string, args: string[], env?: Record<string, string>): LiveVitest {
  const child = spawn(process.execPath, [VITEST_BIN, ...args], { cwd, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  let all = ''
  const waiters = new Set<() => void>()
  const onData = (which: 'out' | 'err') => (chunk: Buffer) => {
    const text = chunk.toString()
    if (which === 'out') stdout += text
    else stderr += text
    all += text
    for (const w of [...waiters]) w()
  }
  child.stdout?.on('data', onData('out'))
  child.stderr?.on('data', onData('err'))
  const killTimer = setTimeout(() => child.kill('SIGKILL'), 90_000)
  const done = new Promise<RunResult>((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(killTimer)
      resolve({ code: code ?? (signal === 'SIGKILL' ? 137 : signal === 'SIGTERM' ? 143 : 130), stdout, stderr })
    })
  })
  const waitFor = (pattern: RegExp | string, timeoutMs = 30_000) =>
    new Promise<void>((resolve, reject) => {
      const matches = () => (typeof pattern === 'string' ? all.includes(pattern) : pattern.test(all))
      if (matches()) return resolve()
      const timer = setTimeout(() => {
        waiters.delete(check)
        reject(new Error(`timed out waiting for ${String(pattern)}; output so far:\n${all}`))
      }, timeoutMs)
      const check = () => {
        if (!matches()) return
        clearTimeout(timer)
        waiters.delete(check)
        resolve()
      }
      waiters.add(check)
    })
  return { child, output: () => all, waitFor, done }
}

/**
 * A report without what differs between two runs of the same samples (the time it was written, the name of its
 * samples file, which follows the report's, and the run id binding the two, with the file's hash): for comparing a
 * merged run with an unsharded one.
 */
export function comparableReport(report: Record<string, any>): Record<string, unknown> {
  const { samplesFile: _file, runId: _id, samplesHash: _hash, run, ...rest } = report
  if (run === undefined) return rest
  const { time: _time, ...runRest } = run as Record<string, unknown>
  return { ...rest, run: runRest }
}

/** A samples file's text without its run id (the one thing two runs of the same samples write differently). */
export function samplesWithoutRunId(text: string): string {
  const [header, ...lines] = text.split('\n')
  const { runId: _id, ...rest } = JSON.parse(header as string)
  return [JSON.stringify(rest), ...lines].join('\n')
}
