// BFCL's multi-turn protocol through the agent loop in a real `vitest run`: a provider that replays gpt-oss-120b's
// recorded responses step by step (answering by the conversation so far: which turn, which step) runs
// multi_turn_miss_func against the simulated APIs (functions held out until their turn); the multi-turn checker scores each entry in
// the run, and bfcl_accuracy must be the leaderboard's recorded accuracy. The result file the run writes is scored
// again by `tool-evals bfcl` (the CLI reading result files as BFCL's evaluate does), giving the same numbers.
// Skipped with a message where ../shared is absent.
import { execFile } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEvalProject, ensureBuilt, REPO, type EvalProject, type RunResult } from '../helpers/eval-project.js'

const BFCL = fileURLToPath(new URL('../../../shared/bfcl/', import.meta.url))
const RECORDED = join(BFCL, 'recorded/gpt-oss-120b-vllm')
const available = existsSync(join(BFCL, 'multi_turn')) && existsSync(RECORDED)
if (!available) console.warn(`[bfcl] ${BFCL} not found: BFCL multi-turn agent-loop tests are skipped`)

// miss_func: held-out functions coming back, and entries BFCL's own inference fails on (one category keeps the file fast).
const CATEGORIES = ['multi_turn_miss_func']

const evalFile = (category: string) => `
import { readFileSync } from 'node:fs'
import { callsFromOpenAI, describeEval } from 'vitest-tool-evals'
import { bfclMultiTurn } from 'vitest-tool-evals/bfcl'

const recorded = new Map(
  readFileSync(${JSON.stringify(join(RECORDED, `BFCL_v4_${category}_result.json`))}, 'utf8').trim().split('\\n').map((l) => {
    const j = JSON.parse(l)
    return [j.id, j.result]
  }),
)

// Which turn and step the conversation is at: a turn starts at each run of user messages.
function position(messages) {
  let turn = -1
  let step = 0
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]
    if (m.role === 'user' && (i === 0 || messages[i - 1].role !== 'user')) {
      turn++
      step = 0
    } else if (m.role === 'assistant') step++
  }
  return { turn, step }
}

const replayer = {
  id: 'gpt-oss-120b-vllm (replayed step by step)',
  async generate(sample) {
    const { turn, step } = position(sample.messages)
    const response = recorded.get(sample.id)?.[turn]?.[step]
    if (!Array.isArray(response) || response.length === 0) return { text: typeof response === 'string' ? response : '' }
    const calls = callsFromOpenAI(response.map((o) => {
      const [name, args] = Object.entries(o)[0]
      return { type: 'function', function: { name, arguments: args } }
    }))
    if (typeof calls === 'string') throw new Error(calls)
    return { calls }
  },
}

describeEval(${JSON.stringify(category)}, {
  model: replayer,
  ...bfclMultiTurn({ dataDir: ${JSON.stringify(join(BFCL, 'multi_turn'))}, category: ${JSON.stringify(category)}, resultsDir: 'result', modelName: 'gpt-oss-120b-vllm' }),
})
`

const config = `
import { defineConfig } from 'vitest/config'
import ToolEvalsReporter from 'vitest-tool-evals/reporter'
export default defineConfig({
  test: { include: ['evals/*.eval.mjs'], reporters: ['default', new ToolEvalsReporter({ outputFile: 'report.json', markdownFile: false })] },
})
`

function recordedScore(category: string): { accuracy: number; correct_count: number; total_count: number } {
  return JSON.parse(readFileSync(join(RECORDED, `BFCL_v4_${category}_score.json`), 'utf8').split('\n')[0]!)
}

describe.skipIf(!available)('BFCL multi-turn through the agent loop', () => {
  let project: EvalProject
  let run: RunResult
  const report = () => JSON.parse(readFileSync(join(project.dir, 'report.json'), 'utf8'))

  beforeAll(async () => {
    ensureBuilt()
    const files: Record<string, string> = { 'vitest.config.mjs': config }
    for (const c of CATEGORIES) files[`evals/${c}.eval.mjs`] = evalFile(c)
    project = createEvalProject(files)
    run = await project.run(['run'])
  }, 120_000)
  afterAll(() => project?.remove())

  it('gives the leaderboard accuracy of each category, scored in the run', () => {
    expect(run.stdout + run.stderr).toMatch(/Tests\s+200 passed \(200\)/)
    const r = report()
    for (const c of CATEGORIES) {
      const want = recordedScore(c)
      expect(r.bfcl.categories[c], c).toEqual({ total: want.total_count, correct: want.correct_count, accuracy: want.accuracy })
    }
    // The runs ran through the loop: every entry is a trajectory, miss_func's held-out turn included.
    expect(r.trajectory.samples).toBe(200)
  })

  it('writes result files that the BFCL scorer reading files (as BFCL evaluate does) scores the same', async () => {
    const out = join(project.dir, 'score')
    const cli = await new Promise<{ code: number; output: string }>((resolve) => {
      execFile(
        process.execPath,
        [join(REPO, 'dist/cli.js'), 'bfcl', '--data', join(BFCL, 'multi_turn'), '--results', join(project.dir, 'result'), '--categories', CATEGORIES.join(','), '--score-dir', out, '--model', 'gpt-oss-120b-vllm'],
        { timeout: 60_000 },
        (err, stdout, stderr) => resolve({ code: err ? 1 : 0, output: stdout + stderr }),
      )
    })
    for (const c of CATEGORIES) {
      const scored = readFileSync(join(out, `BFCL_v4_${c}_score.json`), 'utf8')
      expect(JSON.parse(scored.split('\n')[0]!), `${c}\n${cli.output}`).toEqual(recordedScore(c))
      // The failing ids and error types, in order, are the leaderboard's.
      const ids = (text: string) => text.trim().split('\n').slice(1).map((l) => { const j = JSON.parse(l); return `${j.id} ${j.error.error_type}` })
      expect(ids(scored)).toEqual(ids(readFileSync(join(RECORDED, `BFCL_v4_${c}_score.json`), 'utf8')))
    }
  })
})
