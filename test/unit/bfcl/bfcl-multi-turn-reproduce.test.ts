// Scoring the recorded gpt-oss-120b (vLLM) multi-turn results reproduces the leaderboard's score files: accuracy,
// counts, and the failing ids with their error types, in order.
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, test } from 'vitest'
import { ApiSession } from '../../../src/bfcl/multi-turn/api.js'
import { scoreMultiTurnCategory } from '../../../src/bfcl/multi-turn/category.js'

const BFCL = fileURLToPath(new URL('../../../../shared/bfcl/', import.meta.url))
const DATA = `${BFCL}multi_turn`
const GPT_OSS = `${BFCL}recorded/gpt-oss-120b-vllm`
const available = existsSync(DATA) && existsSync(GPT_OSS)
if (!available) console.warn(`[bfcl] ${BFCL} not found: BFCL multi-turn reproduction tests are skipped`)

function official(category: string) {
  const [head, ...rest] = readFileSync(`${GPT_OSS}/BFCL_v4_${category}_score.json`, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
  return { head, failures: rest.map((e) => [e.id, e.error.error_type]) }
}

describe.skipIf(!available)('gpt-oss-120b-vllm: multi-turn score files reproduced', () => {
  // One session for the run, as the reference scores every category in one Python process.
  const session = new ApiSession()
  for (const category of ['multi_turn_base', 'multi_turn_miss_func', 'multi_turn_miss_param']) {
    test(category, async () => {
      const s = await scoreMultiTurnCategory(DATA, GPT_OSS, category, { modelName: 'openai_gpt-oss-120b', session })
      const o = official(category)
      expect(s.errors).toEqual([])
      const failures = s.entries.filter((e) => !e.valid).map((e) => [e.id, e.error_type])
      expect(failures).toEqual(o.failures)
      expect({ accuracy: s.accuracy, correct_count: s.correct_count, total_count: s.total_count }).toEqual(o.head)
    })
  }
})
