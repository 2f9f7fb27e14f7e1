/**
 * `tool-evals bfcl run`: generates BFCL results from an OpenAI-compatible endpoint with BFCL's own request shapes,
 * writes them in BFCL's layout (`OUT/result/<model>/<group>/BFCL_v4_<category>_result.json`, which BFCL's
 * `bfcl evaluate` reads), scores them with `tool-evals bfcl` (score files in BFCL's layout under
 * `OUT/score/<model>/<group>/`, the leaderboard CSVs in `OUT/score/<model>/`) and prints one JSON line per category as
 * it ends, then the summary with the leaderboard's overall accuracy.
 * Each category's generation, result file and scoring are `run-category.ts`'s; this file plans the run (what is
 * skipped, what may be reused) before any request is sent.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { printable } from '../../calls/printable.js'
import { openaiCompatible } from '../../models/openai-compatible.js'
import { resultFileName } from '../checker/categories.js'
import { leaderboardRows } from '../checker/leaderboard.js'
import { bfclGroupFolder, BFCL_GROUPS, expandCategories, isMultiTurnName } from './groups.js'
import type { BfclMode } from '../protocol/generate.js'
import { EXIT_BAD_INPUT, EXIT_OK, UsageError, writeLine, type Command, type OptionValues } from '../../cli/command.js'
import { isAgenticCategory } from '../agentic/checker.js'
import { loadRecordedWebSearch } from '../agentic/web-search.js'
import { agenticRefusal } from '../protocol/agentic-generate.js'
import { entriesFile } from './expected-ids.js'
import { filesDigest, reuseRefusal, type RunIdentity } from './result-journal.js'
import { progressIntervalMs } from './progress.js'
import { runCategory, type CategoryContext, type PlannedCategory } from './run-category.js'

/** BFCL's `generate` default temperature. */
export const BFCL_DEFAULT_TEMPERATURE = 0.001

/** Time limit of one attempt of a request, in seconds (the endpoint provider's default). */
export const DEFAULT_TIMEOUT_S = 120

/** Categories this command generates; the others are refused by name with the reason. */
function notGenerated(category: string, mode: string, webSearch: boolean): string | undefined {
  if (isAgenticCategory(category)) return agenticRefusal(category, mode, webSearch)
  if (category === 'format_sensitivity' && mode !== 'prompting') return 'format_sensitivity: BFCL runs it for prompting models only (--mode prompting)'
  return undefined
}

