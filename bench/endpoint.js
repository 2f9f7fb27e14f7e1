// Endpoint provider throughput: 1,000 samples against a loopback OpenAI-shaped server that answers each request
// after 50 ms, at several concurrency limits, against the ideal wall time samples × latency / concurrency.
// Plain Node ESM over the built library: `npm run build && node bench/endpoint.js`. Prints figures; no pass/fail.
import { createServer } from 'node:http'
import { openaiCompatible } from '../dist/models/openai-compatible.js'

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 1000)
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 50)
const LIMITS = (process.env.BENCH_CONCURRENCY ?? '8,32,64').split(',').map(Number)

const body = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } }],
      },
      finish_reason: 'tool_calls',
    },
  ],
  usage: { prompt_tokens: 120, completion_tokens: 20 },
})

let inFlight = 0
let peak = 0
const server = createServer((req, res) => {
  req.resume()
  req.on('end', () => {
    inFlight++
    peak = Math.max(peak, inFlight)
    setTimeout(() => {
      inFlight--
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(body)
    }, LATENCY_MS)
  })
})
server.keepAliveTimeout = 60_000
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
const baseURL = `http://127.0.0.1:${server.address().port}/v1`

const tools = [
  {
    type: 'function',
    function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
  },
]
const samples = Array.from({ length: SAMPLES }, (_, i) => ({
  id: `s${i}`,
  messages: [{ role: 'user', content: `What is the weather in city number ${i}?` }],
  tools,
  expected: [{ name: 'get_weather', arguments: { city: 'Paris' } }],
}))

console.log(`endpoint bench: ${SAMPLES} samples, ${LATENCY_MS} ms server latency, loopback HTTP/1.1 keep-alive`)
console.log('concurrency  wall ms  ideal ms  wall/ideal  server peak  samples ok')
for (const concurrency of LIMITS) {
  const model = openaiCompatible({ baseURL, model: `bench-${concurrency}`, concurrency })
  // Warm the connection pool so the figure is the steady state, not TCP setup.
  await Promise.all(samples.slice(0, concurrency).map((s) => model.generate(s)))
  peak = 0
  const started = performance.now()
  const results = await Promise.allSettled(samples.map((s) => model.generate(s)))
  const wall = performance.now() - started
  const ideal = (SAMPLES * LATENCY_MS) / concurrency
  const ok = results.filter((r) => r.status === 'fulfilled' && r.value.calls?.[0]?.name === 'get_weather').length
  console.log(
    `${String(concurrency).padStart(11)}  ${wall.toFixed(0).padStart(7)}  ${ideal.toFixed(0).padStart(8)}  ` +
      `${(wall / ideal).toFixed(3).padStart(10)}  ${String(peak).padStart(11)}  ${String(ok).padStart(10)}`,
  )
}
server.close()
server.closeAllConnections?.()
