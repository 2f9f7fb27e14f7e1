// BFCL's simulated APIs: behaviours the multi-turn checker depends on (results compared as Python prints them).
import { describe, expect, test } from 'vitest'
import { ApiSession } from '../../../src/bfcl/multi-turn/api.js'
import { multiTurnChecker } from '../../../src/bfcl/multi-turn/checker.js'
import { InstanceSet, decodeFunctionCallingStep } from '../../../src/bfcl/multi-turn/executor.js'
import { PyRandom, pySum, repr } from '../../../src/python/runtime.js'
import { PyFloat, fromJson, type PyDict } from '../../../src/python/operations.js'

const FS_CONFIG = fromJson({
  GorillaFileSystem: {
    root: { workspace: { type: 'directory', contents: { document: { type: 'directory', contents: { 'a.txt': { type: 'file', content: 'b line\na line' } } } } } },
  },
}) as PyDict

function instances(classes: string[], config: PyDict = new Map(), session = new ApiSession()) {
  return new InstanceSet(session, classes, config, 'm_eval_x_0', false)
}

describe('Python runtime', () => {
  test('random.Random(seed).randint matches CPython (seed 200191: 10000..99999)', () => {
    // CPython 3: random.Random(200191).randint(10000, 99999) twice
    const r = new PyRandom(200191)
    expect([r.randint(10000, 99999), r.randint(10000, 99999)]).toEqual(PY_RANDINTS)
  })
  test("sum() uses Python 3.12's compensated float addition", () => {
    expect(repr(pySum([0.1, 0.2, 0.3]))).toBe('0.6')
    expect(repr(pySum([1, 2]))).toBe('3')
    expect(repr(pySum([1, new PyFloat(2)]))).toBe('3.0')
  })
})

describe('executor', () => {
  test('results are json.dumps of dicts, str() of others, None for no result', () => {
    const fs = instances(['GorillaFileSystem'], FS_CONFIG)
    expect(fs.execute(["cd(folder='document')", "mkdir(dir_name='t')", 'ls()', "cat(file_name='a.txt')", "sort(file_name='a.txt')"])).toEqual([
      '{"current_working_directory": "document"}',
      'None',
      '{"current_directory_content": ["a.txt", "t"]}',
      '{"file_content": "b line\\na line"}',
      '{"sorted_content": "a line\\nb line"}',
    ])
  })
  test('Python errors: unknown names, bad keywords, missing arguments, harmony leftovers in names', () => {
    const fs = instances(['GorillaFileSystem'], FS_CONFIG)
    expect(fs.execute(['nope()', 'ls(b=1)', 'cd()', 'ls<|channel|>commentary(a=False)'])).toEqual([
      "Error during execution: name 'nope' is not defined",
      "Error during execution: GorillaFileSystem.ls() got an unexpected keyword argument 'b'",
      "Error during execution: GorillaFileSystem.cd() missing 1 required positional argument: 'folder'",
      'Error during execution: invalid syntax (<string>, line 1)',
    ])
  })
  test('function-calling steps become Python calls with repr arguments (floats kept)', () => {
    const step = fromJson([{ fillFuelTank: '{"fuelAmount": 30.0}' }, { ls: '{"a": false}' }])!
    expect(decodeFunctionCallingStep(step)).toEqual(['fillFuelTank(fuelAmount=30.0)', 'ls(a=False)'])
    expect(decodeFunctionCallingStep(fromJson([{ ls: 'not json' }])!)).toBeUndefined()
  })
})

