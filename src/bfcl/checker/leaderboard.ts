/**
 * The leaderboard's summary CSVs (`data_non_live.csv`, `data_live.csv`, `data_multi_turn.csv`, `data_agentic.csv`,
 * `data_overall.csv`) with its own aggregation rules (gorilla `eval_runner_helper.py`, `generate_leaderboard_csv`):
 *
 * - a category without a score counts as accuracy 0 over its full size and shows `N/A`; a summary that includes one
 *   shows `N/A` too, except the "overall" columns (non-live, live, multi-turn, agentic, total), which show the number;
 * - simple AST is the unweighted mean of Python, Java and JavaScript; the non-live summary the unweighted mean of
 *   simple, multiple, parallel and parallel-multiple; the live summary their count-weighted mean; multi-turn the
 *   unweighted mean of its four; hallucination the unweighted mean of irrelevance and live irrelevance;
 * - overall: non-live, live, irrelevance, multi-turn and agentic weighted 10, 10, 10, 30, 40.
 *
 * Percentages are Python's `"{:.2f}%".format(x * 100)` (ties to even on the exact binary value). What the project
 * cannot know (the model's link, organisation, licence, price) is `N/A`, as are cost and latency.
 */
import { pyFloatRepr } from '../../python/operations.js'

export interface CategoryScore {
  accuracy: number
  total_count: number
}

/** BFCL's format-sensitivity score-file header: the spread across prompt formats, and each format's accuracy. */
export interface FormatSensitivityScore extends CategoryScore {
  accuracy_max_delta?: number
  accuracy_std?: number
  [config: string]: unknown
}

/** BFCL's 26 prompt-format configurations (`get_all_format_sensitivity_configs`), in its order. */
export const FORMAT_SENSITIVITY_CONFIGS: readonly string[] = [
  ...['python', 'json', 'verbose_xml', 'concise_xml'].flatMap((ret) =>
    ['True', 'False'].flatMap((tag) => ['python', 'xml', 'json'].map((doc) => `ret_fmt=${ret}&tool_call_tag=${tag}&func_doc_fmt=${doc}&prompt_fmt=plaintext&style=classic`)),
  ),
  'ret_fmt=python&tool_call_tag=False&func_doc_fmt=json&prompt_fmt=markdown&style=classic',
  'ret_fmt=python&tool_call_tag=False&func_doc_fmt=json&prompt_fmt=plaintext&style=experimental',
]

interface Acc {
  accuracy: number
  total_count: number
  display: number | 'N/A'
}

/** BFCL v4's category sizes: a missing category counts as 0 over these many entries (the live mean weighs them). */
export const BFCL_V4_SIZES: Readonly<Record<string, number>> = {
  simple_python: 400,
  simple_java: 100,
  simple_javascript: 50,
  multiple: 200,
  parallel: 200,
  parallel_multiple: 200,
  irrelevance: 240,
  live_simple: 258,
  live_multiple: 1053,
  live_parallel: 16,
  live_parallel_multiple: 24,
  live_irrelevance: 884,
  live_relevance: 16,
  multi_turn_base: 200,
  multi_turn_miss_func: 200,
  multi_turn_miss_param: 200,
  multi_turn_long_context: 200,
  // Agentic categories: only unweighted means use them, so their sizes never show.
  web_search_base: 100,
  web_search_no_snippet: 100,
  memory_kv: 155,
  memory_vector: 155,
  memory_rec_sum: 155,
}

type Scores = Readonly<Record<string, CategoryScore | FormatSensitivityScore | undefined>>

/** A format-sensitivity statistic as BFCL's CSV prints it (`str()` of the float; `N/A` without one). */
function statCell(v: unknown): string {
  return typeof v === 'number' ? pyFloatRepr(v) : 'N/A'
}

