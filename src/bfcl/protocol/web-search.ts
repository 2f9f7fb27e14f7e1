/**
 * BFCL v4's web-search categories inside `vitest run`, with the search backend a user supplies:
 *
 *   describeEval('web_search_base', {
 *     model: openaiCompatible({ baseURL, model: 'my-model', wire: 'bfcl', temperature: 0.001 }),
 *     ...bfclWebSearch({ dataDir: '../shared/bfcl', backend: { search: mySerpApiCall, fetch: myPageFetch } }),
 *   })
 *
 * Each question runs BFCL's multi-turn protocol through the agent loop (its step limit), with BFCL's answer-format
 * system prompt first and the `WebSearchAPI` tools; calls run on the backend as BFCL's executor runs them
 * (`bfcl/agentic/web-search.ts`: the backend gives SerpAPI's response and each page's text per mode; BFCL's shaping is
 * applied on top). The agentic checker scores each entry in the run (`bfcl_accuracy`). `tool-evals bfcl run
 * --web-search-results FILE` runs the same protocol from a recorded file.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ChatMessage } from '../../calls/types.js'
import { bfclOpenAITools, hintedFunctions } from '../data/request.js'
import type { Sample } from '../../data/types.js'
import { callString, EXECUTION_ERROR, executeAgenticCall, instanceName, type AgenticApi } from '../agentic/executor.js'
import { scoreAgenticEntry, type AgenticVerdict } from '../agentic/checker.js'
import { parseJsonLines } from '../checker/files.js'
import { fromJson, type PyValue } from '../../python/operations.js'
import { NotRecordedError, WebSearchApi, type WebSearchBackend } from '../agentic/web-search.js'
import type { Scorer } from '../../score/scorer.js'
import { bfclScorer, type BfclRecord } from '../scorer/scorer.js'
import type { JsonValue } from '../../calls/types.js'
import { ToolRuntimeError, type AgentEnvironment, type AgentOptions } from '../../eval/agent.js'
import { BFCL_MAX_STEPS, bfclResult } from './multi-turn.js'

/** BFCL's `ADDITIONAL_SYSTEM_PROMPT_FOR_AGENTIC_RESPONSE_FORMAT`, first in every agentic question. */
export const AGENTIC_ANSWER_FORMAT_PROMPT =
  "For your final answer to the user, you must respond in this format: {'answer': A short and precise answer to the question, 'context': A brief explanation of how you arrived at this answer or why it is correct}. If you do not know the answer, respond with {'answer': 'I do not know', 'context': 'I do not know'}. If you think the question cannot be properly answered, response with {'answer': 'I cannot answer this question', 'context': A short reason explaining why this question cannot be answered}.\n"

/** An agent environment whose calls run on one BFCL agentic backend, as BFCL's executor runs them. */
export function agenticEnvironment(api: AgenticApi, name: string): AgentEnvironment {
  return {
    async call(callName, args, context) {
      let result: string
      try {
        result = await executeAgenticCall(api, name, callString(callName, args, context?.call?.floatPaths))
      } catch (e) {
        // A recording without this search or page: the run stops, rather than the model seeing another answer.
        if (e instanceof NotRecordedError) throw new ToolRuntimeError(e.message, 'web search result not recorded')
        throw e
      }
      if (result.startsWith(EXECUTION_ERROR)) throw new Error(result.slice(EXECUTION_ERROR.length))
      return result
    },
  }
}

export interface BfclWebSearchOptions {
  /** BFCL's data: `agentic/` (or the folder itself) with the questions and answers; `multi_turn/multi_turn_func_doc/`. */
  dataDir: string
  category?: 'web_search_base' | 'web_search_no_snippet'
  backend: WebSearchBackend
  /** The model name BFCL builds instance names from (it shows in a call's rewritten string arguments). */
  modelName?: string
  limit?: number
}

