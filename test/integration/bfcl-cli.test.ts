// `tool-evals bfcl`: the command in process (output lines, score files, bad input), and once through the built bin.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, test } from 'vitest'
import { bfclCommand } from '../../src/bfcl/cli/score.js'
import { runCommand } from '../helpers/cli-run.js'

const BFCL = fileURLToPath(new URL('../../../shared/bfcl/', import.meta.url))
const GLYPHH = `${BFCL}recorded/glyphh-ada-1.1`
const available = existsSync(GLYPHH)
if (!available) console.warn(`[bfcl] ${BFCL} not found: BFCL command tests are skipped`)

const tmp = mkdtempSync(join(tmpdir(), 'bfcl-cli-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

async function run(args: string[]): Promise<{ code: number; lines: Record<string, unknown>[]; stderr: string }> {
  const { code, stdout: out, stderr: err } = await runCommand([bfclCommand], ['bfcl', ...args])
  const lines = out
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
  return { code, lines, stderr: err }
}

describe.skipIf(!available)('tool-evals bfcl', () => {
  test('one line per category, and score files identical to the leaderboard\'s', async () => {
    const out = join(tmp, 'scores')
    const r = await run(['--data', BFCL, '--results', GLYPHH, '--categories', 'live_parallel,live_simple', '--score-dir', out])
    expect(r.code).toBe(0)
    expect(r.lines).toEqual([
      { category: 'live_parallel', accuracy: 0.75, correct_count: 12, total_count: 16 },
      { category: 'live_simple', accuracy: 217 / 258, correct_count: 217, total_count: 258 },
    ])
    for (const c of ['live_parallel', 'live_simple']) {
      const name = `BFCL_v4_${c}_score.json`
      expect(readFileSync(join(out, name), 'utf8')).toBe(readFileSync(join(GLYPHH, name), 'utf8'))
    }
  })

  test('--summary and --parallel-matching optimal add their fields', async () => {
    const r = await run(['--data', BFCL, '--results', GLYPHH, '--categories', 'parallel', '--parallel-matching', 'optimal', '--summary'])
    expect(r.code).toBe(0)
    expect(r.lines[0]).toMatchObject({ category: 'parallel', correct_count: 183, greedy_correct_count: 183, verdicts_changed: 0 })
    expect(r.lines[1]).toHaveProperty('summary.live_ast.display', 'N/A')
  })

  test('bad input: reported with file, line and field, counted as incorrect, exit code 1', async () => {
    const dir = join(tmp, 'bad')
    mkdirSync(dir, { recursive: true })
    const good = readFileSync(join(GLYPHH, 'BFCL_v4_multiple_result.json'), 'utf8').split('\n')[0]!
    const file = join(dir, 'BFCL_v4_multiple_result.json')
    writeFileSync(file, [good, '{"id": "multiple_1", "result": [', '{"result": []}', '{"id": "nope_1", "result": []}', ''].join('\n'))
    const r = await run(['--data', BFCL, '--results', dir, '--score-dir', join(tmp, 'bad-scores')])
    expect(r.code).toBe(1)
    // The file lacks most of the category (the cut line's multiple_1 among them): the line is marked partial.
    expect(r.lines).toEqual([{ category: 'multiple', accuracy: 0.25, correct_count: 1, total_count: 4, partial: true, missing_count: 199 }])
    expect(r.stderr).toContain('multiple: the results lack 199 of the category\'s 200 entries (multiple_0, multiple_1,')
    expect(r.stderr).toContain(`${file}:2: invalid JSON`)
    expect(r.stderr).toContain(`${file}:3: field "id": expected a string`)
    expect(r.stderr).toContain('no test entry with id "nope_1"')
    const scoreLines = readFileSync(join(tmp, 'bad-scores', 'BFCL_v4_multiple_score.json'), 'utf8').trim().split('\n')
    expect(scoreLines.slice(1).map((l) => (JSON.parse(l) as { error_type: string }).error_type)).toEqual([
      'input_error',
      'input_error',
      'input_error',
    ])
  })

  test('Java and JavaScript categories are scored (found among the results, or asked for by name)', async () => {
    const dir = join(tmp, 'java')
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'BFCL_v4_simple_java_result.json'), '{"id": "simple_java_0", "result": "[]"}\n')
    writeFileSync(join(dir, 'BFCL_v4_simple_javascript_result.json'), '{"id": "simple_javascript_0", "result": []}\n')
    // One entry each, scored as BFCL's --partial-eval scores it, the line marked partial.
    const found = await run(['--data', BFCL, '--results', dir, '--partial-eval'])
    expect(found.code).toBe(0)
    expect(found.lines).toEqual([
      { category: 'simple_java', accuracy: 0, correct_count: 0, total_count: 1, partial: true, missing_count: 99 },
      { category: 'simple_javascript', accuracy: 0, correct_count: 0, total_count: 1, partial: true, missing_count: 49 },
    ])
    const asked = await run(['--data', BFCL, '--results', dir, '--categories', 'simple_javascript', '--partial-eval'])
    expect(asked.code).toBe(0)
    expect(asked.lines).toEqual([{ category: 'simple_javascript', accuracy: 0, correct_count: 0, total_count: 1, partial: true, missing_count: 49 }])
  })

  test('usage errors exit 2', async () => {
    expect((await run(['--results', GLYPHH])).code).toBe(2)
    expect((await run(['--data', BFCL, '--results', GLYPHH, '--format', 'xml'])).code).toBe(2)
  })
})

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url))

