/**
 * One category of `tool-evals bfcl run`: its result file opened for reuse and appends (`result-journal.ts`), the
 * entries it lacks generated with progress on stderr, the file sorted, and the category scored with
 * `tool-evals bfcl` at once, its line returned with this run's generation figures.
 */
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { compareIds, resultFileName } from '../checker/categories.js'
import { fromJson, pyJsonDumps } from '../../python/operations.js'
import type { JsonValue } from '../../calls/types.js'
import type { ModelProvider } from '../../models/types.js'
import { EXIT_OK, type OptionValues } from '../../cli/command.js'
import { isAgenticCategory } from '../agentic/checker.js'
import type { WebSearchBackend } from '../agentic/web-search.js'
import { generateAgenticCategory } from '../protocol/agentic-generate.js'
import { generateFormatSensitivity } from '../protocol/format-sensitivity.js'
import { generateCategory, type BfclMode, type BfclResultRecord, type GeneratedCategory, type GenerateSettings } from '../protocol/generate.js'
import { bfclCommand } from './score.js'
import { expectedIds } from './expected-ids.js'
import { CategoryProgress } from './progress.js'
import { ResultJournal } from './result-journal.js'
import type { RunIdentity } from './result-journal.js'

/** What a category of the run is: where its results go, and what they are generated with. */
export interface PlannedCategory {
  category: string
  multi: boolean
  /** The folder holding its result file (BFCL's group folder). */
  dir: string
  file: string
  /** The folder its data file is in (the multi-turn folder for multi-turn categories). */
  dataIn: string
  identity: RunIdentity
}

/** One result line as BFCL writes it: `json.dumps` (Python separators, ASCII). */
export function resultLine(record: BfclResultRecord): string {
  return pyJsonDumps(fromJson(record as unknown as JsonValue) ?? null, { ensureAscii: true })
}

/** A result file's text as BFCL writes it: its lines sorted by id. */
export function resultFileText(records: readonly BfclResultRecord[]): string {
  return [...records].sort((a, b) => compareIds(a.id, b.id)).map(resultLine).join('\n') + '\n'
}

/** What every category of a run shares. */
export interface CategoryContext {
  provider: ModelProvider
  mode: BfclMode
  concurrency: number
  limit?: number
  model: string
  dataDir: string
  multiDir: string
  scoreDir: string
  modelDir: string
  webSearch?: WebSearchBackend
  progress: { out: NodeJS.WritableStream; tty: boolean; intervalMs: number | undefined }
  /** A message on stderr; `warn` also makes the run's exit code 1. */
  note(message: string): void
  warn(message: string): void
  /** Make the run's exit code 1 (the reason is already on stderr). */
  fail(): void
  /** Entries answered in this run so far, over all categories (what an interruption keeps). */
  answered?: number
}

function mean(xs: number[]): number | null {
  return xs.length === 0 ? null : xs.reduce((a, x) => a + x, 0) / xs.length
}

/** The per-category numbers this run's generation adds to the score line. */
function generationFields(g: GeneratedCategory, reused: number): Record<string, unknown> {
  const flat = (v: number | number[][]) => (typeof v === 'number' ? [v] : v.flat())
  const latencies = g.records.flatMap((r) => flat(r.latency))
  return {
    requests: g.requests,
    inference_errors: g.errors.length,
    input_tokens: g.records.reduce((a, r) => a + flat(r.input_token_count).reduce((x, y) => x + y, 0), 0),
    output_tokens: g.records.reduce((a, r) => a + flat(r.output_token_count).reduce((x, y) => x + y, 0), 0),
    latency_mean_s: mean(latencies),
    reused,
  }
}

/**
 * The entries of the file a run keeps: every one that holds an answer (one recorded as failed is asked again). Memory
 * questions start from the memory their scenario's prerequisite conversations leave, which is not kept between runs:
 * a memory category is kept whole when every question it asks is answered, else asked again whole.
 */
function kept(plan: PlannedCategory, journal: ResultJournal, limit: number | undefined): Set<string> {
  const answered = new Set([...journal.lines.keys()].filter((id) => !journal.failed.has(id)))
  if (!plan.category.startsWith('memory_')) return answered
  const expected = expectedIds(plan.category, plan.dataIn, limit) ?? []
  return expected.length > 0 && expected.every((id) => answered.has(id)) ? answered : new Set()
}

