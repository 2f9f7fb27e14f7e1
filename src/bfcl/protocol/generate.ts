/**
 * `tool-evals bfcl run`'s generation: each entry of a category sent through an `openaiCompatible` provider with BFCL's
 * wire (`wire: 'bfcl'`), shaped as BFCL's OpenAI-compatible handler shapes it (gorilla 8db0b7ca), and its result line
 * in BFCL's layout (`{id, result, input_token_count, output_token_count, latency}`), which `bfcl evaluate` reads.
 *
 * - single turn, function calling: the hinted functions as tools, the first turn's messages; the result is
 *   `[{name: "arguments"}]` from the reply's `tool_calls` (a list, even empty), else the reply's text;
 * - single turn, prompting: the system prompt with the function docs, no tools; the result is the reply's text;
 * - multi-turn, function calling: BFCL's protocol through the agent loop (`bfclMultiTurn`: simulated APIs, step
 *   limit, force-termination, held-out functions), the reply's message echoed; per turn, per step, as above.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ChatMessage } from '../../calls/types.js'
import { bfclOpenAITools, hintedFunctions, withPromptingSystemPrompt } from '../data/request.js'
import type { Sample } from '../../data/types.js'
import { runAgent } from '../../eval/agent.js'
import { bfclMultiTurn } from './multi-turn.js'
import type { ModelOutput, ModelProvider } from '../../models/types.js'
import { dataFileName } from '../checker/categories.js'
import { parseJsonLines } from '../checker/files.js'
import { isPyDict, type PyValue } from '../../python/operations.js'
import type { BfclEnvironmentName } from './environment.js'
import { runPromptingEntry, type PromptingEntry } from './prompting-turns.js'

export type BfclMode = 'fc' | 'prompting'

/** One line of a BFCL result file. */
export interface BfclResultRecord {
  id: string
  result: unknown
  input_token_count: number | number[][]
  output_token_count: number | number[][]
  latency: number | number[][]
}

export interface GenerateSettings {
  provider: ModelProvider
  mode: BfclMode
  /** Entries in flight at once. */
  concurrency: number
  limit?: number
  /** Entries not to ask (answered in an earlier run); they are left out of `records`. */
  skip?: ReadonlySet<string>
  /** Called once, before the first request, with the ids of the entries to ask and how many `skip` left out. */
  onStart?: (toAsk: readonly string[], skipped: number) => void
  /** Called with each entry's record as soon as it is answered (`error`: its generation failed). */
  onRecord?: (record: BfclResultRecord, error?: string) => void
}

export interface GeneratedCategory {
  records: BfclResultRecord[]
  /** `id: message` of each entry whose generation failed (its result is BFCL's "Error during inference: ..."). */
  errors: string[]
  requests: number
}

/** What one reply gave: BFCL's `model_responses` for it, and its usage. */
export interface Step {
  response: unknown
  input: number
  output: number
  latencyS: number
}

/** BFCL's `model_responses` of a reply: `[{name: arguments}]` when `tool_calls` is a list (FC), else the text. */
export function modelResponses(message: Record<string, unknown> | undefined, mode: BfclMode): unknown {
  if (message === undefined) return null
  const toolCalls = message['tool_calls']
  if (mode === 'fc' && Array.isArray(toolCalls)) {
    return toolCalls.map((tc: { function?: { name?: unknown; arguments?: unknown } }) => ({ [String(tc.function?.name)]: tc.function?.arguments }))
  }
  return message['content'] ?? null
}

function stepOf(output: ModelOutput, mode: BfclMode): Step {
  return {
    response: modelResponses(output.message, mode),
    input: output.usage?.promptTokens ?? 0,
    output: output.usage?.completionTokens ?? 0,
    latencyS: (output.usage?.latencyMs ?? 0) / 1000,
  }
}

/** The provider, recording each reply of one entry in order (one entry's steps run one after the other). */
export function recording(provider: ModelProvider, mode: BfclMode): { provider: ModelProvider; steps: Step[] } {
  const steps: Step[] = []
  const wrapped: ModelProvider = {
    ...provider,
    async generate(sample, options) {
      const output = await provider.generate(sample, options)
      steps.push(stepOf(output, mode))
      return output
    },
  }
  return { provider: wrapped, steps }
}

