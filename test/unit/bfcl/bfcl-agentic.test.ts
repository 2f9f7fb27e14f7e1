// BFCL's agentic checker on recorded function-calling results: `tool-evals bfcl` gives what gorilla's own
// evaluate gave for the same results (fixtures/bfcl-agentic/: accuracy lines, failing ids, error objects).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, test } from 'vitest'
import { bfclCommand } from '../../../src/bfcl/cli/score.js'
import { runCli } from '../../../src/cli/command.js'
import { agenticChecker, containsAtWordBoundaries, scoreAgenticEntry, standardizeAgentic } from '../../../src/bfcl/agentic/checker.js'
import { fromJson, pyFloatRepr } from '../../../src/python/operations.js'
import { bm25PlusScores, MemoryKv, MemoryRecSum } from '../../../src/bfcl/agentic/memory.js'
import { callString, executeAgenticCall, instanceName } from '../../../src/bfcl/agentic/executor.js'
import { recordedWebSearch, WebSearchApi } from '../../../src/bfcl/agentic/web-search.js'
import { bfclDir } from '../../helpers/bfcl-dir.js'

const FIXTURES = fileURLToPath(new URL('../../../fixtures/bfcl-agentic/', import.meta.url))
const BFCL = bfclDir()
const tmp = mkdtempSync(join(tmpdir(), 'bfcl-agentic-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

describe('agentic checker', () => {
  test("standardisation and word boundaries as BFCL's regular expression", () => {
    expect(standardizeAgentic("Zhang-Yiming's (C.E.O.)")).toBe('zhangyiming"s ceo')
    expect(containsAtWordBoundaries('the answer is paris', 'paris')).toBe(true)
    expect(containsAtWordBoundaries('comparison', 'paris')).toBe(false)
    expect(containsAtWordBoundaries('é35 years', '35')).toBe(false)
  })
  test('the last message that is not a call is checked; calls only, or none, fail as BFCL says', () => {
    const call = { f: '{"a": 1}' }
    expect(scoreAgenticEntry(fromJson([['It is Michael.', [call]]])!, ['Michael']).valid).toBe(true)
    expect(scoreAgenticEntry(fromJson([[[call]]])!, ['Michael']).error?.get('error_type')).toBe('agentic:no_last_message')
    expect(scoreAgenticEntry('Error during inference: x', ['Michael']).error?.get('error_type')).toBe('agentic:inference_error')
    expect(agenticChecker(fromJson(['Michael'])!, ['michael']).valid).toBe(true)
  })
})

describe.skipIf(BFCL === undefined)("tool-evals bfcl on agentic results equals BFCL's evaluate", () => {
  const expected = JSON.parse(readFileSync(join(FIXTURES, 'expected.json'), 'utf8')) as Record<string, { header: Record<string, number>; failing: Record<string, unknown>[] }>
  // The possible answers BFCL's evaluate echoes are BFCL's data: the fixture leaves them out, and they are read back
  // from ../shared (`web_search_base_1` and `memory_kv_1-…` are entries `web_search_1` and `memory_1-…` there).
  const answers = new Map<string, unknown>()
  for (const file of BFCL === undefined ? [] : ['BFCL_v4_web_search.json', 'BFCL_v4_memory.json']) {
    for (const line of readFileSync(join(BFCL as string, 'agentic', 'possible_answer', file), 'utf8').split('\n')) {
      if (line.trim() === '') continue
      const { id, ground_truth } = JSON.parse(line) as { id: string; ground_truth: unknown }
      answers.set(id, ground_truth)
    }
  }
  const dataId = (id: string) => id.replace(/^web_search_(base|no_snippet)_/, 'web_search_').replace(/^memory_(kv|vector|rec_sum)_/, 'memory_')
  for (const { failing } of Object.values(expected)) {
    for (const f of failing) {
      const details = (f['error'] as { details?: Record<string, unknown> } | undefined)?.details
      if (details && 'standardized_possible_answers' in details) details['possible_answers'] = answers.get(dataId(f['id'] as string))
    }
  }
  test.each(Object.keys(expected))('%s', async (category) => {
    const stdout = new PassThrough()
    let out = ''
    stdout.on('data', (d) => (out += String(d)))
    const scoreDir = join(tmp, category)
    const code = await runCli([bfclCommand], ['bfcl', '--data', BFCL!, '--results', FIXTURES, '--categories', category, '--score-dir', scoreDir, '--model', 'my-model'], { stdin: new PassThrough(), stdout, stderr: new PassThrough() })
    expect(code).toBe(0)
    expect(JSON.parse(out.trim())).toEqual({ category, ...expected[category]!.header })
    const [head, ...rest] = readFileSync(join(scoreDir, `BFCL_v4_${category}_score.json`), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(head).toEqual(expected[category]!.header)
    expect(rest.map((l) => Object.fromEntries(['id', 'error', 'last_non_fc_message'].filter((k) => k in l).map((k) => [k, l[k]])))).toEqual(expected[category]!.failing)
  })
  test("--group-folders: score files in BFCL's layout (agentic/memory/<backend>/), the CSVs over both layouts", async () => {
    const scoreDir = join(tmp, 'grouped')
    // An earlier category's score file where BFCL's evaluate puts it: the CSVs count it.
    mkdirSync(join(scoreDir, 'multi_turn'), { recursive: true })
    writeFileSync(join(scoreDir, 'multi_turn', 'BFCL_v4_multi_turn_base_score.json'), '{"accuracy": 0.625, "correct_count": 125, "total_count": 200}\n')
    const io = { stdin: new PassThrough(), stdout: new PassThrough(), stderr: new PassThrough() }
    expect(await runCli([bfclCommand], ['bfcl', '--data', BFCL!, '--results', FIXTURES, '--categories', 'memory_kv', '--score-dir', scoreDir, '--group-folders', '--model', 'my-model'], io)).toBe(0)
    expect(JSON.parse(readFileSync(join(scoreDir, 'agentic', 'memory', 'kv', 'BFCL_v4_memory_kv_score.json'), 'utf8').split('\n', 1)[0]!)).toEqual(expected['memory_kv']!.header)
    expect(existsSync(join(scoreDir, 'BFCL_v4_memory_kv_score.json'))).toBe(false)
    expect(readFileSync(join(scoreDir, 'data_multi_turn.csv'), 'utf8')).toContain('62.50%')
  })
})

describe("agentic backends run on Python values, as BFCL's executor does", () => {
  test("BM25+ key-search scores equal rank_bm25 0.2.2's to the last bit", () => {
    // fixtures/bfcl-bm25/rank-bm25-0.2.2.json: scripts/bfcl-oracle/bm25-scores.py (the pinned release's BM25Plus).
    const fx = JSON.parse(readFileSync(fileURLToPath(new URL('../../../fixtures/bfcl-bm25/rank-bm25-0.2.2.json', import.meta.url)), 'utf8')) as { cases: { keys: string[]; query: string; scores: string[] }[] }
    const tok = (t: string) => t.replace(/_/g, ' ').toLowerCase().split(/\s+/).filter((w) => w !== '')
    for (const c of fx.cases) expect({ keys: c.keys, query: c.query, scores: bm25PlusScores(c.keys.map(tok), tok(c.query)).map(pyFloatRepr) }).toEqual(c)
  })
  test('a number written with a decimal point stays a float: str() and repr() as Python writes them', async () => {
    const kv = new MemoryKv()
    const name = instanceName('m', 'memory_kv_0', kv.className)
    const run = (fn: string, args: Record<string, unknown>, floatPaths: string[]) => executeAgenticCall(kv, name, callString(fn, args, floatPaths))
    expect(await run('core_memory_add', { key: 'visits', value: 1 }, ['/value'])).toBe('{"status": "Key-value pair added."}')
    expect(await run('core_memory_add', { key: 'budget', value: [100, 'eur', 1.5e-7, { 'a/b': 1e16 }] }, ['/value/0', '/value/3/a~1b'])).toBe('{"status": "Key-value pair added."}')
    expect(await run('core_memory_add', { key: 'count', value: 3 }, [])).toBe('{"status": "Key-value pair added."}')
    expect(await run('core_memory_add', { key: 'flags', value: [true, null, 'it\'s'] }, [])).toBe('{"status": "Key-value pair added."}')
    expect(kv.contextDump()).toBe('{\n    "visits": "1.0",\n    "budget": "[100.0, \'eur\', 1.5e-07, {\'a/b\': 1e+16}]",\n    "count": "3",\n    "flags": "[True, None, \\"it\'s\\"]"\n}')
    expect(await run('core_memory_key_search', { query: 'visits', k: 2 }, ['/k'])).toBe('Error during execution: slice indices must be integers or None or have an __index__ method')
    expect(await run('core_memory_key_search', { query: 1 }, ['/query'])).toBe("Error during execution: 'float' object has no attribute 'replace'")
    const rec = new MemoryRecSum()
    const recName = instanceName('m', 'memory_rec_sum_0', rec.className)
    await executeAgenticCall(rec, recName, callString('memory_append', { text: [1, ' x'] }, ['/text/0']))
    await executeAgenticCall(rec, recName, callString('memory_replace', { old_text: 1, new_text: 2.5e-7 }, ['/old_text']))
    expect(rec.memory).toBe("[2.5e-07, ' x']")
  })
  test('a float slice bound is TypeError, as results[:4.0] raises it', async () => {
    const api = new WebSearchApi(recordedWebSearch({ search: { 'wt-wt': { q: { organic_results: [{ title: 't', link: 'l', snippet: 's' }] } } } }), true)
    const name = instanceName('m', 'web_search_base_0', api.className)
    expect(await executeAgenticCall(api, name, callString('search_engine_query', { keywords: 'q', max_results: 4 }, ['/max_results']))).toBe('Error during execution: slice indices must be integers or None or have an __index__ method')
    expect(await executeAgenticCall(api, name, callString('search_engine_query', { keywords: 'q', max_results: 4 }, []))).toBe("[{'title': 't', 'href': 'l', 'body': 's'}]")
  })
})
