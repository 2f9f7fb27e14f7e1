// What a run prints about its own problems, once and exactly: an invalid line's location once in the errored list,
// a missing recording file named as such (not as "1 unreadable line"), an unknown format hint rejected when the
// eval is defined, and a merged run (`--merge-reports`) showing no made-up run time. Two real `vitest` subprocesses:
// one run holds all three scenarios (each eval file fails on its own, and the blob reporter writes the shards of the
// merge beside the default output), then `--merge-reports` over its blob.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEvalProject, ensureBuilt, type EvalProject, type RunResult } from '../helpers/eval-project.js'

const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n'
const sample = (id: string) => ({ id, messages: [{ role: 'user', content: 'hi' }], expected: [] })

const config = `
import { defineConfig } from 'vitest/config'
import ToolEvalsReporter from 'vitest-tool-evals/reporter'
export default defineConfig({
  test: {
    include: ['evals/*.eval.mjs', 'bad/*.eval.mjs'],
    // One worker thread for both files: what is tested is the output, whatever runs the files.
    pool: 'threads',
    isolate: false,
    // The blob beside the terminal output: the run that is read here is also the one that is merged.
    reporters: ['default', new ToolEvalsReporter({ outputFile: 'report.json', markdownFile: false }), ...(process.env.EVAL_BLOB ? ['blob'] : [])],
  },
})
`

const files = {
  'vitest.config.mjs': config,
  // Line 2 has no id and no messages: it is named by its location.
  'data/lines.jsonl': jsonl([sample('ok'), { expected: [] }]),
  'data/lines.outputs.jsonl': jsonl([{ id: 'ok', output: 'Hello.' }]),
  'data/missing.jsonl': jsonl([sample('m1'), sample('m2')]),
  'evals/lines.eval.mjs': `import { describeEval, replay } from 'vitest-tool-evals'
describeEval('lines', { data: 'data/lines.jsonl', model: replay('data/lines.outputs.jsonl') })
describeEval('missing', { data: 'data/missing.jsonl', model: replay('data/nope.outputs.jsonl') })
`,
  'bad/format.eval.mjs': `import { describeEval, replay } from 'vitest-tool-evals'
describeEval('typo', { data: 'data/missing.jsonl', model: replay('data/lines.outputs.jsonl'), format: 'hermes_2' })
`,
}

describe('run output without noise', () => {
  let project: EvalProject
  let plain: RunResult
  let merged: RunResult

  beforeAll(async () => {
    ensureBuilt()
    project = createEvalProject(files)
    plain = await project.run(['run'], { EVAL_BLOB: '1' })
    merged = await project.run(['--merge-reports'])
  })
  afterAll(() => project?.remove())

  it('names an invalid line by its location once in the errored list', () => {
    const line = plain.stdout.split('\n').find((l) => l.includes('lines > data/lines.jsonl:2'))
    expect(line, plain.stdout).toBeDefined()
    expect(line!.split('data/lines.jsonl:2').length - 1).toBe(1)
    expect(line).toMatch(/lines > data\/lines\.jsonl:2: field `id`: missing$/)
  })

  it('says "recording file not found: <path>" for a missing recording, never "unreadable line"', () => {
    expect(plain.stdout).toContain('missing > m1: recording file not found: data/nope.outputs.jsonl')
    expect(plain.stdout + plain.stderr).not.toContain('unreadable')
    const report = JSON.parse(readFileSync(join(project.dir, 'report.json'), 'utf8'))
    expect(report.errored.byReason).toMatchObject({ 'recording file not found: data/nope.outputs.jsonl': 2 })
  })

  it('fails the run: errored samples fail their tests, and the bad format fails its file', () => {
    expect(plain.code, plain.stdout + plain.stderr).toBe(1)
    expect(plain.stdout + plain.stderr, plain.stdout + plain.stderr).toMatch(/FAIL\s+bad\/format\.eval\.mjs/)
    expect(plain.stdout + plain.stderr).toMatch(/FAIL\s+evals\/lines\.eval\.mjs > lines/)
  })

  it('rejects an unknown format hint when the eval is defined, listing the known formats', () => {
    expect(plain.stdout + plain.stderr).toMatch(/describeEval\("typo"\): option `format`: unknown format "hermes_2"; known formats: .*\bhermes\b/)
  })

  it('a merged run shows the merged numbers but no run time of its own', () => {
    expect(merged.stdout).toContain('Tool evals')
    expect(merged.stdout).toMatch(/Tool evals +4 samples/)
    expect(merged.stdout).not.toMatch(/run took/)
    expect(plain.stdout).toMatch(/run took \d+\.\ds/)
  })
})
