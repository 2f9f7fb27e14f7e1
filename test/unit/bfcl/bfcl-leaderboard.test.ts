// The leaderboard's summary CSVs: its aggregation rules and number formatting, against the gpt-oss-120b run's own CSVs.
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, test } from 'vitest'
import { BFCL_V4_SIZES, leaderboardCsvFiles, pyFixed2, type CategoryScore } from '../../../src/bfcl/checker/leaderboard.js'
import { formatPercent } from '../../../src/bfcl/checker/aggregate.js'

describe("Python's {:.2f}", () => {
  test.each([
    [53.125, '53.12'], // an exact tie: to even (toFixed gives 53.13)
    [0.125, '0.12'],
    [0.375, '0.38'],
    [2.675, '2.67'], // not a tie: 2.67499999... in binary
    [62, '62.00'],
    [1.005, '1.00'],
    [99.995, '100.00'],
  ])('%d -> %s', (x, s) => expect(pyFixed2(x)).toBe(s))

  test("the single-turn summaries' formatPercent rounds ties the same way", () => {
    expect(formatPercent({ accuracy: 0.53125, total_count: 4 })).toBe('53.12%')
  })
})

describe('aggregation rules', () => {
  test('nothing scored: every cell N/A except the overall columns, which count missing categories as 0', () => {
    const files = leaderboardCsvFiles({}, 'm')
    expect(files['data_multi_turn.csv']).toBe('Rank,Model,Multi Turn Overall Acc,Base,Miss Func,Miss Param,Long Context\n1,m,0.00%,N/A,N/A,N/A,N/A')
    expect(files['data_non_live.csv']!.split('\n')[1]).toBe('1,m,0.00%,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A')
  })

  test('multi-turn: unweighted mean of the four; a missing one shows N/A but counts 0', () => {
    const s: Record<string, CategoryScore> = {
      multi_turn_base: { accuracy: 0.62, total_count: 200 },
      multi_turn_miss_func: { accuracy: 0.505, total_count: 200 },
      multi_turn_miss_param: { accuracy: 0.475, total_count: 200 },
    }
    expect(leaderboardCsvFiles(s, 'm')['data_multi_turn.csv']!.split('\n')[1]).toBe('1,m,40.00%,62.00%,50.50%,47.50%,N/A') // (0.62 + 0.505 + 0.475 + 0) / 4
  })

  test('live: weighted by entry count, a missing category weighing its full size', () => {
    const s = { live_simple: { accuracy: 1, total_count: 258 } }
    const row = leaderboardCsvFiles(s, 'm')['data_live.csv']!.split('\n')[1]!.split(',')
    const all = 258 + 1053 + 16 + 24
    expect(row[2]).toBe(`${pyFixed2((258 / all) * 100)}%`)
    expect(row[3]).toBe('N/A')
  })
})

const GPT_OSS = fileURLToPath(new URL('../../../../shared/bfcl/recorded/gpt-oss-120b-vllm/', import.meta.url))
const available = existsSync(GPT_OSS)
if (!available) console.warn(`[bfcl] ${GPT_OSS} not found: the leaderboard CSV comparison is skipped`)

describe.skipIf(!available)("gpt-oss-120b: the leaderboard's own CSVs", () => {
  const csv = (name: string) => {
    const [header, row] = readFileSync(`${GPT_OSS}${name}`, 'utf8').trim().split('\n')
    return { header: header!.split(','), row: row!.split(',') }
  }
  // Categories with score files: their first lines. The others: counts recovered from the CSV's percentages.
  const scores: Record<string, CategoryScore> = {}
  const fromCsv = (name: string, column: string, category: string) => {
    const t = csv(name)
    const p = Number.parseFloat(t.row[t.header.indexOf(column)]!)
    const size = BFCL_V4_SIZES[category]!
    scores[category] = { accuracy: Math.round((p / 100) * size) / size, total_count: size }
  }
  if (available) {
    for (const c of ['multi_turn_base', 'multi_turn_miss_func', 'multi_turn_miss_param', 'simple_java', 'simple_javascript']) {
      scores[c] = JSON.parse(readFileSync(`${GPT_OSS}BFCL_v4_${c}_score.json`, 'utf8').split('\n')[0]!) as CategoryScore
    }
    fromCsv('data_multi_turn.csv', 'Long Context', 'multi_turn_long_context')
    fromCsv('data_non_live.csv', 'Python Simple AST', 'simple_python')
    fromCsv('data_non_live.csv', 'Multiple AST', 'multiple')
    fromCsv('data_non_live.csv', 'Parallel AST', 'parallel')
    fromCsv('data_non_live.csv', 'Parallel Multiple AST', 'parallel_multiple')
    fromCsv('data_non_live.csv', 'Irrelevance Detection', 'irrelevance')
    fromCsv('data_live.csv', 'Python Simple AST', 'live_simple')
    fromCsv('data_live.csv', 'Python Multiple AST', 'live_multiple')
    fromCsv('data_live.csv', 'Python Parallel AST', 'live_parallel')
    fromCsv('data_live.csv', 'Python Parallel Multiple AST', 'live_parallel_multiple')
    fromCsv('data_live.csv', 'Irrelevance Detection', 'live_irrelevance')
    fromCsv('data_live.csv', 'Relevance Detection', 'live_relevance')
  }
  // What the project cannot know about a model (its display name, link, cost, latency, organisation, licence).
  const UNKNOWN = new Set(['Model', 'Model Link', 'Total Cost ($)', 'Latency Mean (s)', 'Latency Standard Deviation (s)', 'Latency 95th Percentile (s)', 'Organization', 'License'])

  test.each(['data_multi_turn.csv', 'data_non_live.csv', 'data_live.csv', 'data_overall.csv'])('%s: every computed cell', (name) => {
    const theirs = csv(name)
    const [header, row] = leaderboardCsvFiles(scores, 'openai_gpt-oss-120b')[name]!.split('\n')
    expect(header!.split(',')).toEqual(theirs.header)
    const ours = row!.split(',')
    const compared = theirs.header.map((h, i) => (UNKNOWN.has(h) ? null : [h, ours[i]]))
    expect(compared).toEqual(theirs.header.map((h, i) => (UNKNOWN.has(h) ? null : [h, theirs.row[i]])))
  })
})