/** A category's data lines (single-turn folder, or its `multi_turn/` folder for multi-turn categories). */
function dataLines(dir: string, category: string, limit?: number): { json: Record<string, unknown>; py: PyValue }[] {
  const file = join(dir, dataFileName(category))
  const parsed = parseJsonLines(readFileSync(file, 'utf8'), file)
  if (parsed.errors.length > 0) throw new Error(parsed.errors.map((e) => e.message).join('\n'))
  const lines = parsed.lines.map((l) => ({ json: l.json as Record<string, unknown>, py: l.py }))
  return limit === undefined ? lines : lines.slice(0, limit)
}

/** One single-turn entry's request, as BFCL's handler builds it. */
export function singleTurnSample(category: string, json: Record<string, unknown>, py: PyValue, mode: BfclMode): Sample {
  const id = String(json['id'])
  const functions = isPyDict(py) && Array.isArray(py.get('function')) ? (py.get('function') as PyValue[]) : []
  const hinted = hintedFunctions(functions, category)
  const question = (json['question'] as ChatMessage[][])[0] ?? []
  if (mode === 'fc') return { id, messages: question, tools: bfclOpenAITools(hinted), expected: [] }
  return { id, messages: withPromptingSystemPrompt(question, hinted), expected: [] }
}

async function singleTurn(sample: Sample, settings: GenerateSettings): Promise<{ record: BfclResultRecord; requests: number }> {
  const { provider, steps } = recording(settings.provider, settings.mode)
  await provider.generate(sample)
  const s = steps[0]!
  return { record: { id: sample.id, result: s.response, input_token_count: s.input, output_token_count: s.output, latency: s.latencyS }, requests: 1 }
}

/** Per turn, per step: BFCL's nesting of a multi-turn entry's responses and counts. */
export function byTurn<T>(steps: readonly Step[], turns: readonly number[], turnCount: number, pick: (s: Step) => T): T[][] {
  const out: T[][] = Array.from({ length: turnCount }, () => [])
  steps.forEach((s, i) => out[turns[i] ?? 0]?.push(pick(s)))
  return out
}

async function multiTurn(sample: Sample, options: ReturnType<typeof bfclMultiTurn>, settings: GenerateSettings): Promise<{ record: BfclResultRecord; requests: number }> {
  const info = sample.extra?.['bfclMultiTurn'] as { inferenceError?: string } | undefined
  const { provider, steps } = recording(settings.provider, settings.mode)
  const env = await options.environment(sample)
  const run = await runAgent(provider, sample, env, { maxSteps: options.maxSteps })
  const turns = run.trajectory.steps.map((s) => s.turn)
  const n = run.trajectory.turns
  const result = info?.inferenceError !== undefined ? `Error during inference: ${info.inferenceError}` : byTurn(steps, turns, n, (s) => s.response)
  return {
    record: {
      id: sample.id,
      result,
      input_token_count: byTurn(steps, turns, n, (s) => s.input),
      output_token_count: byTurn(steps, turns, n, (s) => s.output),
      latency: byTurn(steps, turns, n, (s) => s.latencyS),
    },
    requests: steps.length,
  }
}

/** A multi-turn entry in prompting mode (`prompting-turns.ts`), as a result record. */
async function promptingMultiTurn(category: string, line: { json: Record<string, unknown>; py: PyValue }, multiDir: string, settings: GenerateSettings): Promise<{ record: BfclResultRecord; requests: number }> {
  const config = isPyDict(line.py) ? line.py.get('initial_config') : undefined
  const entry: PromptingEntry = {
    id: String(line.json['id']),
    category,
    question: line.json['question'] as ChatMessage[][],
    classes: (line.json['involved_classes'] as BfclEnvironmentName[]) ?? [],
    config: isPyDict(config) ? config : new Map(),
    missed: (line.json['missed_function'] ?? {}) as Record<string, string[]>,
  }
  const run = await runPromptingEntry(entry, join(multiDir, 'multi_turn_func_doc'), settings.provider)
  const steps = run.steps.map((s) => ({ ...stepOf(s.output, 'prompting'), response: s.response }))
  const turns = run.steps.map((s) => s.turn)
  const n = run.turns
  return {
    record: {
      id: entry.id,
      result: run.error !== undefined ? `Error during inference: ${run.error}` : byTurn(steps, turns, n, (s) => s.response),
      input_token_count: byTurn(steps, turns, n, (s) => s.input),
      output_token_count: byTurn(steps, turns, n, (s) => s.output),
      latency: byTurn(steps, turns, n, (s) => s.latencyS),
    },
    requests: steps.length,
  }
}

