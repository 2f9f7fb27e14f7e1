// Several `vitest` runs in one Node process, for test/helpers/eval-project.ts's `project.runs(...)`: copied into the
// eval project and forked there, it asks its parent (over the IPC channel) for each run in turn, runs it as
// `vitest <args>` would (the same argument parser, Vitest's public `startVitest`), and reports the exit code. Each
// run's terminal output is everything the process writes to stdout and stderr between two end markers, whoever
// writes it (Vitest's logger, a reporter writing to process.stderr, a forked worker sharing the descriptors), so
// nothing is missed. The environment of each run is the process's first one plus the run's variables; the exit code
// is reset between runs.
import { parseCLI, startVitest } from 'vitest/node'

const END = (i) => `\u001eend of run ${i}\u001e`
const baseEnv = { ...process.env }

/** The process's variables as they were at its start, plus `extra` (what Vitest set in the last run is gone). */
function resetEnv(extra) {
  for (const key of Object.keys(process.env)) if (!(key in baseEnv)) delete process.env[key]
  Object.assign(process.env, baseEnv, extra)
}

/** What Vitest's command line does with its parsed options before it starts (vitest/dist/chunks/cac: normalizeCliOptions). */
function cliOptions(filters, options) {
  if (options.exclude) {
    options.cliExclude = [options.exclude].flat()
    delete options.exclude
  }
  if (filters.some((f) => f.includes(':'))) options.includeTaskLocation ??= true
  return options
}

/** Vitest's error banner: the text centred in a line of dashes as wide as the terminal (30 where none). */
function banner(text) {
  const cols = process.stdout.columns || 30
  const left = Math.max(0, Math.floor((cols - text.length) / 2))
  return '⎯'.repeat(left) + text + '⎯'.repeat(Math.max(0, cols - text.length - left))
}

async function runOnce(args) {
  const { filter, options } = parseCLI(['vitest', ...args])
  try {
    const ctx = await startVitest('test', filter, cliOptions(filter, options))
    // startVitest closes a run that keeps no server; the command line then only exits.
    if (ctx.shouldKeepServer()) await ctx.close()
  } catch (e) {
    // What the command line prints for an error before the run (vitest/dist/chunks/cac: start; colours off).
    console.error(`\n${banner(' Startup Error ')}`)
    console.error(e)
    console.error('\n\n')
    process.exitCode ??= 1
  }
  const code = process.exitCode ?? 0
  process.exitCode = undefined
  return typeof code === 'number' ? code : Number(code)
}

const next = () => new Promise((resolve) => process.once('message', resolve))

for (let i = 0; ; i++) {
  process.send({ ready: i })
  const message = await next()
  if (message.end) break
  resetEnv(message.env)
  const code = await runOnce(message.args)
  process.stdout.write(END(i))
  process.stderr.write(END(i))
  process.send({ done: i, code })
}
process.disconnect()
