// Snapshot file names through real `vitest` subprocesses: suites whose slugs collide (`天気`/`日本`, `a b`/`a-b`)
// get files of their own, so `-u` then a CI run passes; a 300-character suite name gets a short file name; a
// truncated file fails with its real cause (not "timed out") and `-u` rewrites it; a file under its old name is
// still read, and `-u` moves it. Four runs in one project, sharing one process (project.runs), each the subject of
// its test: `-u` (the suites above), CI (one file truncated; a suite whose file has its old name added), `-u`, CI.
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEvalProject, ensureBuilt, type EvalProject, type RunResult } from '../helpers/eval-project.js'

const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n'
const sample = (id: string, city: string) => ({ id, messages: [{ role: 'user', content: `Weather in ${city}?` }], expected: [{ name: 'get_weather', arguments: { city } }] })
const output = (id: string, city: string) => ({ id, tool_calls: [{ id: 'c', type: 'function', function: { name: 'get_weather', arguments: JSON.stringify({ city }) } }] })

const config = `
import { defineConfig } from 'vitest/config'
import ToolEvalsReporter from 'vitest-tool-evals/reporter'
export default defineConfig({
  test: { include: ['evals/**/*.eval.mjs'], testTimeout: 60000, reporters: ['default', new ToolEvalsReporter({ outputFile: 'report.json' })] },
})
`

const LONG = 'x'.repeat(300)
// Each suite has its own samples: were two to share a file, one's lines would be missing after the other wrote it.
const SUITES: [string, string][] = [['天気', 't'], ['日本', 'n'], ['a b', 'ab'], ['a-b', 'ad'], [LONG, 'l']]
const namesEval = `
import { describeEval, replay } from 'vitest-tool-evals'
for (const [name, prefix] of ${JSON.stringify(SUITES)}) {
  describeEval(name, { data: 'data/' + prefix + '.jsonl', model: replay('data/outputs.jsonl'), snapshot: { mode: 'fail' } })
}
`

function files(dir: string): string[] {
  return readdirSync(join(dir, 'evals')).filter((f) => f.endsWith('.calls.jsonl')).sort()
}

// A file under the name snapshots had before names carried a hash: unambiguous (no other suite's slug is the same).
// Its suite goes in the same eval file (one file: one worker per run).
const OLD = 'evals/names.eval.weather-tools.calls.jsonl'
const OLD_LINE = '{"id":"w1","calls":[{"arguments":{"city":"Paris"},"name":"get_weather"}]}\n'
const oldNamed = {
  'evals/names.eval.mjs': `${namesEval}
describeEval('Weather tools', { data: 'data/w.jsonl', model: replay('data/w.outputs.jsonl'), snapshot: { mode: 'fail' } })\n`,
  'data/w.jsonl': jsonl([sample('w1', 'Paris')]),
  'data/w.outputs.jsonl': jsonl([output('w1', 'Paris')]),
  [OLD]: OLD_LINE,
}
const N = 2 * SUITES.length + 1 // the samples of every suite

