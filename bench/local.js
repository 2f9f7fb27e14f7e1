// Local provider speed, on the random-weight fixture model (built on demand under fixtures/models/random-bench):
//  1. tokens per second of the provider's generate path (template, tokenizer, transformers.js generate, decoding)
//     against a plain onnxruntime-node greedy loop over the same ONNX file and prompt, one sample (goal ≥ 0.8);
//  2. wall time of 40 samples that share a ~1,500-token tools prompt, with and without batching and prefix-KV reuse.
// Plain Node ESM over the built library: `npm run build && node bench/local.js`. Prints figures; no pass/fail.
import { join } from 'node:path'
import { AutoTokenizer } from '@huggingface/transformers'
import ort from 'onnxruntime-node'
import { local } from '../dist/models/local.js'
import { ensureFixtureModel } from '../fixtures/build-models.mjs'

const NEW_TOKENS = Number(process.env.BENCH_NEW_TOKENS ?? 64)
const SET_SAMPLES = Number(process.env.BENCH_SAMPLES ?? 40)
const SET_NEW_TOKENS = Number(process.env.BENCH_SET_NEW_TOKENS ?? 24)
const TOOLS_TOKENS = Number(process.env.BENCH_TOOLS_TOKENS ?? 1500)
// onnxruntime intra-op threads for both sides (default: onnxruntime's own choice, the machine's cores).
const THREADS = process.env.BENCH_THREADS ? Number(process.env.BENCH_THREADS) : undefined
const REPEATS = Number(process.env.BENCH_REPEATS ?? 3)
const threadOptions = THREADS ? { threads: THREADS } : {}

const dir = await ensureFixtureModel('random-bench')
const config = (await import(join(dir, 'config.json'), { with: { type: 'json' } })).default
const tokenizer = await AutoTokenizer.from_pretrained(dir, { local_files_only: true })

const tool = (i) => ({
  type: 'function',
  function: {
    name: `lookup_record_${i}`,
    description: `Look up record type ${i} in the inventory system and return its fields, history and current status.`,
    parameters: {
      type: 'object',
      properties: {
        id: { type: 'string', description: 'The record identifier.' },
        fields: { type: 'array', items: { type: 'string' }, description: 'Fields to return.' },
        limit: { type: 'integer', description: 'Most history entries.' },
      },
      required: ['id'],
    },
  },
})
const sample = (id, question, tools) => ({ id, messages: [{ role: 'user', content: question }], tools, expected: [] })

// ---------------------------------------------------------------------------------------------------------------
// 1. One sample: provider vs a plain onnxruntime-node greedy loop

const tools = [tool(0), tool(1)]
const one = sample('one', 'Find record 42 and tell me its status.', tools)
const model = local(dir, { maxNewTokens: NEW_TOKENS, batchSize: 1, prefixCache: false, ...threadOptions })
// The same rendering the provider does (the tokenizer's chat template with the tools and the generation prompt).
const prompt = tokenizer.apply_chat_template(one.messages, { tools, add_generation_prompt: true, tokenize: false })
const promptIds = tokenizer.encode(prompt, { add_special_tokens: false })
const eos = new Set([config.eos_token_id, ...[].concat((await import(join(dir, 'generation_config.json'), { with: { type: 'json' } })).default.eos_token_id)])

async function plainLoop(session) {
  const { num_hidden_layers: layers, num_key_value_heads: heads, head_dim: dim } = config
  const int64 = (values, dims) => new ort.Tensor('int64', BigInt64Array.from(values, BigInt), dims)
  let feeds = {
    input_ids: int64(promptIds, [1, promptIds.length]),
    attention_mask: int64(promptIds.map(() => 1), [1, promptIds.length]),
    position_ids: int64(promptIds.map((_, i) => i), [1, promptIds.length]),
  }
  for (let l = 0; l < layers; l++) {
    for (const kv of ['key', 'value']) feeds[`past_key_values.${l}.${kv}`] = new ort.Tensor('float32', new Float32Array(0), [1, heads, 0, dim])
  }
  const out = []
  let total = promptIds.length
  while (out.length < NEW_TOKENS) {
    const result = await session.run(feeds)
    const logits = result.logits.data
    let best = 0
    for (let i = 1; i < logits.length; i++) if (logits[i] > logits[best]) best = i
    out.push(best)
    if (eos.has(best)) break
    total++
    feeds = { input_ids: int64([best], [1, 1]), attention_mask: int64(Array(total).fill(1), [1, total]), position_ids: int64([total - 1], [1, 1]) }
    for (let l = 0; l < layers; l++) {
      for (const kv of ['key', 'value']) feeds[`past_key_values.${l}.${kv}`] = result[`present.${l}.${kv}`]
    }
  }
  return out
}

