// One `tool-evals` command run in process, its stdout and stderr collected as text.
import { PassThrough } from 'node:stream'
import { runCli, type Command } from '../../src/cli/command.js'

export async function runCommand(commands: Command[], argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough()
  const stderr = new PassThrough()
  let out = ''
  let err = ''
  stdout.on('data', (d) => (out += String(d)))
  stderr.on('data', (d) => (err += String(d)))
  const code = await runCli(commands, argv, { stdin: new PassThrough(), stdout, stderr })
  return { code, stdout: out, stderr: err }
}
