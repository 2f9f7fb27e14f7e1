// The recorded request fixtures of BFCL's own handler (fixtures/bfcl-requests/), expanded to full bodies.
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export const REQUESTS_DIR = fileURLToPath(new URL('../../fixtures/bfcl-requests/', import.meta.url))

export interface RecordedEntry {
  id: string
  responses: Record<string, unknown>[]
  requests: Record<string, unknown>[]
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

interface Compact {
  toolsets: unknown[][]
  requests: (Record<string, unknown> & { tools?: number; messages?: unknown[]; messages_after_previous?: unknown[] })[]
}

export function loadFixtures(): RecordedFixture[] {
  return readdirSync(REQUESTS_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => {
      const raw = JSON.parse(readFileSync(REQUESTS_DIR + file, 'utf8')) as RecordedFixture & { entries: (RecordedEntry & Compact)[] }
      for (const e of raw.entries) {
        let previous: unknown[] = []
        e.requests = e.requests.map((r) => {
          const { tools, messages, messages_after_previous: after, ...rest } = r as Compact['requests'][number]
          const full: Record<string, unknown> = { ...rest, messages: messages ?? [...previous, ...(after ?? [])] }
          if (tools !== undefined) full['tools'] = e.toolsets[tools]
          previous = full['messages'] as unknown[]
          return full
        })
      }
      return { ...raw, file }
    })
}

/** A chat completion body around a recorded reply message. */
export function replyBody(message: Record<string, unknown>): Record<string, unknown> {
  return { id: 'chatcmpl-fixture', object: 'chat.completion', choices: [{ index: 0, message, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 2 } }
}
