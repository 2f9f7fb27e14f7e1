// `tool-evals bfcl run` on the agentic categories sends the request bodies BFCL's own generation sends (its handler run
// with a stub client, SerpAPI and requests answering from fixtures/bfcl-agentic-requests/web-search-recorded.json:
// scripts/bfcl-oracle/record-agentic.py), through a real server on 127.0.0.1, writes BFCL's results and memory
// snapshots, and scores them.
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, test } from 'vitest'
import { bfclCommand } from '../../src/bfcl/cli/score.js'
import { bfclRunCommand } from '../../src/bfcl/cli/run.js'
import { bfclDir } from '../helpers/bfcl-dir.js'
import { bodyHash, replyBody } from '../helpers/bfcl-requests.js'
import { startOpenAIServer } from '../helpers/openai-server.js'
import { runCommand, withoutProgressLines } from '../helpers/cli-run.js'

withoutProgressLines()

const BFCL = bfclDir()
const DIR = fileURLToPath(new URL('../../fixtures/bfcl-agentic-requests/', import.meta.url))
const tmp = mkdtempSync(join(tmpdir(), 'bfcl-run-agentic-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

interface Fixture {
  category: string
  model: string
  limit: number
  entries: { id: string; requests: string[]; result: unknown }[]
  snapshots: Record<string, string>
  /** BFCL's own evaluate over BFCL's own results: accuracy, counts, failing ids and error types. */
  score: { accuracy: number; correct_count: number; total_count: number; failing: [string, string][]; path: string }
}

const scriptFc = JSON.parse(readFileSync(join(DIR, 'script.json'), 'utf8')) as Record<string, Record<string, unknown>[]>
const scriptPrompting = JSON.parse(readFileSync(join(DIR, 'script-prompting.json'), 'utf8')) as Record<string, Record<string, unknown>[]>
const script = scriptFc

/** Each possible-answer file's first answers by data id, read once (every entry and result line asks). */
const answerFiles = new Map<string, Map<string, string>>()

/** The first possible answer of a result id (the scripted replies quote it; it stays in ../shared). */
function answerOf(id: string): string {
  const memory = id.startsWith('memory')
  const file = join(BFCL!, 'agentic', 'possible_answer', `BFCL_v4_${memory ? 'memory' : 'web_search'}.json`)
  const dataId = (memory ? 'memory' : 'web_search') + id.slice(id.lastIndexOf('_'))
  let answers = answerFiles.get(file)
  if (answers === undefined) {
    answers = new Map()
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (line.trim() === '') continue
      const a = JSON.parse(line) as { id: string; ground_truth: string[] }
      // The first line of an id answers, as the search that stopped there did.
      if (!answers.has(a.id)) answers.set(a.id, a.ground_truth[0]!)
    }
    answerFiles.set(file, answers)
  }
  return answers.has(dataId) ? answers.get(dataId)! : ''
}
const withAnswer = <T>(v: T, id: string): T => JSON.parse(JSON.stringify(v).replaceAll('{{answer}}', JSON.stringify(answerOf(id)).slice(1, -1))) as T

describe.skipIf(BFCL === undefined)("bfcl run, agentic: BFCL's requests, results, snapshots and scores", () => {
  const runs: [string, 'fc' | 'prompting'][] = [['web_search_base', 'fc'], ['web_search_no_snippet', 'fc'], ['memory_kv', 'fc'], ['memory_rec_sum', 'fc'], ['web_search_base', 'prompting'], ['web_search_no_snippet', 'prompting'], ['memory_kv', 'prompting'], ['memory_rec_sum', 'prompting']]
  for (const [category, mode] of runs) {
    test(`${category} (${mode})`, async () => {
      const fx = JSON.parse(readFileSync(join(DIR, `${category}.${mode}.json`), 'utf8')) as Fixture
      const script = mode === 'fc' ? scriptFc : scriptPrompting
      // One entry at a time: each entry's scripted replies, then "Done." for the rest of its requests (BFCL's stub).
      const replies = fx.entries.flatMap((e) => {
        const mine = (script[e.id.replace('web_search_no_snippet', 'web_search_base')] ?? []).map((r) => withAnswer(r, e.id))
        return e.requests.map((_, i) => mine[i] ?? { role: 'assistant', content: 'Done.' })
      })
      let next = 0
      const server = await startOpenAIServer(() => ({ json: replyBody(replies[next++] ?? { role: 'assistant', content: 'Done.' }) }))
      try {
        const out = join(tmp, `${category}-${mode}`)
        const r = await runCommand([bfclRunCommand], ['bfcl run', '--base-url', server.baseURL, '--model', fx.model, '--data', BFCL!, '--categories', category, '--output-dir', out, '--limit', String(fx.limit), '--concurrency', '1', '--web-search-results', join(DIR, 'web-search-recorded.json'), '--mode', mode])
        expect(r.stderr).toBe('')
        expect(server.requests.map((q) => bodyHash(q.body))).toEqual(fx.entries.flatMap((e) => e.requests))
        const folder = join(out, 'result', fx.model, category.startsWith('memory') ? `agentic/memory/${category.slice('memory_'.length)}` : 'agentic')
        const read = (name: string) => readFileSync(join(folder, name), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; result: unknown })
        const results = [...(category.startsWith('memory') ? read(`BFCL_v4_${category}_prereq_result.json`) : []), ...read(`BFCL_v4_${category}_result.json`)]
        expect(results.map((l) => ({ id: l.id, result: l.result }))).toEqual(fx.entries.map((e) => ({ id: e.id, result: withAnswer(e.result, e.id) })))
        for (const [name, text] of Object.entries(fx.snapshots)) expect(readFileSync(join(folder, 'memory_snapshot', name), 'utf8')).toBe(text)
        const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)
        const questions = fx.entries.filter((e) => !e.id.includes('prereq'))
        expect(lines[0]).toMatchObject({ category, total_count: questions.length, requests: server.requests.length, inference_errors: 0 })
        expect(lines[0]).toMatchObject({ accuracy: fx.score.accuracy, correct_count: fx.score.correct_count, total_count: fx.score.total_count })
        // Where BFCL's evaluate put it (score/<model>/agentic/, memory: agentic/memory/<backend>/); the CSVs in score/<model>/.
        const scoreFile = join(out, 'score', fx.score.path)
        const failing = readFileSync(scoreFile, 'utf8').trim().split('\n').slice(1).map((l) => JSON.parse(l) as { id: string; error: { error_type: string } })
        expect(failing.map((f) => [f.id, f.error.error_type])).toEqual(fx.score.failing)
        const agenticCsv = readFileSync(join(out, 'score', fx.model, 'data_agentic.csv'), 'utf8')
        expect(agenticCsv).toContain(`${(fx.score.accuracy * 100).toFixed(2)}%`)
        expect(r.code).toBe(0)
      } finally {
        await server.close()
      }
    })
  }
})

