/**
 * The frame every `tool-evals` subcommand plugs into: a command is a name, its options (node:util parseArgs
 * config) and a `run` that returns the exit code. `runCli` picks the command, parses the options, prints usage.
 *
 * Exit codes: 0 all good; 1 the command ran but some input was bad (every bad line is reported, the rest processed);
 * 2 usage error (unknown command or option, bad option value).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { printable } from '../calls/printable.js'

export interface CliIO {
  stdin: NodeJS.ReadableStream
  stdout: NodeJS.WritableStream
  stderr: NodeJS.WritableStream
}

export type OptionValues = Record<string, string | boolean | (string | boolean)[] | undefined>

export interface Command {
  /** The subcommand word: `tool-evals <name>`. */
  name: string
  /** Arguments after the name, for the usage line, e.g. `[--summary]`. */
  synopsis: string
  /** A few lines: what it reads, what it writes, what each option does. */
  description: string
  options: NonNullable<ParseArgsConfig['options']>
  allowPositionals?: boolean
  /** Runs the command; resolves to the exit code. Throw `UsageError` for a bad option value. */
  run(values: OptionValues, positionals: string[], io: CliIO): Promise<number>
}

/** A bad command line: reported with the command's usage, exit code 2. */
export class UsageError extends Error {}

export const EXIT_OK = 0
export const EXIT_BAD_INPUT = 1
export const EXIT_USAGE = 2

/** Write one line, waiting when the stream asks us to (keeps memory flat on large outputs). */
export function writeLine(out: NodeJS.WritableStream, line: string): Promise<void> | void {
  if (out.write(line + '\n')) return
  return new Promise((resolve) => out.once('drain', () => resolve()))
}

function commandUsage(c: Command): string {
  return `usage: tool-evals ${c.name} ${c.synopsis}\n\n${c.description}\n`
}

export function usage(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => c.name.length))
  const lines = commands.map((c) => `  tool-evals ${c.name.padEnd(width)} ${c.synopsis}`)
  return `usage:\n${lines.join('\n')}\n\n  tool-evals <command> --help   details of one command\n`
}

/** Parse `argv` (without node and script), run the command, return the exit code. */
export async function runCli(commands: readonly Command[], argv: string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv
  if (name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(usage(commands))
    return EXIT_OK
  }
  const command = commands.find((c) => c.name === name)
  if (!command) {
    io.stderr.write((name === undefined ? 'tool-evals: no command given\n' : `tool-evals: unknown command '${printable(name)}'\n`) + usage(commands))
    return EXIT_USAGE
  }
  try {
    const { values, positionals } = parseArgs({
      args: rest,
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: command.allowPositionals ?? false,
      strict: true,
    })
    if (values.help === true) {
      io.stdout.write(commandUsage(command))
      return EXIT_OK
    }
    return await command.run(values as OptionValues, positionals, io)
  } catch (err) {
    // parseArgs reports unknown options and missing values with ERR_PARSE_ARGS_* codes.
    const code = (err as { code?: unknown }).code
    if (err instanceof UsageError || (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'))) {
      io.stderr.write(`tool-evals ${command.name}: ${printable((err as Error).message)}\n${commandUsage(command)}`)
      return EXIT_USAGE
    }
    throw err
  }
}
