// The baseline gate fails closed, in real subprocesses: one replayed eval project of 200 samples runs once all
// right (the good baseline) and once all wrong (the head). Broken baselines derived from the good one (edited in the
// test: another dataset or suite, a renamed metric, values null, strings, negative or ±1e308, a samples file cut short
// or only its header, repeated lines, a partial, interrupted, all-errored or all-skipped run, a samples file outside
// the report's folder, missing, from another run or edited) must each make `tool-evals compare` exit non-zero with a
// reason that names the problem, never "no regression"; three of them through the reporter (TOOL_EVALS_BASELINE) too.
// Last, a report copied away and its run made again must not be compared with the new run's samples. The vitest
// runs but that last one share one process (project.runs): their subject is the reports and exit codes.
// `tool-evals compare` runs as a real process in the controls (its exit codes as a shell sees them); the broken
// baselines go through the same command in process (test/helpers/cli-run.ts), in the project's folder, as the
// subject there is the comparison's verdict and reason, not the process (25 spawns of about 0.3 CPU-s each).
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { copyFileSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEvalProject, ensureBuilt, type EvalProject, type RunResult } from '../helpers/eval-project.js'
import { runCommandIn } from '../helpers/cli-run.js'
import { compareCommand } from '../../src/cli/compare.js'

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url))
const N = 200
const SECRET = 'SECRET-LINE-do-not-print'
const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n'
const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }]
const data = jsonl(Array.from({ length: N }, (_, i) => ({ id: `s${i}`, messages: [{ role: 'user', content: `Weather in C${i}?` }], tools, expected: [{ name: 'get_weather', arguments: { city: `C${i}` } }] })))
const hermes = (name: string, i: number) => `<tool_call>\n${JSON.stringify({ name, arguments: { city: `C${i}` } })}\n</tool_call>`
const outputs = (name: string) => jsonl(Array.from({ length: N }, (_, i) => ({ id: `s${i}`, output: hermes(name, i) })))
/** All right, but the first 30 skipped by policy (as a provider's `maxPromptTokens` records them). */
const SKIPPED = 30
const partlySkipped = jsonl(Array.from({ length: N }, (_, i) => (i < SKIPPED ? { id: `s${i}`, skipped: 'prompt of 900 tokens is over maxPromptTokens (512)' } : { id: `s${i}`, output: hermes('get_weather', i) })))

const evalFile = `
import { describeEval, replay } from 'vitest-tool-evals'
describeEval('weather', { data: 'data/weather.jsonl', model: replay(process.env.EVAL_OUTPUTS) })
`
const config = `
import { defineConfig } from 'vitest/config'
import ToolEvalsReporter from 'vitest-tool-evals/reporter'
export default defineConfig({
  test: { include: ['evals/*.eval.mjs'], reporters: ['default', new ToolEvalsReporter({ outputFile: process.env.EVAL_REPORT, markdownFile: process.env.EVAL_MD ?? false, htmlFile: process.env.EVAL_HTML })] },
})
`

/** The built CLI as a real process. */
function cli(args: string[], cwd: string): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr })
    })
  })
}

/** `tool-evals compare` in this process, from the project's folder (test/helpers/cli-run.ts). */
const compare = (args: string[], cwd: string): Promise<RunResult> => runCommandIn(cwd, [compareCommand], ['compare', ...args])

type Report = Record<string, any>
interface Broken {
  /** Edit the report (parsed JSON). */
  report?: (r: Report) => void
  /** Edit the samples file's lines (header first). */
  lines?: (lines: string[]) => string[]
  /** Make report and samples file consistent again (header and report counts, hash): a run that was really like this. */
  consistent?: boolean
  /** Anything else, in the broken baseline's folder, after the files are written. */
  after?: (dir: string) => void
}

const mapSamples = (f: (l: Report) => void) => (lines: string[]) => [lines[0] as string, ...lines.slice(1).map((t) => {
  const l = JSON.parse(t)
  f(l)
  return JSON.stringify(l)
})]
const header = (f: (h: Report) => void) => (lines: string[]) => {
  const h = JSON.parse(lines[0] as string)
  f(h)
  return [JSON.stringify(h), ...lines.slice(1)]
}