describe.skipIf(BFCL === undefined)("tool-evals bfcl --format prompting on agentic results equals BFCL's evaluate for a prompting model", () => {
  test('a step whose text decodes as Python calls is a call; the last other step is the message', async () => {
    // scripts/bfcl-oracle/agentic-prompting.py: synthetic results, BFCL's evaluate with is_fc_model=False.
    const fx = JSON.parse(readFileSync(join(DIR, 'agentic-prompting.json'), 'utf8')) as { results: { id: string; result: unknown }[]; score: Fixture['score'] }
    const results = join(tmp, 'prompting-results')
    mkdirSync(results, { recursive: true })
    writeFileSync(join(results, 'BFCL_v4_web_search_base_result.json'), fx.results.map((r) => JSON.stringify(withAnswer(r, r.id))).join('\n') + '\n')
    const scores = join(tmp, 'prompting-scores')
    // A few synthetic entries, scored by BFCL with --partial-eval: the line says the file lacks the others.
    const r = await runCommand([bfclCommand], ['bfcl', '--data', BFCL!, '--results', results, '--categories', 'web_search_base', '--format', 'prompting', '--score-dir', scores, '--model', 'my-model', '--partial-eval'])
    expect(r.stderr).toMatch(/^tool-evals bfcl: web_search_base: the results lack \d+ of the category's 100 entries [^\n]*\n$/)
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout.split('\n')[0]!)).toMatchObject({ partial: true, missing_count: 100 - fx.results.length })
    expect(JSON.parse(r.stdout.split('\n')[0]!)).toMatchObject({ accuracy: fx.score.accuracy, correct_count: fx.score.correct_count, total_count: fx.score.total_count })
    const failing = readFileSync(join(scores, 'BFCL_v4_web_search_base_score.json'), 'utf8').trim().split('\n').slice(1).map((l) => JSON.parse(l) as { id: string; error: { error_type: string } })
    expect(failing.map((f) => [f.id, f.error.error_type])).toEqual(fx.score.failing)
    expect(r.code).toBe(0)
  })
})

