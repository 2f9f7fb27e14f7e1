// The in-Vitest BFCL path sends what `tool-evals bfcl run` and BFCL's own handler send: `loadBfclCategory` /
// `bfclMultiTurn` samples through `openaiCompatible({ wire: 'bfcl', temperature: 0.001 })` against a real server on
// 127.0.0.1 give the recorded request bodies (fixtures/bfcl-requests/), and scoring maps underscored names back.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { loadBfclCategory } from '../../../src/bfcl/data/load.js'
import type { Sample } from '../../../src/data/types.js'
import { runAgent } from '../../../src/eval/agent.js'
import { bfclMultiTurn } from '../../../src/bfcl/protocol/multi-turn.js'
import { openaiCompatible } from '../../../src/models/openai-compatible.js'
import { checkBfclAnswer } from '../../../src/bfcl/checker/answer.js'
import { bfclDir } from '../../helpers/bfcl-dir.js'
import { bodyHash, loadFixtures, replyBody } from '../../helpers/bfcl-requests.js'
import { startOpenAIServer } from '../../helpers/openai-server.js'

const BFCL = bfclDir()

describe.skipIf(BFCL === undefined)('in-Vitest BFCL requests equal BFCL handler\'s (function-calling mode)', () => {
  for (const fx of loadFixtures(BFCL).filter((f) => f.mode === 'fc')) {
    test(`${fx.category}: ${fx.entries.length} entries`, async () => {
      const replies = fx.entries.flatMap((e) => e.responses)
      let next = 0
      const server = await startOpenAIServer(() => ({ json: replyBody(replies[next++] ?? { role: 'assistant', content: 'Done.' }) }))
      try {
        const model = openaiCompatible({ baseURL: server.baseURL, model: fx.model, temperature: fx.temperature, wire: 'bfcl', concurrency: 1 })
        const limit = fx.entries.length
        if (fx.category.startsWith('multi_turn')) {
          const options = bfclMultiTurn({ dataDir: join(BFCL!, 'multi_turn'), category: fx.category, limit })
          for (const d of options.data) {
            const { id, messages, turns, tools, expected, ...extra } = d as unknown as Sample & Record<string, unknown>
            const sample = { id, messages, turns, tools, expected, extra } as Sample
            await runAgent(model, sample, await options.environment(sample), { maxSteps: options.maxSteps })
          }
        } else {
          for (const s of loadBfclCategory(BFCL!, fx.category, { limit }).samples) await model.generate(s)
        }
        expect(server.requests.map((q) => bodyHash(q.body))).toEqual(fx.entries.flatMap((e) => e.requests))
      } finally {
        await server.close()
      }
    })
  }
})

describe.skipIf(BFCL === undefined)('in-Vitest BFCL scoring of underscored names', () => {
  test("gpt-oss simple_java's recorded calls (math_factorial-style names) score the leaderboard's 56/100", () => {
    const recorded = new Map(
      readFileSync(join(BFCL!, 'recorded/gpt-oss-120b-vllm/BFCL_v4_simple_java_result.json'), 'utf8').trim().split('\n').map((l) => {
        const j = JSON.parse(l) as { id: string; result: unknown }
        return [j.id, j.result]
      }),
    )
    const { samples } = loadBfclCategory(BFCL!, 'simple_java')
    const valid = samples.filter((s) => checkBfclAnswer(recorded.get(s.id), s.bfcl!).valid).length
    expect(valid).toBe(56)
  })
})