/** Run `work` over `items` with at most `concurrency` in flight; results in input order. */
export async function pool<T, R>(items: readonly T[], concurrency: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const i = next++
      out[i] = await work(items[i]!)
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker))
  return out
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}

/**
 * Generate a category's results. `dataDir` holds the single-turn files and `multiDir` the multi-turn ones. An entry
 * whose generation fails gets BFCL's own result for it (`Error during inference: <message>`), so it counts as wrong,
 * and is listed in `errors`.
 */
export async function generateCategory(category: string, dataDir: string, multiDir: string, multi: boolean, settings: GenerateSettings): Promise<GeneratedCategory> {
  let samples: Sample[]
  let run: (sample: Sample) => Promise<{ record: BfclResultRecord; requests: number }>
  if (multi) {
    if (settings.mode === 'prompting') {
      const lines = dataLines(multiDir, category, settings.limit)
      samples = lines.map((l) => ({ id: String(l.json['id']), messages: [], expected: [], extra: { line: l } }))
      run = (s) => promptingMultiTurn(category, s.extra!['line'] as { json: Record<string, unknown>; py: PyValue }, multiDir, settings)
    } else {
        const options = bfclMultiTurn({ dataDir: multiDir, category, ...(settings.limit !== undefined ? { limit: settings.limit } : {}) })
      samples = options.data.map((d) => {
        const { id, messages, turns, tools, expected, ...extra } = d as unknown as Sample & Record<string, unknown>
        return { id, messages, turns, tools, expected, extra } as Sample
      })
      run = (s) => multiTurn(s, options, settings)
    }
  } else {
    samples = dataLines(dataDir, category, settings.limit).map((l) => singleTurnSample(category, l.json, l.py, settings.mode))
    run = (s) => singleTurn(s, settings)
  }
  return generateEntries(samples, settings, run)
}

/** The entries `settings.skip` does not name, announced to `settings.onStart`. */
export function entriesToAsk<T>(entries: readonly T[], id: (e: T) => string, settings: GenerateSettings): T[] {
  const todo = settings.skip === undefined ? [...entries] : entries.filter((e) => !settings.skip!.has(id(e)))
  settings.onStart?.(todo.map(id), entries.length - todo.length)
  return todo
}

/**
 * Ask each sample not skipped, `settings.concurrency` at a time; a failed one gets BFCL's own result
 * (`Error during inference: <message>`) and is listed in `errors`. Each record goes to `settings.onRecord` as soon as
 * it is made.
 */
export async function generateEntries(
  samples: readonly Sample[],
  settings: GenerateSettings,
  run: (sample: Sample) => Promise<{ record: BfclResultRecord; requests: number }>,
): Promise<GeneratedCategory> {
  const errors: string[] = []
  let requests = 0
  const records = await pool(entriesToAsk(samples, (s) => s.id, settings), settings.concurrency, async (sample) => {
    let record: BfclResultRecord
    let error: string | undefined
    try {
      const r = await run(sample)
      requests += r.requests
      record = r.record
    } catch (err) {
      error = `${sample.id}: ${errorText(err)}`
      errors.push(error)
      record = { id: sample.id, result: `Error during inference: ${errorText(err)}`, input_token_count: 0, output_token_count: 0, latency: 0 }
    }
    settings.onRecord?.(record, error)
    return record
  })
  return { records, errors, requests }
}
