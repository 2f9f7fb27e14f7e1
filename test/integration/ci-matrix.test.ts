// The gate in CI, through real `vitest run` subprocesses of one eval project. Each outcome (a pass, a failing
// threshold, a regression against a baseline, an errored sample, a crashed worker) runs four times:
//   A.  GitHub Actions' environment: default + github-actions + junit (file) + json (file) + blob;
//   B.  a plain environment: junit on stdout, alone (its XML must stay parseable);
//   MA. `--merge-reports` of A's blob, plain: default + github-actions + junit (file) + json (file);
//   MB. `--merge-reports` of A's blob under GitHub Actions: github-actions alone + junit (file) + json (file).
// Every run must end with no unhandled error of ours, the right exit code, the tool-evals summary, its report saying
// pass or fail with the right reasons (never "interrupted"), Vitest's documents well formed and counting the failure
// (the errored sample's test, or the gate's own test case `tool-evals gate`, which the plugin runs after every eval
// file), and under GitHub Actions one `::error` annotation per reason and the step summary.
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEvalProject, ensureBuilt, type EvalProject, type RunResult } from '../helpers/eval-project.js'

const gw = (city: string) => ({ name: 'get_weather', arguments: { city } })
const CITIES = ['Paris', 'Rome', 'Oslo', 'Lima', 'Quito', 'Cairo', 'Delhi', 'Seoul', 'Tokyo', 'Accra', 'Dakar', 'Hanoi']
const samples = CITIES.map((city, i) => ({ id: `s${String(i + 1).padStart(2, '0')}`, messages: [{ role: 'user', content: `Weather in ${city}?` }], expected: [gw(city)] }))

const config = `
import { defineConfig } from 'vitest/config'
import { toolEvals } from 'vitest-tool-evals/plugin'
const env = process.env
export default defineConfig({
  plugins: [toolEvals({
    thresholds: { args_exact_match: Number(env.MIN_ARGS ?? '0.5') },
    outputFile: env.REPORT,
    regression: { alpha: 0.05, minDrop: 0.02, metrics: ['args_exact_match'] },
  })],
  test: { include: env.CRASH ? ['evals/*.eval.mjs', 'crash/*.eval.mjs'] : ['evals/*.eval.mjs'] },
})
`

// WRONG=n: the first n samples get a wrong city; ERRORED: the first sample's provider throws.
const weatherEval = `
import { describeEval } from 'vitest-tool-evals'
const wrong = Number(process.env.WRONG ?? '0')
const cities = ${JSON.stringify(CITIES)}
describeEval('weather', {
  data: ${JSON.stringify(samples)},
  model: {
    id: 'inline',
    async generate(s) {
      const i = Number(s.id.slice(1)) - 1
      if (process.env.ERRORED && i === 0) throw new Error('backend down')
      const city = i < wrong ? 'Nowhere' : cities[i]
      return { text: '<tool_call>' + JSON.stringify({ name: 'get_weather', arguments: { city } }) + '</tool_call>' }
    },
  },
})
`

// A worker that dies outright (as one does when a dataset exhausts the heap).
const dyingEval = `
import { describeEval } from 'vitest-tool-evals'
process.kill(process.pid, 'SIGKILL')
describeEval('dying', { data: [], model: { id: 'x', async generate() { return { text: '' } } } })
`

type Outcome = 'pass' | 'threshold' | 'regression' | 'errored' | 'crash'
const OUTCOMES: Outcome[] = ['pass', 'threshold', 'regression', 'errored', 'crash']

/** How each outcome is made, and the reasons its report must give (exactly these kinds, in this order). */
const PLAN: Record<Outcome, { env: Record<string, string>; reasons: string[] }> = {
  pass: { env: { WRONG: '2' }, reasons: [] },
  threshold: { env: { WRONG: '2', MIN_ARGS: '0.9' }, reasons: ['threshold'] },
  regression: { env: { WRONG: '12', MIN_ARGS: '0', TOOL_EVALS_BASELINE: 'out/pass-A/report.json' }, reasons: ['regression'] },
  errored: { env: { WRONG: '2', ERRORED: '1' }, reasons: ['tests_failed'] },
  crash: { env: { WRONG: '2', CRASH: '1' }, reasons: ['run_error', 'file_unfinished'] },
}

