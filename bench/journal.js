// The run journal's cost per generation (describeEval's resume, src/models/journal.ts): a provider that answers at
// once, through `journaled` and without, 2,000 samples of a realistic size (a system prompt, 3 tools, a call in the
// answer), in rounds alternating the two; and a rerun that answers all 2,000 from the journal. `npm run build` first.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { journaled, journalFolder, openRunJournal } from '../dist/models/journal.js'

const N = 2000
const ROUNDS = 5
const tool = (name) => ({ type: 'function', function: { name, description: 'x'.repeat(200), parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } }, required: ['city'] } } })
const samples = Array.from({ length: N }, (_, i) => ({
  id: `s${i}`,
  messages: [{ role: 'system', content: 'You are a helpful assistant. '.repeat(20) }, { role: 'user', content: `Weather in city number ${i}?` }],
  tools: [tool('get_weather'), tool('get_forecast'), tool('get_time')],
  expected: [],
}))
const provider = {
  id: 'openai:m@http://127.0.0.1:1/v1',
  settings: { mode: 'tools', temperature: 0 },
  async generate(s) {
    return { calls: [{ name: 'get_weather', arguments: { city: s.id }, argumentsValid: true, format: 'json' }], text: '', usage: { promptTokens: 300, completionTokens: 20, latencyMs: 800 } }
  },
}

async function time(model) {
  const t0 = performance.now()
  for (const s of samples) await model.generate(s)
  return (performance.now() - t0) / N
}

const root = mkdtempSync(join(tmpdir(), 'bench-journal-'))
const plain = []
const written = []
const resumed = []
for (let r = 0; r < ROUNDS; r++) {
  const folder = journalFolder(join(root, String(r)))
  openRunJournal(folder)
  plain.push(await time(provider))
  written.push(await time(journaled(provider, folder)))
  openRunJournal(folder) // as the rerun after an interruption
  resumed.push(await time(journaled(provider, folder)))
}
rmSync(root, { recursive: true, force: true })
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const us = (ms) => `${(ms * 1000).toFixed(1)} µs`
console.log(`journal: ${N} generations, median of ${ROUNDS} rounds, per generation`)
console.log(`  no journal                ${us(median(plain))}`)
console.log(`  journaled (key + append)  ${us(median(written))}  (+${us(median(written) - median(plain))})`)
console.log(`  resumed from the journal  ${us(median(resumed))}  (first call reads the whole journal)`)
