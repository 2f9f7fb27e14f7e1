/**
 * The `tool-evals` parse and score commands. One real subprocess of the built bin (dist/cli.js, real stdin) per exit
 * path: 0 (parse writes calls), 1 (parse reports bad lines), 2 (an unknown command; a hostile chat template); 4 spawns
 * in all, and one of node with `--input-type=module` deriving a format. Every other
 * case runs the same commands in process through `runCli` (src/cli/command.ts, the frame the bin calls), with the
 * input on a stream that ends, as a pipe does. `npm test` builds first (pretest); when running this file alone, run
 * `npm run build` before.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { parseCommand } from '../../src/cli/parse.js'
import { scoreCommand } from '../../src/cli/score.js'
import { aggregate, scoreSample, type SampleRecord } from '../../src/score/index.js'
import { runCommand } from '../helpers/cli-run.js'

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url))

interface Result {
  code: number | null
  stdout: string
  stderr: string
  lines: unknown[]
}

function withLines(code: number | null, stdout: string, stderr: string): Result {
  const lines = stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l): unknown => {
      try {
        return JSON.parse(l)
      } catch {
        return l // usage text; tests of JSON output then fail on the string
      }
    })
  return { code, stdout, stderr, lines }
}

/** The built bin as a real subprocess: for the exit paths only (each costs a Node start and the bin's load). */
function spawnCli(args: string[], input = ''): Result {
  const r = spawnSync(process.execPath, [CLI, ...args], { input, encoding: 'utf8', timeout: 30_000 })
  return withLines(r.status, r.stdout, r.stderr)
}

/**
 * The same commands in process: `input` on stdin (then its end), stdout and stderr collected. A throw becomes what
 * the bin makes of it (src/cli.ts): "internal error" on stderr, exit 1, so the checks on stderr hold either way.
 */
async function run(args: string[], input = ''): Promise<Result> {
  const r = await runCommand([parseCommand, scoreCommand], args, input).catch((e: unknown) => ({
    code: 1,
    stdout: '',
    stderr: `tool-evals: internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`,
  }))
  return withLines(r.code, r.stdout, r.stderr)
}

const jsonl = (...rows: unknown[]): string => rows.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n'

const hermes = (name: string, args: Record<string, unknown>): string =>
  `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`

