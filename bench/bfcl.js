// BFCL checker speed: every recorded result under ../shared/bfcl/recorded scored in one run, in entries per second,
// end to end (reading and decoding the files, scoring, writing score-file text) and for scoring alone (decode and
// check of entries already loaded). Run: npm run build && node bench/bfcl.js. Figures go to BENCHMARKS.md.
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import {
  loadCategoryData,
  loadCategoryResults,
  resultCategories,
  scoreCategory,
  scoreFileText,
} from '../dist/bfcl/index.js'

const BFCL = fileURLToPath(new URL('../../shared/bfcl/', import.meta.url))
const MODELS = ['glyphh-ada-1.1', 'AIREV-Agent-0.8B']

if (!existsSync(`${BFCL}recorded`)) {
  console.warn(`[bench] ${BFCL}recorded absent: nothing to measure`)
  process.exit(0)
}

const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6

/** Load every model's categories (data, answers, results). */
async function loadAll() {
  const inputs = []
  const dataCache = new Map()
  for (const model of MODELS) {
    const dir = `${BFCL}recorded/${model}`
    for (const category of await resultCategories(dir)) {
      if (!dataCache.has(category)) dataCache.set(category, await loadCategoryData(BFCL, category))
      const data = dataCache.get(category)
      const results = await loadCategoryResults(dir, category)
      inputs.push({ model, input: { category, entries: data.entries, answers: data.answers, results: results.results } })
    }
  }
  return inputs
}

function scoreAll(inputs, withFiles) {
  let entries = 0
  let correct = 0
  let bytes = 0
  for (const { model, input } of inputs) {
    const s = scoreCategory(input)
    entries += s.total_count
    correct += s.correct_count
    if (withFiles) bytes += scoreFileText(s, model).length
  }
  return { entries, correct, bytes }
}

// End to end, once (cold: includes module warm-up, as a CLI run would).
let t0 = process.hrtime.bigint()
const inputs = await loadAll()
const loadMs = ms(t0)
t0 = process.hrtime.bigint()
const cold = scoreAll(inputs, true)
const coldMs = ms(t0)

// Scoring alone, warm: best of 5 rounds.
let best = Infinity
for (let r = 0; r < 5; r++) {
  const t = process.hrtime.bigint()
  scoreAll(inputs, false)
  best = Math.min(best, ms(t))
}

const perSecond = (n, t) => Math.round((n / t) * 1000)
console.log(
  JSON.stringify(
    {
      models: MODELS,
      entries: cold.entries,
      end_to_end_ms: Math.round(loadMs + coldMs),
      end_to_end_entries_per_s: perSecond(cold.entries, loadMs + coldMs),
      load_ms: Math.round(loadMs),
      scoring_warm_ms: Math.round(best * 10) / 10,
      scoring_warm_entries_per_s: perSecond(cold.entries, best),
      score_file_bytes: cold.bytes,
      node: process.version,
    },
    null,
    2,
  ),
)
