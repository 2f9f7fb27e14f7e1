/**
 * `tool-evals bfcl`: scores a model's recorded BFCL results with the leaderboard's AST checker and prints one JSON
 * line per category; `--score-dir` writes score files in the leaderboard's own layout.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { basename, join, resolve } from 'node:path'
import { formatPercent, summarizeBfcl, type CategoryCount } from '../checker/aggregate.js'
import { BFCL_V4_SIZES, leaderboardCsvFiles, leaderboardRows, percentCell } from '../checker/leaderboard.js'

/** The categories the overall accuracy is made of (every scoring category but live_relevance). */
const OVERALL_PARTS = Object.keys(BFCL_V4_SIZES).filter((c) => c !== 'live_relevance')
import { BFCL_CATEGORIES, isBfclCategory, scoreFileName, unsupportedReason } from '../checker/categories.js'
import { findResultsFile, loadCategoryData, loadCategoryResults, resultCategories } from '../checker/files.js'
import { scoreCategory, scoreFileText, type BfclCategoryScore, type BfclScoreOptions } from '../checker/score.js'
import { ApiSession } from '../multi-turn/api.js'
import { isMultiTurnCategory, multiTurnScoreFileText, scoreMultiTurnCategory, type MultiTurnCategoryScore } from '../multi-turn/category.js'
import { CHECKER_ERROR } from '../multi-turn/checker.js'
import { describeThrown } from '../../calls/thrown.js'
import { BFCL_ALL_CATEGORIES, bfclGroupFolder } from './groups.js'
import { needsUnderscoreToDot } from '../checker/name-mapping.js'
import { isAgenticCategory } from '../agentic/checker.js'
import { scoreAgenticCategory } from '../agentic/category.js'
import { printable } from '../../calls/printable.js'
import { EXIT_BAD_INPUT, EXIT_OK, UsageError, writeLine, type Command, type OptionValues } from '../../cli/command.js'
import { scoreFormatSensitivityCategory } from '../checker/format-sensitivity.js'
import { expectedIds, lineIds } from './expected-ids.js'

const FORMATS = ['auto', 'function-calling', 'prompting'] as const
const MATCHINGS = ['greedy', 'optimal'] as const

function oneOf<T extends string>(values: OptionValues, name: string, allowed: readonly T[], fallback: T): T {
  const v = values[name] ?? fallback
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
    throw new UsageError(`--${name} must be one of ${allowed.join(', ')}, got '${String(v)}'`)
  }
  return v as T
}

