// Tool-call snapshots through real `vitest` subprocesses over replayed outputs: CI (the helper sets CI=true) never
// writes, `-u` writes one readable line per sample (normalised, volatile values masked), a changed sample is reported
// with its diff in 'report' mode and passes, fails in 'fail' mode, `--update=new` only adds, obsolete entries are
// listed and `-u` removes them; the matcher goes through Vitest's own .snap files. Six runs in one process (their
// subject is the files written and the reports, not the process) over one project whose eval file holds both suites
// (the matcher's on data of its own; one file, so one worker per run), each run the subject of its test and read for
// the matcher too: where one suite fails, Vitest's list of failed tests names it.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEvalProject, ensureBuilt, type EvalProject, type RunResult } from '../helpers/eval-project.js'

const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n'
const user = (content: string) => [{ role: 'user', content }]
const gw = (city: string) => ({ name: 'get_weather', arguments: { city } })
const sample = (id: string, city: string) => ({ id, messages: user(`Weather in ${city}?`), expected: [gw(city)] })
const call = (id: string, name: string, args: unknown) => ({ id, type: 'function', function: { name, arguments: JSON.stringify(args) } })

const config = `
import { defineConfig } from 'vitest/config'
import ToolEvalsReporter from 'vitest-tool-evals/reporter'
export default defineConfig({
  test: {
    include: ['evals/**/*.eval.mjs'],
    testTimeout: 60000,
    reporters: ['default', new ToolEvalsReporter({ outputFile: 'report.json', markdownFile: 'summary.md' })],
  },
})
`

const weatherEval = `
import { describeEval, replay } from 'vitest-tool-evals'
import { expect } from 'vitest'
const ignore = ['arguments.request_id']
describeEval('weather', {
  data: 'data/weather.jsonl',
  model: replay('data/outputs.jsonl'),
  snapshot: process.env.SNAP_FAIL ? { mode: 'fail', ignore } : { ignore },
})
describeEval('matched', {
  data: 'data/matched.jsonl',
  model: replay('data/matched-outputs.jsonl'),
  assert: (result) => expect(result).toMatchToolCallsSnapshot({ ignore: ['arguments.request_id'] }),
})
`

// w1: a volatile request id; w2: one call; w3: two parallel calls, numbers with float noise.
const outputs = (over: { w1Request?: string; w2City?: string; w3Reversed?: boolean } = {}) => {
  const w3 = [call('c1', 'get_weather', { city: 'Oslo', days: 0.1 + 0.2 }), call('c2', 'get_time', { tz: 'CET' })]
  return jsonl([
    { id: 'w1', tool_calls: [call('x', 'get_weather', { request_id: over.w1Request ?? 'r-1', city: 'Paris' })] },
    { id: 'w2', tool_calls: [call('y', 'get_weather', { city: over.w2City ?? 'Rome' })] },
    { id: 'w3', tool_calls: over.w3Reversed ? [...w3].reverse() : w3 },
    { id: 'w5', tool_calls: [call('z', 'get_weather', { city: 'Lima' })] },
  ])
}

const SNAP = 'evals/weather.eval.weather.calls.jsonl'
const MATCHER_SNAP = 'evals/__snapshots__/weather.eval.mjs.snap'
/** The tests a run failed, from Vitest's list of them ("FAIL  file > suite > test"). */
const failed = (run: RunResult) => [...(run.stdout + run.stderr).matchAll(/FAIL\s+evals\/weather\.eval\.mjs > (.+)$/gm)].map((m) => m[1] as string).sort()
const matcherOutputs = (changed = false) => outputs(changed ? { w1Request: 'other', w2City: 'Milan' } : {})

