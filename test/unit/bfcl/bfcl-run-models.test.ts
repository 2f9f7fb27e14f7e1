// `tool-evals bfcl run` with two models against a real server on 127.0.0.1 that answers by the request's model
// name (`good` with each entry's first acceptable answer, `bad` with text): BFCL's layout per model, and one set of
// leaderboard CSVs with both rows, ranked as BFCL's `generate_leaderboard_csv` ranks them (its sort: the table's
// column, highest first, N/A last, ties in the order given). The ranking of the rows BFCL wrote for single models
// (fixtures/bfcl-overall.json) is checked in process.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { leaderboardCsvFiles, leaderboardCsvFilesOf } from '../../../src/bfcl/checker/leaderboard.js'
import { requestedModels, withSeveralModels } from '../../../src/bfcl/cli/run-models.js'
import { scoreFilesIn } from '../../../src/bfcl/cli/score.js'
import { bfclDir } from '../../helpers/bfcl-dir.js'
import { runCommand } from '../../helpers/cli-run.js'
import { startOpenAIServer } from '../../helpers/openai-server.js'

const BFCL = bfclDir()
const tmp = mkdtempSync(join(tmpdir(), 'bfcl-run-models-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
const lines = (file: string) => readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>)

describe.skipIf(BFCL === undefined)('bfcl run with two models', () => {
  test('writes each model in BFCL\'s layout and one overall CSV with both rows, ranked', async () => {
    // The user's question → the first acceptable call (optional arguments left out), as the good model answers.
    const answers = new Map<string, { name: string; arguments: string }>()
    const truth = new Map(lines(join(BFCL!, 'possible_answer/BFCL_v4_simple_python.json')).map((l) => [l['id'], l['ground_truth'][0]]))
    for (const entry of lines(join(BFCL!, 'BFCL_v4_simple_python.json')).slice(0, 6)) {
      const [name, params] = Object.entries(truth.get(entry['id']) as Record<string, Record<string, unknown[]>>)[0]!
      const args = Object.fromEntries(Object.entries(params).filter(([, v]) => v[0] !== '').map(([k, v]) => [k, v[0]]))
      answers.set(entry['question'][0][0]['content'], { name: name.replace(/\./g, '_'), arguments: JSON.stringify(args) })
    }
    const server = await startOpenAIServer((r) => {
      const question = r.body.messages.find((m: { role: string }) => m.role === 'user')?.content
      const call = answers.get(question)
      if (r.body.model !== 'good' || !call) return { content: 'I would rather not.' }
      return { content: null, toolCalls: [{ id: 'c0', type: 'function', function: call }] }
    })
    try {
      const out = join(tmp, 'out')
      const modelsFile = join(tmp, 'models.txt')
      writeFileSync(modelsFile, '# the second model\nbad\n')
      const r = await runCommand([withSeveralModels()], ['bfcl run', '--base-url', server.baseURL, '--model', 'good', '--models', modelsFile, '--data', BFCL!, '--categories', 'simple_python', '--output-dir', out, '--limit', '6', '--concurrency', '2'])
      expect(r.code, r.stderr).toBe(0)
      for (const model of ['good', 'bad']) {
        expect(existsSync(join(out, 'result', model, 'non_live', 'BFCL_v4_simple_python_result.json'))).toBe(true)
        expect(existsSync(join(out, 'score', model, 'non_live', 'BFCL_v4_simple_python_score.json'))).toBe(true)
      }
      const good = await scoreFilesIn(join(out, 'score', 'good'))
      const bad = await scoreFilesIn(join(out, 'score', 'bad'))
      expect([good['simple_python']?.accuracy, bad['simple_python']?.accuracy]).toEqual([1, 0])
      const overall = readFileSync(join(out, 'score', 'data_overall.csv'), 'utf8').split('\n')
      // Each row is the one the single-model CSV has, re-ranked: good first (the higher overall accuracy).
      const single = (scores: typeof good, model: string) => leaderboardCsvFiles(scores, model)['data_overall.csv']!.split('\n')[1]!.split(',').slice(1)
      expect(overall.slice(1).map((l) => l.split(','))).toEqual([['1', ...single(good, 'good')], ['2', ...single(bad, 'bad')]])
      expect(JSON.parse(r.stdout.trim().split('\n').at(-1)!)).toEqual({ models: { overall_accuracy: { good: expect.any(Number), bad: 0 }, csv_dir: join(out, 'score') } })
    } finally {
      await server.close()
    }
  })
})

describe("several models' CSVs rank rows as generate_leaderboard_csv does", () => {
  type Head = { accuracy: number; correct_count: number; total_count: number }
  const SCENARIOS = (JSON.parse(readFileSync(new URL('../../../fixtures/bfcl-overall.json', import.meta.url), 'utf8')) as { name: string; scores: Record<string, Head | { recorded: string }>; csv: Record<string, string> }[]).filter(
    (s) => Object.values(s.scores).every((v) => !('recorded' in v)),
  )

  test('the rows BFCL wrote for each model alone, ranked by the sort column, N/A last, ties in the order given', () => {
    const [a] = SCENARIOS
    expect(a).toBeDefined()
    const empty = {} as Record<string, Head>
    const files = leaderboardCsvFilesOf([
      { scores: empty, model: 'none' },
      { scores: a!.scores as Record<string, Head>, model: 'my-model' },
      { scores: empty, model: 'none2' },
    ])
    for (const [name, text] of Object.entries(files)) {
      const rows = text.split('\n')
      const bfcl = a!.csv[name]!.split('\n')
      expect(rows[0]).toBe(bfcl[0])
      const ours = rows.slice(1).map((l) => l.split(','))
      // BFCL's own row for the model, wherever the ranking put it, with its new rank.
      const at = ours.findIndex((r) => r.includes('my-model'))
      expect(ours[at]).toEqual([String(at + 1), ...bfcl[1]!.split(',').slice(1)])
      // The two empty models tie: they keep the order given (none before none2).
      expect(ours.map((r) => r.find((c) => c.startsWith('none')) ?? 'my-model').filter((m) => m !== 'my-model')).toEqual(['none', 'none2'])
    }
    // The overall table: the model with scores above the two at 0%.
    expect(files['data_overall.csv']!.split('\n')[1]!.split(',')[2]).toBe('my-model')
  })

  test('refuses a model given twice, two names sharing a folder, an empty models file', () => {
    expect(() => requestedModels({ model: ['a', 'a'] })).toThrow('model a is given twice')
    expect(() => requestedModels({ model: ['org/m', 'org_m'] })).toThrow('models org/m and org_m share the folder org_m')
    const file = join(tmp, 'empty.txt')
    writeFileSync(file, '# nothing\n\n')
    expect(() => requestedModels({ models: file })).toThrow('no model named')
    expect(requestedModels({ model: ['x'], models: undefined })).toEqual(['x'])
  })
})
