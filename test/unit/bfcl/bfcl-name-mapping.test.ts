// Results that call dotted functions by underscored names are scored with the mapping, and the CLI says so.
import { describe, expect, test } from 'vitest'
import { bfclCommand } from '../../../src/bfcl/cli/score.js'
import { needsUnderscoreToDot } from '../../../src/bfcl/checker/name-mapping.js'
import { fromJson } from '../../../src/python/operations.js'
import { bfclDir } from '../../helpers/bfcl-dir.js'
import { runCommand } from '../../helpers/cli-run.js'

const fn = (name: string) => ({ name, description: '', parameters: { type: 'dict', properties: {} } })
const entries = new Map([['e_0', { id: 'e_0', functions: [fn('math.factorial'), fn('plain')] }]])
const results = (...names: string[]) => [{ id: 'e_0', result: fromJson(names.map((n) => ({ [n]: '{}' })))! }]

describe('needsUnderscoreToDot', () => {
  test('only underscored spellings of dotted names: needed', () => {
    expect(needsUnderscoreToDot({ entries, results: results('math_factorial', 'plain') })).toBe(true)
  })
  test('a dotted name as written, or no dotted function called: not needed', () => {
    expect(needsUnderscoreToDot({ entries, results: results('math.factorial', 'math_factorial') })).toBe(false)
    expect(needsUnderscoreToDot({ entries, results: results('plain') })).toBe(false)
    expect(needsUnderscoreToDot({ entries, results: [{ id: 'e_0', result: '[math_factorial()]' }] })).toBe(false)
  })
})

const BFCL = bfclDir()
describe.skipIf(BFCL === undefined)('tool-evals bfcl on function-calling Java results without --underscore-to-dot', () => {
  test("gpt-oss simple_java scores the leaderboard's 56/100, with a note naming the flag", async () => {
    const args = ['bfcl', '--data', BFCL!, '--results', `${BFCL}/recorded/gpt-oss-120b-vllm`, '--categories', 'simple_java']
    const { code, stdout: out, stderr: err } = await runCommand([bfclCommand], args)
    expect(code).toBe(0)
    expect(JSON.parse(out.trim())).toMatchObject({ category: 'simple_java', correct_count: 56, total_count: 100 })
    expect(err).toContain('--underscore-to-dot')
  })
})
