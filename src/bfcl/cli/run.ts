/**
 * `tool-evals bfcl run`: generates BFCL results from an OpenAI-compatible endpoint with BFCL's own request shapes,
 * writes them in BFCL's layout (`OUT/result/<model>/<group>/BFCL_v4_<category>_result.json`, which BFCL's
 * `bfcl evaluate` reads), scores them with `tool-evals bfcl` (score files in BFCL's layout under `OUT/score/<model>/`,
 * the leaderboard CSVs there) and prints one JSON line per category, then the summary with the overall accuracy.
 */
import { existsSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { printable } from '../../calls/printable.js'
import { openaiCompatible } from '../../models/openai-compatible.js'
import { compareIds, resultFileName } from '../checker/categories.js'
import { leaderboardRows } from '../checker/leaderboard.js'
import { fromJson, pyJsonDumps } from '../../python/operations.js'
import type { JsonValue } from '../../calls/types.js'
import { bfclCommand } from './score.js'
import { bfclGroupFolder, BFCL_GROUPS, expandCategories, isMultiTurnName } from './groups.js'
import { generateCategory, type BfclMode, type BfclResultRecord, type GeneratedCategory } from '../protocol/generate.js'
import { EXIT_BAD_INPUT, EXIT_OK, UsageError, writeLine, type Command, type OptionValues } from '../../cli/command.js'
import { isAgenticCategory } from '../agentic/checker.js'
import { loadRecordedWebSearch } from '../agentic/web-search.js'
import { agenticRefusal, generateAgenticCategory } from '../protocol/agentic-generate.js'
import { generateFormatSensitivity } from '../protocol/format-sensitivity.js'

/** BFCL's `generate` default temperature. */
export const BFCL_DEFAULT_TEMPERATURE = 0.001

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

/** A result file's text as BFCL writes it: `json.dumps` of each line (Python separators, ASCII), sorted by id. */
export function resultFileText(records: readonly BfclResultRecord[]): string {
  const sorted = [...records].sort((a, b) => compareIds(a.id, b.id))
  return sorted.map((r) => pyJsonDumps(fromJson(r as unknown as JsonValue) ?? null, { ensureAscii: true })).join('\n') + '\n'
}

/** The folder name BFCL gives a model's results (`/` is not a path separator there). */
export function modelDirName(model: string): string {
  return model.replace(/\//g, '_')
}

function mean(xs: number[]): number | null {
  return xs.length === 0 ? null : xs.reduce((a, x) => a + x, 0) / xs.length
}

/** The per-category numbers the generation adds to the score line. */
function generationFields(g: GeneratedCategory): Record<string, unknown> {
  const flat = (v: number | number[][]) => (typeof v === 'number' ? [v] : v.flat())
  const latencies = g.records.flatMap((r) => flat(r.latency))
  return {
    requests: g.requests,
    inference_errors: g.errors.length,
    input_tokens: g.records.reduce((a, r) => a + flat(r.input_token_count).reduce((x, y) => x + y, 0), 0),
    output_tokens: g.records.reduce((a, r) => a + flat(r.output_token_count).reduce((x, y) => x + y, 0), 0),
    latency_mean_s: mean(latencies),
  }
}

export const bfclRunCommand: Command = {
  name: 'bfcl run',
  synopsis: '--base-url URL --model NAME --data DIR --categories a,b --output-dir OUT [options]',
  description: [
    "Generates BFCL results from an OpenAI-compatible endpoint, with the requests BFCL's own handler sends",
    '(gorilla 8db0b7ca, openai_completion.py), writes them as BFCL does, scores them and prints one JSON line per',
    'category (the scoring line of tool-evals bfcl, plus requests, inference_errors, tokens and mean latency),',
    'then {"summary": ...} with the leaderboard\'s overall accuracy (weights 10/10/10/30/40, N/A rules).',
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
    '  --web-search-results FILE  the web-search backend for web_search_*: recorded SerpAPI responses and pages',
    '                        ({"search": {region: {keywords: response}}, "fetch": {url: {mode: text}}}); no live search',
    '',
    'Function-calling mode sends dotted function names with underscores, as BFCL\'s handler does, and scores with',
    '--underscore-to-dot. An entry whose requests still fail is written as BFCL writes it ("Error during inference:',
    '..."), counts as wrong, and is reported on stderr; the exit code is then 1. Agentic categories run in both modes',
    '(memory_kv and memory_rec_sum with their prerequisite conversations; web search with --web-search-results);',
    'format_sensitivity in prompting mode (each entry under the 26 prompt formats; its line adds accuracy_max_delta',
    'and accuracy_std). memory_vector generation is not implemented: it is refused by name.',
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
    const apiKeyEnv = str(values, 'api-key-env')
    const webSearchFile = str(values, 'web-search-results')
    const { categories, unknown } = expandCategories(names)
    if (unknown.length > 0) throw new UsageError(`unknown BFCL categories or groups: ${unknown.join(', ')} (groups: ${Object.keys(BFCL_GROUPS).join(', ')})`)

    const multiDir = existsSync(join(dataDir, 'multi_turn')) ? join(dataDir, 'multi_turn') : dataDir
    const provider = openaiCompatible({ baseURL, model, temperature, concurrency, maxRetries, wire: 'bfcl', ...(apiKeyEnv !== undefined ? { apiKeyEnv } : {}) })
    const modelDir = modelDirName(model)
    const scoreDir = join(outDir, 'score', modelDir)
    let failed = false
    const warn = (m: string) => {
      failed = true
      io.stderr.write(`tool-evals bfcl run: ${printable(m)}\n`)
    }

    let webSearch: ReturnType<typeof loadRecordedWebSearch> | undefined
    try {
      if (webSearchFile !== undefined) webSearch = loadRecordedWebSearch(webSearchFile)
    } catch (err) {
      throw new UsageError(`--web-search-results: ${err instanceof Error ? err.message : String(err)}`)
    }
    const generated = new Map<string, GeneratedCategory>()
    const done: { category: string; multi: boolean; dir: string }[] = []
    for (const category of categories) {
      const refused = notGenerated(category, mode, webSearch !== undefined)
      if (refused !== undefined) {
        warn(refused)
        await writeLine(io.stdout, JSON.stringify({ category, skipped: refused }))
        continue
      }
      const multi = isMultiTurnName(category)
      const dir = join(outDir, 'result', modelDir, bfclGroupFolder(category))
      let g: GeneratedCategory
      try {
        const settings = { provider, mode, concurrency, ...(limit !== undefined ? { limit } : {}) }
        if (isAgenticCategory(category)) {
          const a = await generateAgenticCategory(category, dataDir, multiDir, { ...settings, modelName: model, resultDir: dir, ...(webSearch !== undefined ? { webSearch } : {}) })
          if (a.prereq !== undefined) {
            await mkdir(dir, { recursive: true })
            await writeFile(join(dir, resultFileName(`${category}_prereq`)), resultFileText(a.prereq), 'utf8')
          }
          g = a
        } else if (category === 'format_sensitivity') g = await generateFormatSensitivity(dataDir, settings)
        else g = await generateCategory(category, dataDir, multiDir, multi, settings)
      } catch (err) {
        warn(`${category}: ${err instanceof Error ? err.message : String(err)}`)
        await writeLine(io.stdout, JSON.stringify({ category, error: err instanceof Error ? err.message : String(err) }))
        continue
      }
      for (const e of g.errors) warn(`${category}: ${e}`)
      await mkdir(dir, { recursive: true })
      await writeFile(join(dir, resultFileName(category)), resultFileText(g.records), 'utf8')
      generated.set(category, g)
      done.push({ category, multi, dir })
    }

    // Scoring: `tool-evals bfcl` over what was written (single-turn, then multi-turn data), its lines augmented.
    const lines: Record<string, unknown>[] = []
    for (const multi of [false, true]) {
      const group = done.filter((d) => d.multi === multi)
      if (group.length === 0) continue
      for (const d of group) {
        const out = new PassThrough()
        let text = ''
        out.on('data', (c) => (text += String(c)))
        // Score files in BFCL's layout (score/<model>/<group>/), as its evaluate writes them and its CSV step reads them.
        const args: OptionValues = { data: multi ? multiDir : dataDir, results: d.dir, categories: d.category, 'score-dir': scoreDir, 'group-folders': true, model: modelDir }
        // BFCL scores function-calling models whose API forbids dots with underscore_to_dot: the tools said math_factorial.
        if (mode === 'fc') args['underscore-to-dot'] = true
        // A prompting model's agentic steps are all text: BFCL decodes them as a prompting model's.
        if (mode === 'prompting' && isAgenticCategory(d.category)) args['format'] = 'prompting'
        if ((await bfclCommand.run(args, [], { stdin: new PassThrough(), stdout: out, stderr: io.stderr })) !== EXIT_OK) failed = true
        for (const l of text.split('\n').filter((x) => x !== '')) {
          const line = { ...(JSON.parse(l) as Record<string, unknown>), ...generationFields(generated.get(d.category)!) }
          lines.push(line)
          await writeLine(io.stdout, JSON.stringify(line))
        }
      }
    }
    const scores: Record<string, { accuracy: number; total_count: number }> = {}
    for (const l of lines) if (typeof l['accuracy'] === 'number') scores[String(l['category'])] = { accuracy: l['accuracy'], total_count: Number(l['total_count']) }
    const overall = leaderboardRows(scores, model).overall
    await writeLine(io.stdout, JSON.stringify({ summary: { overall_accuracy: overall[1], categories: Object.keys(scores).length, score_dir: scoreDir } }))
    return failed ? EXIT_BAD_INPUT : EXIT_OK
  },
}