describe('simulated APIs', () => {
  test('vehicle: fuel stays a float, doors must be locked before starting', () => {
    const v = instances(['VehicleControlAPI'])
    expect(v.execute(['fillFuelTank(fuelAmount=30)', "startEngine(ignitionMode='START')"])).toEqual([
      '{"fuelLevel": 30.0}',
      '{"error": "All doors must be locked before starting the engine. Here are the unlocked doors: driver, passenger, rear_left, rear_right"}',
    ])
  })
  test('trading: orders need a login; a placed order prints its float price', () => {
    const t = instances(['TradingBot'])
    expect(t.execute(["place_order(order_type='Buy', symbol='AAPL', price=150, amount=2)"])[0]).toContain('not authenticated')
    t.execute(["trading_login(username='u', password='p')"])
    expect(t.execute(["place_order(order_type='Buy', symbol='AAPL', price=150, amount=2)"])).toEqual([
      '{"order_id": 12446, "order_type": "Buy", "status": "Pending", "price": 150.0, "amount": 2}',
    ])
  })
  test('math: logarithm prints an mpf at the asked precision, like mpmath', () => {
    const m = instances(['MathAPI'])
    expect(m.execute(['logarithm(value=20, base=10, precision=2)', 'logarithm(value=20, base=10, precision=10)'])).toEqual([
      "{'result': mpf('1.3027')}",
      "{'result': mpf('1.301029995666')}",
    ])
  })
  test('message: send_message ids come from the seeded generator', () => {
    const msg = instances(['MessageAPI'])
    msg.execute(["message_login(user_id='USR001')"])
    expect(msg.execute(["send_message(receiver_id='USR002', message='hi')"])).toEqual([
      `{"sent_status": true, "message_id": {"new_id": ${PY_RANDINTS[0]}}, "message": "Message sent to 'USR002' successfully."}`,
    ])
  })
  test('twitter: a default mentions list is shared between posts, as Python evaluates defaults once', () => {
    const session = new ApiSession()
    const tw = instances(['TwitterAPI'], fromJson({ TwitterAPI: { authenticated: true } }) as PyDict, session)
    tw.execute(["post_tweet(content='a')", 'mention(tweet_id=0, mentioned_usernames=[\'x\'])'])
    expect(tw.execute(["post_tweet(content='b')"])[0]).toContain('"mentions": ["x"]')
  })
})

describe('checker', () => {
  const entry = { id: 'multi_turn_base_0', initialConfig: FS_CONFIG, involvedClasses: ['GorillaFileSystem'], json: {} }
  const opts = { modelName: 'm' }
  test('same calls: valid; a missing mkdir: state mismatch; an empty turn: empty response', () => {
    const gt = [["cd(folder='document')", "mkdir(dir_name='t')"]]
    expect(multiTurnChecker([[["cd(folder='document')"], ["mkdir(dir_name='t')"]]], gt, entry, opts).valid).toBe(true)
    expect(multiTurnChecker([[["cd(folder='document')"]]], gt, entry, opts).error_type).toBe('multi_turn:instance_state_mismatch')
    expect(multiTurnChecker([[]], gt, entry, opts).error_type).toBe('multi_turn:empty_turn_model_response')
  })
  test('a ground-truth result the model never got: execution response mismatch', () => {
    const gt = [["cd(folder='document')", "cat(file_name='a.txt')"]]
    expect(multiTurnChecker([[["cd(folder='document')"]]], gt, entry, opts).error_type).toBe('multi_turn:execution_response_mismatch')
  })
})

// CPython: random.Random(200191) → randint(10000, 99999) twice.
const PY_RANDINTS = [67410, 41772]

describe('reading result files', () => {
  test('a result whose arguments are a dict with an integral float keeps it a float (the exact parser is used)', async () => {
    const { mkdtempSync, writeFileSync, mkdirSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const { scoreMultiTurnCategory } = await import('../../../src/bfcl/multi-turn/category.js')
    const dir = mkdtempSync(join(tmpdir(), 'bfcl-mt-read-'))
    mkdirSync(join(dir, 'possible_answer'))
    const entry = { id: 'multi_turn_base_0', question: [[]], initial_config: {}, involved_classes: ['MathAPI'] }
    writeFileSync(join(dir, 'BFCL_v4_multi_turn_base.json'), JSON.stringify(entry) + '\n')
    writeFileSync(join(dir, 'possible_answer', 'BFCL_v4_multi_turn_base.json'), JSON.stringify({ id: 'multi_turn_base_0', ground_truth: [['absolute_value(number=3.0)']] }) + '\n')
    // Arguments given as an object rather than a JSON string: 3.0 must stay a float (abs(3.0) prints 3.0).
    writeFileSync(join(dir, 'BFCL_v4_multi_turn_base_result.json'), '{"id": "multi_turn_base_0", "result": [[[{"absolute_value": {"number": 3.0}}]]]}\n')
    const s = await scoreMultiTurnCategory(dir, dir, 'multi_turn_base', { modelName: 'm' })
    expect(s.errors).toEqual([])
    expect(s.entries[0]!.model_result_decoded).toEqual([[['absolute_value(number=3.0)']]])
    expect(s.correct_count).toBe(1)
  })

  test('seeded generators are independent copies of the cached seeded state', () => {
    const a = new PyRandom(1053520)
    const first = [a.randint(0, 1000), a.randint(0, 1000)]
    const b = new PyRandom(1053520)
    expect([b.randint(0, 1000), b.randint(0, 1000)]).toEqual(first)
  })
})
