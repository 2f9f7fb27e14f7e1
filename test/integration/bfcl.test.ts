// The done-criterion of the BFCL integration: recorded BFCL results replayed through `describeEval` with the BFCL
// checker as per-sample scorer, in a real `vitest run` subprocess against the built package, give the leaderboard's
// own accuracy for each category (read from its recorded score file). One subprocess.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bfclReplayLines } from '../../src/bfcl/data/load.js'
import { createEvalProject, ensureBuilt, type EvalProject, type RunResult } from '../helpers/eval-project.js'

const BFCL = fileURLToPath(new URL('../../../shared/bfcl/', import.meta.url))
const GLYPHH = join(BFCL, 'recorded/glyphh-ada-1.1')
const available = existsSync(GLYPHH)
if (!available) console.warn(`[integration-bfcl] ${GLYPHH} not found: the BFCL end-to-end run is skipped`)

// A parallel AST category, the largest simple one, and an irrelevance one (right when no call is made).
const CATEGORIES = ['live_parallel', 'simple_python', 'irrelevance']

interface Official {
  accuracy: number
  correct_count: number
  total_count: number
  errorTypes: Record<string, number>
}

/** The leaderboard's score file: its first line, and the failing entries' error types counted. */
function official(category: string): Official {
  const [first, ...failing] = readFileSync(join(GLYPHH, `BFCL_v4_${category}_score.json`), 'utf8').trim().split('\n')
  const errorTypes: Record<string, number> = {}
  for (const line of failing) {
    const type = (JSON.parse(line) as { error_type: string }).error_type
    errorTypes[type] = (errorTypes[type] ?? 0) + 1
  }
  return { ...(JSON.parse(first!) as Omit<Official, 'errorTypes'>), errorTypes }
}

const config = `
import { defineConfig } from 'vitest/config'
import ToolEvalsReporter from 'vitest-tool-evals/reporter'
export default defineConfig({
  test: {
    include: ['evals/*.eval.mjs'],
    reporters: [
      'default',
      new ToolEvalsReporter({ thresholds: JSON.parse(process.env.EVAL_THRESHOLDS ?? '{}'), outputFile: 'report.json', markdownFile: 'summary.md' }),
    ],
  },
})
`

// The data is read from the shared folder where it lies; only the replay lines are written into the project.
const evalFile = `
import { describeEval, replay } from 'vitest-tool-evals'
import { loadBfclCategory } from 'vitest-tool-evals/bfcl'
for (const category of process.env.BFCL_CATEGORIES.split(',')) {
  const { lines, errors } = loadBfclCategory(process.env.BFCL_DIR, category)
  if (errors.length > 0) throw new Error(errors.join('\\n'))
  describeEval(category, { data: lines, model: replay('replay/' + category + '.jsonl'), bfcl: true, schema: true, concurrency: 16 })
}
`

describe.skipIf(!available)('a replayed BFCL category through vitest gives the leaderboard accuracy', () => {
  let project: EvalProject
  let run: RunResult
  const expected = available ? Object.fromEntries(CATEGORIES.map((c) => [c, official(c)])) : {}
  const correct = Object.values(expected).reduce((n, o) => n + o.correct_count, 0)
  const total = Object.values(expected).reduce((n, o) => n + o.total_count, 0)

  beforeAll(async () => {
    ensureBuilt()
    const files: Record<string, string> = { 'vitest.config.mjs': config, 'evals/bfcl.eval.mjs': evalFile }
    for (const c of CATEGORIES) {
      const lines = bfclReplayLines(readFileSync(join(GLYPHH, `BFCL_v4_${c}_result.json`), 'utf8'))
      files[`replay/${c}.jsonl`] = lines.map((l) => JSON.stringify(l)).join('\n') + '\n'
    }
    project = createEvalProject(files)
    // Gate on exactly the leaderboard's numbers: the run passes only if they are reached.
    const thresholds = {
      bfcl_accuracy: correct / total,
      suites: Object.fromEntries(CATEGORIES.map((c) => [c, { bfcl_accuracy: expected[c]!.accuracy }])),
    }
    run = await project.run(['run'], { BFCL_DIR: BFCL, BFCL_CATEGORIES: CATEGORIES.join(','), EVAL_THRESHOLDS: JSON.stringify(thresholds) })
  }, 180_000)
  afterAll(() => project?.remove())

  it('reports, per suite and per BFCL category, the accuracy and counts of the leaderboard score file', () => {
    const report = JSON.parse(readFileSync(join(project.dir, 'report.json'), 'utf8'))
    expect(report.samples).toBe(total)
    expect(report.errored.count).toBe(0)
    for (const c of CATEGORIES) {
      const o = expected[c]!
      expect(report.suites[c].metrics.bfcl_accuracy, c).toBe(o.accuracy)
      expect(report.suites[c].bfcl, c).toEqual({
        total: o.total_count,
        correct: o.correct_count,
        categories: { [c]: { total: o.total_count, correct: o.correct_count, accuracy: o.accuracy } },
        errorTypes: o.errorTypes,
      })
      expect(report.bfcl.categories[c]).toEqual({ total: o.total_count, correct: o.correct_count, accuracy: o.accuracy })
    }
    expect(report.metrics.bfcl_accuracy).toBe(correct / total)
    expect(report.bfcl).toMatchObject({ total, correct })
    // Schema metrics ran beside it over the same samples.
    expect(report.schema.samples).toBe(total)
    expect(report.metrics.schema_overall).toBeGreaterThan(0)
  })

  it('the thresholds at the leaderboard numbers pass, so the run exits 0; the summaries show the verdicts', () => {
    expect(run.code, run.stdout + run.stderr).toBe(0)
    expect(run.stdout).toMatch(/bfcl_accuracy\s+\d\.\d{3}/)
    expect(run.stdout).toContain(`bfcl: ${correct}/${total} pass the BFCL checker`)
    expect(run.stdout).toContain(`bfcl_accuracy (suite live_parallel): ${expected['live_parallel']!.accuracy.toFixed(3)} >= required`)
    expect(readFileSync(join(project.dir, 'summary.md'), 'utf8')).toContain(`BFCL checker: ${correct}/${total} pass`)
  })
})