function category(scores: Scores, name: string): Acc {
  const s = scores[name]
  if (s === undefined) return { accuracy: 0, total_count: BFCL_V4_SIZES[name] ?? 0, display: 'N/A' }
  return { accuracy: s.accuracy, total_count: s.total_count, display: s.accuracy }
}

function unweighted(parts: Acc[], naIfMissing = true): Acc {
  let total = 0
  let sum = 0
  for (const p of parts) {
    total += p.total_count
    sum += p.accuracy
  }
  const accuracy = sum / parts.length
  return { accuracy, total_count: total, display: naIfMissing && parts.some((p) => p.display === 'N/A') ? 'N/A' : accuracy }
}

function weighted(parts: Acc[], naIfMissing = true): Acc {
  let total = 0
  let sum = 0
  for (const p of parts) {
    total += p.total_count
    sum += p.accuracy * p.total_count
  }
  const accuracy = sum / total
  return { accuracy, total_count: total, display: naIfMissing && parts.some((p) => p.display === 'N/A') ? 'N/A' : accuracy }
}

function percentageWeighted(parts: Acc[], weights: number[]): Acc {
  const weightSum = weights.reduce((a, w) => a + w, 0)
  let total = 0
  let accuracy = 0
  parts.forEach((p, i) => {
    total += p.total_count
    accuracy += p.accuracy * (weights[i]! / weightSum)
  })
  return { accuracy, total_count: total, display: accuracy }
}

/** Python's `"{:.2f}".format(x)`: correctly rounded, exact ties to even (JavaScript's toFixed rounds them up). */
export function pyFixed2(x: number): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'nan' : x > 0 ? 'inf' : '-inf'
  const exact = Math.abs(x) < 1e21 ? x.toFixed(100) : undefined
  if (exact !== undefined) {
    const dot = exact.indexOf('.')
    const rest = exact.slice(dot + 3)
    if (/^50*$/.test(rest)) {
      // An exact tie: keep the even last digit.
      const truncated = exact.slice(0, dot + 3)
      const last = Number(truncated[truncated.length - 1])
      if (last % 2 === 0) return truncated === '-0.00' ? '-0.00' : truncated
    }
  }
  return x.toFixed(2)
}

/** The leaderboard's cell for an accuracy: `62.00%`, or `N/A`. */
export function percentCell(v: number | 'N/A'): string {
  return v === 'N/A' ? 'N/A' : `${pyFixed2(v * 100)}%`
}

export const COLUMNS_NON_LIVE = ['Rank', 'Model', 'Non-Live Overall Acc', 'AST Summary', 'Simple AST', 'Python Simple AST', 'Java Simple AST', 'JavaScript Simple AST', 'Multiple AST', 'Parallel AST', 'Parallel Multiple AST', 'Irrelevance Detection']
export const COLUMNS_LIVE = ['Rank', 'Model', 'Live Overall Acc', 'AST Summary', 'Python Simple AST', 'Python Multiple AST', 'Python Parallel AST', 'Python Parallel Multiple AST', 'Irrelevance Detection', 'Relevance Detection']
export const COLUMNS_MULTI_TURN = ['Rank', 'Model', 'Multi Turn Overall Acc', 'Base', 'Miss Func', 'Miss Param', 'Long Context']
export const COLUMNS_AGENTIC = ['Rank', 'Model', 'Agentic Overall Acc', 'Web Search Summary', 'Web Search Base', 'Web Search No Snippet', 'Memory Summary', 'Memory KV', 'Memory Vector', 'Memory Recursive Summarization']
export const COLUMNS_FORMAT_SENSITIVITY = ['Rank', 'Model', 'Format Sensitivity Max Delta', 'Format Sensitivity Standard Deviation', ...FORMAT_SENSITIVITY_CONFIGS.map((c) => `Config ${c}`)]
export const COLUMNS_OVERALL = [
  'Rank', 'Overall Acc', 'Model', 'Model Link', 'Total Cost ($)', 'Latency Mean (s)', 'Latency Standard Deviation (s)',
  'Latency 95th Percentile (s)', 'Non-Live AST Acc', 'Non-Live Simple AST', 'Non-Live Multiple AST', 'Non-Live Parallel AST',
  'Non-Live Parallel Multiple AST', 'Live Acc', 'Live Simple AST', 'Live Multiple AST', 'Live Parallel AST',
  'Live Parallel Multiple AST', 'Multi Turn Acc', 'Multi Turn Base', 'Multi Turn Miss Func', 'Multi Turn Miss Param',
  'Multi Turn Long Context', 'Web Search Acc', 'Web Search Base', 'Web Search No Snippet', 'Memory Acc', 'Memory KV',
  'Memory Vector', 'Memory Recursive Summarization', 'Relevance Detection', 'Irrelevance Detection',
  'Format Sensitivity Max Delta', 'Format Sensitivity Standard Deviation', 'Organization', 'License',
]