describe('tool-call snapshots (real vitest runs)', () => {
  let project: EvalProject
  const file = (path: string) => (existsSync(join(project.dir, path)) ? readFileSync(join(project.dir, path), 'utf8') : undefined)
  /** A run and what it left on disk, read once it ended (the next run overwrites the report). */
  interface Seen {
    run: RunResult
    report: any
    snapExists: boolean
    snap: string
    md?: string
    matcherSnap?: string
  }
  const seen: Record<string, Seen> = {}
  const look = (name: string) => (run: RunResult) => {
    seen[name] = { run, report: JSON.parse(file('report.json') as string), snapExists: existsSync(join(project.dir, SNAP)), snap: file(SNAP) ?? '', md: file('summary.md'), matcherSnap: file(MATCHER_SNAP) }
  }
  let snapBeforeReport: string | undefined
  // The matcher's observations in the runs of the weather tests.
  const matcher: { missing?: RunResult; written?: RunResult; snap?: string; unchanged?: RunResult; changed?: RunResult } = {}

  // The six runs share one process (project.runs): their subject is what each writes and reports, and the exit code.
  beforeAll(async () => {
    ensureBuilt()
    project = createEvalProject({
      'vitest.config.mjs': config,
      'evals/weather.eval.mjs': weatherEval,
      'data/weather.jsonl': jsonl([sample('w1', 'Paris'), sample('w2', 'Rome'), sample('w3', 'Oslo')]),
      'data/outputs.jsonl': outputs(),
      // The matcher's own data and outputs: the weather tests change theirs between runs.
      'data/matched.jsonl': jsonl([sample('w1', 'Paris'), sample('w2', 'Rome')]),
      'data/matched-outputs.jsonl': matcherOutputs(),
    })
    await project.runs([
      { args: ['run'], after: look('ci') },
      { args: ['run', '-u'], after: look('written') },
      {
        args: ['run'],
        before: () => {
          project.write('data/outputs.jsonl', outputs({ w1Request: 'r-999', w2City: 'Milan', w3Reversed: true }))
          snapBeforeReport = file(SNAP)
        },
        after: look('report'),
      },
      // The matcher's outputs change too (its w2 fails), then are put back for the runs after.
      {
        args: ['run'],
        env: { SNAP_FAIL: '1' },
        before: () => project.write('data/matched-outputs.jsonl', matcherOutputs(true)),
        after: (run) => {
          look('fail')(run)
          project.write('data/matched-outputs.jsonl', matcherOutputs())
        },
      },
      {
        args: ['run', '--update=new'],
        before: () => project.write('data/weather.jsonl', jsonl([sample('w2', 'Rome'), sample('w3', 'Oslo'), sample('w5', 'Lima')])),
        after: look('added'),
      },
      { args: ['run', '-u'], after: look('updated') },
    ])
  })
  afterAll(() => project?.remove())

  it('CI writes nothing, reports every sample as new and fails none of them', () => {
    const { run, report, snapExists } = seen.ci!
    matcher.missing = run
    const out = run.stdout + run.stderr
    // The matcher's 2 tests fail (a missing .snap in CI); the weather suite's 3 pass.
    expect(run.code, out).toBe(1)
    expect(out).toMatch(/Tests\s+2 failed \| 3 passed/)
    expect(failed(run), out).toEqual(['matched > w1', 'matched > w2'])
    expect(snapExists).toBe(false)
    expect(report.snapshots).toMatchObject({ changed: [], added: ['weather > w1', 'weather > w2', 'weather > w3'], obsolete: [], unchanged: 0 })
    expect(report.snapshots.files).toEqual([{ file: SNAP, written: false }])
  })

  it('-u writes one normalised line per sample, in id order', () => {
    const { run, report, snap } = seen.written!
    matcher.written = run
    matcher.snap = seen.written!.matcherSnap
    expect(run.code, run.stdout + run.stderr).toBe(0)
    // Keys sorted, call ids dropped, the request id masked, 0.1 + 0.2 as 0.3, parallel calls sorted by name.
    expect(snap).toBe(
      [
        '{"id":"w1","calls":[{"arguments":{"city":"Paris","request_id":"<volatile>"},"name":"get_weather"}]}',
        '{"id":"w2","calls":[{"arguments":{"city":"Rome"},"name":"get_weather"}]}',
        '{"id":"w3","calls":[{"arguments":{"tz":"CET"},"name":"get_time"},{"arguments":{"city":"Oslo","days":0.3},"name":"get_weather"}]}',
        '',
      ].join('\n'),
    )
    expect(report.snapshots.files).toEqual([{ file: SNAP, written: true }])
    // Vitest's own summary counts what was written: 3 tool-call snapshot lines and the matcher's 2 .snap entries.
    expect(run.stdout).toMatch(/Snapshots\s+5 written/)
  })

  it("'report' mode lists a changed sample with its diff and passes; volatile values and call order are no change", () => {
    const before = snapBeforeReport
    const { run, report, snap, md: summary } = seen.report!
    matcher.unchanged = run
    expect(run.code, run.stdout + run.stderr).toBe(0)
    const snaps = report.snapshots
    expect(snaps).toMatchObject({ changed: ['weather > w2'], added: [], obsolete: [], unchanged: 2 })
    expect(snaps.diffs).toEqual([
      {
        id: 'weather > w2',
        before: '{"id":"w2","calls":[{"arguments":{"city":"Rome"},"name":"get_weather"}]}',
        after: '{"id":"w2","calls":[{"arguments":{"city":"Milan"},"name":"get_weather"}]}',
      },
    ])
    expect(run.stdout).toContain('1 changed · 0 new · 0 obsolete · 2 unchanged')
    expect(run.stdout).toContain('+ {"id":"w2","calls":[{"arguments":{"city":"Milan"}')
    const md = summary as string
    expect(md).toContain('**Tool-call snapshots:** 1 changed')
    expect(md).toContain('- {"id":"w2","calls":[{"arguments":{"city":"Rome"}')
    expect(snap).toBe(before) // CI never writes
  })

  it("'fail' mode fails the changed sample's test with the diff", () => {
    const { run } = seen.fail!
    matcher.changed = run
    expect(run.code).toBe(1)
    const out = run.stdout + run.stderr
    expect(out).toContain(`sample "w2": tool calls changed from the snapshot in ${SNAP}`)
    // One failed test in each suite: weather's w2 (1 failed | 2 passed) and the matcher's w2.
    expect(out).toMatch(/Tests\s+2 failed \| 3 passed/)
    expect(failed(run), out).toEqual(['matched > w2', 'weather > w2'])
  })

  it('--update=new only adds; obsolete entries are listed; -u then removes them and takes the changes', () => {
    const { run: added, report: addedReport, snap: addedSnap } = seen.added!
    expect(added.code, added.stdout + added.stderr).toBe(0)
    expect(addedReport.snapshots).toMatchObject({ changed: ['weather > w2'], added: ['weather > w5'], obsolete: ['weather > w1'] })
    const lines = addedSnap.trim().split('\n')
    expect(lines.map((l) => JSON.parse(l).id)).toEqual(['w1', 'w2', 'w3', 'w5'])
    expect(lines[1]).toContain('"Rome"') // a changed line is not rewritten by --update=new
    expect(added.stdout).toContain('obsolete: weather > w1')

    const { run: updated, report: updatedReport, snap: updatedSnap } = seen.updated!
    expect(updated.code).toBe(0)
    const after = updatedSnap.trim().split('\n')
    expect(after.map((l) => JSON.parse(l).id)).toEqual(['w2', 'w3', 'w5'])
    expect(after[0]).toContain('"Milan"')
    expect(updatedReport.snapshots.obsolete).toEqual(['weather > w1'])
  })

  it("toMatchToolCallsSnapshot goes through Vitest's .snap files (written by -u, checked in CI)", () => {
    // CI: a missing snapshot fails, as any Vitest snapshot (the first run's 2 failed tests, above, are the matcher's).
    expect(matcher.missing!.code).toBe(1)
    const written = matcher.written!
    expect(written.code, written.stdout + written.stderr).toBe(0)
    expect(matcher.snap).toContain('exports[`matched > w1 1`]')
    expect(matcher.snap).toContain('"request_id": "<volatile>"')
    expect(matcher.unchanged!.code).toBe(0)
    // Its outputs changed (w1's request id, masked, and w2's city): w2 alone fails (1 failed | 1 passed).
    expect(failed(matcher.changed!).filter((t) => t.startsWith('matched > '))).toEqual(['matched > w2'])
  })
})
