// `tool-evals bfcl run` against a real server on 127.0.0.1: the API key only in the Authorization header and
// nowhere in output or files, even where 200 replies echo it; a failing entry written as BFCL writes it and reported; concurrency bounded;
// categories it cannot generate refused by name.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { bfclRunCommand } from '../../../src/bfcl/cli/run.js'
import { bfclDir } from '../../helpers/bfcl-dir.js'
import { startOpenAIServer } from '../../helpers/openai-server.js'
import { runCommand } from '../../helpers/cli-run.js'

const BFCL = bfclDir()
const KEY = 'sk-bfcl-run-test-0123456789abcdef'
const tmp = mkdtempSync(join(tmpdir(), 'bfcl-run-safety-'))
afterAll(() => {
  rmSync(tmp, { recursive: true, force: true })
  delete process.env['BFCL_RUN_TEST_KEY']
})

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const { code, stdout: out, stderr: err } = await runCommand([bfclRunCommand], ['bfcl run', ...args])
  return { code, out, err }
}

function filesText(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name), 'utf8'))
    .join('\n')
}

describe.skipIf(BFCL === undefined)('bfcl run: key, failures, concurrency, refusals', () => {
  test('a server error naming the key, 200 replies echoing it: the entry fails as BFCL writes it, the key is printed and written nowhere', async () => {
    process.env['BFCL_RUN_TEST_KEY'] = KEY
    const server = await startOpenAIServer((req) => {
      const first = (req.body as { messages: { content: string }[] }).messages[0]!.content
      if (first.includes('base of 10 units and height of 5')) return { status: 500, json: { error: { message: `bad key ${KEY}` } }, delayMs: 20 }
      // 200 replies that echo the key, in the text and in the call's arguments (a key of its own too).
      return { delayMs: 20, content: `as asked: ${KEY}`, toolCalls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: JSON.stringify({ key: KEY, [KEY]: 1 }) } }] }
    })
    try {
      const out = join(tmp, 'key')
      const r = await run(['--base-url', server.baseURL, '--model', 'm', '--data', BFCL!, '--categories', 'simple_python', '--output-dir', out, '--limit', '10', '--concurrency', '4', '--retries', '0', '--api-key-env', 'BFCL_RUN_TEST_KEY'])
      expect(server.requests.every((q) => q.headers.authorization === `Bearer ${KEY}`)).toBe(true)
      expect(server.peak).toBeLessThanOrEqual(4)
      expect(r.code).toBe(1)
      const line = JSON.parse(r.out.split('\n')[0]!) as Record<string, unknown>
      expect(line).toMatchObject({ category: 'simple_python', total_count: 10, inference_errors: 1, requests: 9 })
      expect(r.err).toContain('simple_python_0')
      const results = readFileSync(join(out, 'result/m/non_live/BFCL_v4_simple_python_result.json'), 'utf8')
      expect(results).toContain('"result": "Error during inference: ')
      // The echoed key is in no result or score file, nor printed; the calls are kept with `***` in its place.
      expect(results).toContain('"result": [{"f": "{\\"key\\":\\"***\\",\\"***\\":1}"}]')
      expect(filesText(join(out, 'score'))).toContain('"model_result_decoded": [{"f": {"key": "***", "***": 1}}]')
      for (const text of [r.out, r.err, filesText(out)]) expect(text).not.toContain(KEY)
    } finally {
      await server.close()
    }
  })

  test('what cannot be generated is refused by name, with exit code 1: memory_vector, web search without a backend, format sensitivity in fc mode', async () => {
    const server = await startOpenAIServer(() => ({ content: 'x' }))
    try {
      const r = await run(['--base-url', server.baseURL, '--model', 'm', '--data', BFCL!, '--categories', 'memory_vector,web_search_base,format_sensitivity', '--output-dir', join(tmp, 'agentic')])
      expect(r.code).toBe(1)
      const lines = r.out.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>)
      expect(lines[0]).toMatchObject({ category: 'memory_vector', skipped: expect.stringContaining('FAISS') })
      expect(lines[1]).toMatchObject({ category: 'web_search_base', skipped: expect.stringContaining('--web-search-results') })
      expect(lines[2]).toMatchObject({ category: 'format_sensitivity', skipped: expect.stringContaining('--mode prompting') })
      expect(server.hits).toBe(0)
    } finally {
      await server.close()
    }
  })
})
