// The `toolEvals()` plugin through real `vitest` subprocesses: the gate holds whatever `--reporter` the command line
// names, the setup entry (matchers) is registered without `setupFiles`, and in watch mode an edit of a dataset or a
// recording reruns the eval that read it. Four `vitest run`s (in one process: project.runs) and one watch, all in
// one project (the reporter-option config is a second config file there, picked with --config).
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEvalProject, ensureBuilt, type EvalProject, type RunResult } from '../helpers/eval-project.js'

const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n'
const gw = (city: string) => ({ name: 'get_weather', arguments: { city } })
const hermes = (city: string) => `<tool_call>\n${JSON.stringify(gw(city))}\n</tool_call>`
const sample = (id: string, city: string) => ({ id, messages: [{ role: 'user', content: `Weather in ${city}?` }], expected: [gw(city)] })

const pluginConfig = `
import { defineConfig } from 'vitest/config'
import { toolEvals } from 'vitest-tool-evals/plugin'
export default defineConfig({
  plugins: [toolEvals({ thresholds: { args_exact_match: 0.9 }, outputFile: 'report.json', markdownFile: false })],
  test: { include: ['evals/*.eval.mjs', 'evals/*.test.mjs'] },
})
`

// The same gate through the reporter option: `--reporter` on the command line replaces it (Vitest's behaviour).
const reporterConfig = `
import { defineConfig } from 'vitest/config'
import ToolEvalsReporter from 'vitest-tool-evals/reporter'
export default defineConfig({
  test: {
    include: ['evals/*.eval.mjs', 'evals/*.test.mjs'],
    // One worker thread for both files: this config's runs are read for their exit code and gate alone (the plugin's
    // config keeps Vitest's default, for the matchers its setup entry gives a file that does not import the package).
    pool: 'threads',
    isolate: false,
    setupFiles: ['vitest-tool-evals/setup'],
    reporters: ['default', new ToolEvalsReporter({ thresholds: { args_exact_match: 0.9 }, outputFile: 'reporter-report.json', markdownFile: false })],
  },
})
`

const weatherEval = `
import { describeEval, replay } from 'vitest-tool-evals'
describeEval('weather', { data: 'data/weather.jsonl', model: replay('data/weather.outputs.jsonl') })
`

// No import of the package and no setupFiles: the plugin's setup entry provides the matcher.
const plainTest = `
import { expect, test } from 'vitest'
test('matchers without setupFiles', () => {
  expect(${JSON.stringify(hermes('Paris'))}).toCallTool('get_weather', { city: 'Paris' })
})
`

const data = jsonl([sample('w1', 'Paris'), sample('w2', 'Rome')])
const rightOutputs = jsonl([
  { id: 'w1', output: hermes('Paris') },
  { id: 'w2', output: hermes('Rome') },
])
// w2 answers the wrong city: args_exact_match 0.5 < 0.9.
const wrongOutputs = jsonl([
  { id: 'w1', output: hermes('Paris') },
  { id: 'w2', output: hermes('Oslo') },
])

let project: EvalProject
const report = (file = 'report.json') => JSON.parse(readFileSync(join(project.dir, file), 'utf8'))
/** The four `vitest run`s (one process: their subject is the exit code and what each writes), and what they wrote. */
let junitRun: RunResult, withReporter: RunResult, reporterJunit: RunResult, passing: RunResult
let junitReport: any, junitXml: string, passingReport: any

