// One `tool-evals` command run in process, its stdout and stderr collected as text.
import { PassThrough } from 'node:stream'
import { afterAll, beforeAll } from 'vitest'
import { runCli, type Command } from '../../src/cli/command.js'

/** `input` is the command's stdin, then its end, as a pipe gives it. */
export async function runCommand(commands: Command[], argv: string[], input = ''): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdin = new PassThrough()
  stdin.end(input)
  const stdout = new PassThrough()
  const stderr = new PassThrough()
  let out = ''
  let err = ''
  stdout.on('data', (d) => (out += String(d)))
  stderr.on('data', (d) => (err += String(d)))
  const code = await runCli(commands, argv, { stdin, stdout, stderr })
  return { code, stdout: out, stderr: err }
}

/**
 * `runCommand` from the folder `cwd`, as a shell there would run it (relative paths in the arguments, and in the
 * messages that name them, are the user's). Only for the integration project, whose files run in forked processes,
 * one file at a time: a thread (the unit project) cannot change its folder, and the folder is restored before the
 * next file runs in the same process.
 */
export async function runCommandIn(cwd: string, commands: Command[], argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const before = process.cwd()
  process.chdir(cwd)
  try {
    return await runCommand(commands, argv)
  } finally {
    process.chdir(before)
  }
}

/**
 * Off a terminal `bfcl run` writes a progress line on a clock (every 15 s by default), so what its stderr holds
 * depends on the machine's speed: a file whose tests expect nothing else on stderr turns the lines off for its tests.
 */
export function withoutProgressLines(): void {
  const before = process.env['TOOL_EVALS_PROGRESS_INTERVAL']
  beforeAll(() => {
    process.env['TOOL_EVALS_PROGRESS_INTERVAL'] = 'off'
  })
  afterAll(() => {
    if (before === undefined) delete process.env['TOOL_EVALS_PROGRESS_INTERVAL']
    else process.env['TOOL_EVALS_PROGRESS_INTERVAL'] = before
  })
}
