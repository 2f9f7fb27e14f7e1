// The leaderboard's CSVs and overall accuracy (weights 10/10/10/30/40, N/A rules) equal what BFCL's own
// `generate_leaderboard_csv` (gorilla 8db0b7ca) wrote for the same score files: fixtures/bfcl-overall.json holds the
// score-file heads of each scenario and BFCL's output.
import { readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import { leaderboardCsvFiles } from '../src/score/bfcl/leaderboard.js'

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
