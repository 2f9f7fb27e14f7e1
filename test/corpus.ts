/**
 * The shared corpus of real raw outputs (../shared/corpus/cases.jsonl): loading it, and the comparison every corpus
 * test uses. Absent corpus: `corpusAvailable` is false and the suites skip with a visible message.
 */
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { ToolCall, ToolDefinition } from '../src/calls/types.js'

export const CORPUS_PATH = fileURLToPath(new URL('../../shared/corpus/cases.jsonl', import.meta.url))
export const corpusAvailable = existsSync(CORPUS_PATH)
if (!corpusAvailable) console.warn(`[corpus] ${CORPUS_PATH} not found: corpus tests are skipped`)

export interface CorpusCase {
  id: string
  format: string
  source: string
  text: string
  expected: { name: string; arguments: Record<string, unknown> | string; id?: string }[]
  expected_content?: string
  expected_reasoning?: string
  param_types?: Record<string, Record<string, string>>
  partial?: boolean
  contested?: boolean
  note?: string
}

export function loadCorpus(): CorpusCase[] {
  if (!corpusAvailable) return []
  return readFileSync(CORPUS_PATH, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as CorpusCase)
}

/** OpenAI-style tools built from a case's `param_types` (XML-style formats type their values with them). */
export function toolsOf(c: CorpusCase): ToolDefinition[] | undefined {
  if (!c.param_types) return undefined
  return Object.entries(c.param_types).map(([name, props]) => ({
    type: 'function',
    function: {
      name,
      parameters: {
        type: 'object',
        properties: Object.fromEntries(Object.entries(props).map(([k, t]) => [k, { type: t }])),
      },
    },
  }))
}

export interface ComparedCall {
  name: string
  arguments: unknown
  argumentsValid: boolean
}

/**
 * What a case expects, in the shape compared: names, arguments and their validity, in order (call ids are not
 * compared). Where an engine passes undecodable arguments through as a raw string, a ToolCall has `{}` marked
 * invalid (arguments are always an object here), so a string expectation compares as that.
 */
export function expectedCalls(c: CorpusCase): ComparedCall[] {
  return c.expected.map((e) =>
    typeof e.arguments === 'string'
      ? { name: e.name, arguments: {}, argumentsValid: false }
      : { name: e.name, arguments: e.arguments, argumentsValid: true },
  )
}

/** The parsed calls in the same shape. */
export function actualCalls(calls: ToolCall[]): ComparedCall[] {
  return calls.map((c) => ({ name: c.name, arguments: c.arguments, argumentsValid: c.argumentsValid }))
}
