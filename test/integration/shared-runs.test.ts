// The shared Vitest driver (`project.runs(...)`, test/helpers/vitest-driver.mjs) against a `vitest` subprocess of its
// own (`project.run(...)`) on one project: a failing gate, then a passing run in the same process. Each shared run
// must give what its own process gives: the exit code, the report (but for its time and run id), the summary lines,
// and every line written outside Vitest's logger (a reporter writing to process.stdout and process.stderr itself,
// an eval file's console in the worker), each in its own run's output; a run's variables are gone in the next; a
// config that throws at load is the command line's startup error, and the runs after it still run.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { comparableReport, createEvalProject, ensureBuilt, type EvalProject, type RunResult } from '../helpers/eval-project.js'

const hermes = (city: string) => `<tool_call>\n${JSON.stringify({ name: 'get_weather', arguments: { city } })}\n</tool_call>`
const data = ['Paris', 'Rome', 'Oslo', 'Lima'].map((city, i) => ({ id: `s${i}`, messages: [{ role: 'user', content: `Weather in ${city}?` }], expected: [{ name: 'get_weather', arguments: { city } }] }))

const evalFile = `
import { describeEval } from 'vitest-tool-evals'
console.log('worker console: ' + (process.env.RUN_NAME ?? 'unnamed'))
describeEval('weather', { data: ${JSON.stringify(data)}, model: { id: 'inline', generate: async (s) => ({ text: s.id === 's0' ? 'no call' : ${JSON.stringify(hermes('CITY'))}.replace('CITY', s.expected[0].arguments.city) }) } })
`
// A reporter of the user's that writes to the process's streams itself, not through Vitest's logger.
const config = `
import { defineConfig } from 'vitest/config'
import ToolEvalsReporter from 'vitest-tool-evals/reporter'
const raw = { onTestRunEnd() { process.stdout.write('raw stdout: ' + (process.env.RUN_NAME ?? 'unnamed') + '\\n'); process.stderr.write('raw stderr: ' + (process.env.GATE ?? 'no gate') + '\\n') } }
export default defineConfig({
  test: {
    include: ['evals/*.eval.mjs'],
    reporters: ['default', raw, new ToolEvalsReporter({ thresholds: process.env.GATE ? { name_correct: Number(process.env.GATE) } : {}, outputFile: process.env.EVAL_REPORT, markdownFile: false })],
  },
})
`
const FAILING = { GATE: '0.9', RUN_NAME: 'failing' }
// A misspelt reporter option: the reporter throws when the config is loaded, before any run.
const brokenConfig = config.replace('thresholds:', 'tresholds:')

/**
 * A run's output lines in order, each stream apart, without start times and durations, the report's name and stack
 * frames (a startup error's stack names who called Vitest: the command line or the driver).
 */
const outputLines = (r: RunResult) =>
  [r.stdout, r.stderr].map((text) =>
    text
      .split('\n')
      .filter((l) => !/^\s*(Duration|Start at)\b/.test(l) && !/^\s+at /.test(l))
      .map((l) => l.replace(/\d+(\.\d+)?\s?m?s\b/g, '<time>').replace(/\w+\.json$/, '<report>')),
  )

describe('several vitest runs in one process (project.runs)', () => {
  let project: EvalProject
  let own: RunResult
  let ownBroken: RunResult
  let shared: RunResult[]
  const read = (file: string) => comparableReport(JSON.parse(readFileSync(join(project.dir, file), 'utf8')))

  beforeAll(async () => {
    ensureBuilt()
    project = createEvalProject({ 'vitest.config.mjs': config, 'broken.config.mjs': brokenConfig, 'evals/weather.eval.mjs': evalFile })
    own = await project.run(['run'], { ...FAILING, EVAL_REPORT: 'own.json' })
    ownBroken = await project.run(['run', '--config', 'broken.config.mjs'], { EVAL_REPORT: 'broken.json' })
    shared = await project.runs([
      { args: ['run'], env: { ...FAILING, EVAL_REPORT: 'shared.json' } },
      { args: ['run', '--config', 'broken.config.mjs'], env: { EVAL_REPORT: 'broken.json' } },
      { args: ['run', 'evals/weather'], env: { EVAL_REPORT: 'pass.json' } },
    ])
  })
  afterAll(() => project?.remove())

  it('a shared run gives what its own process gives: exit code, report, summary and raw lines', () => {
    expect(own.code, own.stdout + own.stderr).toBe(1)
    expect(shared[0]!.code).toBe(own.code)
    expect(read('shared.json')).toEqual(read('own.json'))
    expect(read('own.json')).toMatchObject({ pass: false })
    expect(outputLines(shared[0]!)).toEqual(outputLines(own))
    // What the summary holds, so the comparison is not of two empty outputs.
    expect(own.stdout).toContain('raw stdout: failing')
    expect(own.stdout).toContain('worker console: failing')
    expect(own.stderr).toContain('raw stderr: 0.9')
    expect(own.stdout + own.stderr).toMatch(/name_correct/)
    expect(own.stdout).toMatch(/Tests\s+4 passed/)
    expect(own.stdout).toContain('The run fails (1 reason)')
  })

  it('the next run starts clean: exit code reset, the last run\'s variables gone, its output apart', () => {
    const [first, , second] = shared as [RunResult, RunResult, RunResult]
    expect(second.code, second.stdout + second.stderr).toBe(0)
    expect(read('pass.json')).toMatchObject({ pass: true })
    expect(second.stdout).toContain('raw stdout: unnamed')
    expect(second.stdout).toContain('worker console: unnamed')
    expect(second.stderr).toContain('raw stderr: no gate')
    expect(second.stdout + second.stderr).not.toMatch(/failing|stderr: 0\.9/)
    expect(first.stdout + first.stderr).not.toMatch(/unnamed|no gate/)
  })

  it("a config that throws at load: the command line's startup error, its exit code, no report", () => {
    const broken = shared[1]!
    expect(ownBroken.code).toBe(1)
    expect(broken.code).toBe(ownBroken.code)
    expect(outputLines(broken)).toEqual(outputLines(ownBroken))
    expect(ownBroken.stderr).toContain('Startup Error')
    expect(ownBroken.stderr).toMatch(/tresholds/)
    expect(existsSync(join(project.dir, 'broken.json'))).toBe(false)
  })
})
