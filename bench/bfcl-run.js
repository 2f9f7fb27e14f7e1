// `tool-evals bfcl run` throughput against a loopback OpenAI-shaped server (a child process) that answers at once,
// against the server-only bound: a minimal keep-alive client posting bodies of the same mean size at the same
// concurrency. Plain Node ESM over the built library: `npm run build && node bench/bfcl-run.js`. Prints figures.
// BENCH_BFCL_DIR (default ../shared/bfcl), BENCH_CATEGORIES (default simple_python,multi_turn_base), BENCH_CONCURRENCY (8).
// BENCH_BASELINE=DIR (another build's dist/, e.g. of the last release): instead, the two builds' `bfcl run` in turn,
// BENCH_ROUNDS pairs (default 7) against the same server, each into a fresh folder; prints each pair's time ratio
// (this build / the baseline) and their median, which drift of the machine's speed moves less than the times.
import { fork } from 'node:child_process'
import { Agent, request } from 'node:http'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { fileURLToPath } from 'node:url'

const DATA = process.env.BENCH_BFCL_DIR ?? fileURLToPath(new URL('../../shared/bfcl', import.meta.url))
const CATEGORIES = process.env.BENCH_CATEGORIES ?? 'simple_python,multi_turn_base'
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8)

if (process.argv[2] === 'server') {
  // The server: a tool call naming the request's first tool where there are tools and no tool result yet, else text.
  const { createServer } = await import('node:http')
  let hits = 0
  let bytes = 0
  const server = createServer((req, res) => {
    const chunks = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      hits++
      bytes += text.length
      let message = { role: 'assistant', content: 'Done.' }
      if (!req.url.includes('bound')) {
        const body = JSON.parse(text)
        const last = body.messages[body.messages.length - 1]
        const tool = body.tools?.[0]?.function?.name
        if (tool && last.role === 'user' && !body.messages.some((m) => m.role === 'assistant')) {
          message = { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: tool, arguments: '{}' } }] }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ id: 'x', object: 'chat.completion', choices: [{ index: 0, message, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1 } }))
    })
  })
  server.keepAliveTimeout = 60_000
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }))
  process.on('message', (m) => {
    if (m === 'stats') process.send({ hits, bytes })
    if (m === 'reset') {
      hits = bytes = 0
      process.send({ hits, bytes })
    }
  })
} else {
  const child = fork(fileURLToPath(import.meta.url), ['server'])
  const ask = (m) => new Promise((resolve) => child.once('message', resolve) && child.send(m))
  const { port } = await new Promise((resolve) => child.once('message', resolve))
  const baseURL = `http://127.0.0.1:${port}/v1`
  const { runCli } = await import('../dist/cli/command.js')
  const { bfclRunCommand } = await import('../dist/bfcl/cli/run.js')

  const sink = new PassThrough()
  sink.resume()
  /** One `bfcl run` of a build into a fresh folder: its exit code and milliseconds. */
  const runOnce = async (cli, command) => {
    const out = mkdtempSync(join(tmpdir(), 'bench-bfcl-run-'))
    const t = performance.now()
    const cpu = process.cpuUsage()
    const code = await cli([command], ['bfcl run', '--base-url', baseURL, '--model', 'bench', '--data', DATA, '--categories', CATEGORIES, '--output-dir', out, '--concurrency', String(CONCURRENCY)], { stdin: new PassThrough(), stdout: sink, stderr: process.stderr })
    const ms = performance.now() - t
    const used = process.cpuUsage(cpu)
    rmSync(out, { recursive: true, force: true })
    return { code, ms, cpuMs: (used.user + used.system) / 1000 }
  }
  if (process.env.BENCH_BASELINE !== undefined) {
    const base = process.env.BENCH_BASELINE.replace(/\/?$/, '/')
    const { runCli: baseCli } = await import(`${base}cli/command.js`)
    const { bfclRunCommand: baseCommand } = await import(`${base}bfcl/cli/run.js`)
    const rounds = Number(process.env.BENCH_ROUNDS ?? 7)
    await runOnce(runCli, bfclRunCommand)
    await runOnce(baseCli, baseCommand)
    const ratios = []
    const cpuRatios = []
    for (let i = 0; i < rounds; i++) {
      // Alternate which goes first, so neither always runs on the other's garbage.
      const first = i % 2 === 0
      const a = first ? await runOnce(runCli, bfclRunCommand) : undefined
      const b = await runOnce(baseCli, baseCommand)
      const c = a ?? (await runOnce(runCli, bfclRunCommand))
      ratios.push(c.ms / b.ms)
      cpuRatios.push(c.cpuMs / b.cpuMs)
      console.log(`round ${i + 1}: this build ${Math.round(c.ms)} ms, ${Math.round(c.cpuMs)} CPU-ms (exit ${c.code}); baseline ${Math.round(b.ms)} ms, ${Math.round(b.cpuMs)} CPU-ms (exit ${b.code}); ratios ${(c.ms / b.ms).toFixed(3)} wall, ${(c.cpuMs / b.cpuMs).toFixed(3)} CPU`)
    }
    const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)].toFixed(3)
    const range = (xs) => `${Math.min(...xs).toFixed(3)}-${Math.max(...xs).toFixed(3)}`
    console.log(`bfcl run ${CATEGORIES} at concurrency ${CONCURRENCY}, this build / baseline over ${rounds} pairs: wall median ${median(ratios)} (${range(ratios)}), client CPU median ${median(cpuRatios)} (${range(cpuRatios)})`)
    child.kill()
    process.exit(0)
  }
  const first = await runOnce(runCli, bfclRunCommand)
  const code = first.code
  const runMs = first.ms
  const { hits, bytes } = await ask('stats')

  // The bound: the same number of requests, bodies of the same mean size, nothing else done per request.
  await ask('reset')
  const body = JSON.stringify({ model: 'bench', messages: [{ role: 'user', content: 'x'.repeat(Math.max(0, Math.round(bytes / hits) - 60)) }] })
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY })
  const post = () => new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/v1/bound/chat/completions', method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
      res.on('data', () => {})
      res.on('end', resolve)
    })
    req.on('error', reject)
    req.end(body)
  })
  let sent = 0
  const t0 = performance.now()
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (sent < hits) {
      sent++
      await post()
    }
  }))
  const boundMs = performance.now() - t0
  agent.destroy()
  child.kill()
  const rps = (n, ms) => Math.round((n / ms) * 1000)
  console.log(`bfcl run ${CATEGORIES} at concurrency ${CONCURRENCY} (exit ${code}): ${hits} requests (mean body ${Math.round(bytes / hits)} B) in ${Math.round(runMs)} ms = ${rps(hits, runMs)} req/s`)
  console.log(`server-only bound: ${hits} requests in ${Math.round(boundMs)} ms = ${rps(hits, boundMs)} req/s; bfcl run reaches ${((boundMs / runMs) * 100).toFixed(0)}% of it`)
}
