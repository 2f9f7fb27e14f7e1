// `tool-evals bfcl run` keeps every answer and resumes, against a real server on 127.0.0.1: SIGINT and SIGKILL of
// the built bin lose no answered entry and the rerun asks only the rest (counted at the server); a cut last line is
// dropped and asked again; a run never shrinks a result file; results of other options are refused; scoring a
// result file that lacks entries says so; `--categories all` runs what it can; progress lines; `--timeout`.
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, test } from 'vitest'
import { bfclRunCommand } from '../../src/bfcl/cli/run.js'
import { bfclCommand } from '../../src/bfcl/cli/score.js'
import { bfclDir } from '../helpers/bfcl-dir.js'
import { startOpenAIServer, type OpenAIServer, type ScriptedReply } from '../helpers/openai-server.js'
import { runCommand } from '../helpers/cli-run.js'

const BFCL = bfclDir()
const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url))
const tmp = mkdtempSync(join(tmpdir(), 'bfcl-run-resume-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const resultFile = (out: string, category: string, group = 'non_live') => join(out, 'result/m', group, `BFCL_v4_${category}_result.json`)
const ids = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter((l) => l !== '').map((l) => (JSON.parse(l) as { id: string }).id) : [])
/** Whole lines so far of a file being appended to (polled while the run writes it). */
const wholeLines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').length - 1 : 0)
const sorted = (category: string, n: number) => Array.from({ length: n }, (_, i) => `${category}_${i}`)
const jsonLines = (text: string) => text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>)

/** In process, with progress lines off unless the test turns them on. */
async function run(args: string[], progress = 'off') {
  const before = process.env['TOOL_EVALS_PROGRESS_INTERVAL']
  process.env['TOOL_EVALS_PROGRESS_INTERVAL'] = progress
  try {
    const r = await runCommand([bfclRunCommand], ['bfcl run', '--model', 'm', '--data', BFCL!, ...args])
    return { ...r, lines: jsonLines(r.stdout) }
  } finally {
    if (before === undefined) delete process.env['TOOL_EVALS_PROGRESS_INTERVAL']
    else process.env['TOOL_EVALS_PROGRESS_INTERVAL'] = before
  }
}

/** A server answering the first `answer` requests (then none: they hang until `answerAll`), counting its answers. */
async function server(answer = Infinity, reply: ScriptedReply = { content: 'x' }): Promise<OpenAIServer & { answered: () => number; answerAll: () => void }> {
  let answered = 0
  const s = await startOpenAIServer(() => (answered < answer ? (answered++, reply) : { fault: 'hang' }), { keepRequests: false })
  return Object.assign(s, { answered: () => answered, answerAll: () => (answer = Infinity) })
}

/** A result file's ids and results (latencies differ from run to run). */
const answers = (file: string) => readFileSync(file, 'utf8').split('\n').filter((l) => l !== '').map((l) => {
  const { id, result } = JSON.parse(l) as { id: string; result: unknown }
  return { id, result }
})

async function until(what: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms
  while (!what() && Date.now() < end) await new Promise((r) => setTimeout(r, 20))
}

