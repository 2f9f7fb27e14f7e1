#!/usr/bin/env node
/**
 * The `tool-evals` command. Each subcommand is one entry of COMMANDS, implemented in src/cli/<name>.ts; the frame
 * (option parsing, usage, exit codes) is src/cli/command.ts.
 */
// `score` and `compare` sum reports of BFCL's scorer: registered here (src/bfcl/register.ts).
import './bfcl/register.js'
import { runCli, type Command } from './cli/command.js'
import { parseCommand } from './cli/parse.js'
import { scoreCommand } from './cli/score.js'
import { bfclCommand } from './bfcl/cli/score.js'
import { withSeveralModels } from './bfcl/cli/run-models.js'
import { compareCommand } from './cli/compare.js'
import { planCommand } from './cli/plan.js'
import { historyCommand } from './cli/history.js'
// To add a command: import it here (e.g. `import { bfclCommand } from './bfcl/cli/score.js'`) and list it below.

const COMMANDS: readonly Command[] = [
  parseCommand,
  scoreCommand,
  bfclCommand,
  withSeveralModels(),
  compareCommand,
  planCommand,
  historyCommand,
]

// `tool-evals ... | head` closes our stdout early: stop quietly instead of crashing on EPIPE.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0)
  throw err
})

// `tool-evals bfcl run ...` is the command named 'bfcl run'.
const argv = process.argv.slice(2)
if (argv[0] === 'bfcl' && argv[1] === 'run') argv.splice(0, 2, 'bfcl run')
runCli(COMMANDS, argv, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr }).then(
  (code) => {
    process.exitCode = code
  },
  (err: unknown) => {
    process.stderr.write(`tool-evals: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
    process.exitCode = 1
  },
)
