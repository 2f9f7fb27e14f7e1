// bfclWebSearch (the Vitest path) with a user's backend: `openaiCompatible({ wire: 'bfcl' })` through the agent loop
// sends the request bodies BFCL's own handler sent for the same replies (fixtures/bfcl-agentic-requests/), to a real
// server on 127.0.0.1, and its scorer gives BFCL's evaluate's verdicts.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, test } from 'vitest'
import type { Sample } from '../../../src/data/types.js'
import { runAgent } from '../../../src/eval/agent.js'
import { bfclWebSearch } from '../../../src/bfcl/protocol/web-search.js'
import { openaiCompatible } from '../../../src/models/openai-compatible.js'
import { loadRecordedWebSearch, type WebSearchBackend } from '../../../src/bfcl/agentic/web-search.js'
import { bfclDir } from '../../helpers/bfcl-dir.js'
import { bodyHash, replyBody } from '../../helpers/bfcl-requests.js'
import { startOpenAIServer } from '../../helpers/openai-server.js'

const BFCL = bfclDir()
const DIR = fileURLToPath(new URL('../../../fixtures/bfcl-agentic-requests/', import.meta.url))

function answerOf(id: string): string {
  const file = join(BFCL!, 'agentic', 'possible_answer', 'BFCL_v4_web_search.json')
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue
    const a = JSON.parse(line) as { id: string; ground_truth: string[] }
    if (a.id === 'web_search' + id.slice(id.lastIndexOf('_'))) return a.ground_truth[0]!
  }
  return ''
}

describe.skipIf(BFCL === undefined)('bfclWebSearch: a user-supplied backend in the Vitest path', () => {
  for (const category of ['web_search_base', 'web_search_no_snippet'] as const) {
    test(`${category}: BFCL's bodies, and the agentic checker's verdicts`, async () => {
      const fx = JSON.parse(readFileSync(join(DIR, `${category}.fc.json`), 'utf8')) as { model: string; limit: number; entries: { id: string; requests: string[] }[]; score: { failing: [string, string][] } }
      const script = JSON.parse(readFileSync(join(DIR, 'script.json'), 'utf8')) as Record<string, Record<string, unknown>[]>
      const replies = fx.entries.flatMap((e) => {
        const mine = (script[e.id.replace('web_search_no_snippet', 'web_search_base')] ?? []).map((r) => JSON.parse(JSON.stringify(r).replaceAll('{{answer}}', JSON.stringify(answerOf(e.id)).slice(1, -1))) as Record<string, unknown>)
        return e.requests.map((_, i) => mine[i] ?? { role: 'assistant', content: 'Done.' })
      })
      // The user's own functions: here, async wrappers over the recording, counting what they were asked.
      const recorded = loadRecordedWebSearch(join(DIR, 'web-search-recorded.json'))
      const asked: string[] = []
      const backend: WebSearchBackend = {
        search: async (keywords, region) => (asked.push(`search ${region} ${keywords}`), recorded.search(keywords, region)),
        fetch: async (url, mode) => (asked.push(`fetch ${mode} ${url}`), recorded.fetch(url, mode)),
      }
      let next = 0
      const server = await startOpenAIServer(() => ({ json: replyBody(replies[next++] ?? { role: 'assistant', content: 'Done.' }) }))
      try {
        const options = bfclWebSearch({ dataDir: BFCL!, category, backend, modelName: fx.model, limit: fx.limit })
        const model = openaiCompatible({ baseURL: server.baseURL, model: fx.model, wire: 'bfcl', temperature: 0.001 })
        const verdicts: [string, boolean][] = []
        for (const line of options.data) {
          const { id, messages, turns, tools, expected, ...extra } = line as unknown as Sample & Record<string, unknown>
          const sample = { id, messages, turns, tools, expected, extra } as Sample
          const run = await runAgent(model, sample, await options.environment(sample), { maxSteps: options.maxSteps })
          const outcome = options.scorers[0]!.score({ sample, trajectory: run.trajectory } as never) as { value: { valid: boolean } }
          verdicts.push([id, outcome.value.valid])
        }
        expect(server.requests.map((q) => bodyHash(q.body))).toEqual(fx.entries.flatMap((e) => e.requests))
        const failing = new Set(fx.score.failing.map(([id]) => id))
        expect(verdicts).toEqual(fx.entries.map((e) => [e.id, !failing.has(e.id)]))
        expect(asked.length).toBeGreaterThan(5)
      } finally {
        await server.close()
      }
    })
  }
})