describe.skipIf(BFCL === undefined || !existsSync(CLI))('bfcl run, the built bin interrupted', () => {
  // simple_python (20 entries) then multiple (20): the server answers 25 and then hangs, so 5 of multiple are answered.
  for (const signal of ['SIGINT', 'SIGKILL'] as const) {
    test(`${signal} after 25 of 40 answers: all 25 kept, the finished category's line printed, the rerun asks the 15 others`, async () => {
      const s = await server(25)
      const out = join(tmp, signal)
      try {
        const args = ['--base-url', s.baseURL, '--categories', 'simple_python,multiple', '--output-dir', out, '--limit', '20', '--concurrency', '4']
        const child = spawn(process.execPath, [CLI, 'bfcl', 'run', '--model', 'm', '--data', BFCL!, ...args], { env: { ...process.env, TOOL_EVALS_PROGRESS_INTERVAL: 'off' } })
        let stdout = ''
        let stderr = ''
        child.stdout.on('data', (d) => (stdout += String(d)))
        child.stderr.on('data', (d) => (stderr += String(d)))
        const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, sig) => resolve({ code, signal: sig })))
        // Each answer is in its file as soon as it is answered: wait for the 25th, then interrupt.
        await until(() => s.answered() === 25 && wholeLines(resultFile(out, 'multiple')) === 5, 30_000)
        expect(jsonLines(stdout)[0]).toMatchObject({ category: 'simple_python', total_count: 20, requests: 20 })
        child.kill(signal)
        const end = await exited
        if (signal === 'SIGINT') {
          expect(end.code).toBe(130)
          expect(stderr).toContain('interrupted (SIGINT); the 25 entries answered in this run are kept')
        } else expect(end.signal).toBe('SIGKILL')
        expect(ids(resultFile(out, 'simple_python'))).toEqual(sorted('simple_python', 20))
        expect(ids(resultFile(out, 'multiple'))).toHaveLength(5)

        const before = s.hits
        s.answerAll()
        const again = await run(args)
        expect(s.hits - before).toBe(15)
        expect(again.code).toBe(0)
        expect(again.lines[0]).toMatchObject({ category: 'simple_python', reused: 20, requests: 0, total_count: 20 })
        expect(again.lines[1]).toMatchObject({ category: 'multiple', reused: 5, requests: 15, total_count: 20 })
        expect(again.stderr).toContain('multiple: 5 of 20 entries reused')
        expect(ids(resultFile(out, 'multiple'))).toEqual(sorted('multiple', 20))
      } finally {
        await s.close()
      }
    })
  }
})

describe.skipIf(BFCL === undefined)('bfcl run resumes, in process', () => {
  test('a cut last line is dropped and asked again; a smaller --limit never shrinks the file; other options are refused', async () => {
    const s = await server()
    const out = join(tmp, 'cut')
    const file = resultFile(out, 'simple_python')
    const args = (limit: number, ...more: string[]) => ['--base-url', s.baseURL, '--categories', 'simple_python', '--output-dir', out, '--limit', String(limit), ...more]
    try {
      expect((await run(args(6))).code).toBe(0)
      const whole = answers(file)
      // A kill in the middle of a line: four whole lines and half of the fifth.
      const lines = readFileSync(file, 'utf8').split('\n')
      truncateSync(file, lines.slice(0, 4).join('\n').length + 1 + Math.floor(lines[4]!.length / 2))
      let before = s.hits
      const r = await run(args(6))
      expect(r.stderr).toContain(`${file}:5: cut short`)
      expect(s.hits - before).toBe(2)
      expect(r.lines[0]).toMatchObject({ reused: 4, requests: 2, total_count: 6 })
      expect(answers(file)).toEqual(whole)

      before = s.hits
      const small = await run(args(2))
      expect(s.hits - before).toBe(0)
      expect(small.code).toBe(0)
      expect(small.lines[0]).toMatchObject({ reused: 2, requests: 0, total_count: 6 })
      expect(answers(file)).toEqual(whole)

      const other = await run(args(6, '--mode', 'prompting'))
      expect(other.code).toBe(1)
      expect(other.stderr).toContain('written with other options (mode "fc" there, "prompting" now)')
      const warm = await run(args(6, '--temperature', '0.7'))
      expect(warm.stderr).toContain('temperature 0.001 there, 0.7 now')
      rmSync(file.replace(/\.json$/, '.run.json'))
      const unknown = await run(args(6))
      expect(unknown.code).toBe(1)
      expect(unknown.stderr).toContain('written without a record of their model, mode and data')
      expect(s.hits - before).toBe(0)
      expect(answers(file)).toEqual(whole)
    } finally {
      await s.close()
    }
  })

  test('an entry that failed is asked again by the rerun; --timeout bounds each attempt', async () => {
    let slow = true
    const s = await startOpenAIServer((req) => (slow && req.hit === 1 ? { delayMs: 3000, content: 'late' } : { content: 'x' }))
    const out = join(tmp, 'timeout')
    const args = ['--base-url', s.baseURL, '--categories', 'simple_python', '--output-dir', out, '--limit', '3', '--concurrency', '1', '--retries', '0', '--timeout', '0.3']
    try {
      const t0 = performance.now()
      const r = await run(args)
      expect(performance.now() - t0).toBeLessThan(2500)
      expect(r.code).toBe(1)
      expect(r.stderr).toMatch(/simple_python_0: [^\n]*request timed out after 300 ms/)
      slow = false
      const again = await run(args)
      expect(again.code).toBe(0)
      expect(again.lines[0]).toMatchObject({ reused: 2, requests: 1, inference_errors: 0 })
      expect(again.stderr).toContain('(1 that failed before asked again)')
      expect(readFileSync(resultFile(out, 'simple_python'), 'utf8')).not.toContain('Error during inference')
    } finally {
      await s.close()
    }
  })

  test('progress lines off a terminal: done/total, errors, rate and ETA, at the interval', async () => {
    const s = await server(Infinity, { content: 'x', delayMs: 15 })
    try {
      const r = await run(['--base-url', s.baseURL, '--categories', 'simple_python', '--output-dir', join(tmp, 'progress'), '--limit', '24', '--concurrency', '1'], '0.05')
      expect(r.code).toBe(0)
      const progress = r.stderr.split('\n').filter((l) => l.startsWith('tool-evals bfcl run: simple_python '))
      expect(progress.length).toBeGreaterThan(1)
      for (const l of progress) expect(l).toMatch(/^tool-evals bfcl run: simple_python \d+\/24, 0 errors, [\d.]+\/s(, ETA \d+ s)?$/)
      expect(progress.some((l) => l.includes('ETA'))).toBe(true)
    } finally {
      await s.close()
    }
  })

  test('--categories all: what cannot be generated is skipped and listed, the overall score marked partial, exit 0; --strict fails on a skip', async () => {
    const s = await server(Infinity, { content: 'Done.' })
    try {
      const r = await run(['--base-url', s.baseURL, '--categories', 'all', '--output-dir', join(tmp, 'all'), '--limit', '1'])
      expect(r.code).toBe(0)
      const summary = r.lines.at(-1)!['summary'] as { partial: boolean; skipped: { category: string; reason: string }[] }
      expect(summary.partial).toBe(true)
      expect(summary.skipped.map((x) => x.category)).toEqual(['memory_vector', 'web_search_base', 'web_search_no_snippet', 'format_sensitivity'])
      expect(r.lines.filter((l) => typeof l['accuracy'] === 'number')).toHaveLength(19)
      expect(r.stderr).toContain('skipping format_sensitivity: BFCL runs it for prompting models only')
      // A memory category is reused whole: its question and its prerequisite conversations are not asked again.
      const before = s.hits
      const memory = await run(['--base-url', s.baseURL, '--categories', 'memory_kv', '--output-dir', join(tmp, 'all'), '--limit', '1'])
      expect(s.hits - before).toBe(0)
      expect(memory.lines[0]).toMatchObject({ category: 'memory_kv', reused: 1, requests: 0, total_count: 1 })
      const strict = await run(['--base-url', s.baseURL, '--categories', 'web_search', '--output-dir', join(tmp, 'strict'), '--strict'])
      expect(strict.code).toBe(1)
    } finally {
      await s.close()
    }
  })
})