describe('snapshot file names (real vitest runs)', () => {
  let project: EvalProject
  const report = () => JSON.parse(readFileSync(join(project.dir, 'report.json'), 'utf8'))
  // The truncated file, and its text as -u wrote it.
  let path: string
  let text: string
  let file: string
  /** Each run and what it left on disk, read once it ended. */
  let written: RunResult, broken: RunResult, fixed: RunResult, ci: RunResult
  let writtenNames: string[], writtenIds: string[]
  let brokenReport: any, ciReport: any
  let fixedText: string, oldExists: boolean, fixedNames: string[], movedText: string | undefined

  // The four runs share one process (project.runs): their subject is the files written and the reports.
  beforeAll(async () => {
    ensureBuilt()
    const data: Record<string, string> = {}
    const outputs: unknown[] = []
    for (const [, p] of SUITES) {
      data[`data/${p}.jsonl`] = jsonl([sample(`${p}1`, 'Paris'), sample(`${p}2`, 'Rome')])
      outputs.push(output(`${p}1`, 'Paris'), output(`${p}2`, 'Rome'))
    }
    project = createEvalProject({ 'vitest.config.mjs': config, 'evals/names.eval.mjs': namesEval, ...data, 'data/outputs.jsonl': jsonl(outputs) })
    ;[written, broken, fixed, ci] = (await project.runs([
      {
        args: ['run', '-u'],
        after: () => {
          writtenNames = files(project.dir)
          // Each file holds its own suite's samples only.
          writtenIds = writtenNames.map((n) => readFileSync(join(project.dir, 'evals', n), 'utf8').trim().split('\n').map((l) => JSON.parse(l).id).join(','))
        },
      },
      {
        args: ['run'],
        before: () => {
          file = files(project.dir).find((n) => readFileSync(join(project.dir, 'evals', n), 'utf8').includes('"t1"'))!
          path = join(project.dir, 'evals', file)
          text = readFileSync(path, 'utf8')
          writeFileSync(path, text.slice(0, text.length - 20)) // the last line cut short, as an interrupted write leaves it
          // A suite whose snapshot has its old name: the CI run is the first to see it.
          for (const [p, content] of Object.entries(oldNamed)) project.write(p, content)
        },
        after: () => void (brokenReport = report()),
      },
      {
        args: ['run', '-u'],
        after: () => {
          fixedText = readFileSync(path, 'utf8')
          oldExists = existsSync(join(project.dir, OLD))
          fixedNames = files(project.dir)
          const moved = fixedNames.find((n) => n.startsWith('names.eval.weather-tools'))
          movedText = moved === undefined ? undefined : readFileSync(join(project.dir, 'evals', moved), 'utf8')
        },
      },
      { args: ['run'], after: () => void (ciReport = report()) },
    ])) as [RunResult, RunResult, RunResult, RunResult]
  })
  afterAll(() => project?.remove())

  it('-u writes one file per suite (colliding slugs, a 300-character name)', () => {
    expect(written.code, written.stdout + written.stderr).toBe(0)
    const names = writtenNames
    expect(names).toHaveLength(SUITES.length)
    for (const n of names) expect(n.length).toBeLessThan(120)
    // Each file holds its own suite's samples only.
    const ids = writtenIds
    expect(ids.sort()).toEqual(SUITES.map(([, p]) => `${p}1,${p}2`).sort())
  })

  it('a CI run reads every file -u wrote and one under its old name; a truncated file fails its samples with the real cause, not a timeout', () => {
    expect(broken.code).toBe(1)
    const out = broken.stdout + broken.stderr
    expect(out).toContain(`evals/${file}:2: not a snapshot line (not valid JSON); fix it, or rerun with -u to rewrite the file`)
    const reasons = (brokenReport.errored.samples as { id: string; reason: string }[]).map((s) => [s.id, s.reason])
    expect(reasons.map(([id]) => id).sort()).toEqual(['t1', 't2'])
    for (const [, reason] of reasons) {
      expect(reason).toContain('tool-call snapshot')
      expect(reason).not.toContain('timed out')
    }
    // Only the truncated file's samples fail: every other suite's file, from -u or under its old name, reads as written.
    expect(out).toMatch(new RegExp(`Tests\\s+2 failed \\| ${N - 2} passed`))
    expect(brokenReport.snapshots).toMatchObject({ changed: [], added: [], obsolete: [], unchanged: N - 2 })
    expect(brokenReport.snapshots.files).toContainEqual({ file: OLD, written: false })
  })

  it('-u rewrites the truncated file and moves the old-named one to its new name; a CI run then passes', () => {
    expect(fixed.code, fixed.stdout + fixed.stderr).toBe(0)
    expect(fixedText).toBe(text)
    expect(oldExists).toBe(false)
    const moved = fixedNames.filter((n) => n.startsWith('names.eval.weather-tools'))
    expect(moved).toHaveLength(1)
    expect(moved[0]).toMatch(/^names\.eval\.weather-tools\.[0-9a-f]{10}\.calls\.jsonl$/)
    expect(movedText).toBe(OLD_LINE)
    expect(fixedNames).toHaveLength(SUITES.length + 1)

    expect(ci.code, ci.stdout + ci.stderr).toBe(0)
    expect(ciReport.snapshots).toMatchObject({ changed: [], added: [], obsolete: [], unchanged: N })
  })
})
