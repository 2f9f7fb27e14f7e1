// The leaderboard's CSVs and overall accuracy (weights 10/10/10/30/40, N/A rules) equal what BFCL's own
// `generate_leaderboard_csv` (gorilla 8db0b7ca) wrote for the same score files: fixtures/bfcl-overall.json holds the
// score-file heads of each scenario and BFCL's output.
import { readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import { leaderboardCsvFiles } from '../src/bfcl/checker/leaderboard.js'
import { bfclDir } from './helpers/bfcl-dir.js'

const BFCL = bfclDir()

interface Scenario {
  name: string
  scores: Record<string, { accuracy: number; correct_count: number; total_count: number }>
  csv: Record<string, string>
}

const SCENARIOS = JSON.parse(readFileSync(new URL('../fixtures/bfcl-overall.json', import.meta.url), 'utf8')) as Scenario[]
const FILES = ['data_non_live.csv', 'data_live.csv', 'data_multi_turn.csv', 'data_agentic.csv', 'data_format_sensitivity.csv', 'data_overall.csv']

describe("leaderboard CSVs equal BFCL's generate_leaderboard_csv", () => {
  test.each(SCENARIOS.map((s) => [s.name, s] as const))('%s', (_name, scenario) => {
    const ours = leaderboardCsvFiles(scenario.scores, 'my-model')
    for (const f of FILES) expect([f, ours[f]]).toEqual([f, scenario.csv[f]])
  })
  test('the overall accuracy of every scoring category present is the weighted mean BFCL printed', () => {
    const all = SCENARIOS[2]!
    expect(leaderboardCsvFiles(all.scores, 'my-model')['data_overall.csv']!.split('\n')[1]!.split(',')[1]).toBe('59.39%')
  })
})

describe.skipIf(BFCL === undefined)('tool-evals bfcl --summary', () => {
  test("prints the leaderboard's overall accuracy, marked incomplete while categories are missing", async () => {
    const { PassThrough } = await import('node:stream')
    const { mkdtempSync, rmSync, writeFileSync } = await import('node:fs')
    const { join } = await import('node:path')
    const { tmpdir } = await import('node:os')
    const { runCli } = await import('../src/cli/command.js')
    const { bfclCommand } = await import('../src/bfcl/cli/score.js')
    // Agentic results alone (answers from the fixture's data): overall = 40% × agentic mean.
    const dir = mkdtempSync(join(tmpdir(), 'bfcl-summary-'))
    try {
      writeFileSync(join(dir, 'BFCL_v4_web_search_base_result.json'), '{"id": "web_search_base_0", "result": [["The answer is Zhang Yiming."]]}\n')
      const stdout = new PassThrough()
      let out = ''
      stdout.on('data', (d) => (out += String(d)))
      await runCli([bfclCommand], ['bfcl', '--data', BFCL!, '--results', dir, '--categories', 'web_search_base', '--summary'], { stdin: new PassThrough(), stdout, stderr: new PassThrough() })
      const summary = JSON.parse(out.trim().split('\n')[1]!) as { summary: { overall: { accuracy: number; display: string; complete: boolean } } }
      // web_search_base 1/1: web search mean 0.5, agentic mean 0.25, overall 0.4 × 0.25.
      expect(summary.summary.overall).toEqual({ accuracy: 0.1, display: '10.00%', complete: false })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