describe.skipIf(BFCL === undefined)('tool-evals bfcl on a result file that lacks entries', () => {
  test('50 of 400 lines: which and how many on stderr, the line marked partial, exit 1 (0 with --partial-eval)', async () => {
    const dir = join(tmp, 'cut-results')
    mkdirSync(dir, { recursive: true })
    const recorded = readFileSync(join(BFCL!, 'recorded/glyphh-ada-1.1/BFCL_v4_simple_python_result.json'), 'utf8').split('\n')
    writeFileSync(join(dir, 'BFCL_v4_simple_python_result.json'), recorded.slice(0, 50).join('\n') + '\n')
    const r = await runCommand([bfclCommand], ['bfcl', '--data', BFCL!, '--results', dir])
    expect(r.code).toBe(1)
    expect(jsonLines(r.stdout)[0]).toMatchObject({ category: 'simple_python', total_count: 50, partial: true, missing_count: 350 })
    expect(r.stderr).toContain("simple_python: the results lack 350 of the category's 400 entries (simple_python_50, simple_python_51,")
    const partialEval = await runCommand([bfclCommand], ['bfcl', '--data', BFCL!, '--results', dir, '--partial-eval', '--summary'])
    expect(partialEval.code).toBe(0)
    expect(jsonLines(partialEval.stdout)[1]).toMatchObject({ summary: { overall: { complete: false }, partial_categories: ['simple_python'] } })
  })
})