/** One model's row per table, as the leaderboard computes it (cells not yet formatted). */
export function leaderboardRows(scores: Scores, model: string): Record<'non_live' | 'live' | 'multi_turn' | 'agentic' | 'format_sensitivity' | 'overall', (string | number)[]> {
  const c = (name: string) => category(scores, name)
  const simplePython = c('simple_python')
  const simpleJava = c('simple_java')
  const simpleJs = c('simple_javascript')
  const multiple = c('multiple')
  const parallel = c('parallel')
  const parallelMultiple = c('parallel_multiple')
  const irrelevance = c('irrelevance')
  const simple = unweighted([simplePython, simpleJava, simpleJs])
  const nonLiveParts = [simple, multiple, parallel, parallelMultiple]
  const summaryNonLive = unweighted(nonLiveParts)
  const overallNonLive = unweighted(nonLiveParts, false)

  const liveSimple = c('live_simple')
  const liveMultiple = c('live_multiple')
  const liveParallel = c('live_parallel')
  const liveParallelMultiple = c('live_parallel_multiple')
  const liveIrrelevance = c('live_irrelevance')
  const liveRelevance = c('live_relevance')
  const liveParts = [liveSimple, liveMultiple, liveParallel, liveParallelMultiple]
  const summaryLive = weighted(liveParts)
  const overallLive = weighted(liveParts, false)

  const mtBase = c('multi_turn_base')
  const mtMissFunc = c('multi_turn_miss_func')
  const mtMissParam = c('multi_turn_miss_param')
  const mtLong = c('multi_turn_long_context')
  const overallMultiTurn = unweighted([mtBase, mtMissFunc, mtMissParam, mtLong], false)

  const webBase = c('web_search_base')
  const webNoSnippet = c('web_search_no_snippet')
  const webSearch = unweighted([webBase, webNoSnippet])
  const memKv = c('memory_kv')
  const memVector = c('memory_vector')
  const memRecSum = c('memory_rec_sum')
  const memory = unweighted([memKv, memVector, memRecSum])
  const overallAgentic = unweighted([webSearch, memory], false)

  const fs = scores['format_sensitivity'] as FormatSensitivityScore | undefined
  const fsDelta = statCell(fs?.accuracy_max_delta)
  const fsStd = statCell(fs?.accuracy_std)
  const fsConfigs = FORMAT_SENSITIVITY_CONFIGS.map((c) => {
    const v = fs?.[c] as { accuracy?: unknown } | undefined
    return typeof v?.accuracy === 'number' ? v.accuracy : ('N/A' as const)
  })

  const totalIrrelevance = unweighted([irrelevance, liveIrrelevance])
  const total = percentageWeighted([overallNonLive, overallLive, totalIrrelevance, overallMultiTurn, overallAgentic], [10, 10, 10, 30, 40])
  const d = (a: Acc) => a.display

  return {
    non_live: ['N/A', model, d(overallNonLive), d(summaryNonLive), d(simple), d(simplePython), d(simpleJava), d(simpleJs), d(multiple), d(parallel), d(parallelMultiple), d(irrelevance)],
    live: ['N/A', model, d(overallLive), d(summaryLive), d(liveSimple), d(liveMultiple), d(liveParallel), d(liveParallelMultiple), d(liveIrrelevance), d(liveRelevance)],
    multi_turn: ['N/A', model, d(overallMultiTurn), d(mtBase), d(mtMissFunc), d(mtMissParam), d(mtLong)],
    agentic: ['N/A', model, d(overallAgentic), d(webSearch), d(webBase), d(webNoSnippet), d(memory), d(memKv), d(memVector), d(memRecSum)],
    overall: [
      'N/A', d(total), model, 'N/A', 'N/A', 'N/A', 'N/A', 'N/A',
      d(summaryNonLive), d(simple), d(multiple), d(parallel), d(parallelMultiple),
      d(overallLive), d(liveSimple), d(liveMultiple), d(liveParallel), d(liveParallelMultiple),
      d(overallMultiTurn), d(mtBase), d(mtMissFunc), d(mtMissParam), d(mtLong),
      d(webSearch), d(webBase), d(webNoSnippet), d(memory), d(memKv), d(memVector), d(memRecSum),
      d(liveRelevance), d(totalIrrelevance), fsDelta, fsStd, 'N/A', 'N/A',
    ],
    format_sensitivity: ['N/A', model, fsDelta, fsStd, ...fsConfigs],
  }
}

