// An eval project whose model is a cached OpenAI-compatible endpoint on a loopback server that misbehaves, run by a
// real `vitest run` subprocess against dist/: the API key echoed near the error snippet's cut (and base64'd) reaches
// no report, summary, stdout or stderr; a sample whose test times out is recorded as timed out, with how long; a
// cache entry path that is a directory is regenerated and counted in the report and the terminal summary.
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEvalProject, ensureBuilt, type EvalProject, type RunResult } from '../helpers/eval-project.js'
import { startOpenAIServer, type OpenAIServer } from '../helpers/openai-server.js'

const KEY = 'sk-proj-Int3gr4tionK3yQwErTyUiOp'
const OFFSETS = Array.from({ length: 21 }, (_, i) => 290 + i)

const evalFile = `
import { mkdirSync } from 'node:fs'
import { cached, describeEval, openaiCompatible } from 'vitest-tool-evals'
const endpoint = openaiCompatible({ baseURL: process.env.TE_BASE_URL, model: 'm', apiKeyEnv: 'TE_KEY', maxRetries: 0, timeoutMs: 30000 })
const model = cached(endpoint, { dir: '.cache' })
const sample = (id) => ({ id, messages: [{ role: 'user', content: id }], expected: [] })
const data = [...${JSON.stringify(OFFSETS)}.map((o) => sample('leak-' + o)), sample('b64'), sample('ok'), sample('hang'), sample('echo-text'), sample('echo-call')]
// An entry path taken by a directory (a botched copy, a tool gone wrong): regenerated, never an errored sample.
mkdirSync(model.entryPath(sample('ok')), { recursive: true })
describeEval('endpoint', { data, model, timeout: 1500 })
`

const config = `
import { defineConfig } from 'vitest/config'
import ToolEvalsReporter from 'vitest-tool-evals/reporter'
export default defineConfig({
  test: {
    include: ['evals/*.eval.mjs'],
    reporters: ['default', new ToolEvalsReporter({ outputFile: 'report.json', markdownFile: 'summary.md', htmlFile: 'report.html' })],
  },
})
`

describe('a cached endpoint eval run by vitest', () => {
  let project: EvalProject
  let server: OpenAIServer
  let run: RunResult

  beforeAll(async () => {
    ensureBuilt()
    server = await startOpenAIServer((r) => {
      const id = String(r.body?.messages?.[0]?.content)
      const key = String(r.headers.authorization).slice('Bearer '.length)
      if (id.startsWith('leak-')) return { status: 401, json: { error: { message: `${'x'.repeat(Number(id.slice(5)))}${key} rejected` } } }
      if (id === 'b64') return { status: 403, raw: `auth ${Buffer.from(`Bearer ${key}`).toString('base64')} denied` }
      if (id === 'hang') return { fault: 'hang' }
      // 200 replies that echo the key: in the text (raw, JSON-escaped inside a call, base64) and in call arguments.
      if (id === 'echo-text') return { content: `Your key is ${key}. <tool_call>{"name": "${key}", "arguments": {"k": "${key}"}}</tool_call> ${Buffer.from(`Bearer ${key}`).toString('base64')}` }
      if (id === 'echo-call') return { content: key, toolCalls: [{ id: 'c1', type: 'function', function: { name: 'login', arguments: JSON.stringify({ token: key, [key]: 1 }) } }] }
      return { content: 'fine' }
    })
    project = createEvalProject({ 'vitest.config.mjs': config, 'evals/endpoint.eval.mjs': evalFile })
    run = await project.run(['run'], { TE_BASE_URL: server.baseURL, TE_KEY: KEY })
  }, 120_000)
  afterAll(async () => {
    project?.remove()
    await server?.close()
  })

  const read = (file: string) => readFileSync(join(project.dir, file), 'utf8')

  it('sent the key, and it reaches no file written, stdout or stderr, whole or in 8-character pieces, even from 200 replies that echo it', () => {
    expect(server.requests.some((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true)
    // Every file the run wrote (report, samples file, summary, HTML, the cache's entries), and what it printed.
    const written = readdirSync(project.dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && !join(e.parentPath, e.name).includes('node_modules'))
      .map((e) => [relative(project.dir, join(e.parentPath, e.name)), readFileSync(join(e.parentPath, e.name), 'utf8')] as const)
    expect(written.map(([f]) => f)).toEqual(expect.arrayContaining(['report.json', 'report.samples.jsonl', 'summary.md', 'report.html']))
    expect(written.filter(([f]) => f.startsWith('.cache')).length).toBeGreaterThan(0)
    const printed = { ...Object.fromEntries(written), stdout: run.stdout, stderr: run.stderr }
    const bearer = Buffer.from(`Bearer ${KEY}`).toString('base64')
    for (const [where, text] of Object.entries(printed)) {
      for (const spelling of [KEY, bearer]) {
        for (let i = 0; i + 8 <= spelling.length; i++) expect(text.includes(spelling.slice(i, i + 8)), `${where}: ${spelling.slice(i, i + 8)}`).toBe(false)
      }
    }
    const report = JSON.parse(read('report.json'))
    // Each leak sample errored with the server's message (scrubbed), not lost.
    expect(report.errored.samples.filter((e: { id: string }) => e.id.startsWith('leak-'))).toHaveLength(OFFSETS.length)
    expect(printed.stdout).toContain('HTTP 401: xxxx')
    // The echoing replies were scored, with `***` where the key was: parsed, not errored.
    const samples = read('report.samples.jsonl')
    expect(samples).toMatch(/"id":"echo-call"[^\n]*"f":\["unexpected_call"\]/)
    expect(samples).toMatch(/"id":"echo-text"[^\n]*"f":\["unexpected_call"\]/)
    expect(run.stdout).toContain('login({"token":"***","***":1})')
  })

  it('records a timed-out sample as timed out after its test timeout, not as an abort', () => {
    const report = JSON.parse(read('report.json'))
    const hang = report.errored.samples.find((e: { id: string }) => e.id === 'hang')
    expect(hang?.reason).toBe("timed out after 1500 ms (the sample's test timeout), or the run was interrupted")
    expect(read('report.json')).not.toContain('This operation was aborted')
  })

  it('regenerates the entry whose path is a directory and says how many were regenerated', () => {
    const report = JSON.parse(read('report.json'))
    expect(report.cacheRegenerated).toBe(1)
    expect(report.errored.samples.map((e: { id: string }) => e.id)).not.toContain('ok')
    expect(run.stdout).toContain('1 cache entries were unusable and regenerated')
    expect(run.code).not.toBe(0) // the errored samples fail their tests
  })
})
