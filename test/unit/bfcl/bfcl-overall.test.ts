// The leaderboard's CSVs and overall accuracy (weights 10/10/10/30/40, N/A rules) equal what BFCL's own
// `generate_leaderboard_csv` (gorilla 8db0b7ca) wrote for the same score files: fixtures/bfcl-overall.json holds each
// scenario's score-file heads and BFCL's output. A head that is a recorded score file's is named there
// (`{"recorded": MODEL}`) and read from ../shared/bfcl/recorded/MODEL/, where the data stays; the rest are synthetic.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { leaderboardCsvFiles } from '../../../src/bfcl/checker/leaderboard.js'
import { bfclDir } from '../../helpers/bfcl-dir.js'

const BFCL = bfclDir()

type Head = { accuracy: number; correct_count: number; total_count: number }
interface Scenario {
  name: string
  scores: Record<string, Head | { recorded: string }>
  csv: Record<string, string>
}

const SCENARIOS = JSON.parse(readFileSync(new URL('../../../fixtures/bfcl-overall.json', import.meta.url), 'utf8')) as Scenario[]
const FILES = ['data_non_live.csv', 'data_live.csv', 'data_multi_turn.csv', 'data_agentic.csv', 'data_format_sensitivity.csv', 'data_overall.csv']

const needsShared = (s: Scenario) => Object.values(s.scores).some((v) => 'recorded' in v)

/** The scenario's heads, a recorded one as the first line of its score file. */
function heads(s: Scenario): Record<string, Head> {
  const out: Record<string, Head> = {}
  for (const [category, v] of Object.entries(s.scores)) {
    out[category] = 'recorded' in v ? (JSON.parse(readFileSync(join(BFCL!, 'recorded', v.recorded, `BFCL_v4_${category}_score.json`), 'utf8').split('\n')[0]!) as Head) : v
  }
  return out
}

describe("leaderboard CSVs equal BFCL's generate_leaderboard_csv", () => {
  for (const scenario of SCENARIOS) {
    test.skipIf(BFCL === undefined && needsShared(scenario))(scenario.name, () => {
      const ours = leaderboardCsvFiles(heads(scenario), 'my-model')
      for (const f of FILES) expect([f, ours[f]]).toEqual([f, scenario.csv[f]])
    })
  }
  test.skipIf(BFCL === undefined)('the overall accuracy of every scoring category present is the weighted mean BFCL printed', () => {
    const all = SCENARIOS[2]!
    expect(leaderboardCsvFiles(heads(all), 'my-model')['data_overall.csv']!.split('\n')[1]!.split(',')[1]).toBe('59.39%')
  })
})

describe.skipIf(BFCL === undefined)('tool-evals bfcl --summary', () => {
  test("prints the leaderboard's overall accuracy, marked incomplete while categories are missing", async () => {
    const { PassThrough } = await import('node:stream')
    const { mkdtempSync, rmSync, writeFileSync } = await import('node:fs')
    const { join } = await import('node:path')
    const { tmpdir } = await import('node:os')
    const { runCli } = await import('../../../src/cli/command.js')
    const { bfclCommand } = await import('../../../src/bfcl/cli/score.js')
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
