/**
 * `tool-evals bfcl run` for BFCL v4's agentic categories, in either mode, as BFCL's generation runs them
 * (gorilla 8db0b7ca: `utils.load_dataset_entry`, `process_web_search_test_case`, `process_memory_test_case`,
 * `process_agentic_test_case`, `base_handler.inference_multi_turn_FC`, `_llm_response_generation`'s dependencies):
 *
 * - web_search_base / web_search_no_snippet: the web-search questions with BFCL's answer-format system prompt first,
 *   the `WebSearchAPI` tools, calls run on the user's backend (`bfcl/agentic/web-search.ts`; without a snippet in
 *   no_snippet);
 * - memory_kv / memory_rec_sum: per scenario, the prerequisite conversations in order (each from the memory the last
 *   one left, the first from nothing; their results go to `BFCL_v4_<category>_prereq_result.json` and their
 *   snapshots to `memory_snapshot/`, as BFCL writes them), then the questions from the memory after the last one,
 *   each with the memory's system prompt (its current content) before the answer-format prompt.
 *
 * Every entry runs BFCL's multi-turn protocol: in function-calling mode through the agent loop (the step limit,
 * force-termination, tool results as `tool` messages with their call's id), in prompting mode as
 * `agentic-prompting.ts` runs it (the function docs' system prompt, calls decoded from the text).
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ChatMessage } from '../../calls/types.js'
import { bfclOpenAITools, hintedFunctions } from '../data/request.js'
import type { Sample } from '../../data/types.js'
import { runAgent } from '../../eval/agent.js'
import { AGENTIC_ANSWER_FORMAT_PROMPT, agenticEnvironment } from './web-search.js'
import { BFCL_MAX_STEPS } from './multi-turn.js'
import { instanceName, type AgenticApi } from '../agentic/executor.js'
import { parseJsonLines } from '../checker/files.js'
import { MEMORY_BACKENDS, MEMORY_SCENARIOS, memoryJson, withMemoryPrompt, type MemoryBackend } from '../agentic/memory.js'
import type { PyDict, PyValue } from '../../python/operations.js'
import { WebSearchApi, type WebSearchBackend } from '../agentic/web-search.js'
import { runAgenticPrompting } from './agentic-prompting.js'
import { byTurn, entriesToAsk, pool, recording, type BfclResultRecord, type GenerateSettings, type GeneratedCategory } from './generate.js'

const FUNC_DOCS: Record<string, string> = { WebSearchAPI: 'web_search.json', MemoryAPI_kv: 'memory_kv.json', MemoryAPI_rec_sum: 'memory_rec_sum.json' }

export interface AgenticSettings extends GenerateSettings {
  /** The model name BFCL builds instance names from (the request's model). */
  modelName: string
  /** Where BFCL's memory snapshots go: `OUT/result/<model>/<group folder>`. */
  resultDir: string
  webSearch?: WebSearchBackend
  /** Memory categories: called with each prerequisite conversation's record as soon as it is answered. */
  onPrereqRecord?: (record: BfclResultRecord, error?: string) => void
}

export interface GeneratedAgentic extends GeneratedCategory {
  /** Memory categories: the prerequisite conversations' results (`<category>_prereq`). */
  prereq?: BfclResultRecord[]
}

/** Why a category cannot be generated with these settings, or undefined. */
export function agenticRefusal(category: string, _mode: string, webSearch: boolean): string | undefined {
  if (category === 'memory_vector') {
    return 'memory_vector: BFCL embeds memories with sentence-transformers (all-MiniLM-L6-v2) in a FAISS index; that backend is not reproduced, so its generation is refused (score recorded results with tool-evals bfcl)'
  }
  if (category.startsWith('web_search') && !webSearch) return `${category}: needs --web-search-results FILE (recorded search results; no live search)`
  return undefined
}

/** The agentic data folder: `<data>/agentic/` or `<data>` itself. */
export function agenticDir(dataDir: string): string {
  return existsSync(join(dataDir, 'agentic')) ? join(dataDir, 'agentic') : dataDir
}