function str(values: OptionValues, name: string, required = false): string | undefined {
  const v = values[name]
  if (v === undefined && !required) return undefined
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} ${name.toUpperCase().replace('-', '_')} is required`)
  return v
}

function num(values: OptionValues, name: string, fallback: number, integer: boolean): number {
  const v = values[name]
  if (v === undefined) return fallback
  const n = Number(v)
  if (typeof v !== 'string' || v.trim() === '' || !Number.isFinite(n) || (integer && (!Number.isInteger(n) || n < 1))) {
    throw new UsageError(`--${name} must be ${integer ? 'a positive integer' : 'a number'}, got '${String(v)}'`)
  }
  return n
}

/** The folder name BFCL gives a model's results (`/` is not a path separator there). */
export function modelDirName(model: string): string {
  return model.replace(/\//g, '_')
}

export const bfclRunCommand: Command = {
  name: 'bfcl run',
  synopsis: '--base-url URL --model NAME --data DIR --categories a,b --output-dir OUT [options]',
  description: [
    "Generates BFCL results from an OpenAI-compatible endpoint, with the requests BFCL's own handler sends",
    '(gorilla 8db0b7ca, openai_completion.py), writes them as BFCL does, scores them and prints one JSON line per',
    'category as it finishes (the scoring line of tool-evals bfcl, plus requests, inference_errors, tokens and mean',
    'latency of this run, and reused), then {"summary": ...} with the leaderboard\'s overall accuracy (weights',
    '10/10/10/30/40, N/A rules).',
    '',
    '  --base-url URL        the API root, e.g. http://127.0.0.1:8000/v1',
    '  --model NAME          the model name sent in each request',
    '  --data DIR            BFCL data: BFCL_v4_<category>.json, possible_answer/, and multi_turn/ for the',
    '                        multi-turn categories (or DIR itself when it holds them)',
    `  --categories a,b      categories or BFCL's groups (${Object.keys(BFCL_GROUPS).join(', ')})`,
    '  --output-dir OUT      OUT/result/<model>/<group>/BFCL_v4_<category>_result.json (BFCL\'s layout) and',
    '                        OUT/score/<model>/<group>/BFCL_v4_<category>_score.json (BFCL\'s layout), the',
    '                        leaderboard CSVs in OUT/score/<model>/',
    '  --mode M              fc (default: tools, BFCL\'s function-calling handler) or prompting (the system',
    '                        prompt with the function docs; calls decoded from the text)',
    `  --temperature T       default ${BFCL_DEFAULT_TEMPERATURE}, as BFCL's generate`,
    '  --api-key-env VAR     environment variable holding the API key (sent only as the Authorization header)',
    '  --concurrency N       entries in flight at once (default 8)',
    '  --limit N             the first N entries of each category',
    '  --retries N           retries of a failed request (default 4)',
    `  --timeout S           time limit of one attempt of a request, in seconds (default ${DEFAULT_TIMEOUT_S})`,
    '  --strict              a category that cannot be generated fails the run (exit code 1)',
    '  --web-search-results FILE  the web-search backend for web_search_*: recorded SerpAPI responses and pages',
    '                        ({"search": {region: {keywords: response}}, "fetch": {url: {mode: text}}}); no live search',
    '',
    'Each answered entry is appended to its result file at once (an interrupted run keeps every answer); the file',
    'is sorted by id when its category ends. A rerun with the same model, mode, temperature and data asks only the',
    'entries its result files lack (and those that failed), and never shrinks a result file; results written with',
    'other options are refused by name. Progress goes to stderr (a line every TOOL_EVALS_PROGRESS_INTERVAL seconds,',
    'default 15, when stderr is not a terminal).',
    '',
    'Function-calling mode sends dotted function names with underscores, as BFCL\'s handler does, and scores with',
    '--underscore-to-dot. An entry whose requests still fail is written as BFCL writes it ("Error during inference:',
    '..."), counts as wrong, and is reported on stderr; the exit code is then 1. Agentic categories run in both modes',
    '(memory_kv and memory_rec_sum with their prerequisite conversations; web search with --web-search-results);',
    'format_sensitivity in prompting mode (each entry under the 26 prompt formats; its line adds accuracy_max_delta',
    'and accuracy_std). memory_vector generation is not implemented. A category that cannot be generated is refused',
    'by name when named itself (exit code 1); reached through a group it is skipped, listed in the summary, and the',
    'overall score is marked partial.',
  ].join('\n'),
  options: {
    'base-url': { type: 'string' },
    model: { type: 'string' },
    data: { type: 'string' },
    categories: { type: 'string' },
    'output-dir': { type: 'string' },
    mode: { type: 'string' },
    temperature: { type: 'string' },
    'api-key-env': { type: 'string' },
    concurrency: { type: 'string' },
    limit: { type: 'string' },
    retries: { type: 'string' },
    timeout: { type: 'string' },
    strict: { type: 'boolean' },
    'web-search-results': { type: 'string' },
  },
  async run(values, _positionals, io) {
    const baseURL = str(values, 'base-url', true)!
    const model = str(values, 'model', true)!
    const dataDir = str(values, 'data', true)!
    const outDir = str(values, 'output-dir', true)!
    const names = (str(values, 'categories', true) ?? '').split(',').map((c) => c.trim()).filter((c) => c !== '')
    const mode = (values['mode'] ?? 'fc') as BfclMode
    if (mode !== 'fc' && mode !== 'prompting') throw new UsageError(`--mode must be fc or prompting, got '${String(mode)}'`)
    const temperature = num(values, 'temperature', BFCL_DEFAULT_TEMPERATURE, false)
    const concurrency = num(values, 'concurrency', 8, true)
    const limit = values['limit'] === undefined ? undefined : num(values, 'limit', 0, true)
    const maxRetries = values['retries'] === undefined ? 4 : num(values, 'retries', 4, false)
    const timeoutS = num(values, 'timeout', DEFAULT_TIMEOUT_S, false)
    if (!(timeoutS > 0)) throw new UsageError(`--timeout must be a positive number of seconds, got '${String(values['timeout'])}'`)
    const strict = values['strict'] === true
    const apiKeyEnv = str(values, 'api-key-env')
    const webSearchFile = str(values, 'web-search-results')
    const { categories, unknown } = expandCategories(names)
    if (unknown.length > 0) throw new UsageError(`unknown BFCL categories or groups: ${unknown.join(', ')} (groups: ${Object.keys(BFCL_GROUPS).join(', ')})`)
    const namedAlone = new Set(names.filter((n) => BFCL_GROUPS[n] === undefined))

    const multiDir = existsSync(join(dataDir, 'multi_turn')) ? join(dataDir, 'multi_turn') : dataDir
    const modelDir = modelDirName(model)
    const scoreDir = join(outDir, 'score', modelDir)
    let failed = false
    const warn = (m: string) => {
      failed = true
      io.stderr.write(`tool-evals bfcl run: ${printable(m)}\n`)
    }
    const note = (m: string) => io.stderr.write(`tool-evals bfcl run: ${printable(m)}\n`)

    let webSearch: ReturnType<typeof loadRecordedWebSearch> | undefined
    try {
      if (webSearchFile !== undefined) webSearch = loadRecordedWebSearch(webSearchFile)
    } catch (err) {
      throw new UsageError(`--web-search-results: ${err instanceof Error ? err.message : String(err)}`)
    }

    // The plan, before any request: what is skipped and why; results of other options refused, all named at once.
    const skipped: { category: string; reason: string }[] = []
    const planned: PlannedCategory[] = []
    const refusals: string[] = []
    for (const category of categories) {
      const reason = notGenerated(category, mode, webSearch !== undefined)
      if (reason !== undefined) {
        skipped.push({ category, reason })
        continue
      }
      const multi = isMultiTurnName(category)
      const dataIn = multi ? multiDir : dataDir
      const dir = join(outDir, 'result', modelDir, bfclGroupFolder(category))
      const files = [entriesFile(category, dataIn), ...(category.startsWith('web_search') && webSearchFile !== undefined ? [webSearchFile] : [])]
      const identity: RunIdentity = { model, mode, temperature, data: filesDigest(files) }
      const file = join(dir, resultFileName(category))
      const refusal = reuseRefusal(file, identity)
      if (refusal !== undefined) refusals.push(refusal)
      planned.push({ category, multi, dir, file, dataIn, identity })
    }
    if (refusals.length > 0) {
      for (const r of refusals) warn(r)
      return EXIT_BAD_INPUT
    }

    const provider = openaiCompatible({ baseURL, model, temperature, concurrency, maxRetries, timeoutMs: timeoutS * 1000, wire: 'bfcl', ...(apiKeyEnv !== undefined ? { apiKeyEnv } : {}) })
    const progress = { out: io.stderr, tty: (io.stderr as { isTTY?: boolean }).isTTY === true, intervalMs: progressIntervalMs() }
    const context: CategoryContext = { provider, mode, concurrency, model, dataDir, multiDir, scoreDir, modelDir, progress, note, warn, fail: () => (failed = true), ...(limit !== undefined ? { limit } : {}), ...(webSearch !== undefined ? { webSearch } : {}) }
    const interrupted = onInterrupt((signal) => {
      const kept = context.answered ?? 0
      io.stderr.write(`tool-evals bfcl run: interrupted (${signal}); the ${kept} entries answered in this run are kept in ${printable(join(outDir, 'result', modelDir))}: the same command asks only the rest\n`)
    })
    const scores: Record<string, { accuracy: number; total_count: number }> = {}
    const partial: string[] = []
    try {
      for (const category of categories) {
        const skip = skipped.find((s) => s.category === category)
        if (skip !== undefined) {
          // Named by itself, a category that cannot run is an error; reached through a group, it is skipped.
          if (strict || namedAlone.has(category)) warn(skip.reason)
          else note(`skipping ${skip.reason}`)
          await writeLine(io.stdout, JSON.stringify({ category, skipped: skip.reason }))
          continue
        }
        const plan = planned.find((p) => p.category === category)!
        const line = await runCategory(plan, context)
        if (line['partial'] === true || line['error'] !== undefined) partial.push(category)
        if (typeof line['accuracy'] === 'number') scores[category] = { accuracy: line['accuracy'], total_count: Number(line['total_count']) }
        await writeLine(io.stdout, JSON.stringify(line))
      }
    } finally {
      interrupted.dispose()
    }
    const overall = leaderboardRows(scores, model).overall
    const summary: Record<string, unknown> = { overall_accuracy: overall[1], categories: Object.keys(scores).length, score_dir: scoreDir, partial: skipped.length > 0 || partial.length > 0 }
    if (skipped.length > 0) summary['skipped'] = skipped
    if (partial.length > 0) summary['partial_categories'] = partial
    await writeLine(io.stdout, JSON.stringify({ summary }))
    return failed ? EXIT_BAD_INPUT : EXIT_OK
  },
}

/**
 * Until `dispose`, SIGINT and SIGTERM say what is kept (`say`) and end the process as the signal would (exit code
 * 130 or 143). Nothing is lost by ending there: every answered entry is already in its file.
 */
function onInterrupt(say: (signal: string) => void): { dispose(): void } {
  const handler = (signal: NodeJS.Signals) => {
    say(signal)
    process.exit(signal === 'SIGINT' ? 130 : 143)
  }
  process.once('SIGINT', handler)
  process.once('SIGTERM', handler)
  return {
    dispose() {
      process.off('SIGINT', handler)
      process.off('SIGTERM', handler)
    },
  }
}
