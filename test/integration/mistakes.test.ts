// A user's mistakes in a real `vitest run`, started from the folder above the project (`--root app`), as a
// monorepo's script would: a misspelt describeEval option fails its suite with "did you mean" while the file's other
// suites run; data and recordings resolve from Vitest's root (where the report goes), not the current directory; a
// missing data file says where it was looked for; a threshold on a misspelt suite names the suites that ran; and a
// misspelt plugin option stops the run at config load instead of running it with no gate. Two runs, in one process.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEvalProject, ensureBuilt, type EvalProject, type RunResult } from '../helpers/eval-project.js'

const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n'
const gw = (city: string) => ({ name: 'get_weather', arguments: { city } })
const sample = (id: string, city: string) => ({ id, messages: [{ role: 'user', content: `Weather in ${city}?` }], expected: [gw(city)] })
const hermes = (city: string) => `<tool_call>\n${JSON.stringify(gw(city))}\n</tool_call>`

const config = (options: string) => `
import { defineConfig } from 'vitest/config'
import { toolEvals } from 'vitest-tool-evals/plugin'
export default defineConfig({
  plugins: [toolEvals(${options})],
  test: { include: ['evals/*.eval.mjs'] },
})
`

// Four suites in one file: a typo, a good one (paths relative to the root), a missing data file, a typo in a nested option.
const evalFile = `
import { describeEval, replay } from 'vitest-tool-evals'
describeEval('typo', { data: 'data/weather.jsonl', modle: replay('data/weather.outputs.jsonl') })
describeEval('weather', { data: 'data/weather.jsonl', model: replay('data/weather.outputs.jsonl') })
describeEval('missing', { data: 'data/nope.jsonl', model: replay('data/weather.outputs.jsonl') })
describeEval('nested', { data: 'data/weather.jsonl', model: replay('data/weather.outputs.jsonl'), trials: { count: 2, reduc: 'all' } })
`

let project: EvalProject
let run: RunResult
let typoRun: RunResult
const root = () => join(project.dir, 'app')

beforeAll(async () => {
  ensureBuilt()
  project = createEvalProject({
    'app/vitest.config.mjs': config(`{ thresholds: { suites: { wether: { name_correct: 0.5 } } }, outputFile: 'report.json', markdownFile: false }`),
    'app/typo.config.mjs': config(`{ tresholds: { name_correct: 0.99 }, outputFile: 'typo-report.json', markdownFile: false }`),
    'app/evals/mistakes.eval.mjs': evalFile,
    'app/data/weather.jsonl': jsonl([sample('w1', 'Paris'), sample('w2', 'Rome')]),
    'app/data/weather.outputs.jsonl': jsonl([{ id: 'w1', output: hermes('Paris') }, { id: 'w2', output: hermes('Rome') }]),
  })
  // One process for both (project.runs): what is tested is what each run reports and its exit code.
  ;[run, typoRun] = (await project.runs([
    { args: ['run', '--root', 'app', '--reporter=verbose'] },
    { args: ['run', '--root', 'app', '--config', 'typo.config.mjs'] },
  ])) as [RunResult, RunResult]
})
afterAll(() => project?.remove())

describe('mistakes in a real run', () => {
  it('a misspelt describeEval option fails its suite, naming file, option and the closest one; the other suites run', () => {
    const out = run.stdout + run.stderr
    expect(run.code).toBe(1)
    expect(out).not.toContain('weak map key')
    expect(out).toMatch(/evals\/mistakes\.eval\.mjs > typo > \[invalid describeEval options\]/)
    expect(out).toContain('describeEval("typo"): unknown option `modle`; did you mean `model`?')
    expect(out).toContain('describeEval("nested"): option `trials`: unknown option `reduc`; did you mean `reduce`?')
    expect(out).toMatch(/✓ .*weather > w1/)
  })

  it('data and recordings resolve from Vitest\'s root, where the report is written', () => {
    const report = JSON.parse(readFileSync(join(root(), 'report.json'), 'utf8'))
    expect(report.suites.weather).toMatchObject({ samples: 2, errored: { count: 0 } })
    expect(report.suites.weather.metrics.args_exact_match).toBe(1)
  })

  it('a missing data file is not an invalid sample: it says where it was looked for', () => {
    const out = run.stdout + run.stderr
    expect(out).toContain('missing > [data file data/nope.jsonl could not be read]')
    expect(out).toContain(`data/nope.jsonl: data file not found: looked for ${join(root(), 'data/nope.jsonl')}; a relative path is resolved from ${root()} (Vitest's root)`)
    expect(out).not.toMatch(/Invalid sample: data\/nope/)
  })

  it('a threshold on a misspelt suite fails, naming the suites that ran', () => {
    const report = JSON.parse(readFileSync(join(root(), 'report.json'), 'utf8'))
    expect(report.pass).toBe(false)
    const reasons = report.gate.reasons.map((r: { message: string }) => r.message).join('\n')
    expect(reasons).toContain('no suite named "wether" in this run; did you mean `weather`?')
  })

  it('a misspelt plugin option stops the run at config load, naming it', () => {
    expect(typoRun.code).not.toBe(0)
    expect(typoRun.stdout + typoRun.stderr).toContain('toolEvals(): unknown option `tresholds`; did you mean `thresholds`?')
    expect(existsSync(join(root(), 'typo-report.json'))).toBe(false)
  })
})