/** The column each table is ranked by (BFCL's `sort_column_index`): the overall accuracy, or the table's own. */
const SORT_COLUMN = { non_live: 2, live: 2, multi_turn: 2, agentic: 2, format_sensitivity: 2, overall: 1 } as const
type Table = keyof typeof SORT_COLUMN

/** A cell's sort key as BFCL's `write_score_csv_file` takes it: the value, `N/A` as -1 (below every accuracy). */
function sortKey(v: string | number | undefined): number {
  if (v === undefined || v === 'N/A') return -1
  return typeof v === 'number' ? v : Number(v)
}

/**
 * A table's text as the leaderboard writes it: header, then the rows by the table's sort column, highest first
 * (a stable sort, as Python's with `reverse=True`: tied rows keep the order the models were given), ranked from 1;
 * no newline after the last line.
 */
function csvText(header: readonly string[], rows: readonly (string | number)[][], column: number): string {
  const sorted = rows.map((row, i) => ({ row, i, key: sortKey(row[column]) })).sort((a, b) => b.key - a.key || a.i - b.i)
  const lines = sorted.map(({ row }, rank) => row.map((v, j) => (j === 0 ? String(rank + 1) : typeof v === 'string' ? v : percentCell(v))).join(','))
  return [header.join(','), ...lines].join('\n')
}

/** The six CSV files, by file name, for one model's category scores. */
export function leaderboardCsvFiles(scores: Scores, model: string): Record<string, string> {
  return leaderboardCsvFilesOf([{ scores, model }])
}

/** The six CSV files over several models, one row each, ranked per table as `generate_leaderboard_csv` ranks them. */
export function leaderboardCsvFilesOf(models: readonly { scores: Scores; model: string }[]): Record<string, string> {
  const rows = models.map(({ scores, model }) => leaderboardRows(scores, model))
  const table = (name: Table, header: readonly string[]) => csvText(header, rows.map((r) => r[name]), SORT_COLUMN[name])
  return {
    'data_non_live.csv': table('non_live', COLUMNS_NON_LIVE),
    'data_live.csv': table('live', COLUMNS_LIVE),
    'data_multi_turn.csv': table('multi_turn', COLUMNS_MULTI_TURN),
    'data_agentic.csv': table('agentic', COLUMNS_AGENTIC),
    'data_format_sensitivity.csv': table('format_sensitivity', COLUMNS_FORMAT_SENSITIVITY),
    'data_overall.csv': table('overall', COLUMNS_OVERALL),
  }
}