/** Generate what the category's result file lacks, append each answer at once, sort the file, score it. */
export async function runCategory(plan: PlannedCategory, ctx: CategoryContext): Promise<Record<string, unknown>> {
  const { category } = plan
  await mkdir(plan.dir, { recursive: true })
  const journal = new ResultJournal(plan.file, plan.identity)
  for (const d of journal.dropped) ctx.note(d)
  const keep = kept(plan, journal, ctx.limit)
  const memory = category.startsWith('memory_')
  const prereq = memory && keep.size === 0 ? new ResultJournal(join(plan.dir, resultFileName(`${category}_prereq`)), plan.identity) : undefined
  const progress = new CategoryProgress(ctx.progress.out, category, ctx.progress)
  let reused = 0
  const start = (toAsk: readonly string[], skipped: number) => {
    reused = skipped
    progress.begin(toAsk.length, skipped)
    const failed = toAsk.filter((id) => journal.failed.has(id)).length
    if (skipped > 0 || failed > 0) {
      const again = failed > 0 ? ` (${failed} that failed before asked again)` : ''
      ctx.note(`${category}: ${skipped} of ${skipped + toAsk.length} entries reused from ${plan.file}; asking ${toAsk.length}${again}`)
    }
  }
  const settings: GenerateSettings = {
    provider: ctx.provider,
    mode: ctx.mode,
    concurrency: ctx.concurrency,
    skip: keep,
    onStart: start,
    onRecord: (record, error) => {
      journal.append(record.id, resultLine(record), error !== undefined)
      ctx.answered = (ctx.answered ?? 0) + 1
      progress.tick(error !== undefined)
    },
    ...(ctx.limit !== undefined ? { limit: ctx.limit } : {}),
  }
  let g: GeneratedCategory
  try {
    if (memory && prereq === undefined) {
      // Every question answered: nothing to ask, the prerequisites included.
      const questions = expectedIds(category, plan.dataIn, ctx.limit) ?? []
      start([], questions.length)
      g = { records: [], errors: [], requests: 0 }
    } else if (isAgenticCategory(category)) {
      g = await generateAgenticCategory(category, ctx.dataDir, ctx.multiDir, {
        ...settings,
        modelName: ctx.model,
        resultDir: plan.dir,
        ...(prereq !== undefined ? { onPrereqRecord: (r: BfclResultRecord) => prereq.append(r.id, resultLine(r)) } : {}),
        ...(ctx.webSearch !== undefined ? { webSearch: ctx.webSearch } : {}),
      })
    } else if (category === 'format_sensitivity') g = await generateFormatSensitivity(ctx.dataDir, settings)
    else g = await generateCategory(category, ctx.dataDir, ctx.multiDir, plan.multi, settings)
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err)
    ctx.warn(`${category}: ${message}`)
    return { category, error: message }
  } finally {
    progress.end()
    journal.finish()
    prereq?.finish()
  }
  for (const e of g.errors) ctx.warn(`${category}: ${e}`)
  return { ...(await scoreLine(plan, ctx)), ...generationFields(g, reused) }
}

/** The category's line of `tool-evals bfcl` over its result file (which also writes its score file). */
async function scoreLine(plan: PlannedCategory, ctx: CategoryContext): Promise<Record<string, unknown>> {
  const out = new PassThrough()
  let text = ''
  out.on('data', (c) => (text += String(c)))
  // Score files in BFCL's layout (score/<model>/<group>/), as its evaluate writes them and its CSV step reads them.
  const args: OptionValues = { data: plan.dataIn, results: plan.dir, categories: plan.category, 'score-dir': ctx.scoreDir, 'group-folders': true, model: ctx.modelDir }
  if (ctx.limit !== undefined) args['limit'] = String(ctx.limit)
  // BFCL scores function-calling models whose API forbids dots with underscore_to_dot: the tools said math_factorial.
  if (ctx.mode === 'fc') args['underscore-to-dot'] = true
  // A prompting model's agentic steps are all text: BFCL decodes them as a prompting model's.
  if (ctx.mode === 'prompting' && isAgenticCategory(plan.category)) args['format'] = 'prompting'
  const code = await bfclCommand.run(args, [], { stdin: new PassThrough(), stdout: out, stderr: ctx.progress.out })
  const line = text.split('\n').find((l) => l !== '')
  if (code !== EXIT_OK) ctx.fail()
  return line === undefined ? { category: plan.category, error: 'no score line' } : (JSON.parse(line) as Record<string, unknown>)
}
