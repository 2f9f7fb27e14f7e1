// `tool-evals bfcl run` against a real server on 127.0.0.1 that answers as gpt-oss-120b answered (its recorded
// results in ../shared/bfcl/recorded/gpt-oss-120b-vllm, step by step) reproduces those result files and the
// leaderboard's recorded score files: Java, JavaScript and three multi-turn categories, with BFCL's protocol.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { bfclRunCommand } from '../../src/bfcl/cli/run.js'
import { bfclDir } from '../helpers/bfcl-dir.js'
import { replyBody } from '../helpers/bfcl-requests.js'
import { startOpenAIServer } from '../helpers/openai-server.js'
import { runCommand, withoutProgressLines } from '../helpers/cli-run.js'

withoutProgressLines()

const BFCL = bfclDir()
const RECORDED = BFCL === undefined ? '' : join(BFCL, 'recorded/gpt-oss-120b-vllm')
const tmp = mkdtempSync(join(tmpdir(), 'bfcl-run-rec-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const lines = (file: string) => readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)

/** A recorded step as the server's reply: calls as tool_calls (a text step: none, as vLLM sends it), or text. */
function reply(step: unknown, tag: string): Record<string, unknown> {
  if (!Array.isArray(step)) return { role: 'assistant', content: step }
  const calls = step.flatMap((d: Record<string, string>) => Object.entries(d)).map(([name, args], i) => ({ id: `call_${tag}_${i}`, type: 'function', function: { name, arguments: args } }))
  return { role: 'assistant', content: calls.length > 0 ? null : 'OK.', tool_calls: calls }
}

/** Each entry's replies in order (multi-turn: every step of every turn), from the category's recorded result lines. */
function replies(category: string, recorded: Record<string, unknown>[]): Record<string, unknown>[][] {
  return recorded.map((l) => {
    const r = l['result']
    if (!category.startsWith('multi_turn')) return [reply(r, '0')]
    if (!Array.isArray(r)) return []
    return (r as unknown[][]).flatMap((turn, t) => turn.map((s, j) => reply(s, `${t}_${j}`)))
  })
}

async function run(args: string[]): Promise<{ code: number; out: Record<string, unknown>[]; err: string }> {
  const { code, stdout: out, stderr: err } = await runCommand([bfclRunCommand], ['bfcl run', ...args])
  return { code, out: out.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>), err }
}

/** The score file's accuracy line and each failing entry's (id, error_type), as the leaderboard wrote them. */
function scoreFacts(file: string) {
  const [head, ...rest] = lines(file)
  return { head, failing: rest.map((l) => [l['id'], l['error_type'] ?? (l['error'] as { error_type?: unknown } | undefined)?.error_type]) }
}

const CASES = [
  ['simple_java', 'non_live'],
  ['simple_javascript', 'non_live'],
  ['multi_turn_base', 'multi_turn'],
  ['multi_turn_miss_func', 'multi_turn'],
  ['multi_turn_miss_param', 'multi_turn'],
] as const

describe.skipIf(BFCL === undefined)('bfcl run reproduces recorded gpt-oss-120b results', () => {
  test.each(CASES)('%s', async (category, group) => {
    const recordedLines = lines(join(RECORDED, `BFCL_v4_${category}_result.json`))
    const script = replies(category, recordedLines)
    // One entry at a time, in data order: a request without an assistant message starts the next entry. No request
    // is read again, so none is kept (~60 MB of JSON a multi-turn category).
    let entry = -1
    const server = await startOpenAIServer((req) => {
      const messages = (req.body as { messages: { role: string }[] }).messages
      const step = messages.filter((m) => m.role === 'assistant').length
      if (step === 0) entry++
      return { json: replyBody(script[entry]?.[step] ?? { role: 'assistant', content: 'Done.' }) }
    }, { keepRequests: false })
    try {
      const out = join(tmp, category)
      const r = await run(['--base-url', server.baseURL, '--model', 'openai/gpt-oss-120b', '--data', BFCL!, '--categories', category, '--output-dir', out, '--concurrency', '1'])
      expect(r.err).toBe('')
      const recorded = recordedLines.map((l) => ({ id: l['id'], result: l['result'] }))
      const written = lines(join(out, 'result/openai_gpt-oss-120b', group, `BFCL_v4_${category}_result.json`)).map((l) => ({ id: l['id'], result: l['result'] }))
      expect(written).toEqual(recorded)
      const ours = scoreFacts(join(out, 'score/openai_gpt-oss-120b', group, `BFCL_v4_${category}_score.json`))
      expect(ours).toEqual(scoreFacts(join(RECORDED, `BFCL_v4_${category}_score.json`)))
      expect(r.out[0]).toMatchObject({ category, correct_count: ours.head!['correct_count'], inference_errors: 0 })
      expect(r.code).toBe(0)
    } finally {
      await server.close()
    }
  }, 120_000)
})
