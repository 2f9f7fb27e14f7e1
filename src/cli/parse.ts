/** `tool-evals parse`: the tool calls in each line's raw model output. */
import { readFile } from 'node:fs/promises'
import { chatTemplateOf, deriveFormat, parseToolCalls, type ParseOptions, type TemplateBudget } from '../calls/index.js'
import { EXIT_BAD_INPUT, EXIT_OK, UsageError, writeLine, type Command, type OptionValues } from './command.js'
import { lineError, parseOptionsOf, readJsonLines, requireString } from './input.js'

export const parseCommand: Command = {
  name: 'parse',
  synopsis: '[--chat-template FILE [--show-format] [--template-timeout MS] [--template-memory MB]] < in.jsonl',
  description: [
    'Reads JSONL from stdin, one {"text": string, "tools"?: [OpenAI-style tools], "format"?: string} a line',
    '(tools type the values of XML-style formats; format is a wire-format hint), and writes one line per input',
    'line, in order: {"calls": [{"name", "arguments", "argumentsValid", "format"}]}.',
    'A bad line gets {"error": "line N: ..."} instead; the exit code is then 1. Blank lines are skipped.',
    '--chat-template FILE: the model\'s chat template (a .jinja file, or a tokenizer_config.json / chat_template.json);',
    'the wire format is derived from it and used for lines without "format". When none can be derived, stderr says',
    'why and the format is detected. --show-format: print the derived format as JSON and exit (1 when none).',
    'A template that does not compile, or whose rendering goes over its budget (--template-timeout MS, default 5000;',
    '--template-memory MB, default 256), is an error (exit 2).',
  ].join('\n'),
  options: {
    'chat-template': { type: 'string' },
    'show-format': { type: 'boolean' },
    'template-timeout': { type: 'string' },
    'template-memory': { type: 'string' },
  },
  async run(values, _positionals, io) {
    const chatTemplate = await templateOption(values)
    const budget = budgetOption(values)
    const defaults: ParseOptions = budget === undefined ? {} : { templateBudget: budget }
    if (chatTemplate !== undefined) {
      const derived = deriveFormat(chatTemplate, budget === undefined ? {} : { budget })
      // A template the user gave that cannot be used is an error, never a silent fallback to detection.
      if ('error' in derived && (derived.invalid === 'syntax' || derived.invalid === 'budget')) {
        throw new UsageError(`--chat-template ${String(values['chat-template'])}: ${derived.error}`)
      }
      if (values['show-format'] === true) {
        await writeLine(io.stdout, JSON.stringify(derived, null, 2))
        return 'error' in derived ? EXIT_BAD_INPUT : EXIT_OK
      }
      if ('error' in derived) io.stderr.write(`tool-evals parse: no format derived from the chat template, detecting it instead: ${derived.error}\n`)
      else defaults.chatTemplate = chatTemplate
    } else if (values['show-format'] === true) throw new UsageError('--show-format needs --chat-template FILE')
    let failed = false
    for await (const item of readJsonLines(io.stdin)) {
      const out = 'error' in item ? JSON.stringify({ error: item.error }) : parseLine(item.line, item.value, defaults)
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
function parseLine(line: number, value: Record<string, unknown>, defaults: ParseOptions): string {
  try {
    const text = requireString(value, 'text')
    const calls = parseToolCalls(text, { ...defaults, ...parseOptionsOf(value) })
    return JSON.stringify({
      calls: calls.map((c) => ({ name: c.name, arguments: c.arguments, argumentsValid: c.argumentsValid, format: c.format })),
    })
  } catch (err) {
    return JSON.stringify({ error: lineError(line, err) })
  }
}

/** `--template-timeout MS` and `--template-memory MB`, checked; undefined when neither is given. */
function budgetOption(values: OptionValues): TemplateBudget | undefined {
  const budget: TemplateBudget = {}
  for (const [option, key, unit] of [['template-timeout', 'timeMs', 'MS'], ['template-memory', 'memoryMb', 'MB']] as const) {
    const raw = values[option]
    if (raw === undefined) continue
    const n = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : NaN
    const [lo, hi] = key === 'timeMs' ? [1, 600_000] : [16, 16_384]
    if (!(n >= lo && n <= hi)) throw new UsageError(`--${option} needs ${unit}, an integer from ${lo} to ${hi}, not ${JSON.stringify(raw)}`)
    budget[key] = n
  }
  if (Object.keys(budget).length === 0) return undefined
  if (values['chat-template'] === undefined) throw new UsageError(`--template-timeout and --template-memory need --chat-template FILE`)
  return budget
}

/** The template text of `--chat-template FILE`: the file itself, or the template in a JSON config. */
async function templateOption(values: OptionValues): Promise<string | undefined> {
  const file = values['chat-template']
  if (file === undefined) return undefined
  if (typeof file !== 'string' || file === '') throw new UsageError('--chat-template needs a FILE')
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (err) {
    throw new UsageError(`--chat-template: cannot read ${file}: ${err instanceof Error ? err.message : String(err)}`)
  }
  if (!file.endsWith('.json')) return text
  let config: unknown
  try {
    config = JSON.parse(text)
  } catch {
    throw new UsageError(`--chat-template: ${file} is not valid JSON`)
  }
  const template = chatTemplateOf(config)
  if (template === undefined) throw new UsageError(`--chat-template: ${file} holds no chat_template`)
  return template
}
