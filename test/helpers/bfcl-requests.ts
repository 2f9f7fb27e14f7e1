// The recorded request fixtures of BFCL's own handler (fixtures/bfcl-requests/). A body holds BFCL's data (questions,
// function docs), which stays in ../shared: the fixtures keep each body's hash (sha256 of its JSON with keys sorted),
// and a test compares the hashes of the bodies it received, which equal exactly when the bodies do.
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseJson } from '../../src/calls/json.js'
import { fromJson, pyRepr } from '../../src/python/operations.js'

export const REQUESTS_DIR = fileURLToPath(new URL('../../fixtures/bfcl-requests/', import.meta.url))

/** One entry as the fixture keeps it: the replies it was given are rebuilt from `../shared` (`replies`). */
export interface StoredEntry {
  id: string
  /** How many scripted replies BFCL's handler asked for (a prompting run can stop before the script ends). */
  replies: number
  /** Hashes of the request bodies BFCL's handler sent, in order (see `bodyHash`). */
  requests: string[]
  /** The hash of the result BFCL's handler returned (its result file's `result`). */
  result: string
}

export interface RecordedEntry extends StoredEntry {
  /** The scripted replies, in order, rebuilt from the recorded result in BFCL's data folder (`scriptedReplies`). */
  responses: Record<string, unknown>[]
}

export interface RecordedFixture {
  file: string
  category: string
  mode: 'fc' | 'prompting'
  model: string
  temperature: number
  /** The recorded results the replies were scripted from, relative to BFCL's data folder. */
  recorded: string
  entries: RecordedEntry[]
}

/** The fixtures, their replies rebuilt from BFCL's data folder (`bfclDir()`); none where it is absent. */
export function loadFixtures(bfcl: string | undefined): RecordedFixture[] {
  if (bfcl === undefined) return []
  return readdirSync(REQUESTS_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => {
      const fx = JSON.parse(readFileSync(REQUESTS_DIR + file, 'utf8')) as Omit<RecordedFixture, 'file' | 'entries'> & { entries: StoredEntry[] }
      const results = new Map<string, unknown>()
      for (const line of readFileSync(join(bfcl, fx.recorded), 'utf8').split('\n')) {
        if (line.trim() === '') continue
        const r = JSON.parse(line) as { id: string; result: unknown }
        results.set(r.id, r.result)
      }
      const entries = fx.entries.map((e) => ({ ...e, responses: scriptedReplies(e.id, results.get(e.id), fx.mode).slice(0, e.replies) }))
      return { ...fx, entries, file }
    })
}

/**
 * The replies the oracle's stub gave (`scripts/bfcl-oracle/script.py`): a recorded result's calls as `tool_calls`
 * (function calling) or as a Python call list (prompting, values as Python's `repr`), a text step as its text; every
 * step of every turn for multi-turn entries.
 */
export function scriptedReplies(id: string, result: unknown, mode: 'fc' | 'prompting'): Record<string, unknown>[] {
  if (!id.startsWith('multi_turn')) return [reply(result, '0', mode)]
  return (result as unknown[][]).flatMap((turn, t) => turn.map((step, j) => reply(step, `${t}_${j}`, mode)))
}

function reply(step: unknown, tag: string, mode: 'fc' | 'prompting'): Record<string, unknown> {
  if (!Array.isArray(step)) return { role: 'assistant', content: step }
  const calls = (step as Record<string, string>[]).flatMap((d) => Object.entries(d)).map(([name, args], i) => ({
    id: `call_${tag}_${i}`,
    type: 'function',
    function: { name, arguments: args },
  }))
  if (mode === 'fc') return { role: 'assistant', content: calls.length > 0 ? null : 'OK.', tool_calls: calls, refusal: null }
  return { role: 'assistant', content: pythonCallList(calls.map((c) => c.function)) }
}

/** `[name(k=repr(v), ...), ...]`, or `[]` where Python's `json.loads` or `.items()` would raise. */
function pythonCallList(calls: { name: string; arguments: string }[]): string {
  const texts: string[] = []
  for (const { name, arguments: args } of calls) {
    const parsed = parseJson(args)
    const value = parsed.ok ? fromJson(parsed.value, parsed.floatPaths) : undefined
    if (!(value instanceof Map)) return '[]'
    texts.push(`${name}(${[...value].map(([k, v]) => `${String(k)}=${pyRepr(v)}`).join(', ')})`)
  }
  return `[${texts.join(', ')}]`
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical)
  if (typeof v !== 'object' || v === null) return v
  return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])]))
}

/** `sha256:<hex>` of a body's JSON with every object's keys sorted (key order does not make bodies differ). */
export function bodyHash(body: unknown): string {
  return `sha256:${createHash('sha256').update(JSON.stringify(canonical(body))).digest('hex')}`
}

/** A chat completion body around a recorded reply message. */
export function replyBody(message: Record<string, unknown>): Record<string, unknown> {
  return { id: 'chatcmpl-fixture', object: 'chat.completion', choices: [{ index: 0, message, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 2 } }
}