beforeAll(async () => {
  ensureBuilt()
  project = createEvalProject({
    'vitest.config.mjs': pluginConfig,
    'reporter.config.mjs': reporterConfig,
    'evals/weather.eval.mjs': weatherEval,
    'evals/plain.test.mjs': plainTest,
    'data/weather.jsonl': data,
    'data/weather.outputs.jsonl': wrongOutputs,
  })
  ;[junitRun, withReporter, reporterJunit, passing] = (await project.runs([
    {
      args: ['run', '--reporter=junit', '--outputFile.junit=junit.xml'],
      after: () => {
        junitReport = report()
        junitXml = readFileSync(join(project.dir, 'junit.xml'), 'utf8')
      },
    },
    { args: ['run', '--config', 'reporter.config.mjs'] },
    { args: ['run', '--config', 'reporter.config.mjs', '--reporter=junit'] },
    // The thresholds met: the recording answers right for this run, then wrong again for the watch test.
    {
      args: ['run', '--reporter=dot'],
      before: () => project.write('data/weather.outputs.jsonl', rightOutputs),
      after: () => {
        passingReport = report()
        project.write('data/weather.outputs.jsonl', wrongOutputs)
      },
    },
  ])) as [RunResult, RunResult, RunResult, RunResult]
})
afterAll(() => project?.remove())

describe('toolEvals() plugin', () => {
  it('--reporter=junit keeps the gate: a run under its thresholds exits non-zero', () => {
    const result = junitRun
    expect(result.code).toBe(1)
    expect(junitReport).toMatchObject({ pass: false, thresholdsPass: false, testsPass: true })
    expect(junitXml).toContain('<testsuites')
    // The setup entry came with the plugin: the plain test's matcher passed.
    expect(junitXml).toContain('matchers without setupFiles')
    // The gate's verdict reaches JUnit as a real test case, run after the evals (JUnit alone would say green).
    const junit = junitXml
    expect(junit).toMatch(/<testsuites [^>]*failures="1"/)
    expect(junit).toMatch(/<testcase classname="[^"]*gate-test\.js" name="tool-evals gate"/)
    expect(junit).toContain('<failure message="the run fails its gate: args_exact_match: 0.500 &lt; required 0.900"')
    expect(junit.match(/<failure/g)).toHaveLength(1)
  })

  it('the same config as a reporter option loses its gate to --reporter=junit (why the plugin exists)', () => {
    expect(withReporter.code).toBe(1)
    expect(withReporter.stdout).toContain('args_exact_match: 0.500 < required 0.900')
    expect(reporterJunit.code).toBe(0)
  })

  it('passes when the thresholds are met, whatever the reporters', () => {
    const result = passing
    expect(result.code).toBe(0)
    expect(passingReport).toMatchObject({ pass: true, samples: 2 })
  })

  it('watch mode: editing the recording, then the dataset, reruns the eval that reads them', async () => {
    project.write('data/weather.outputs.jsonl', wrongOutputs)
    const live = project.start(['watch', '--reporter=dot'])
    const written = /tool-evals: JSON report written to/g
    const reruns = () => (live.output().match(written) ?? []).length
    try {
      await live.waitFor('tool-evals: JSON report written to', 45_000)
      // Give the file watcher a moment to settle after the first run.
      await new Promise((r) => setTimeout(r, 500))
      expect(report().metrics.args_exact_match).toBe(0.5)

      // The recording: w2 now answers right.
      writeFileSync(join(project.dir, 'data/weather.outputs.jsonl'), rightOutputs)
      await waitUntil(() => reruns() >= 2, 30_000, live.output)
      // Only the eval file reran (not the plain test): a partial run, reported beside the whole one.
      const partial = report('report.partial.json')
      expect(partial.partial).toMatchObject({ reason: 'filter', selection: ['test files: 1 of 2'] })
      expect(partial.metrics.args_exact_match).toBe(1)

      // The dataset: a third sample.
      writeFileSync(join(project.dir, 'data/weather.jsonl'), data + jsonl([sample('w3', 'Lima')]))
      await waitUntil(() => reruns() >= 3, 30_000, live.output)
      expect(report('report.partial.json').samples).toBe(3)
    } finally {
      live.child.kill('SIGTERM')
      await live.done
    }
  })
})

async function waitUntil(ok: () => boolean, timeoutMs: number, output: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out; output so far:\n${output()}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}
