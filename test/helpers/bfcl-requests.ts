// The recorded request fixtures of BFCL's own handler (fixtures/bfcl-requests/). A body holds BFCL's data (questions,
// function docs), which stays in ../shared: the fixtures keep each body's hash (sha256 of its JSON with keys sorted),
// and a test compares the hashes of the bodies it received, which equal exactly when the bodies do.
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export const REQUESTS_DIR = fileURLToPath(new URL('../../fixtures/bfcl-requests/', import.meta.url))

export interface RecordedEntry {
  id: string
  responses: Record<string, unknown>[]
  /** Hashes of the request bodies BFCL's handler sent, in order (see `bodyHash`). */
  requests: string[]
  result: unknown
}

export interface RecordedFixture {
  file: string
  category: string
  mode: 'fc' | 'prompting'
  model: string
  temperature: number
  entries: RecordedEntry[]
}

export function loadFixtures(): RecordedFixture[] {
  return readdirSync(REQUESTS_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => ({ ...(JSON.parse(readFileSync(REQUESTS_DIR + file, 'utf8')) as Omit<RecordedFixture, 'file'>), file }))
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
