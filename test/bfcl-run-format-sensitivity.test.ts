// `tool-evals bfcl run --mode prompting --categories format_sensitivity` sends, under each of BFCL's 26 prompt
// formats, the request bodies BFCL's own handler sends (scripts/bfcl-oracle/record-format-sensitivity.py), through a
// real server on 127.0.0.1, and scores the replies as BFCL's own evaluate does: per-format accuracy, max delta,
// variance and standard deviation, failing ids and error types.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, test } from 'vitest'
import { bfclRunCommand } from '../src/cli/bfcl-run.js'
import { FORMAT_SENSITIVITY_CONFIGS, formulateSystemPrompt } from '../src/data/bfcl-prompt-formats.js'
import { bfclPromptingSystemPrompt } from '../src/data/bfcl-request.js'
import { round2, varianceAndStd } from '../src/score/bfcl/format-sensitivity.js'
import { bfclDir } from './helpers/bfcl-dir.js'
import { bodyHash, replyBody } from './helpers/bfcl-requests.js'
import { startOpenAIServer } from './helpers/openai-server.js'
import { runCommand } from './helpers/cli-run.js'

const BFCL = bfclDir()
const FILE = fileURLToPath(new URL('../fixtures/bfcl-agentic-requests/format_sensitivity.prompting.json', import.meta.url))
const tmp = mkdtempSync(join(tmpdir(), 'bfcl-run-fs-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

interface Fixture {
  model: string
  limit: number
  entries: { id: string; requests: string[]; result: string }[]
  score: Record<string, unknown> & { failing: [string, string][] }
}

describe('format sensitivity: the prompt formats', () => {
  test("26 configurations; the default one is the prompting system prompt every request uses", () => {
    expect(FORMAT_SENSITIVITY_CONFIGS).toHaveLength(26)
    expect(new Set(FORMAT_SENSITIVITY_CONFIGS).size).toBe(26)
    const fn = new Map<string, never>([['name', 'f' as never], ['description', 'd' as never], ['parameters', new Map() as never]])
    expect(formulateSystemPrompt('ret_fmt=python&tool_call_tag=False&func_doc_fmt=json&prompt_fmt=plaintext&style=classic', [fn])).toBe(bfclPromptingSystemPrompt([fn]))
    expect(() => formulateSystemPrompt('ret_fmt=yaml', [fn])).toThrow(/Invalid query format/)
  })

  test("Python's round(x, 2) and statistics' exact variance and stdev", () => {
    expect(round2(0.125)).toBe(0.12)
    expect(round2(0.375)).toBe(0.38)
    expect(round2(2.675)).toBe(2.67) // 2.675 is 2.67499999... as a double
    expect(round2(-1.005)).toBe(-1) // likewise below the tie
    const v = varianceAndStd([0.5, 0.25, 0.25, 0.75])
    // Python 3.11: statistics.variance / stdev of the same values.
    expect(v.variance).toBe(0.057291666666666664)
    expect(v.std).toBe(0.23935677693908453)
    expect(varianceAndStd([0.1, 0.2, 0.4])).toEqual({ variance: 0.023333333333333334, std: 0.15275252316519466 })
  })
})

describe.skipIf(BFCL === undefined)('bfcl run format_sensitivity: BFCL handler\'s bodies and evaluate\'s numbers', () => {
  test('the first entries under the 26 formats', async () => {
    const fx = JSON.parse(readFileSync(FILE, 'utf8')) as Fixture
    let next = 0
    const replies = fx.entries.map((e) => e.result)
    const server = await startOpenAIServer(() => ({ json: replyBody({ role: 'assistant', content: replies[next++] ?? '' }) }))
    try {
      const out = join(tmp, 'fs')
      const r = await runCommand([bfclRunCommand], ['bfcl run', '--base-url', server.baseURL, '--model', fx.model, '--data', BFCL!, '--categories', 'format_sensitivity', '--output-dir', out, '--mode', 'prompting', '--limit', String(fx.limit), '--concurrency', '1'])
      expect(r.stderr).toBe('')
      expect(server.requests.map((q) => bodyHash(q.body))).toEqual(fx.entries.flatMap((e) => e.requests))
      const lines = readFileSync(join(out, 'result', fx.model, 'format_sensitivity', 'BFCL_v4_format_sensitivity_result.json'), 'utf8').trim().split('\n')
      expect(lines.map((l) => JSON.parse(l) as { id: string; result: string }).map((l) => [l.id, l.result])).toEqual(fx.entries.map((e) => [e.id, e.result]))
      const scoreFile = readdirSync(join(out, 'score'), { recursive: true, encoding: 'utf8' }).find((f) => f.endsWith('BFCL_v4_format_sensitivity_score.json'))!
      const [head, ...failing] = readFileSync(join(out, 'score', scoreFile), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)
      const { failing: expected, ...header } = fx.score
      expect(head).toEqual(header)
      expect(failing.map((f) => [f['id'], f['error_type']])).toEqual(expected)
      const line = JSON.parse(r.stdout.split('\n')[0]!) as Record<string, unknown>
      expect(line).toMatchObject({ category: 'format_sensitivity', accuracy: header['accuracy'], accuracy_std: header['accuracy_std'], accuracy_max_delta: header['accuracy_max_delta'] })
      expect(r.code).toBe(0)
    } finally {
      await server.close()
    }
  })
})