function lines(file: string): { json: Record<string, unknown>; py: PyValue }[] {
  const parsed = parseJsonLines(readFileSync(file, 'utf8'), file)
  if (parsed.errors.length > 0) throw new Error(parsed.errors.map((e) => e.message).join('\n'))
  return parsed.lines.map((l) => ({ json: l.json as Record<string, unknown>, py: l.py }))
}

interface Entry {
  id: string
  question: ChatMessage[][]
  className: string
  scenario?: string
  prereq: boolean
}

/** The entry's functions: its class's function docs with the data loader's (Python) hint. */
function hintedDocs(entry: Entry, funcDocDir: string): PyValue[] {
  const docs = lines(join(funcDocDir, FUNC_DOCS[entry.className]!)).map((l) => l.py)
  return hintedFunctions(docs, entry.id.replace(/_[^_]*$/, ''))
}

/** Run one entry; its result record (BFCL's "Error during inference: ..." when it fails) and whether it failed. */
async function runEntry(entry: Entry, first: ChatMessage[], api: AgenticApi, settings: AgenticSettings, funcDocDir: string): Promise<{ record: BfclResultRecord; requests: number; error?: string }> {
  const { provider, steps } = recording(settings.provider, settings.mode)
  const turns = [first, ...entry.question.slice(1)]
  const name = instanceName(settings.modelName, entry.id, api.className)
  try {
    let at: number[]
    let n: number
    if (settings.mode === 'prompting') {
      const run = await runAgenticPrompting(entry.id, turns, hintedDocs(entry, funcDocDir), api, name, provider)
      run.steps.forEach((s, i) => (steps[i]!.response = s.response))
      at = run.steps.map((s) => s.turn)
      n = run.turns
    } else {
      const sample: Sample = { id: entry.id, messages: turns[0]!, turns: turns.slice(1), tools: bfclOpenAITools(hintedDocs(entry, funcDocDir)), expected: [] }
      const run = await runAgent(provider, sample, agenticEnvironment(api, name), { maxSteps: BFCL_MAX_STEPS })
      at = run.trajectory.steps.map((s) => s.turn)
      n = run.trajectory.turns
    }
    return {
      record: {
        id: entry.id,
        result: byTurn(steps, at, n, (s) => s.response),
        input_token_count: byTurn(steps, at, n, (s) => s.input),
        output_token_count: byTurn(steps, at, n, (s) => s.output),
        latency: byTurn(steps, at, n, (s) => s.latencyS),
      },
      requests: steps.length,
    }
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err)
    return { record: { id: entry.id, result: `Error during inference: ${message}`, input_token_count: 0, output_token_count: 0, latency: 0 }, requests: steps.length, error: `${entry.id}: ${message}` }
  }
}

const withAnswerFormat = (messages: readonly ChatMessage[]): ChatMessage[] => [{ role: 'system', content: AGENTIC_ANSWER_FORMAT_PROMPT }, ...messages]

async function webSearch(category: string, dir: string, funcDocDir: string, settings: AgenticSettings): Promise<GeneratedAgentic> {
  let data = lines(join(dir, 'BFCL_v4_web_search.json'))
  if (settings.limit !== undefined) data = data.slice(0, settings.limit)
  const backend = settings.webSearch!
  const entries = data.map((l): Entry => ({ id: String(l.json['id']).replaceAll('web_search', category), question: l.json['question'] as ChatMessage[][], className: 'WebSearchAPI', prereq: false }))
  const out = await pool(entriesToAsk(entries, (e) => e.id, settings), settings.concurrency, async (entry) => {
    const r = await runEntry(entry, withAnswerFormat(entry.question[0] ?? []), new WebSearchApi(backend, !category.includes('no_snippet')), settings, funcDocDir)
    settings.onRecord?.(r.record, r.error)
    return r
  })
  return { records: out.map((o) => o.record), errors: out.flatMap((o) => (o.error !== undefined ? [o.error] : [])), requests: out.reduce((a, o) => a + o.requests, 0) }
}

/** BFCL's snapshot files: the entry's checkpoint and the scenario's latest state (`json.dump(..., indent=4)`). */
async function flush(settings: AgenticSettings, entry: Entry, snapshot: PyDict): Promise<void> {
  const folder = join(settings.resultDir, 'memory_snapshot')
  await mkdir(join(folder, 'prereq_checkpoints'), { recursive: true })
  const text = memoryJson(snapshot)
  await writeFile(join(folder, 'prereq_checkpoints', `${entry.id}.json`), text, 'utf8')
  await writeFile(join(folder, `${entry.scenario}_final.json`), text, 'utf8')
}