/** The broken baselines: each with the reason its comparison must give. */
const BROKEN: [string, Broken, RegExp][] = [
  ['another dataset (no shared ids)', { lines: mapSamples((l) => (l.id = `d${l.id}`)), consistent: true }, /no sample is in both runs/],
  ['another suite', { lines: mapSamples((l) => (l.s = 'forecast')), consistent: true }, /no sample is in both runs/],
  ['a metric renamed', { lines: header((h) => (h.metrics[h.metrics.indexOf('name_correct')] = 'name_ok')), consistent: true }, /metric name_ok is in the baseline but not measured in this run/],
  ['values null', { lines: mapSamples((l) => (l.v = l.v.map(() => null))), consistent: true }, /report\.samples\.jsonl:2: field v: an evaluated sample with no metric value/],
  ['values strings', { lines: mapSamples((l) => (l.v = l.v.map(String))), consistent: true }, /report\.samples\.jsonl:2: field v\[0\] \(\w+\): .*got "1"/],
  ['negative values', { lines: mapSamples((l) => (l.v = l.v.map(() => -1))), consistent: true }, /report\.samples\.jsonl:2: field v\[0\].*got -1$/m],
  ['values 1e308', { lines: mapSamples((l) => (l.v = l.v.map(() => 1e308))), consistent: true }, /report\.samples\.jsonl:2: field v\[0\].*got 1e\+308/],
  ['values -1e308', { lines: mapSamples((l) => (l.v = l.v.map(() => -1e308))), consistent: true }, /report\.samples\.jsonl:2: field v\[0\].*got -1e\+308/],
  ['samples file cut at a line boundary', { lines: (ls) => ls.slice(0, 4) }, /3 sample line\(s\), but its header says 200: the file was cut short/],
  ['samples file with only its header', { lines: (ls) => ls.slice(0, 1) }, /0 sample line\(s\), but its header says 200/],
  ['header-only file in a consistent run of 0 samples', { lines: (ls) => ls.slice(0, 1), consistent: true }, /no sample is in both runs \(paired by suite and id; baseline 0, this run 200\)/],
  ['repeated ids (would fold as trials)', { lines: (ls) => [ls[0] as string, ...ls.slice(1).flatMap((l) => [l, l])], consistent: true }, /report\.samples\.jsonl:3: sample weather > s0 repeats line 2/],
  ['a partial run', { report: (r) => (r.partial = { reason: 'filter', selection: ['tests: s1'], planned: 200, ran: 200 }) }, /a partial run \("filter"\): a baseline must be a whole run/],
  ['an interrupted run', { report: (r) => (r.interrupted = true) }, /an interrupted run \("interrupted": true\)/],
  ['every sample errored', { lines: mapSamples((l) => ((l.e = 1), (l.v = l.v.map(() => 0)), delete l.f)), consistent: true }, /all 200 paired baseline samples errored/],
  ['every sample skipped', { lines: mapSamples((l) => ((l.k = 1), (l.v = []))), consistent: true }, /none of the 200 paired baseline samples was evaluated/],
  ['samplesFile an absolute path', { report: (r) => (r.samplesFile = '/etc/passwd') }, /samplesFile must be a file name in the report's folder, got "\/etc\/passwd"/],
  ['samplesFile outside the folder', { report: (r) => (r.samplesFile = '../../secret.txt') }, /samplesFile must be a file name in the report's folder/],
  ['samplesFile a link out of the folder', { report: (r) => (r.samplesFile = 'link.jsonl'), after: (dir) => symlinkSync(join(dir, '../../secret.txt'), join(dir, 'link.jsonl')) }, /its samples file "link\.jsonl" is a link to outside the report's folder/],
  ['samples file missing', { after: (dir) => rmSync(join(dir, 'report.samples.jsonl')) }, /report\.samples\.jsonl is missing/],
  ['samples file of another run', { after: (dir) => copyFileSync(join(dir, '../../head/report.samples.jsonl'), join(dir, 'report.samples.jsonl')) }, /belongs to another run \(run id "[0-9a-f-]{36}", the report's is "[0-9a-f-]{36}"\)/],
  ['samples file edited (one value)', { lines: (ls) => [ls[0] as string, (ls[1] as string).replace('"v":[1,', '"v":[0,'), ...ls.slice(2)] }, /was changed after the run wrote it/],
  ['written by an older version (v1, no run id)', { lines: header((h) => ((h.v = 1), delete h.runId, delete h.samples)), report: (r) => (delete r.runId, delete r.samplesHash) }, /no runId and samplesHash.*older vitest-tool-evals/],
  ['report counts other samples', { report: (r) => (r.samples = 199) }, /the report counts 199 samples, its samples file .* has 200/],
]

describe('a baseline that cannot be compared fails the gate (200 samples, all right → all wrong)', () => {
  let project: EvalProject
  let base: RunResult
  let head: RunResult
  const path = (...p: string[]) => join(project.dir, ...p)
  const read = (file: string) => JSON.parse(readFileSync(path(file), 'utf8'))
  const run = (outputsFile: string, report: string, baseline?: string, env: Record<string, string> = {}) =>
    project.run(['run'], { EVAL_OUTPUTS: outputsFile, EVAL_REPORT: report, ...(baseline ? { TOOL_EVALS_BASELINE: baseline } : {}), ...env })
  let again: Promise<RunResult> | undefined
  /**
   * head/report.json copied away, then its run made again (one run for two tests): a head that skips the baseline's
   * first 30 samples and is right on the rest, gated against the good baseline.
   */
  const rerun = () =>
    (again ??= (copyFileSync(path('head/report.json'), path('head/worse.json')), run('data/skipped.jsonl', 'head/report.json', 'base/report.json', { EVAL_MD: 'head/summary.md', EVAL_HTML: 'head/report.html' })))

  const brokenDir = (name: string) => `broken/${name.replace(/[^a-z0-9]+/gi, '-')}`
  /** Derive broken/<slug>/ from base/: the report and its samples file, edited. Returns the report's path. */
  const derive = (name: string, b: Broken): string => {
    const dir = path(brokenDir(name))
    mkdirSync(dir, { recursive: true })
    const report = read('base/report.json')
    let lines = readFileSync(path('base/report.samples.jsonl'), 'utf8').trimEnd().split('\n')
    if (b.lines) lines = b.lines(lines)
    if (b.consistent) {
      const h = JSON.parse(lines[0] as string)
      h.samples = lines.length - 1
      lines[0] = JSON.stringify(h)
      report.samples = lines.length - 1
    }
    const text = lines.join('\n') + '\n'
    if (b.consistent) report.samplesHash = `sha256:${createHash('sha256').update(text).digest('hex')}`
    b.report?.(report)
    writeFileSync(join(dir, 'report.json'), JSON.stringify(report))
    writeFileSync(join(dir, 'report.samples.jsonl'), text)
    b.after?.(dir)
    return `${brokenDir(name)}/report.json`
  }
  // The reporter's runs against three broken baselines (the head all right: only the baseline can fail the run).
  const GATED: [string, Broken, RegExp][] = [
    ['r another suite', BROKEN[1]![1], /baseline \S+ cannot be compared: no sample is in both runs/],
    ['r cut', BROKEN[8]![1], /baseline \S+ cannot be used: .*3 sample line\(s\), but its header says 200/],
    ['r link out', BROKEN[18]![1], /baseline \S+ cannot be used: .*is a link to outside the report's folder/],
  ]
  let gated: RunResult[]
  const runArgs = (outputsFile: string, report: string, baseline?: string) => ({
    args: ['run'],
    env: { EVAL_OUTPUTS: outputsFile, EVAL_REPORT: report, ...(baseline ? { TOOL_EVALS_BASELINE: baseline } : {}) },
  })

  beforeAll(async () => {
    ensureBuilt()
    project = createEvalProject({ 'vitest.config.mjs': config, 'evals/weather.eval.mjs': evalFile, 'data/weather.jsonl': data, 'data/right.jsonl': outputs('get_weather'), 'data/wrong.jsonl': outputs('get_time'), 'data/skipped.jsonl': partlySkipped, 'secret.txt': `${SECRET}\n` })
    // Five runs in one process (project.runs): their subject is the reports and exit codes, not the process. The
    // rerun below, made late (it writes over the head's report), is a process of its own.
    ;[base, head, ...gated] = await project.runs([
      runArgs('data/right.jsonl', 'base/report.json'),
      runArgs('data/wrong.jsonl', 'head/report.json'),
      ...GATED.map(([name, broken], i) => ({ ...runArgs('data/right.jsonl', `gated${i}/report.json`, `${brokenDir(name)}/report.json`), before: () => void derive(name, broken) })),
    ]) as [RunResult, RunResult, ...RunResult[]]
  })
  afterAll(() => project?.remove())

  it('the good baseline and head bind their samples files: run id in both, the file hashed in the report', () => {
    expect(base.code, base.stdout + base.stderr).toBe(0)
    expect(head.code, head.stdout).toBe(0) // no threshold and no baseline: wrong answers alone do not fail the run
    const report = read('base/report.json')
    const text = readFileSync(path('base/report.samples.jsonl'))
    expect(report.runId).toMatch(/^[0-9a-f-]{36}$/)
    expect(JSON.parse(text.toString().split('\n')[0] as string)).toMatchObject({ format: 'tool-evals-samples', v: 2, runId: report.runId, samples: N })
    expect(report.samplesHash).toBe(`sha256:${createHash('sha256').update(text).digest('hex')}`)
    expect(read('head/report.json').runId).not.toBe(report.runId)
  })

  it('controls: the good baseline against the head regresses; against itself, no regression', async () => {
    const r = await cli(['compare', 'base/report.json', 'head/report.json'], project.dir)
    expect(r.code, r.stderr).toBe(1)
    expect(r.stdout).toContain('FAIL (regressed)')
    expect(r.stdout).toMatch(/regressed +name_correct: 100\.0% → 0\.0%/)
    const same = await cli(['compare', 'base/report.json', 'base/report.json', '--format', 'md'], project.dir)
    expect(same.code, same.stderr).toBe(0)
    expect(same.stdout).toMatch(/^## Tool evals vs baseline: ✅ no regression/)
  })

  it.each(BROKEN)('%s: compare exits non-zero and says why', async (name, broken, reason) => {
    const file = derive(name, broken)
    const r = await compare([file, 'head/report.json'], project.dir)
    const out = r.stdout + r.stderr
    expect(r.code, out).toBe(1)
    expect(out).toMatch(reason)
    expect(out).not.toContain('no regression')
    expect(out).not.toContain(SECRET)
    expect(out).not.toMatch(/root:/)
  })

  it('the reporter fails the run with the reason too (TOOL_EVALS_BASELINE)', () => {
    expect(gated).toHaveLength(GATED.length)
    for (const [i, [, , reason]] of GATED.entries()) {
      // The head is all right here: only the broken baseline can fail the run.
      const r = gated[i] as RunResult
      expect(r.code, r.stdout).toBe(1)
      expect(r.stdout).toMatch(reason)
      expect(r.stdout + r.stderr).not.toContain(SECRET)
      expect(read(`gated${i}/report.json`).pass).toBe(false)
    }
  })

  it('a head that skips samples the baseline scored fails as not comparable, with the reason, in every view', async () => {
    const r = await rerun()
    const skippedIds = Array.from({ length: SKIPPED }, (_, i) => `weather > s${i}`).sort()
    const reason = `${SKIPPED} sample(s) the baseline scored were skipped in this run (by policy, e.g. maxPromptTokens), so they cannot be compared: ${skippedIds.slice(0, 5).join(', ')} and ${SKIPPED - 5} more`
    expect(r.code, r.stdout + r.stderr).toBe(1)
    const report = read('head/report.json')
    expect(report.metrics.name_correct).toBe(1) // every scored sample is right: only what was skipped can fail it
    expect(report.comparison).toMatchObject({ pass: false, incomparable: [reason], samples: { regressed: [], headSkipped: skippedIds, headErrored: [] } })
    expect(report.pass).toBe(false)
    expect(report.gate.reasons).toEqual([{ kind: 'baseline', message: `baseline base/report.json cannot be compared: ${reason}` }])
    expect(r.stdout).toContain(`✗ baseline base/report.json cannot be compared: ${SKIPPED} sample(s) the baseline scored were skipped in this run`)
    expect(r.stdout).toContain('tool-evals baseline comparison: FAIL (not comparable)')
    const md = readFileSync(path('head/summary.md'), 'utf8')
    expect(md).toContain('## Tool evals vs baseline: ❌ not comparable')
    expect(md).toContain(`Skipped in this run (not compared) samples (${SKIPPED})`)
    expect(md).not.toContain('no regression')
    expect(readFileSync(path('head/report.html'), 'utf8')).toContain(`cannot be compared: ${SKIPPED} sample(s) the baseline scored were skipped in this run`)
    // tool-evals compare on the same two reports: the same reason, exit 1, in text, Markdown and JSON.
    for (const format of ['text', 'md', 'json']) {
      const c = await compare(['base/report.json', 'head/report.json', '--format', format], project.dir)
      expect(c.code, c.stdout).toBe(1)
      expect(c.stderr).toContain(`tool-evals compare: not comparable: ${reason}`)
      expect(c.stdout).not.toContain('no regression')
      if (format === 'json') expect(JSON.parse(c.stdout)).toEqual(report.comparison)
    }
  })

  it('a report copied away, its run made again: compare refuses the new run\'s samples file', async () => {
    await rerun()
    expect(read('head/worse.json').metrics.name_correct).toBe(0)
    const r = await compare(['base/report.json', 'head/worse.json'], project.dir)
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/head\/worse\.json: its samples file head\/report\.samples\.jsonl belongs to another run/)
    expect(r.stdout).not.toContain('no regression')
  })
})
