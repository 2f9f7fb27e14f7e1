// BFCL multi-turn checker speed: the recorded gpt-oss-120b (vLLM) results of multi_turn_base, miss_func and
// miss_param scored end to end (reading files, executing model and ground-truth calls against the simulated APIs,
// comparing states and results), one category at a time, best of 10 (warm, in process). Run: npm run build && node bench/bfcl-multi-turn.js.
// BFCL's reference checker takes about 0.5 s per 200-entry category plus 0.6 s of start-up (REFERENCE figures).
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { scoreMultiTurnCategory } from '../dist/bfcl/multi-turn/category.js'

const BFCL = fileURLToPath(new URL('../../shared/bfcl/', import.meta.url))
const RESULTS = `${BFCL}recorded/gpt-oss-120b-vllm`
if (!existsSync(RESULTS)) {
  console.warn(`[bench] ${RESULTS} absent: nothing to measure`)
  process.exit(0)
}
const CATEGORIES = ['multi_turn_base', 'multi_turn_miss_func', 'multi_turn_miss_param']
let total = 0
for (const category of CATEGORIES) {
  let best = Infinity
  let entries = 0
  for (let i = 0; i < 10; i++) {
    const t0 = process.hrtime.bigint()
    const s = await scoreMultiTurnCategory(`${BFCL}multi_turn`, RESULTS, category, { modelName: 'openai_gpt-oss-120b' })
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e6)
    entries = s.total_count
  }
  total += best
  console.log(`${category}: ${entries} entries in ${best.toFixed(0)} ms (best of 10), ${(best / 500).toFixed(2)}x the reference's 0.5 s`)
}
console.log(`three categories: ${total.toFixed(0)} ms; reference about ${(0.6 + 0.5 * CATEGORIES.length).toFixed(1)} s with start-up`)