function requiredDir(values: OptionValues, name: string): string {
  const v = values[name]
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} DIR is required`)
  return v
}

/** Verdicts that differ between greedy and optimal parallel matching (optimal can only turn failures into passes). */
function changedVerdicts(greedy: BfclCategoryScore, optimal: BfclCategoryScore): string[] {
  const before = new Map(greedy.entries.map((e) => [e.id, e.valid]))
  return optimal.entries.filter((e) => before.get(e.id) !== e.valid).map((e) => e.id)
}

/** The options a category is scored with: `underscoreToDot` turned on, with a note, where its results need it. */
function mappedNames(category: string, input: Parameters<typeof needsUnderscoreToDot>[0], options: BfclScoreOptions, stderr: NodeJS.WritableStream): BfclScoreOptions {
  if (options.underscoreToDot === true || !needsUnderscoreToDot(input)) return options
  stderr.write(`tool-evals bfcl: ${printable(category)}: the results call dotted functions with underscores (math_factorial for math.factorial); scoring with --underscore-to-dot, as the leaderboard does for such models\n`)
  return { ...options, underscoreToDot: true }
}

function positiveInteger(values: OptionValues, name: string): number {
  const v = values[name]
  const n = Number(v)
  if (typeof v !== 'string' || v.trim() === '' || !Number.isInteger(n) || n < 1) throw new UsageError(`--${name} must be a positive integer, got '${String(v)}'`)
  return n
}

/**
 * The ids of the category's data (its first `limit`) that its results file lacks; undefined when either is unreadable.
 * `known` gives the data's ids (in order) and the results' ids where scoring has read them already.
 */
async function missingEntries(
  category: string,
  dataDir: string,
  resultsDir: string,
  limit: number | undefined,
  known: { expected?: readonly string[]; present?: Iterable<string | undefined> } = {},
): Promise<{ ids: string[]; expected: number } | undefined> {
  const expected = known.expected === undefined ? expectedIds(category, dataDir, limit) : limit === undefined ? known.expected : known.expected.slice(0, limit)
  if (expected === undefined) return undefined
  let present: Set<string | undefined>
  if (known.present !== undefined) present = new Set(known.present)
  else {
    const file = await findResultsFile(resultsDir, category)
    if (file === undefined) return undefined
    present = new Set(lineIds(file))
  }
  return { ids: expected.filter((id) => !present.has(id)), expected: expected.length }
}

const SCORE_FILE = /^BFCL_v4_(.+)_score\.json$/

/** The accuracy lines of the score files already in a folder (earlier runs), by category, as the leaderboard reads them. */
/** The folders a score file may be in: OUT itself, and BFCL's group folders under it (`non_live/`, `agentic/memory/kv/`, ...). */
const SCORE_FOLDERS = ['', ...new Set(BFCL_ALL_CATEGORIES.map(bfclGroupFolder))]

export async function scoreFilesIn(dir: string): Promise<Record<string, CategoryCount>> {
  const out: Record<string, CategoryCount> = {}
  const files: string[] = []
  for (const folder of SCORE_FOLDERS) {
    let names: string[]
    try {
      names = await readdir(join(dir, folder))
    } catch {
      continue // no such group folder
    }
    for (const name of names) if (SCORE_FILE.test(name)) files.push(join(folder, name))
  }
  for (const file of files) {
    const m = SCORE_FILE.exec(basename(file))
    if (!m) continue
    try {
      const head = JSON.parse((await readFile(join(dir, file), 'utf8')).split('\n', 1)[0]!) as Partial<CategoryCount>
      // The whole header: format sensitivity's carries its spread and per-format accuracies for the CSVs.
      if (typeof head.accuracy === 'number' && typeof head.total_count === 'number') out[m[1]!] = { ...head, accuracy: head.accuracy, total_count: head.total_count }
    } catch {
      // not a score file this project can read: left out, as a category without a score
    }
  }
  return out
}

export const bfclCommand: Command = {
  name: 'bfcl',
  synopsis: '--data DIR --results DIR [--categories a,b] [--score-dir OUT] [options]',
  description: [
    "Scores recorded BFCL results with the leaderboard's AST checker and prints one JSON line per category:",
    '{"category", "accuracy", "correct_count", "total_count"}. Each entry\'s result is decoded as function-calling',
    'output (a list of {name: "json args"}) or prompting output (Python call syntax), detected per entry.',
    '',
    '  --data DIR            BFCL data: BFCL_v4_<category>.json and possible_answer/BFCL_v4_<category>.json',
    '                        (multi_turn_base, _miss_func, _miss_param, _long_context: executed against BFCL\'s',
    '                        simulated APIs; name them with --categories and point --data at the multi-turn folder)',
    '                        (web_search_base, web_search_no_snippet, memory_kv, memory_vector, memory_rec_sum:',
    '                        function-calling results, or prompting ones with --format prompting; BFCL\'s agentic',
    '                        checker; answers from DIR/agentic/possible_answer)',
    '  --results DIR         recorded results: BFCL_v4_<category>_result.json (or one folder below)',
    '  --categories a,b      categories to score (default: every category with a results file)',
    '  --score-dir OUT       write OUT/BFCL_v4_<category>_score.json as the leaderboard does: the accuracy line,',
    '                        then one line per failing entry with its id, error_type, error and the entry; and the',
    '                        leaderboard\'s summary CSVs (data_overall.csv, data_non_live.csv, data_live.csv,',
    '                        data_multi_turn.csv, data_agentic.csv) over every score file then in OUT, as the',
    '                        leaderboard does: a category without one is N/A (and counts 0 in the overall columns)',
    '  --group-folders       with --score-dir: each score file in its group\'s folder under OUT, as BFCL\'s',
    '                        evaluate lays out score/<model>/ (non_live/, live/, multi_turn/, agentic/,',
    '                        agentic/memory/<backend>/, format_sensitivity/); the CSVs stay in OUT and count',
    '                        the score files in both layouts',
    '  --model NAME          model_name in score files (default: the results folder\'s name)',
    '  --format F            auto (default), function-calling or prompting: how to decode every result',
    '  --parallel-matching M greedy (default, the leaderboard\'s) or optimal (finds a valid pairing of calls to',
    '                        answers whenever one exists); with optimal, each line also reports',
    '                        greedy_correct_count and verdicts_changed',
    '  --underscore-to-dot   compare function names with dots as underscores (models whose API forbids dots)',
    '  --summary             also print {"summary": ...}: the leaderboard\'s non-live, live and hallucination',
    '                        summaries; a missing category counts 0 and makes its summaries incomplete ("N/A")',
    '  --limit N             a complete results file holds the first N entries of each category (bfcl run --limit)',
    '  --partial-eval        results that lack entries of their category are not an error (BFCL\'s flag): the',
    '                        line is still marked partial, with missing_count, and scored over the entries present',
    '',
    'Java and JavaScript arguments are converted with the leaderboard\'s own type converters. Problems in the input',
    '(missing files, bad lines, unknown ids) are reported on stderr with file, line and field; an unusable results',
    'line counts as an incorrect entry. The exit code is then 1. Results that lack entries of their category are',
    'named on stderr (how many, which), scored over the entries present and their line marked "partial": true',
    'with missing_count; the exit code is 1 unless --partial-eval.',
  ].join('\n'),
  options: {
    data: { type: 'string' },
    results: { type: 'string' },
    categories: { type: 'string' },
    'score-dir': { type: 'string' },
    'group-folders': { type: 'boolean' },
    model: { type: 'string' },
    format: { type: 'string' },
    'parallel-matching': { type: 'string' },
    'underscore-to-dot': { type: 'boolean' },
    summary: { type: 'boolean' },
    limit: { type: 'string' },
    'partial-eval': { type: 'boolean' },
  },
  async run(values, _positionals, io) {
    const dataDir = requiredDir(values, 'data')
    const resultsDir = requiredDir(values, 'results')
    const format = oneOf(values, 'format', FORMATS, 'auto')
    const matching = oneOf(values, 'parallel-matching', MATCHINGS, 'greedy')
    const scoreDir = typeof values['score-dir'] === 'string' ? values['score-dir'] : undefined
    if (values['group-folders'] === true && scoreDir === undefined) throw new UsageError('--group-folders needs --score-dir')
    const writeScore = async (category: string, text: string): Promise<void> => {
      if (scoreDir === undefined) return
      const folder = values['group-folders'] === true ? join(scoreDir, bfclGroupFolder(category)) : scoreDir
      await mkdir(folder, { recursive: true })
      await writeFile(join(folder, scoreFileName(category)), text, 'utf8')
    }
    const modelName = typeof values['model'] === 'string' ? values['model'] : basename(resolve(resultsDir))
    const options: BfclScoreOptions = { format, parallelMatching: matching }
    if (values['underscore-to-dot'] === true) options.underscoreToDot = true

    const explicit = typeof values['categories'] === 'string'
    let categories: string[]
    if (explicit) {
      categories = (values['categories'] as string).split(',').map((c) => c.trim()).filter((c) => c !== '')
      if (categories.length === 0) throw new UsageError('--categories needs at least one category name')
    } else {
      // Memory prerequisite conversations (`memory_kv_prereq`) are inputs to the memory questions, never scored.
      const found = new Set((await resultCategories(resultsDir)).filter((c) => !/^memory_\w+_prereq$/.test(c)))
      categories = [...BFCL_CATEGORIES.filter((c) => found.has(c)), ...[...found].filter((c) => !isBfclCategory(c)).sort()]
      if (categories.length === 0) {
        io.stderr.write(`tool-evals bfcl: ${printable(resultsDir)}: no BFCL_v4_<category>_result.json files found\n`)
        return EXIT_BAD_INPUT
      }
    }

    let failed = false
    const warn = (message: string): void => {
      failed = true
      io.stderr.write(`tool-evals bfcl: ${printable(message)}\n`)
    }
    const limit = values['limit'] === undefined ? undefined : positiveInteger(values, 'limit')
    const partialEval = values['partial-eval'] === true
    const partial: string[] = []
    // A category's line, marked partial where its results lack entries of its data (BFCL's evaluate refuses such a
    // file unless --partial-eval, and then scores the entries present: these are those numbers).
    const emit = async (category: string, line: Record<string, unknown>, known?: Parameters<typeof missingEntries>[4]): Promise<void> => {
      const missing = await missingEntries(category, dataDir, resultsDir, limit, known)
      if (missing !== undefined && missing.ids.length > 0) {
        const n = missing.ids.length
        const some = missing.ids.slice(0, 5).join(', ') + (n > 5 ? `, and ${n - 5} more` : '')
        const message = `${category}: the results lack ${n} of the category's ${missing.expected} entries (${some}); accuracy and total_count are over the entries present, as BFCL's evaluate --partial-eval scores them (without that flag BFCL refuses the file)`
        if (partialEval) io.stderr.write(`tool-evals bfcl: ${printable(message)}\n`)
        else warn(message)
        line['partial'] = true
        line['missing_count'] = n
        partial.push(category)
      }
      await writeLine(io.stdout, JSON.stringify(line))
    }
    if (scoreDir !== undefined) await mkdir(scoreDir, { recursive: true })
    const scores: Record<string, CategoryCount> = {}

    // One session for the run: the reference scores every category in one process (shared mutable defaults).
    const session = new ApiSession()
    for (const category of categories) {
      if (isMultiTurnCategory(category)) {
        let score: MultiTurnCategoryScore
        let text: string
        try {
          score = await scoreMultiTurnCategory(dataDir, resultsDir, category, { modelName, session })
          text = multiTurnScoreFileText(score, modelName)
        } catch (e) {
          // Entries fail alone inside the checker; this is only for a failure outside any entry.
          warn(`${category}: internal error: ${describeThrown(e)}`)
          await writeLine(io.stdout, JSON.stringify({ category, error: `internal error: ${describeThrown(e)}` }))
          continue
        }
        for (const e of score.errors) warn(e)
        for (const e of score.entries) if (e.error_type === CHECKER_ERROR) warn(`${category}: ${e.id}: ${e.error_message}`)
        const line = { category, accuracy: score.accuracy, correct_count: score.correct_count, total_count: score.total_count }
        await emit(category, line, { ...(score.dataIds !== undefined ? { expected: score.dataIds } : {}), present: score.entries.map((e) => e.id) })
        scores[category] = line
        await writeScore(category, text)
        continue
      }
      if (category === 'format_sensitivity') {
        const score = await scoreFormatSensitivityCategory(dataDir, resultsDir, modelName)
        for (const e of score.errors) warn(e)
        const line = { category, accuracy: score.accuracy, correct_count: score.correct_count, total_count: score.total_count, accuracy_max_delta: score.maxDelta, accuracy_std: score.std }
        await emit(category, line)
        await writeScore(category, score.scoreFile)
        continue
      }
      if (isAgenticCategory(category)) {
        // BFCL decodes by the model's kind; results do not say it (a text step may be a prompting model's call).
        const score = await scoreAgenticCategory(dataDir, resultsDir, category, modelName, format === 'prompting' ? 'prompting' : 'function-calling')
        for (const e of score.errors) warn(e)
        const line = { category, accuracy: score.accuracy, correct_count: score.correct_count, total_count: score.total_count }
        await emit(category, line)
        scores[category] = line
        await writeScore(category, score.scoreFile)
        continue
      }
      if (!isBfclCategory(category)) {
        warn(`unknown category ${category} (known: ${BFCL_CATEGORIES.join(', ')})`)
        await writeLine(io.stdout, JSON.stringify({ category, error: `unknown category ${category}` }))
        continue
      }
      const unsupported = unsupportedReason(category)
      if (unsupported !== undefined) {
        // Requested by name it is an error; found among the results it is only skipped.
        if (explicit) warn(unsupported)
        else io.stderr.write(`tool-evals bfcl: skipping ${printable(unsupported)}\n`)
        await writeLine(io.stdout, JSON.stringify({ category, skipped: unsupported }))
        continue
      }
      const data = await loadCategoryData(dataDir, category)
      const results = await loadCategoryResults(resultsDir, category)
      for (const e of [...data.errors, ...results.errors]) warn(e)
      if (data.entries.size === 0 || results.file === undefined) {
        await writeLine(io.stdout, JSON.stringify({ category, error: [...data.errors, ...results.errors][0] ?? 'no data' }))
        continue
      }
      const input = { category, entries: data.entries, answers: data.answers, results: results.results }
      const categoryOptions = mappedNames(category, input, options, io.stderr)
      const score = scoreCategory(input, categoryOptions)
      for (const e of score.entries) if (e.error_type === 'input_error') warn(String(e.error[0]))

      const line: Record<string, unknown> = {
        category,
        accuracy: score.accuracy,
        correct_count: score.correct_count,
        total_count: score.total_count,
      }
      if (matching === 'optimal') {
        const greedy = scoreCategory(input, { ...categoryOptions, parallelMatching: 'greedy' })
        line['greedy_correct_count'] = greedy.correct_count
        line['verdicts_changed'] = changedVerdicts(greedy, score).length
      }
      await emit(category, line, { expected: [...data.entries.keys()], present: results.results.map((r) => r.id) })
      scores[category] = { accuracy: score.accuracy, total_count: score.total_count, correct_count: score.correct_count }
      await writeScore(category, scoreFileText(score, modelName))
    }

    if (scoreDir !== undefined) {
      const all = { ...(await scoreFilesIn(scoreDir)), ...scores }
      for (const [name, text] of Object.entries(leaderboardCsvFiles(all, modelName))) await writeFile(join(scoreDir, name), text, 'utf8')
    }

    if (values['summary'] === true) {
      const s = summarizeBfcl(scores)
      const summary: Record<string, unknown> = {}
      for (const [k, v] of Object.entries(s)) {
        summary[k] = { accuracy: v.accuracy, complete: v.complete, display: formatPercent(v), total_count: v.total_count }
      }
      // The leaderboard's v4 overall (weights 10/10/10/30/40; a missing category counts 0), as data_overall.csv has it.
      const overall = leaderboardRows(scores, modelName).overall[1] as number
      summary['overall'] = { accuracy: overall, display: percentCell(overall), complete: partial.length === 0 && OVERALL_PARTS.every((c) => c in scores) }
      if (partial.length > 0) summary['partial_categories'] = partial
      await writeLine(io.stdout, JSON.stringify({ summary }))
    }
    return failed ? EXIT_BAD_INPUT : EXIT_OK
  },
}