/** The index BFCL sorts an id by: the number after its last `_`, before any `-`. */
function compareKey(id: unknown): number {
  const text = String(id)
  return Number.parseInt(text.slice(text.lastIndexOf('_') + 1).split('-')[0]!, 10)
}

async function memory(category: string, dir: string, funcDocDir: string, settings: AgenticSettings): Promise<GeneratedAgentic> {
  const make = MEMORY_BACKENDS[category]
  if (make === undefined) throw new Error(`${category}: no memory backend`)
  const className = `MemoryAPI_${category.slice('memory_'.length)}`
  let questions = lines(join(dir, 'BFCL_v4_memory.json')).map((l): Entry => ({
    id: String(l.json['id']).replaceAll('memory', category),
    question: l.json['question'] as ChatMessage[][],
    className,
    scenario: String(l.json['scenario']),
    prereq: false,
  }))
  if (settings.limit !== undefined) questions = questions.slice(0, settings.limit)
  const scenarios = MEMORY_SCENARIOS.filter((s) => questions.some((q) => q.scenario === s))
  const records: BfclResultRecord[] = []
  const prereqRecords: BfclResultRecord[] = []
  const errors: string[] = []
  let requests = 0
  // The prerequisites first, each scenario's one after the other (each conversation starts from the memory the
  // previous one left); then the questions, each from its scenario's final memory. With one entry in flight the
  // order is BFCL's own with one thread (its sort_key: prerequisites by index, then questions by index).
  const latest = new Map<string, PyDict>()
  const runScenario = async (scenario: string) => {
    const prereqs = lines(join(dir, 'memory_prereq_conversation', `memory_${scenario}.json`)).map((l): Entry => ({
      id: String(l.json['id']).replaceAll('memory', category),
      question: l.json['question'] as ChatMessage[][],
      className,
      scenario,
      prereq: true,
    }))
    for (const entry of prereqs) {
      const backend = make(entry.id.endsWith('-0') ? undefined : latest.get(scenario))
      const r = await runEntry(entry, withMemoryPrompt(entry.question[0] ?? [], category, scenario, backend), backend, settings, funcDocDir)
      settings.onPrereqRecord?.(r.record, r.error)
      requests += r.requests
      prereqRecords.push(r.record)
      if (r.error !== undefined) errors.push(r.error)
      else {
        latest.set(scenario, backend.snapshot())
        await flush(settings, entry, backend.snapshot())
      }
    }
  }
  const byFirstPrereq = scenarios.map((s) => ({ s, first: compareKey(lines(join(dir, 'memory_prereq_conversation', `memory_${s}.json`))[0]?.json['id']) })).sort((a, b) => a.first - b.first)
  if (settings.concurrency === 1) for (const { s } of byFirstPrereq) await runScenario(s)
  else await Promise.all(scenarios.map(runScenario))
  settings.onStart?.(questions.map((q) => q.id), 0)
  const out = await pool(questions, settings.concurrency, async (entry) => {
    const backend: MemoryBackend = make(latest.get(entry.scenario!))
    const r = await runEntry(entry, withMemoryPrompt(withAnswerFormat(entry.question[0] ?? []), category, entry.scenario!, backend), backend, settings, funcDocDir)
    settings.onRecord?.(r.record, r.error)
    return r
  })
  for (const r of out) {
    requests += r.requests
    records.push(r.record)
    if (r.error !== undefined) errors.push(r.error)
  }
  return { records, errors, requests, prereq: prereqRecords }
}

/** Generate one agentic category (see the module comment); `agenticRefusal` first. */
export async function generateAgenticCategory(category: string, dataDir: string, multiDir: string, settings: AgenticSettings): Promise<GeneratedAgentic> {
  const dir = agenticDir(dataDir)
  const funcDocDir = join(multiDir, 'multi_turn_func_doc')
  if (category.startsWith('web_search')) return webSearch(category, dir, funcDocDir, settings)
  return memory(category, dir, funcDocDir, settings)
}