// Every memory question with every scenario's prerequisite conversations: BFCL's bodies (one hash per entry), results,
// snapshots and evaluate's numbers (scripts/bfcl-oracle/record-agentic.py CATEGORY 155, then hash-entries.mjs).
describe.skipIf(BFCL === undefined)('bfcl run, agentic: every question (and memory prerequisite) in BFCL\'s order', () => {
  const sha = (text: string) => createHash('sha256').update(text).digest('hex')
  const unanswer = (v: unknown, answer: string): unknown =>
    typeof v === 'string'
      ? answer === ''
        ? v
        : v.replaceAll(answer, '{{answer}}')
      : Array.isArray(v)
        ? v.map((x) => unanswer(x, answer))
        : v !== null && typeof v === 'object'
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, unanswer(x, answer)]))
          : v
  for (const category of ['web_search_base', 'web_search_no_snippet', 'memory_kv', 'memory_rec_sum']) {
    test(category, async () => {
      const memory = category.startsWith('memory')
      const fx = JSON.parse(readFileSync(join(DIR, `${category}.all.json`), 'utf8')) as {
        model: string
        limit: number
        entries: { id: string; n: number; sha256: string }[]
        results: string
        snapshots: Record<string, string>
        score: Record<string, unknown>
        score_path: string
        failing: { count: number; by_type: Record<string, number>; sha256: string }
      }
      const replies = fx.entries.flatMap((e) => {
        const mine = (script[e.id.replace('web_search_no_snippet', 'web_search_base')] ?? []).map((r) => withAnswer(r, e.id))
        return Array.from({ length: e.n }, (_, i) => mine[i] ?? { role: 'assistant', content: 'Done.' })
      })
      let next = 0
      const server = await startOpenAIServer(() => ({ json: replyBody(replies[next++] ?? { role: 'assistant', content: 'Done.' }) }))
      try {
        const out = join(tmp, `${category}-all`)
        const r = await runCommand([bfclRunCommand], ['bfcl run', '--base-url', server.baseURL, '--model', fx.model, '--data', BFCL!, '--categories', category, '--output-dir', out, '--limit', String(fx.limit), '--concurrency', '1', '--web-search-results', join(DIR, 'web-search-recorded.json')])
        expect(r.stderr).toBe('')
        const hashes = server.requests.map((q) => bodyHash(q.body))
        let at = 0
        const got = fx.entries.map((e) => {
          const mine = hashes.slice(at, (at += e.n))
          return { id: e.id, n: mine.length, sha256: sha(mine.join('\n')) }
        })
        expect(got).toEqual(fx.entries)
        expect(hashes).toHaveLength(at)
        const folder = join(out, 'result', fx.model, memory ? `agentic/memory/${category.slice('memory_'.length)}` : 'agentic')
        const read = (name: string) => readFileSync(join(folder, name), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; result: unknown })
        const results = [...(memory ? read(`BFCL_v4_${category}_prereq_result.json`) : []), ...read(`BFCL_v4_${category}_result.json`)]
        expect(sha(results.map((l) => JSON.stringify({ id: l.id, result: unanswer(l.result, answerOf(l.id)) })).join('\n'))).toBe(fx.results)
        for (const [name, text] of Object.entries(fx.snapshots)) expect(readFileSync(join(folder, 'memory_snapshot', name), 'utf8')).toBe(text)
        const [head, ...failing] = readFileSync(join(out, 'score', fx.score_path), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; error: { error_type: string } })
        expect(head).toEqual(fx.score)
        const byType: Record<string, number> = {}
        for (const f of failing) byType[f.error.error_type] = (byType[f.error.error_type] ?? 0) + 1
        expect({ count: failing.length, by_type: byType }).toEqual({ count: fx.failing.count, by_type: fx.failing.by_type })
        expect(sha(failing.map((f) => `${f.id}\t${f.error.error_type}`).join('\n'))).toBe(fx.failing.sha256)
        expect(r.code).toBe(0)
        // Scoring the folder without naming categories: the prerequisites' results are not a category to score.
        const again = await runCommand([bfclCommand], ['bfcl', '--data', BFCL!, '--results', folder])
        expect(again.stderr).toBe('')
        expect(again.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { category: string }).category)).toEqual([category])
      } finally {
        await server.close()
      }
    }, 60_000)
  }
})
