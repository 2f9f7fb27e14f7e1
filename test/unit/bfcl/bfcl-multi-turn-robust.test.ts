// BFCL multi-turn: calls that Python survives (or raises on) must not crash the checker; one entry the checker cannot
// finish fails alone. Expected values are BFCL's own Python outcomes (test/fixtures/bfcl-oracle/README.md).
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { bfclCommand } from '../../../src/bfcl/cli/score.js'
import { runCommand } from '../../helpers/cli-run.js'
import { ApiSession } from '../../../src/bfcl/multi-turn/api.js'
import { CHECKER_ERROR, multiTurnChecker, type MultiTurnEntry } from '../../../src/bfcl/multi-turn/checker.js'
import { InstanceSet } from '../../../src/bfcl/multi-turn/executor.js'
import { fromJson, type PyDict } from '../../../src/python/operations.js'

const fixture = (name: string): unknown => JSON.parse(readFileSync(new URL(`../../fixtures/bfcl-oracle/${name}`, import.meta.url), 'utf8'))

interface OracleCase {
  id: string
  model: string[][][]
  ground_truth: string[][]
  outcome: Record<string, unknown> & { details?: { differences?: unknown; execution_result?: unknown } }
}
const SELF_COPY = fixture('self-copy.json') as { initial_config: unknown; cases: Record<string, OracleCase> }
const INITIAL = fromJson(SELF_COPY.initial_config as never) as PyDict

function entry(id: string, classes = ['GorillaFileSystem']): MultiTurnEntry {
  return { id, initialConfig: INITIAL, involvedClasses: classes, json: {} }
}

function check(c: OracleCase) {
  return multiTurnChecker(c.model, c.ground_truth, entry(c.id), { modelName: 'oracle-model', session: new ApiSession() })
}

describe('a directory copied into itself (cp a a), as BFCL\'s Python does it', () => {
  test('the state mismatch prints the cycle as Python does ({...}), with the same differences', () => {
    const c = SELF_COPY.cases['model_copies_dir_into_itself']!
    const v = check(c)
    expect(v.error_type).toBe(c.outcome['error_type'])
    expect(v.error_message).toBe(c.outcome['error_message'])
    expect(v.details?.['differences']).toEqual(c.outcome.details?.differences)
    expect(v.details?.['execution_result']).toEqual(c.outcome['execution_result'])
  })

  test('du() and find() on the cycle give Python\'s RecursionError messages; the other calls still run', () => {
    const c = SELF_COPY.cases['du_and_find_on_the_cycle']!
    const v = check(c)
    expect(v.details?.['execution_result']).toEqual(c.outcome['execution_result'])
    const results = (c.outcome['execution_result'] as { model: string[][] }[])[0]!.model[0]!
    expect(results[3]).toBe('Error during execution: maximum recursion depth exceeded')
  })

  test('both sides cyclic: Python raises RecursionError in comparison; here that entry fails with a checker error', () => {
    const c = SELF_COPY.cases['both_copy_dir_into_itself']!
    expect(c.outcome).toEqual({ raised: 'RecursionError', message: 'maximum recursion depth exceeded in comparison' })
    const v = check(c)
    expect(v.valid).toBe(false)
    expect(v.error_type).toBe(CHECKER_ERROR)
    expect(v.error_message).toContain('RecursionError: maximum recursion depth exceeded in comparison')
  })
})

describe('MathAPI at the edges (square_root precision beyond 309, round_number with huge places)', () => {
  const cases = Object.entries(fixture('math-api.json') as Record<string, string>)
  test.each(cases)('%s', (call, expected) => {
    const set = new InstanceSet(new ApiSession(), ['MathAPI'], new Map(), 'm_eval_x_0', false)
    expect(set.execute([call])).toEqual([expected])
  })
})

// The command: a category with entries the checker cannot finish still prints its line and scores the rest.
const tmp = mkdtempSync(join(tmpdir(), 'bfcl-robust-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

function step(calls: string[]): Record<string, string>[] {
  // FC-mode result steps: one {name: json arguments} per call.
  return calls.map((c) => {
    const m = /^(\w+)\((.*)\)$/.exec(c)!
    const args = Object.fromEntries(m[2]!.split(',').filter((a) => a !== '').map((a) => a.split('=').map((x) => x.replace(/'/g, ''))))
    return { [m[1]!]: JSON.stringify(args) }
  })
}

function writeCategory(dir: string): void {
  const self = SELF_COPY.cases['both_copy_dir_into_itself']!
  const entries = [
    { id: 'multi_turn_base_0', classes: ['GorillaFileSystem'], model: [["mkdir(dir_name='a')"]], truth: [["mkdir(dir_name='a')"]] },
    { id: 'multi_turn_base_1', classes: ['GorillaFileSystem'], model: self.model[0]!, truth: self.ground_truth },
    { id: 'multi_turn_base_2', classes: ['NoSuchApi'], model: [["mkdir(dir_name='a')"]], truth: [["mkdir(dir_name='a')"]] },
    { id: 'multi_turn_base_3', classes: ['GorillaFileSystem'], model: [["mkdir(dir_name='b')"]], truth: [["mkdir(dir_name='b')"]] },
  ]
  mkdirSync(join(dir, 'possible_answer'), { recursive: true })
  const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n'
  const data = entries.map((e) => ({ id: e.id, question: [[]], initial_config: SELF_COPY.initial_config, involved_classes: e.classes }))
  writeFileSync(join(dir, 'BFCL_v4_multi_turn_base.json'), jsonl(data))
  writeFileSync(join(dir, 'possible_answer', 'BFCL_v4_multi_turn_base.json'), jsonl(entries.map((e) => ({ id: e.id, ground_truth: e.truth }))))
  const results = entries.map((e) => ({ id: e.id, result: [e.model.map(step)] }))
  writeFileSync(join(dir, 'BFCL_v4_multi_turn_base_result.json'), jsonl(results))
}

test('tool-evals bfcl: entries the checker cannot finish fail alone; the category line and score file still come', async () => {
  writeCategory(tmp)
  const scores = join(tmp, 'scores')
  const args = ['bfcl', '--data', tmp, '--results', tmp, '--categories', 'multi_turn_base', '--score-dir', scores, '--model', 'm']
  const { code, stdout: out, stderr: err } = await runCommand([bfclCommand], args)
  expect(JSON.parse(out.trim())).toEqual({ category: 'multi_turn_base', accuracy: 0.5, correct_count: 2, total_count: 4 })
  // The number is not BFCL's (its run stops at entry 1), so the command says so and exits non-zero.
  expect(code).toBe(1)
  expect(err).toContain('multi_turn_base_1: The checker raised RecursionError')
  expect(err).toContain('multi_turn_base_2: Internal error while checking this entry: Error: unknown BFCL API class NoSuchApi')
  expect(err).not.toContain('internal error: RangeError')
  const failing = readFileSync(join(scores, 'BFCL_v4_multi_turn_base_score.json'), 'utf8').trim().split('\n').slice(1)
  expect(failing.map((l) => (JSON.parse(l) as { id: string; error: { error_type: string } }).error)).toMatchObject([
    { error_type: CHECKER_ERROR },
    { error_type: CHECKER_ERROR },
  ])
})
