// Pull-request gates in real `vitest run` subprocesses over replayed outputs: a baseline run writes its report and
// samples sidecar (pointed at a baseline that does not exist yet, as a first run in CI is: it skips the comparison);
// head runs compared with it (TOOL_EVALS_BASELINE) fail on a seeded drop, pass on as many flips in both directions,
// fail when a `mustPass` sample flips; `tool-evals compare` on the two reports agrees with the reporter. Four vitest
// runs in one process (their subject is the reports and exit codes) and two CLI processes (the Markdown verdict and a
// usage error, as a shell sees them); the three JSON comparisons checked against the reporter's run `tool-evals
// compare` in process, as their subject is the numbers, not the process.
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { binomialTailHalf } from '../helpers/binomial.js'
import { createEvalProject, ensureBuilt, type EvalProject, type RunResult } from '../helpers/eval-project.js'
import { runCommandIn } from '../helpers/cli-run.js'
import { compareCommand } from '../../src/cli/compare.js'

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url))
const N = 60
const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n'
const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }]
const city = (i: number) => `City${i}`
const data = jsonl(
  Array.from({ length: N }, (_, i) => ({
    id: `s${i}`,
    messages: [{ role: 'user', content: `Weather in ${city(i)}?` }],
    tools,
    expected: [{ name: 'get_weather', arguments: { city: city(i) } }],
    ...(i === 30 ? { mustPass: true } : {}),
  })),
)
const hermes = (name: string, args: unknown) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`
/** Replayed outputs: samples in `wrong` call the wrong tool. */
const outputs = (wrong: Iterable<number>) => {
  const bad = new Set(wrong)
  return jsonl(Array.from({ length: N }, (_, i) => ({ id: `s${i}`, output: bad.has(i) ? hermes('get_time', { city: city(i) }) : hermes('get_weather', { city: city(i) }) })))
}
const range = (a: number, b: number) => Array.from({ length: b - a }, (_, i) => a + i)

const evalFile = `
import { describeEval, replay } from 'vitest-tool-evals'
describeEval('weather', { data: 'data/weather.jsonl', model: replay(process.env.EVAL_OUTPUTS) })
`
const config = `
import { defineConfig } from 'vitest/config'
import ToolEvalsReporter from 'vitest-tool-evals/reporter'
export default defineConfig({
  test: {
    include: ['evals/*.eval.mjs'],
    reporters: ['default', new ToolEvalsReporter({ outputFile: process.env.EVAL_REPORT, markdownFile: process.env.EVAL_MD ?? false, regression: { alpha: 0.05, minDrop: 0.02, metrics: ['name_correct', 'args_exact_match'] } })],
  },
})
`

function cli(args: string[], cwd: string): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr })
    })
  })
}

/** `tool-evals compare` in this process, from the project's folder (test/helpers/cli-run.ts). */
const compare = (args: string[], cwd: string): Promise<RunResult> => runCommandIn(cwd, [compareCommand], ['compare', ...args])

describe('baseline comparison in eval projects run by vitest', () => {
  let project: EvalProject
  let base: RunResult
  let drop: RunResult
  let noise: RunResult
  let mustPass: RunResult
  const read = (file: string) => JSON.parse(readFileSync(join(project.dir, file), 'utf8'))
  const headRun = (name: string, wrong: number[]) => {
    project.write(`data/${name}.outputs.jsonl`, outputs(wrong))
    return { args: ['run'], env: { EVAL_OUTPUTS: `data/${name}.outputs.jsonl`, EVAL_REPORT: `${name}/report.json`, EVAL_MD: `${name}/summary.md`, TOOL_EVALS_BASELINE: 'base/report.json' } }
  }

  beforeAll(async () => {
    ensureBuilt()
    project = createEvalProject({ 'vitest.config.mjs': config, 'evals/weather.eval.mjs': evalFile, 'data/weather.jsonl': data, 'data/base.outputs.jsonl': outputs(range(0, 10)) })
    // The baseline run is also the missing-baseline case: nothing is at TOOL_EVALS_BASELINE yet.
    // Seeded drop: 10 more samples wrong. Noise: 5 fixed, 5 broken. mustPass: s30 alone broken. The subject is the
    // reports and exit codes, not the process: the four runs share one (project.runs).
    ;[base, drop, noise, mustPass] = (await project.runs([
      { args: ['run'], env: { EVAL_OUTPUTS: 'data/base.outputs.jsonl', EVAL_REPORT: 'base/report.json', TOOL_EVALS_BASELINE: 'nowhere/report.json' } },
      headRun('drop', range(0, 20)),
      headRun('noise', [...range(5, 10), ...range(40, 45)]),
      headRun('mustpass', [...range(0, 10), 30]),
    ])) as [RunResult, RunResult, RunResult, RunResult]
  })
  afterAll(() => project?.remove())

  it('the baseline run writes its samples sidecar and run metadata', () => {
    expect(base.code, base.stdout + base.stderr).toBe(0)
    const report = read('base/report.json')
    expect(report.samplesFile).toBe('report.samples.jsonl')
    const lines = readFileSync(join(project.dir, 'base/report.samples.jsonl'), 'utf8').trim().split('\n')
    expect(lines).toHaveLength(N + 1)
    const s0 = JSON.parse(lines.find((l) => l.includes('"id":"s0"')) as string)
    expect(s0.f).toEqual(['wrong_name'])
    expect(s0.h).toMatch(/^[0-9a-f]{16}$/)
    expect(JSON.parse(lines.find((l) => l.includes('"id":"s30"')) as string).mp).toBe(1)
    expect(report.run.version).toBe(JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version)
    expect(report.run.suites.weather.provider).toMatch(/replay/)
    expect(Object.keys(report.run.suites.weather.files)).toContain('data/weather.jsonl')
    expect(report.run.suites.weather.tools).toMatch(/^[0-9a-f]{16}$/)
    expect(Date.now() - Date.parse(report.run.time)).toBeLessThan(10 * 60_000)
  })

  it('a seeded drop is regressed, with the exact McNemar p-value, and fails the run', () => {
    expect(drop.code).toBe(1)
    const c = read('drop/report.json').comparison
    expect(c.metrics.name_correct).toMatchObject({ verdict: 'regressed', discordant: { regressed: 10, improved: 0 }, base: 50 / 60, head: 40 / 60 })
    expect(c.metrics.name_correct.pValue).toBeCloseTo(binomialTailHalf(10, 10), 15)
    expect(c.samples.regressed).toEqual(range(10, 20).map((i) => `weather > s${i}`).sort())
    expect(c.pass).toBe(false)
    expect(read('drop/report.json').pass).toBe(false)
    expect(drop.stdout).toContain('regressed against the baseline: name_correct')
    // The recording changed: a warning, not the reason for the verdict.
    expect(c.warnings.join('\n')).toMatch(/drop\.outputs\.jsonl|input files differ/)
    const md = readFileSync(join(project.dir, 'drop/summary.md'), 'utf8')
    expect(md.split('\n')[0]).toBe('## Tool evals vs baseline: ❌ regressed')
    expect(md).toContain('weather \\> s10')
  })

  it('the same number of flips in both directions passes (unchanged or inconclusive)', () => {
    expect(noise.code, noise.stdout).toBe(0)
    const c = read('noise/report.json').comparison
    expect(['unchanged', 'inconclusive']).toContain(c.metrics.name_correct.verdict)
    expect(c.metrics.name_correct.discordant).toEqual({ regressed: 5, improved: 5 })
    expect(c.samples.improved).toHaveLength(5)
    expect(c.pass).toBe(true)
  })

  it('a mustPass sample that flips fails the run whatever the statistics', () => {
    expect(mustPass.code).toBe(1)
    const c = read('mustpass/report.json').comparison
    expect(c.metrics.name_correct.verdict).toBe('unchanged')
    expect(c.mustPassFailed).toEqual(['weather > s30'])
    expect(mustPass.stdout).toContain('mustPass samples now wrong: weather > s30')
  })

  it('tool-evals compare agrees with the reporter and exits 1 on a regression', async () => {
    for (const [name, code] of [['drop', 1], ['noise', 0], ['mustpass', 1]] as const) {
      const r = await compare(['base/report.json', `${name}/report.json`, '--format', 'json', '--metric', 'name_correct', '--metric', 'args_exact_match'], project.dir)
      expect(r.code, r.stderr).toBe(code)
      const fromCli = JSON.parse(r.stdout)
      const fromReporter = read(`${name}/report.json`).comparison
      expect(fromCli.metrics).toEqual(fromReporter.metrics)
      expect(fromCli.suites).toEqual(fromReporter.suites)
      expect(fromCli.samples).toEqual(fromReporter.samples)
      expect(fromCli.pass).toBe(fromReporter.pass)
    }
    const md = await cli(['compare', 'base/report.json', 'drop/report.json', '--format', 'md'], project.dir)
    expect(md.code).toBe(1)
    expect(md.stdout).toMatch(/^## Tool evals vs baseline: ❌ regressed/)
    expect(md.stdout).toMatch(/Baseline: base\/report\.json · [0-9a-f]{12}|Baseline: base\/report\.json · unknown commit/)
  })

  it('a missing baseline skips the comparison (the baseline run); a bad CLI argument is a usage error', async () => {
    expect(base.code).toBe(0)
    expect(base.stdout).toContain('no baseline report at')
    expect(read('base/report.json').comparison).toBeUndefined()
    expect(read('base/report.json').gate).toEqual({ pass: true, reasons: [] })
    const bad = await cli(['compare', 'base/report.json', 'drop/report.json', '--alpha', 'x'], project.dir)
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--alpha must be a number')
  })
})