describe.skipIf(!available || !existsSync(CLI))('the built bin', () => {
  test('tool-evals bfcl runs as a subcommand', () => {
    const r = spawnSync(process.execPath, [CLI, 'bfcl', '--data', BFCL, '--results', GLYPHH, '--categories', 'live_parallel_multiple'], {
      encoding: 'utf8',
      timeout: 30_000,
    })
    expect(r.status).toBe(0)
    expect(JSON.parse(r.stdout.trim())).toEqual({ category: 'live_parallel_multiple', accuracy: 0.75, correct_count: 18, total_count: 24 })
  })
})

const GPT_OSS = `${BFCL}recorded/gpt-oss-120b-vllm`
const multiTurnAvailable = existsSync(GPT_OSS) && existsSync(`${BFCL}multi_turn`)
if (!multiTurnAvailable) console.warn(`[bfcl] ${GPT_OSS} not found: the multi-turn bin test is skipped`)

describe.skipIf(!multiTurnAvailable || !existsSync(CLI))('the built bin, multi-turn', () => {
  test('multi_turn_base: the score file\'s first line and failing ids are the recorded ones; the CSVs are written', () => {
    const out = join(tmp, 'mt-bin')
    const r = spawnSync(
      process.execPath,
      [CLI, 'bfcl', '--data', `${BFCL}multi_turn`, '--results', GPT_OSS, '--categories', 'multi_turn_base', '--score-dir', out, '--model', 'openai_gpt-oss-120b'],
      { encoding: 'utf8', timeout: 60_000 },
    )
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    expect(JSON.parse(r.stdout.trim())).toEqual({ category: 'multi_turn_base', accuracy: 0.62, correct_count: 124, total_count: 200 })
    const lines = (path: string) => readFileSync(path, 'utf8').trim().split('\n')
    const ours = lines(join(out, 'BFCL_v4_multi_turn_base_score.json'))
    const theirs = lines(join(GPT_OSS, 'BFCL_v4_multi_turn_base_score.json'))
    expect(ours[0]).toBe(theirs[0])
    const failing = (ls: string[]) => ls.slice(1).map((l) => {
      const e = JSON.parse(l) as { id: string; error: { error_type: string } }
      return [e.id, e.error.error_type]
    })
    expect(failing(ours)).toEqual(failing(theirs))
    expect(readFileSync(join(out, 'data_multi_turn.csv'), 'utf8')).toBe(
      'Rank,Model,Multi Turn Overall Acc,Base,Miss Func,Miss Param,Long Context\n1,openai_gpt-oss-120b,15.50%,62.00%,N/A,N/A,N/A',
    )
    for (const f of ['data_non_live.csv', 'data_overall.csv']) expect(existsSync(join(out, f))).toBe(true)
  })
})