const openai = (name: string, args: Record<string, unknown>) => ({
  id: 'call_1',
  type: 'function',
  function: { name, arguments: JSON.stringify(args) },
})

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first (npm test does)`)
})

describe('tool-evals parse', () => {
  it('writes the calls of each line, in order, exit 0 (the built bin, real stdin)', () => {
    const r = spawnCli(
      ['parse'],
      jsonl(
        { text: `Let me check.\n${hermes('get_weather', { city: 'Paris' })}` },
        { text: 'No tools needed.' },
        { text: hermes('a', { x: 1 }) + hermes('b', {}), format: 'hermes' },
      ),
    )
    expect(r.code).toBe(0)
    expect(r.lines).toEqual([
      { calls: [{ name: 'get_weather', arguments: { city: 'Paris' }, argumentsValid: true, format: 'hermes' }] },
      { calls: [] },
      {
        calls: [
          { name: 'a', arguments: { x: 1 }, argumentsValid: true, format: 'hermes' },
          { name: 'b', arguments: {}, argumentsValid: true, format: 'hermes' },
        ],
      },
    ])
  })

  it('reports each bad line on its own output line, processes the rest, exits 1 (the built bin, real stdin)', () => {
    const r = spawnCli(
      ['parse'],
      jsonl(
        '{"text": "unclosed',
        { text: hermes('f', { a: 1 }) },
        { txt: 'typo' },
        { text: 42 },
        [1, 2],
        { text: 'x', tools: 'none' },
        { text: 'x', format: 7 },
        { text: hermes('g', {}) },
        { text: 'x', format: 'hermes3' },
      ),
    )
    expect(r.code).toBe(1)
    expect(r.lines).toHaveLength(9)
    expect((r.lines[0] as { error: string }).error).toMatch(/^line 1: invalid JSON/)
    expect(r.lines.slice(1)).toEqual([
      { calls: [{ name: 'f', arguments: { a: 1 }, argumentsValid: true, format: 'hermes' }] },
      { error: 'line 3: missing, field text' },
      { error: 'line 4: expected a string, got number, field text' },
      { error: 'line 5: expected a JSON object, got array' },
      { error: 'line 6: expected an array, got string, field tools' },
      { error: 'line 7: expected a string, got number, field format' },
      { calls: [{ name: 'g', arguments: {}, argumentsValid: true, format: 'hermes' }] },
      { error: expect.stringMatching(/^line 9: unknown format "hermes3"; known formats: .*\bhermes\b.*, field format$/) },
    ])
  })

  it('skips blank lines (no output) but counts them in line numbers; handles CRLF and a BOM', async () => {
    const input = '\ufeff' + JSON.stringify({ text: hermes('f', {}) }) + '\r\n\r\n   \r\n{"text": 1}\r\n'
    const r = await run(['parse'], input)
    expect(r.code).toBe(1)
    expect(r.lines).toEqual([
      { calls: [{ name: 'f', arguments: {}, argumentsValid: true, format: 'hermes' }] },
      { error: 'line 4: expected a string, got number, field text' },
    ])
  })

  it('reads empty input as no records', async () => {
    const r = await run(['parse'], '')
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('')
  })

  it('answers every line even when one holds arguments nested 100k levels deep', async () => {
    const deep = '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000)
    const text = `<tool_call>{"name":"f","arguments":${deep}}</tool_call>`
    const r = await run(['parse'], JSON.stringify({ text }) + '\n' + jsonl({ text: hermes('g', { x: 1 }) }))
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.lines).toEqual([
      { calls: [{ name: 'f', arguments: {}, argumentsValid: false, format: 'hermes' }] },
      { calls: [{ name: 'g', arguments: { x: 1 }, argumentsValid: true, format: 'hermes' }] },
    ])
  })

  it('streams many lines', async () => {
    const rows = Array.from({ length: 3000 }, (_, i) => ({ text: hermes('f', { i }) }))
    const r = await run(['parse'], jsonl(...rows))
    expect(r.code).toBe(0)
    expect(r.lines).toHaveLength(3000)
    expect((r.lines[2999] as { calls: { arguments: unknown }[] }).calls[0]!.arguments).toEqual({ i: 2999 })
  })

  it('--chat-template with range(10**9): exit 2 within its budget, never a V8 fatal (the built bin)', () => {
    const template = join(mkdtempSync(join(tmpdir(), 'cli-template-')), 'range.jinja')
    writeFileSync(template, '{% for i in range(10**9) %}{% endfor %}{{ messages[0].content }}')
    const t0 = performance.now()
    const r = spawnCli(['parse', '--chat-template', template, '--template-memory', '32', '--template-timeout', '1000'], jsonl({ text: 'hi' }))
    expect(performance.now() - t0).toBeLessThan(6000)
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/range\.jinja: rendering the chat template (went over its memory budget of 32 MB|took longer than its time budget of 1000 ms)/)
    expect(r.stderr).not.toMatch(/FATAL|invalid size/i)
  })

  it('a process started with --input-type=module derives a format: the rendering workers run as CommonJS whatever the flag', () => {
    const index = new URL('../../dist/index.js', import.meta.url).href
    const template = '{% for m in messages %}{{ m.content }}{% for c in m.tool_calls or [] %}<tool_call>{{ {"name": c.function.name, "arguments": c.function.arguments}|tojson }}</tool_call>{% endfor %}{% endfor %}'
    const script = `const { deriveFormat } = await import(${JSON.stringify(index)}); const f = deriveFormat(${JSON.stringify(template)}, { budget: { timeMs: 3000 } }); console.log(f.error ?? f.matches)`
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 })
    expect(r.stdout.trim()).toBe('hermes')
  })
})

const W = { name: 'get_weather', arguments: { city: 'Paris' } }
const T = { name: 'get_time', arguments: { tz: 'CET' } }

describe('tool-evals score', () => {
  it('scores text and calls lines with the metric names of NeMo', async () => {
    const r = await run(
      ['score'],
      jsonl(
        { text: hermes('get_weather', { city: 'Paris' }), expected: [W] },
        { calls: [openai('get_weather', { city: 'Rome' })], expected: [W] },
        { calls: [openai('get_weather', { city: 'Paris' })], expected: [W, T] },
        { text: 'It is sunny.', expected: [] },
        { calls: [openai('get_time', {})], expected: [] },
      ),
    )
    expect(r.code).toBe(0)
    const ones = { has_call: 1, name_correct: 1, args_json_valid: 1, args_field_precision: 1, args_field_recall: 1 }
    const zeros = { has_call: 0, name_correct: 0, args_json_valid: 0, args_field_precision: 0, args_field_recall: 0, args_exact_match: 0 }
    expect(r.lines).toEqual([
      { ...ones, args_exact_match: 1, failures: [] },
      { ...ones, args_exact_match: 0, failures: ['wrong_arguments'] },
      {
        has_call: 0.5,
        name_correct: 0.5,
        args_json_valid: 0.5,
        args_field_precision: 0.5,
        args_field_recall: 0.5,
        args_exact_match: 0.5,
        failures: ['missing_call'],
      },
      { ...zeros, no_call_correct: true, failures: [] },
      { ...zeros, no_call_correct: false, failures: ['unexpected_call'] },
    ])
  })

  it('accepts expected arguments as a JSON string and calls as `parse` writes them', async () => {
    const r = await run(
      ['score'],
      jsonl(
        { calls: [{ name: 'f', arguments: { a: 1 }, argumentsValid: true, format: 'hermes' }], expected: [{ name: 'f', arguments: '{"a": 1}' }] },
        // A call `parse` found malformed stays malformed.
        { calls: [{ name: '', arguments: {}, argumentsValid: false, format: 'hermes' }], expected: [{ name: 'f' }] },
        // Undecodable arguments are the model's fault: a malformed call, not a bad line.
        { calls: [{ type: 'function', function: { name: 'f', arguments: '{"a": ' } }], expected: [{ name: 'f', arguments: { a: 1 } }] },
      ),
    )
    expect(r.code).toBe(0)
    expect(r.lines[0]).toMatchObject({ args_exact_match: 1, failures: [] })
    expect(r.lines[1]).toMatchObject({ has_call: 1, args_json_valid: 0, failures: ['malformed_call'] })
    expect(r.lines[2]).toMatchObject({ has_call: 1, name_correct: 1, args_json_valid: 0, failures: ['malformed_call'] })
  })

  it('--match unordered pairs swapped calls; positional (the default) does not', async () => {
    const input = jsonl({ calls: [openai('get_time', { tz: 'CET' }), openai('get_weather', { city: 'Paris' })], expected: [W, T] })
    const positional = await run(['score'], input)
    expect(positional.lines[0]).toMatchObject({ name_correct: 0, args_exact_match: 0, failures: ['wrong_name'] })
    expect((await run(['score', '--match', 'positional'], input)).lines).toEqual(positional.lines)
    const unordered = await run(['score', '--match=unordered'], input)
    expect(unordered.code).toBe(0)
    expect(unordered.lines[0]).toMatchObject({ name_correct: 1, args_exact_match: 1, failures: [] })
  })

  it('--strict-types keeps booleans and numbers apart', async () => {
    const input = jsonl({ calls: [openai('f', { verbose: 1 })], expected: [{ name: 'f', arguments: { verbose: true } }] })
    expect((await run(['score'], input)).lines[0]).toMatchObject({ args_exact_match: 1 })
    expect((await run(['score', '--strict-types'], input)).lines[0]).toMatchObject({ args_exact_match: 0, failures: ['wrong_arguments'] })
  })

  it('reports bad lines with line and field, processes the rest, exits 1', async () => {
    const r = await run(
      ['score'],
      jsonl(
        { text: hermes('get_weather', { city: 'Paris' }) },
        { text: 'x', expected: {} },
        { expected: [W] },
        { text: 'x', calls: [], expected: [W] },
        { calls: [{ function: { arguments: '{}' } }], expected: [W] },
        { calls: 'none', expected: [W] },
        { text: 'x', expected: [{ arguments: {} }] },
        { text: 'x', expected: [{ name: 'f', arguments: 3 }] },
        'not json',
        { calls: [openai('get_weather', { city: 'Paris' })], expected: [W] },
      ),
    )
    expect(r.code).toBe(1)
    expect(r.lines).toHaveLength(10)
    expect(r.lines.slice(0, 8)).toEqual([
      { error: 'line 1: missing, field expected' },
      { error: 'line 2: expected an array, got object, field expected' },
      { error: 'line 3: missing (or give calls), field text' },
      { error: 'line 4: give either text or calls, not both, field calls' },
      { error: 'line 5: missing, field calls[0].function.name' },
      { error: 'line 6: expected an array, got string, field calls' },
      { error: 'line 7: missing, field expected[0].name' },
      { error: 'line 8: expected an object or a JSON string, got number, field expected[0].arguments' },
    ])
    expect((r.lines[8] as { error: string }).error).toMatch(/^line 9: invalid JSON/)
    expect(r.lines[9]).toMatchObject({ args_exact_match: 1 })
  })

  it('--summary prints one object: the numbers `aggregate` gives for the same samples', async () => {
    const samples = [
      { calls: [openai('get_weather', { city: 'Paris' })], expected: [W] },
      { calls: [openai('get_weather', { city: 'Rome' })], expected: [W] },
      { calls: [openai('get_weather', { city: 'Paris' }), openai('get_weather', { city: 'Nice' })], expected: [W, T] },
      { calls: [], expected: [] },
      { calls: [openai('get_time', {})], expected: [] },
    ]
    const r = await run(['score', '--summary'], jsonl(...samples))
    expect(r.code).toBe(0)
    expect(r.lines).toHaveLength(1)
    const records: SampleRecord[] = samples.map((s, i) => ({
      id: String(i),
      score: scoreSample(
        s.calls.map((c) => ({ name: c.function.name, arguments: JSON.parse(c.function.arguments) as Record<string, unknown>, argumentsValid: true, format: 'openai' })),
        s.expected,
      ),
    }))
    expect(r.lines[0]).toEqual(aggregate(records))
    expect(r.lines[0]).toMatchObject({
      samples: 5,
      withExpectedCalls: 3,
      noCallExpected: 2,
      metrics: { name_correct: (1 + 1 + 0.5) / 3, no_call_accuracy: 0.5 },
      failures: { wrong_arguments: 1, wrong_name: 1, extra_call: 0, unexpected_call: 1 },
    })
  })

  it('--summary counts bad lines as errored samples, reports them on stderr, exits 1', async () => {
    const r = await run(
      ['score', '--summary'],
      jsonl(
        { calls: [openai('get_weather', { city: 'Paris' })], expected: [W] },
        '{bad',
        // Expected calls known, prediction unreadable: an errored sample scored as no prediction.
        { calls: [{ name: 5 }], expected: [W] },
        { calls: [], expected: [] },
      ),
    )
    expect(r.code).toBe(1)
    expect(r.lines).toHaveLength(1)
    const summary = r.lines[0] as ReturnType<typeof aggregate>
    expect(summary.samples).toBe(4)
    expect(summary.scored).toBe(2)
    expect(summary.errored.count).toBe(2)
    expect(summary.errored.byReason).toEqual({
      'invalid input: expected a string, got number, field calls[0].name': 1,
      [Object.keys(summary.errored.byReason).find((k) => k.startsWith('invalid input: invalid JSON'))!]: 1,
    })
    expect(summary.withExpectedCalls).toBe(2)
    expect(summary.metrics.name_correct).toBe(0.5)
    expect(summary.metrics.no_call_accuracy).toBe(1)
    const errs = r.stderr.trim().split('\n').map((l) => JSON.parse(l) as { error: string })
    expect(errs.map((e) => e.error.slice(0, 7))).toEqual(['line 2:', 'line 3:'])
  })

  it('answers every line even when arguments are nested 100k levels deep (text, calls or expected)', async () => {
    const deep = '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000)
    const expected = [{ name: 'f', arguments: { a: 1 } }]
    const lines = [
      JSON.stringify({ text: `<tool_call>{"name":"f","arguments":${deep}}</tool_call>`, expected }),
      `{"calls": [{"name": "f", "arguments": ${deep}}], "expected": ${JSON.stringify(expected)}}`,
      `{"calls": [{"name": "f", "arguments": {"a": 1}}], "expected": [{"name": "f", "arguments": ${deep}}]}`,
      JSON.stringify({ text: hermes('f', { a: 1 }), expected }),
    ]
    for (const args of [['score'], ['score', '--summary']]) {
      const r = await run(args, lines.join('\n') + '\n')
      expect(r.stderr).not.toContain('internal error')
      if (args.length === 1) {
        expect(r.lines).toHaveLength(4)
        expect(r.lines.slice(0, 2)).toEqual([
          expect.objectContaining({ name_correct: 1, args_json_valid: 0 }),
          expect.objectContaining({ name_correct: 1, args_json_valid: 0 }),
        ])
        expect(r.lines[2]).toSatisfy((l) => typeof l === 'object' && l !== null)
        expect(r.lines[3]).toMatchObject({ args_exact_match: 1 })
      } else expect(r.lines[0]).toMatchObject({ samples: 4 })
    }
  })

  it('--summary of no input: zero samples, null rates', async () => {
    const r = await run(['score', '--summary'], '')
    expect(r.code).toBe(0)
    expect(r.lines[0]).toMatchObject({ samples: 0, metrics: { has_call: null, no_call_accuracy: null } })
  })
})

describe('usage', () => {
  it('an unknown command: usage on stderr, exit 2 (the built bin); no command: the same', async () => {
    const unknown = spawnCli(['frobnicate'])
    const none = await run([])
    for (const r of [unknown, none]) {
      expect(r.code).toBe(2)
      expect(r.stdout).toBe('')
      expect(r.stderr).toContain('usage:')
      expect(r.stderr).toContain('tool-evals score')
    }
    expect(unknown.stderr).toContain("unknown command 'frobnicate'")
  })

  it('--help: usage on stdout, exit 0 (also per command)', async () => {
    const r = await run(['--help'])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('tool-evals parse')
    expect(r.stdout).toContain('tool-evals score')
    const s = await run(['score', '--help'])
    expect(s.code).toBe(0)
    expect(s.stdout).toContain('--match')
  })

  it('a bad option or option value: message and usage on stderr, exit 2', async () => {
    const bad = await run(['score', '--match', 'sideways'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain("--match must be one of positional, unordered, got 'sideways'")
    const unknown = await run(['parse', '--verbose'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain("Unknown option '--verbose'")
    expect((await run(['score', 'extra-arg'])).code).toBe(2)
  })
})
