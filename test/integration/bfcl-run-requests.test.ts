// `tool-evals bfcl run` sends the request bodies BFCL's own handler sends (fixtures recorded from BFCL's code, see
// fixtures/bfcl-requests/README.md), through a real server on 127.0.0.1, and writes the results BFCL's handler gave.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { bfclRunCommand } from '../../src/bfcl/cli/run.js'
import { bfclDir } from '../helpers/bfcl-dir.js'
import { bodyHash, loadFixtures, replyBody } from '../helpers/bfcl-requests.js'
import { startOpenAIServer } from '../helpers/openai-server.js'
import { runCommand as runIn, withoutProgressLines } from '../helpers/cli-run.js'

withoutProgressLines()

const BFCL = bfclDir()
const tmp = mkdtempSync(join(tmpdir(), 'bfcl-run-req-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

async function runCommand(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const { code, stdout: out, stderr: err } = await runIn([bfclRunCommand], ['bfcl run', ...args])
  return { code, stdout: out, stderr: err }
}

describe.skipIf(BFCL === undefined)('bfcl run: request bodies equal BFCL handler\'s', () => {
  for (const fx of loadFixtures(BFCL)) {
    test(`${fx.category} (${fx.mode}): ${fx.entries.length} entries`, async () => {
      // One entry at a time, replies in the order BFCL's handler consumed them.
      const replies = fx.entries.flatMap((e) => e.responses)
      let next = 0
      const server = await startOpenAIServer(() => ({ json: replyBody(replies[next++] ?? { role: 'assistant', content: 'Done.' }) }))
      try {
        const out = join(tmp, fx.file)
        const args = ['--base-url', server.baseURL, '--model', fx.model, '--data', BFCL!, '--categories', fx.category, '--output-dir', out, '--mode', fx.mode, '--limit', String(fx.entries.length), '--concurrency', '1']
        const r = await runCommand(args)
        expect(r.stderr).toBe('')
        expect(server.requests.map((q) => bodyHash(q.body))).toEqual(fx.entries.flatMap((e) => e.requests))
        const group = readdirSync(join(out, 'result', fx.model))[0]!
        const lines = readFileSync(join(out, 'result', fx.model, group, `BFCL_v4_${fx.category}_result.json`), 'utf8').trim().split('\n')
        expect(lines.map((l) => JSON.parse(l) as { id: string; result: unknown }).map((r) => ({ id: r.id, result: bodyHash(r.result) }))).toEqual(fx.entries.map((e) => ({ id: e.id, result: e.result })))
        expect(r.code).toBe(0)
      } finally {
        await server.close()
      }
    })
  }
})
