// Long eval runs against a loopback endpoint, through real `vitest run` subprocesses, one after another on one
// project: a run killed (SIGKILL) and one interrupted (SIGINT) lose nothing they were answered, and each rerun asks the
// server only for what is missing (counted by the server); the run that finishes retires the journal, so the next
// run, against a model changed behind the same name, asks for everything again. That last run also has a sample the
// endpoint answers in 6 s under default options (no timeout anywhere: it must pass), and prints progress lines
// although its output is not a terminal.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEvalProject, ensureBuilt, type EvalProject, type LiveVitest } from '../helpers/eval-project.js'
import { startOpenAIServer, type OpenAIServer } from '../helpers/openai-server.js'

const IDS = ['s1', 's2', 's3', 's4', 's5', 's6', 's7', 's8']
const call = (city: string) => ({ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: JSON.stringify({ city }) } })

// Default provider options and no timeout anywhere: the sample timeout is what the library derives.
const evalFile = `
import { describeEval, openaiCompatible } from 'vitest-tool-evals'
const model = openaiCompatible({ baseURL: process.env.TE_BASE_URL, model: 'm' })
const data = ${JSON.stringify(IDS)}.map((id) => ({ id, messages: [{ role: 'user', content: id }], expected: [{ name: 'get_weather', arguments: { city: id } }] }))
describeEval('weather', { data, model })
`

const config = `
import { defineConfig } from 'vitest/config'
import ToolEvalsReporter from 'vitest-tool-evals/reporter'
export default defineConfig({
  test: {
    include: ['evals/*.eval.mjs'],
    reporters: ['default', new ToolEvalsReporter({ outputFile: 'report.json', markdownFile: false, progressIntervalMs: 1000 })],
  },
})
`

/** What the server does now: which samples it answers at once (the rest hang), and how. */
let answer: (id: string) => 'now' | 'hang' | 'changed' | 'slow' = () => 'now'
/** The sample ids asked in the current phase, in arrival order. */
let asked: string[] = []

let project: EvalProject
let server: OpenAIServer
const env = () => ({ TE_BASE_URL: server.baseURL })
const journal = () => join(project.dir, '.tool-evals/journal/run')
const report = () => JSON.parse(readFileSync(join(project.dir, 'report.json'), 'utf8'))

const currentFiles = () => (existsSync(join(journal(), 'current')) ? readdirSync(join(journal(), 'current')) : [])

/** Whole lines journaled so far by the run in progress (not in the files an earlier run left, `before`). */
function journaledLines(before: string[] = []): number {
  const dir = join(journal(), 'current')
  const files = currentFiles().filter((f) => !before.includes(f))
  return files.reduce((n, f) => n + (readFileSync(join(dir, f), 'utf8').match(/\n/g)?.length ?? 0), 0)
}

/** Start a run whose `answered` samples are answered and the rest hang; signal it once those answers are journaled. */
async function cutRun(answered: string[], signal: NodeJS.Signals): Promise<{ live: LiveVitest; code: number }> {
  asked = []
  answer = (id) => (answered.includes(id) ? 'now' : 'hang')
  const before = currentFiles()
  const live = project.start(['run'], env())
  const deadline = Date.now() + 30_000
  while (journaledLines(before) < answered.length) {
    if (Date.now() > deadline) throw new Error(`the answers were never journaled:\n${live.output()}`)
    await new Promise((r) => setTimeout(r, 50))
  }
  live.child.kill(signal)
  return { live, code: (await live.done).code }
}

beforeAll(async () => {
  ensureBuilt()
  server = await startOpenAIServer(async (r) => {
    const id = String(r.body?.messages?.[0]?.content)
    asked.push(id)
    const how = answer(id)
    if (how === 'hang') return { fault: 'hang' }
    if (how === 'changed') return { content: null, toolCalls: [call('elsewhere')] }
    return { content: null, toolCalls: [call(id)], delayMs: how === 'slow' ? 6000 : 0 }
  })
  project = createEvalProject({ 'vitest.config.mjs': config, 'evals/weather.eval.mjs': evalFile })
}, 60_000)
afterAll(async () => {
  project?.remove()
  await server?.close()
})

describe('an eval run cut short resumes where it stopped', () => {
  it('SIGKILL after 3 answers: they are journaled, and nothing else is', async () => {
    const { code } = await cutRun(['s1', 's2', 's3'], 'SIGKILL')
    expect(code).toBe(137)
    expect(journaledLines()).toBe(3)
    // The journal holds the keys' hashes and the outputs, never a request.
    const text = readdirSync(join(journal(), 'current')).map((f) => readFileSync(join(journal(), 'current', f), 'utf8')).join('')
    expect(text).not.toContain('"messages"')
    expect(readFileSync(join(project.dir, '.tool-evals/.gitignore'), 'utf8')).toContain('*')
  })

  it('SIGINT on the rerun: it asks only for the missing samples, and keeps its own 2 answers', async () => {
    const { live, code } = await cutRun(['s4', 's5'], 'SIGINT')
    expect(code).not.toBe(0)
    expect(live.output()).toContain('tool-evals: resuming an interrupted run: 3 generations journaled')
    expect(asked.filter((id) => ['s1', 's2', 's3'].includes(id))).toEqual([])
    expect(asked).toEqual(expect.arrayContaining(['s4', 's5']))
  })

  it('the next rerun asks only for the 3 never answered, and the report says 5 were resumed', async () => {
    asked = []
    answer = () => 'now'
    const result = await project.run(['run'], env())
    expect(result.code, result.stdout + result.stderr).toBe(0)
    expect(asked.sort()).toEqual(['s6', 's7', 's8'])
    const r = report()
    expect(r).toMatchObject({ samples: 8, resumed: 5, pass: true })
    expect(r.metrics.args_exact_match).toBe(1)
    expect(result.stdout).toContain('5 generations resumed from the journal of an interrupted run')
    // The run finished: its journal is retired.
    expect(existsSync(journal())).toBe(false)
  })

  it('after a finished run, a model changed behind the same name is asked again, all of it; a 6 s answer passes; progress lines', async () => {
    asked = []
    answer = (id) => (id === 's8' ? 'slow' : 'changed')
    const result = await project.run(['run'], env())
    expect(asked.sort()).toEqual(IDS)
    const r = report()
    expect(r.resumed).toBeUndefined()
    expect(r.errored.count).toBe(0) // s8, answered in 6 s, did not time out
    expect(r.samples).toBe(8)
    // 7 changed answers are wrong, s8's is right: nothing of the earlier run was replayed.
    expect(r.metrics.args_exact_match).toBeCloseTo(1 / 8)
    // Not a terminal: timed progress lines, while s8 was being answered.
    const lines = result.stdout.split('\n').filter((l) => /^tool-evals: \d+\/8 tests · /.test(l))
    expect(lines.length, result.stdout).toBeGreaterThanOrEqual(2)
    // At least one while the run was unfinished (how many of the fast 7 had finished by then depends on the machine's load).
    expect(lines.some((l) => !l.startsWith('tool-evals: 8/8 tests')), lines.join('\n')).toBe(true)
  })
})