function lines(file: string): Record<string, unknown>[] {
  const parsed = parseJsonLines(readFileSync(file, 'utf8'), file)
  if (parsed.errors.length > 0) throw new Error(parsed.errors.map((e) => e.message).join('\n'))
  return parsed.lines.map((l) => l.json as Record<string, unknown>)
}

function dirOf(dataDir: string, sub: string, file: string): string {
  const dir = [join(dataDir, sub), dataDir].find((d) => existsSync(join(d, file)))
  if (dir === undefined) throw new Error(`bfclWebSearch: ${file} not found in ${join(dataDir, sub)} or ${dataDir}`)
  return dir
}

/** describeEval options that run a BFCL web-search category (see the module comment). */
export function bfclWebSearch(options: BfclWebSearchOptions): { data: Record<string, unknown>[]; scorers: Scorer[] } & Required<Pick<AgentOptions, 'environment' | 'maxSteps'>> {
  const category = options.category ?? 'web_search_base'
  const agentic = dirOf(options.dataDir, 'agentic', 'BFCL_v4_web_search.json')
  const docs = dirOf(options.dataDir, join('multi_turn', 'multi_turn_func_doc'), 'web_search.json')
  const answers = new Map(lines(join(agentic, 'possible_answer', 'BFCL_v4_web_search.json')).map((a) => [String(a['id']), (a['ground_truth'] as unknown[]).map(String)]))
  const functions = parseJsonLines(readFileSync(join(docs, 'web_search.json'), 'utf8'), 'web_search.json').lines.map((l) => l.py)
  const tools = bfclOpenAITools(hintedFunctions(functions, category))
  let questions = lines(join(agentic, 'BFCL_v4_web_search.json'))
  if (options.limit !== undefined) questions = questions.slice(0, options.limit)
  const data = questions.map((q) => {
    const question = q['question'] as ChatMessage[][]
    const dataId = String(q['id'])
    const truth = answers.get(dataId)
    if (truth === undefined) throw new Error(`bfclWebSearch: no possible answer for ${dataId}`)
    return { id: dataId.replaceAll('web_search', category), messages: [{ role: 'system', content: AGENTIC_ANSWER_FORMAT_PROMPT }, ...(question[0] ?? [])], turns: question.slice(1), tools, expected: [], bfclWebSearch: { answers: truth } }
  })
  const modelName = options.modelName ?? 'vitest-tool-evals'
  const environment = (sample: Sample) => agenticEnvironment(new WebSearchApi(options.backend, !category.includes('no_snippet')), instanceName(modelName, sample.id, 'WebSearchAPI'))
  return { data, environment, maxSteps: BFCL_MAX_STEPS, scorers: [webSearchScorer(category)] }
}

function answersOf(sample: Sample): string[] {
  const info = sample.extra?.['bfclWebSearch'] as { answers?: string[] } | undefined
  if (info?.answers === undefined) throw new Error(`sample "${sample.id}" is not a BFCL web-search entry (no bfclWebSearch field)`)
  return info.answers
}

/** The agentic checker as the `bfcl` scorer: its record feeds `bfcl_accuracy` and BFCL's per-category counts. */
function webSearchScorer(category: string): Scorer<BfclRecord> {
  const base = bfclScorer.configure(true, { cached: (p) => p }) as unknown as Scorer<BfclRecord>
  return {
    ...base,
    score({ sample, trajectory }) {
      if (trajectory === undefined) return undefined
      const result = fromJson(bfclResult(trajectory) as JsonValue) as PyValue
      const verdict = scoreAgenticEntry(result, answersOf(sample))
      const value: BfclRecord = { valid: verdict.valid, category }
      const type = verdict.error?.get('error_type')
      if (!verdict.valid && typeof type === 'string') value.error_type = type
      return { value, result: verdict }
    },
    errored() {
      return { valid: false, error_type: 'sample_errored', category }
    },
    strict(outcome) {
      const v = outcome.result as AgenticVerdict
      return v.valid ? { pass: true } : { pass: false, message: `BFCL agentic checker: ${String(v.error?.get('error_type') ?? 'invalid')}` }
    },
  }
}