// The two sides run one after the other, each alone in the process (two live sessions would share the cores).
const session = await ort.InferenceSession.create(join(dir, 'onnx', 'model.onnx'), THREADS ? { intraOpNumThreads: THREADS } : {})
await plainLoop(session) // warm-up
const plainRuns = []
let plainTokens = []
for (let i = 0; i < REPEATS; i++) {
  const t = performance.now()
  plainTokens = await plainLoop(session)
  plainRuns.push(performance.now() - t)
}
await session.release()

await model.generate(one) // warm-up (loads the model)
const providerRuns = []
let out
for (let i = 0; i < REPEATS; i++) {
  const t = performance.now()
  out = await model.generate(one)
  providerRuns.push(performance.now() - t)
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const plainMs = median(plainRuns)
const providerMs = median(providerRuns)
const generated = out.usage.completionTokens
const plainText = tokenizer.decode(plainTokens.filter((id) => !eos.has(id)), { skip_special_tokens: false })

const plainRate = (plainTokens.length / plainMs) * 1000
const providerRate = (generated / providerMs) * 1000
console.log(`local bench: model ${dir} (hidden ${config.hidden_size}, ${config.num_hidden_layers} layers, vocab ${config.vocab_size})`)
console.log(`1. one sample, prompt ${promptIds.length} tokens, up to ${NEW_TOKENS} new tokens, greedy; median of ${REPEATS} runs; threads ${THREADS ?? 'default'}`)
console.log(`   plain onnxruntime-node loop : ${plainTokens.length} tokens in ${plainMs.toFixed(0)} ms = ${plainRate.toFixed(1)} tok/s`)
console.log(`   provider generate path      : ${generated} tokens in ${providerMs.toFixed(0)} ms = ${providerRate.toFixed(1)} tok/s`)
console.log(`   provider / plain            : ${(providerRate / plainRate).toFixed(3)} (goal >= 0.8); same tokens: ${out.text === plainText ? 'yes' : 'NO'}`)

// ---------------------------------------------------------------------------------------------------------------
// 2. A sample set sharing a long tools prompt

if (SET_SAMPLES === 0) process.exit(0)
let setTools = []
for (let n = 1; ; n++) {
  setTools = Array.from({ length: n }, (_, i) => tool(i))
  const ids = tokenizer.encode(await model.renderPrompt(sample('x', 'q', setTools)), { add_special_tokens: false })
  if (ids.length >= TOOLS_TOKENS) break
}
const questions = Array.from({ length: SET_SAMPLES }, (_, i) =>
  sample(`s${i}`, `Find record ${1000 + i * 37} and list its ${['status', 'history', 'owner', 'fields'][i % 4]}.`, setTools),
)
const setPrompt = tokenizer.encode(await model.renderPrompt(questions[0]), { add_special_tokens: false }).length
console.log(`2. ${SET_SAMPLES} samples sharing ${setTools.length} tools (prompt ~${setPrompt} tokens), ${SET_NEW_TOKENS} new tokens each, all in flight at once`)
console.log('   batch  prefix   wall ms   speed-up  batches  prefix hits  reused tokens')

let baseline
for (const [batchSize, prefixCache] of [
  [1, false],
  [1, true],
  [4, false],
  [4, true],
  [8, true],
]) {
  const m = local(dir, { maxNewTokens: SET_NEW_TOKENS, batchSize, prefixCache, ...threadOptions })
  await m.clearPrefixCache()
  const before = await m.stats()
  const t = performance.now()
  const outs = await Promise.all(questions.map((q) => m.generate(q)))
  const wall = performance.now() - t
  const after = await m.stats()
  baseline ??= { wall, texts: outs.map((o) => o.text) }
  const same = outs.filter((o, i) => o.text === baseline.texts[i]).length
  console.log(
    `   ${String(batchSize).padStart(5)}  ${String(prefixCache).padStart(6)}  ${wall.toFixed(0).padStart(8)}  ${(baseline.wall / wall).toFixed(2).padStart(8)}x` +
      `  ${String(after.batches - before.batches).padStart(7)}  ${String(after.prefixHits - before.prefixHits).padStart(11)}` +
      `  ${String(after.reusedTokens - before.reusedTokens).padStart(13)}   (${same}/${SET_SAMPLES} outputs as baseline)`,
  )
}