type Kind = 'A' | 'B' | 'MA' | 'MB'
const KINDS: Kind[] = ['A', 'B', 'MA', 'MB']
const GITHUB: Record<Kind, boolean> = { A: true, B: false, MA: false, MB: true }

let project: EvalProject
const runs = new Map<string, RunResult>()
const read = (path: string) => readFileSync(join(project.dir, path), 'utf8')

function githubEnv(name: string): Record<string, string> {
  const dir = join(project.dir, 'gh', name)
  mkdirSync(join(dir, 'tmp'), { recursive: true })
  return {
    GITHUB_ACTIONS: 'true',
    GITHUB_STEP_SUMMARY: join(dir, 'step-summary.md'),
    GITHUB_OUTPUT: join(dir, 'output'),
    GITHUB_WORKSPACE: project.dir,
    RUNNER_TEMP: join(dir, 'tmp'),
    CI: 'true',
  }
}

function args(outcome: Outcome, kind: Kind): string[] {
  const out = `out/${outcome}-${kind}`
  const files = [`--outputFile.junit=${out}/junit.xml`, `--outputFile.json=${out}/vitest.json`]
  const blob = `--outputFile.blob=blobs/${outcome}/blob.json`
  if (kind === 'A') return ['run', '--reporter=default', '--reporter=github-actions', '--reporter=junit', '--reporter=json', '--reporter=blob', ...files, blob]
  // Alone: Vitest's json and blob reporters print a line on stdout even when they write a file.
  if (kind === 'B') return ['run', '--reporter=junit']
  if (kind === 'MA') return ['run', `--merge-reports=blobs/${outcome}`, '--reporter=default', '--reporter=github-actions', '--reporter=junit', '--reporter=json', ...files]
  return ['run', `--merge-reports=blobs/${outcome}`, '--reporter=github-actions', '--reporter=junit', '--reporter=json', ...files]
}

async function run(outcome: Outcome, kind: Kind): Promise<void> {
  const name = `${outcome}-${kind}`
  const env = { ...PLAN[outcome].env, REPORT: `out/${name}/report.json`, ...(GITHUB[kind] ? githubEnv(name) : {}) }
  runs.set(name, await project.run(args(outcome, kind), env))
}

beforeAll(async () => {
  ensureBuilt()
  project = createEvalProject({ 'vitest.config.mjs': config, 'evals/weather.eval.mjs': weatherEval, 'crash/dying.eval.mjs': dyingEval })
  // The pass run is the regression's baseline: it goes first; every other run is independent of the rest.
  await run('pass', 'A')
  await Promise.all(
    OUTCOMES.map(async (o) => {
      if (o !== 'pass') await run(o, 'A')
      await Promise.all([run(o, 'B'), run(o, 'MA'), run(o, 'MB')])
    }),
  )
}, 300_000)
afterAll(() => project?.remove())

/** The failed test cases Vitest's JUnit document counts, and its test count. */
function junitCounts(xml: string): { tests: number; failures: number } {
  const m = /<testsuites [^>]*tests="(\d+)" failures="(\d+)"/.exec(xml)
  if (!m) throw new Error(`not a JUnit document:\n${xml.slice(0, 400)}`)
  return { tests: Number(m[1]), failures: Number(m[2]) }
}

/**
 * Failed tests each outcome has in Vitest's own results: the errored sample's, or the gate's own test case, which
 * fails for what tests do not show (a threshold, a regression, a file that did not finish).
 */
const FAILED_TESTS: Record<Outcome, number> = { pass: 0, threshold: 1, regression: 1, errored: 1, crash: 1 }
const GATE_CASE_FAILS: Record<Outcome, boolean> = { pass: false, threshold: true, regression: true, errored: false, crash: true }

