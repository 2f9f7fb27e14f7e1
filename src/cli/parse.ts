/** `tool-evals parse`: the tool calls in each line's raw model output. */
import { parseToolCalls } from '../calls/index.js'
import { EXIT_BAD_INPUT, EXIT_OK, writeLine, type Command } from './command.js'
import { lineError, parseOptionsOf, readJsonLines, requireString } from './input.js'

export const parseCommand: Command = {
  name: 'parse',
  synopsis: '< in.jsonl',
  description: [
    'Reads JSONL from stdin, one {"text": string, "tools"?: [OpenAI-style tools], "format"?: string} a line',
    '(tools type the values of XML-style formats; format is a wire-format hint), and writes one line per input',
    'line, in order: {"calls": [{"name", "arguments", "argumentsValid", "format"}]}.',
    'A bad line gets {"error": "line N: ..."} instead; the exit code is then 1. Blank lines are skipped.',
  ].join('\n'),
  options: {},
  async run(_values, _positionals, io) {
    let failed = false
    for await (const item of readJsonLines(io.stdin)) {
      const out = 'error' in item ? JSON.stringify({ error: item.error }) : parseLine(item.line, item.value)
      if (out.startsWith('{"error"')) failed = true
      await writeLine(io.stdout, out)
    }
    return failed ? EXIT_BAD_INPUT : EXIT_OK
  },
}

/**
 * One input line's output line, already serialised. Nothing a line holds may stop the command (one answer per input
 * line): any failure, serialising included, becomes that line's `{"error": ...}`.
 */
function parseLine(line: number, value: Record<string, unknown>): string {
  try {
    const text = requireString(value, 'text')
    const calls = parseToolCalls(text, parseOptionsOf(value))
    return JSON.stringify({
      calls: calls.map((c) => ({ name: c.name, arguments: c.arguments, argumentsValid: c.argumentsValid, format: c.format })),
    })
  } catch (err) {
    return JSON.stringify({ error: lineError(line, err) })
  }
}