describe.each(OUTCOMES)('%s', (outcome) => {
  const plan = PLAN[outcome]
  const failing = plan.reasons.length > 0

  describe.each(KINDS)('run %s', (kind) => {
    const name = `${outcome}-${kind}`
    const result = () => runs.get(name) as RunResult

    it('exit code, no unhandled error of ours, the tool-evals summary', () => {
      const r = result()
      const all = r.stdout + r.stderr
      expect(r.code, all).toBe(failing ? 1 : 0)
      expect(all).not.toContain('Task instance was not found')
      expect(all).not.toContain('Unhandled Reporter Error')
      // Vitest's own unhandled error for the dead worker is the crash outcome's, and only its.
      if (outcome !== 'crash') expect(all).not.toMatch(/Unhandled (Error|Rejection)/)
      expect(all).toContain(' Tool evals ')
      expect(all).toContain(failing ? `The run fails (${plan.reasons.length} reason` : 'the run passes')
    })

    it('the tool-evals report: pass or fail with the right reasons, never interrupted', () => {
      const report = JSON.parse(read(`out/${name}/report.json`))
      expect(report.pass).toBe(!failing)
      expect(report.interrupted).toBeUndefined()
      expect(report.partial).toBeUndefined()
      expect(report.gate.reasons.map((x: { kind: string }) => x.kind)).toEqual(plan.reasons)
    })

    it("Vitest's machine-readable documents are well formed and count the failed tests", () => {
      const r = result()
      if (kind === 'B') {
        const xml = r.stdout.trim()
        expect(xml.startsWith('<?xml')).toBe(true)
        expect(xml.endsWith('</testsuites>')).toBe(true)
        expect(junitCounts(xml).failures).toBe(FAILED_TESTS[outcome])
        expect(r.stderr).toContain('Tool evals')
      } else {
        expect(junitCounts(read(`out/${name}/junit.xml`)).failures).toBe(FAILED_TESTS[outcome])
      }
      // The gate's own test case is in every document, failed exactly when the gate fails for more than tests.
      const xml = kind === 'B' ? r.stdout : read(`out/${name}/junit.xml`)
      const gateCase = /<testcase [^>]*name="tool-evals gate"[^>]*>([\s\S]*?)<\/testcase>/.exec(xml)
      expect(gateCase, xml).not.toBeNull()
      expect(gateCase?.[1]).toContain(GATE_CASE_FAILS[outcome] ? '<failure message="the run fails its gate: ' : '')
      if (!GATE_CASE_FAILS[outcome]) expect(gateCase?.[1]).not.toContain('<failure')
      // It names what fails the run beyond its tests (Vitest's own errors reach the report only at the run's end).
      const reasons = JSON.parse(read(`out/${name}/report.json`)).gate.reasons as { kind: string; message: string }[]
      for (const reason of reasons.filter((x) => x.kind !== 'tests_failed' && x.kind !== 'run_error')) {
        expect(gateCase?.[1]).toContain(reason.message.split(':')[0])
      }
      if (kind === 'B') return
      const json = JSON.parse(read(`out/${name}/vitest.json`))
      expect(json.numFailedTests).toBe(FAILED_TESTS[outcome])
      expect(json.success).toBe(FAILED_TESTS[outcome] === 0)
    })

    if (!GITHUB[kind]) return
    it('under GitHub Actions: one ::error per reason and the step summary naming each', () => {
      const r = result()
      const reasons = JSON.parse(read(`out/${name}/report.json`)).gate.reasons as { message: string }[]
      const errors = r.stdout.split('\n').filter((l) => l.startsWith('::error title=tool-evals'))
      expect(errors).toHaveLength(plan.reasons.length)
      const summary = read(`gh/${name}/step-summary.md`)
      expect(summary).toContain(failing ? '## Tool evals ❌' : '## Tool evals ✅')
      for (const [i, reason] of reasons.entries()) {
        expect(errors[i]).toContain(reason.message.split(':')[0])
        expect(summary.replace(/\\/g, '')).toContain(reason.message.split(':')[0]) // Markdown escapes taken off
      }
    })
  })
})
