// The BFCL checker's semantics, case by case, on small hand-written functions and answers.
import { describe, expect, test } from 'vitest'
import { parseJson } from '../../../src/calls/json.js'
import type { JsonValue } from '../../../src/calls/types.js'
import {
  PyFloat,
  PyTuple,
  bfclPromptingText,
  checkMultiple,
  checkParallel,
  checkSimple,
  decodeResult,
  fromJson,
  isEmptyOutput,
  pyEq,
  pyJsonDumps,
  pyRepr,
  scoreEntry,
  standardizeString,
  summarizeBfcl,
  formatPercent,
  type BfclFunction,
  type PyValue,
} from '../../../src/bfcl/index.js'

/** A PyValue from JSON text, float kinds kept (`3.0` is a float). */
function py(text: string): PyValue {
  const r = parseJson(text)
  if (!r.ok) throw new Error(`bad test JSON: ${r.error}`)
  return fromJson(r.value, r.floatPaths)!
}

function pyList(text: string): PyValue[] {
  return py(text) as PyValue[]
}

function fn(name: string, properties: Record<string, unknown>, required: string[] = []): BfclFunction {
  return { name, parameters: { type: 'dict', properties, required } } as BfclFunction
}

/** Decode a prompting-format result and return its repr, or 'FAIL'. */
function decodedRepr(result: string): string {
  const d = decodeResult(result)
  return d.ok ? pyRepr(d.decoded) : 'FAIL'
}

describe('Python values', () => {
  test('float kinds survive JSON decoding', () => {
    const v = py('{"a": 3.0, "b": [1, 2.0, 1e3], "c": 2.5}')
    expect(pyRepr(v)).toBe("{'a': 3.0, 'b': [1, 2.0, 1000.0], 'c': 2.5}")
  })

  test('repr follows Python', () => {
    // An integral JS number is an int; floats with integral values are PyFloats.
    expect(pyRepr([1e-5, new PyFloat(1e16), 0.0001, new PyFloat(-0), 1e16, new PyFloat(3)])).toBe(
      '[1e-05, 1e+16, 0.0001, -0.0, 10000000000000000, 3.0]',
    )
    expect(pyRepr(["it's", 'say "hi"', 'both \' and "', 'tab\there'])).toBe(
      `["it's", 'say "hi"', 'both \\' and "', 'tab\\there']`,
    )
    expect(pyRepr([true, null, new PyTuple([1]), new PyTuple([1, 'a'])])).toBe("[True, None, (1,), (1, 'a')]")
  })

  test("json.dumps(ensure_ascii=False) follows Python's separators and escapes", () => {
    expect(pyJsonDumps(py('{"k": [1.0, 2, "é\\n\\u0001"], "z": {}}'))).toBe('{"k": [1.0, 2, "é\\n\\u0001"], "z": {}}')
  })

  test('equality is Python equality', () => {
    expect(pyEq(true, 1)).toBe(true)
    expect(pyEq(1, new PyFloat(1))).toBe(true)
    expect(pyEq([1], new PyTuple([1]))).toBe(false)
    expect(pyEq('1', 1)).toBe(false)
    expect(pyEq(py('{"a": [1, 2]}'), py('{"a": [1.0, 2.0]}'))).toBe(true)
  })

  test('string normalisation', () => {
    expect(standardizeString("New York, N.Y. - it's 2*3^2_x/y")).toBe('newyorknyit"s232xy')
  })
})

describe('one call against one answer', () => {
  const f = fn(
    'calc',
    {
      n: { type: 'integer' },
      x: { type: 'float' },
      flag: { type: 'boolean' },
      city: { type: 'string' },
      xs: { type: 'array', items: { type: 'float' } },
      names: { type: 'array', items: { type: 'string' } },
      opts: { type: 'dict' },
      rows: { type: 'array', items: { type: 'dict' } },
      pair: { type: 'tuple', items: { type: 'integer' } },
      extra: { type: 'string' },
    },
    ['n'],
  )
  const answer = (params: string) => [py(`{"calc": ${params}}`)]
  const check = (call: string, params: string) => checkSimple([f], [py(`{"calc": ${call}}`)], answer(params))

  test('exact types: a float is not an integer, a bool is not an integer', () => {
    expect(check('{"n": 3.0}', '{"n": [3]}')).toEqual({
      valid: false,
      error: ["Incorrect type for parameter 'n'. Expected type integer, got float. Parameter value: 3.0."],
      error_type: 'type_error:simple',
    })
    expect(check('{"n": true}', '{"n": [1]}').error_type).toBe('type_error:simple')
    expect(check('{"n": 3}', '{"n": [3]}').valid).toBe(true)
  })

  test('an int is accepted for a float at the top level only', () => {
    expect(check('{"n": 1, "x": 3}', '{"n": [1], "x": [3.0]}').valid).toBe(true)
    expect(check('{"n": 1, "xs": [1, 3]}', '{"n": [1], "xs": [[1.0, 3.0]]}')).toEqual({
      valid: false,
      error: [
        "Nested type checking failed for parameter 'xs'. Expected outer type array with inner type <class 'float'>. Parameter value: [1, 3].",
      ],
      error_type: 'type_error:nested',
    })
    expect(check('{"n": 1, "xs": [1.0, 3.0]}', '{"n": [1], "xs": [[1.0, 3.0]]}').valid).toBe(true)
  })

  test('a "" among the acceptable values skips the nested type check', () => {
    expect(check('{"n": 1, "xs": [1, 3]}', '{"n": [1], "xs": ["", [1, 3]]}').valid).toBe(true)
  })

  test('strings are compared normalised', () => {
    expect(check('{"n": 1, "city": "new york ny"}', '{"n": [1], "city": ["New York, NY"]}').valid).toBe(true)
    expect(check('{"n": 1, "city": "Boston"}', '{"n": [1], "city": ["New York, NY", "NYC"]}')).toEqual({
      valid: false,
      error: ["Invalid value for parameter 'city': 'Boston'. Expected one of ['New York, NY', 'NYC']. Case insensitive."],
      error_type: 'value_error:string',
    })
  })

  test('lists: order matters, strings inside are normalised', () => {
    expect(check('{"n": 1, "names": ["A b", "c"]}', '{"n": [1], "names": [["ab", "C"]]}').valid).toBe(true)
    expect(check('{"n": 1, "names": ["c", "ab"]}', '{"n": [1], "names": [["ab", "c"]]}').error_type).toBe('value_error:list/tuple')
  })

  test('a tuple is compared as a list where the schema says tuple', () => {
    const call = new Map([['calc', new Map<string, PyValue>([['n', 1], ['pair', new PyTuple([1, 2])]])]])
    expect(checkSimple([f], [call], answer('{"n": [1], "pair": [[1, 2]]}')).valid).toBe(true)
  })

  test('required, optional and unexpected parameters', () => {
    expect(check('{"x": 1.5}', '{"n": [1], "x": [1.5]}').error_type).toBe('simple_function_checker:missing_required')
    expect(check('{"n": 1}', '{"n": [1], "city": ["", "Paris"]}').valid).toBe(true)
    expect(check('{"n": 1}', '{"n": [1], "city": ["Paris"]}')).toEqual({
      valid: false,
      error: ["Optional parameter 'city' not provided and not marked as optional."],
      error_type: 'simple_function_checker:missing_optional',
    })
    // In the schema but not in the answer: unexpected. Not in the schema at all: unexpected too.
    expect(check('{"n": 1, "extra": "a"}', '{"n": [1]}').error_type).toBe('simple_function_checker:unexpected_param')
    expect(check('{"n": 1, "zzz": "a"}', '{"n": [1], "zzz": ["a"]}').error).toEqual(["Unexpected parameter: 'zzz'."])
  })

  test('dicts are checked key by key against each candidate', () => {
    const a = '{"n": [1], "opts": ["", {"mode": ["fast", "quick"], "level": ["", 2]}]}'
    expect(check('{"n": 1, "opts": {"mode": "Quick"}}', a).valid).toBe(true)
    expect(check('{"n": 1, "opts": {"mode": "slow"}}', a)).toEqual({
      valid: false,
      error: ["Invalid value for parameter 'mode': 'slow'. Expected one of ['fast', 'quick']."],
      error_type: 'value_error:dict_value',
    })
    expect(check('{"n": 1, "opts": {"speed": 1}}', a).error_type).toBe('value_error:dict_key')
    // A missing key overwrites a value error's type, as in the reference.
    const b = '{"n": [1], "opts": [{"mode": ["fast"], "level": [2]}]}'
    expect(check('{"n": 1, "opts": {"mode": "slow"}}', b)).toEqual({
      valid: false,
      error: ["Invalid value for parameter 'mode': 'slow'. Expected one of ['fast'].", "Missing dict key parameter: 'level'."],
      error_type: 'value_error:dict_key',
    })
  })

  test('a list of dicts must have the answer length and match in order', () => {
    const a = '{"n": [1], "rows": [[{"k": ["a"]}, {"k": ["b"]}]]}'
    expect(check('{"n": 1, "rows": [{"k": "a"}, {"k": "b"}]}', a).valid).toBe(true)
    expect(check('{"n": 1, "rows": [{"k": "a"}]}', a).error_type).toBe('value_error:list_dict_count')
    expect(check('{"n": 1, "rows": [{"k": "b"}, {"k": "a"}]}', a).error_type).toBe('value_error:dict_value')
  })

  test('other values use Python equality (so True equals 1)', () => {
    expect(check('{"n": 1, "flag": false}', '{"n": [1], "flag": ["", true]}')).toEqual({
      valid: false,
      error: ["Invalid value for parameter 'flag': False. Expected one of ['', True]."],
      error_type: 'value_error:others',
    })
    expect(check('{"n": 1, "flag": true}', '{"n": [1], "flag": [true]}').valid).toBe(true)
  })

  test('a value of the answers\' type stands for a variable and is compared exactly', () => {
    // The answer names a variable (a string) for an integer parameter.
    expect(check('{"n": "count"}', '{"n": ["count"]}').valid).toBe(true)
    expect(check('{"n": "Count"}', '{"n": ["count"]}').error_type).toBe('value_error:others')
  })

  test('function name and call count', () => {
    expect(checkSimple([f], [py('{"calc2": {"n": 1}}')], answer('{"n": [1]}')).error_type).toBe(
      'simple_function_checker:wrong_func_name',
    )
    expect(checkSimple([f], [], answer('{"n": [1]}')).error_type).toBe('simple_function_checker:wrong_count')
    expect(checkSimple([f], pyList('[{"calc": {"n": 1}}, {"calc": {"n": 1}}]'), answer('{"n": [1]}')).error_type).toBe(
      'simple_function_checker:wrong_count',
    )
  })

  test('underscoreToDot compares dotted names as the model had to write them', () => {
    const g = fn('math.sum', { a: { type: 'integer' } })
    const ans = [py('{"math.sum": {"a": [1]}}')]
    expect(checkSimple([g], [py('{"math_sum": {"a": 1}}')], ans).valid).toBe(false)
    expect(checkSimple([g], [py('{"math_sum": {"a": 1}}')], ans, { underscoreToDot: true }).valid).toBe(true)
  })
})

describe('categories', () => {
  const fa = fn('a', { v: { type: 'integer' } }, ['v'])
  const fb = fn('b', { w: { type: 'string' } }, ['w'])

  test('multiple: one call, checked against the expected function among several', () => {
    const ans = [py('{"b": {"w": ["x"]}}')]
    expect(checkMultiple([fa, fb], [py('{"b": {"w": "x"}}')], ans).valid).toBe(true)
    expect(checkMultiple([fa, fb], [py('{"a": {"v": 1}}')], ans).error_type).toBe('simple_function_checker:wrong_func_name')
    expect(checkMultiple([fa, fb], [], ans).error_type).toBe('multiple_function_checker:wrong_count')
  })

  test('parallel: order-free, and greedy unless asked otherwise', () => {
    const answers = pyList('[{"a": {"v": [1]}}, {"b": {"w": ["x"]}}]')
    expect(checkParallel([fa, fb], pyList('[{"b": {"w": "x"}}, {"a": {"v": 1}}]'), answers).valid).toBe(true)
    expect(checkParallel([fa, fb], pyList('[{"a": {"v": 1}}]'), answers).error_type).toBe(
      'parallel_function_checker_no_order:wrong_count',
    )
    const r = checkParallel([fa, fb], pyList('[{"a": {"v": 1}}, {"b": {"w": "y"}}]'), answers)
    expect(r.error_type).toBe('parallel_function_checker_no_order:cannot_find_match')
    expect(r.error[0]).toBe('Could not find a matching function among index [1] of model output for index 1 of possible answers.')
    expect(r.error[1]).toMatchObject({ index: 1, sub_error_type: 'value_error:string' })
  })

  test("greedy matching's false negative, and the optimal option that avoids it", () => {
    // Answer 0 accepts v=1 or v=2, answer 1 only v=1. Greedy gives call 0 (v=1) to answer 0 and fails answer 1.
    const answers = pyList('[{"a": {"v": [1, 2]}}, {"a": {"v": [1]}}]')
    const calls = pyList('[{"a": {"v": 1}}, {"a": {"v": 2}}]')
    expect(checkParallel([fa], calls, answers).error_type).toBe('parallel_function_checker_no_order:cannot_find_match')
    expect(checkParallel([fa], calls, answers, { parallelMatching: 'optimal' }).valid).toBe(true)
    // Where no valid pairing exists, optimal fails too, in the same format.
    const bad = pyList('[{"a": {"v": 2}}, {"a": {"v": 2}}]')
    expect(checkParallel([fa], bad, answers, { parallelMatching: 'optimal' }).error_type).toBe(
      'parallel_function_checker_no_order:cannot_find_match',
    )
  })

  test('irrelevance: right when decoding fails or gives no call; relevance: right when it gives a call', () => {
    const functions = [fa]
    const run = (category: string, result: PyValue) => scoreEntry({ category, id: 'x_1', functions, result })
    expect(run('irrelevance', []).valid).toBe(true)
    expect(run('irrelevance', 'I cannot help with that.').valid).toBe(true)
    expect(run('irrelevance', '[a(v=1)]')).toMatchObject({
      valid: false,
      error_type: 'irrelevance_error:decoder_success',
      error: ['Valid syntax. Successfully decode AST when it should not.'],
    })
    expect(run('live_relevance', '[a(v=1)]').valid).toBe(true)
    expect(run('live_relevance', [])).toMatchObject({ valid: false, error_type: 'relevance_error:decoder_failed' })
    expect(isEmptyOutput([new Map()])).toBe(true)
  })

  test('decoding failures and wrong shapes in AST categories', () => {
    const functions = [fa]
    const groundTruth = [py('{"a": {"v": [1]}}')]
    const run = (result: PyValue) => scoreEntry({ category: 'simple_python', id: 'x_1', functions, groundTruth, result })
    expect(run([py('{"a": "{\\"v\\": 1}"}')]).valid).toBe(true)
    expect(run([py('{"a": "{\\"v\\": 1"}')]).error_type).toBe('ast_decoder:decoder_failed')
    expect(run([py('{"a": "[1]"}')]).error_type).toBe('ast_decoder:decoder_wrong_output_format')
    expect(run('a(v=1)').valid).toBe(true)
    expect(run('Sure! a(v=1)').error_type).toBe('ast_decoder:decoder_failed')
  })
})

describe('prompting-format decoding (Python call syntax, never evaluated)', () => {
  test("the reference's text handling: backticks, newlines and spaces stripped, brackets added", () => {
    expect(bfclPromptingText('```\nf(a=1)\n```')).toBe('[f(a=1)]')
    expect(decodedRepr('  `[f(a=1)]`  ')).toBe("[{'f': {'a': 1}}]")
  })

  test('values: keywords only, bare names as strings, nested calls as text, tuples kept', () => {
    expect(decodedRepr('[m.f(1, a=1, b="x", c=None, d=True, e=celsius, g=[1, 2.0], h={"k": (1, 2)})]')).toBe(
      "[{'m.f': {'a': 1, 'b': 'x', 'c': None, 'd': True, 'e': 'celsius', 'g': [1, 2.0], 'h': {'k': (1, 2)}}}]",
    )
    expect(decodedRepr('[f(a=g(1,2), b=h(x=1))]')).toBe("[{'f': {'a': 'g(1, 2)', 'b': {'h': {'x': 1}}}}]")
    expect(decodedRepr('[f(a=...)]')).toBe("[{'f': {'a': '...'}}]")
  })

  test('arithmetic is computed with Python semantics', () => {
    expect(decodedRepr('[f(a=2**3, b=1/2, c=6/2, d=7//2, e="a"+"b", g=-2.0)]')).toBe(
      "[{'f': {'a': 8, 'b': 0.5, 'c': 3.0, 'd': 3, 'e': 'ab', 'g': -2.0}}]",
    )
    expect(decodedRepr('[f(a=x**2)]')).toBe('FAIL')
  })

  test("the reference's quirks: any unary operator negates a constant, and only a constant", () => {
    expect(decodedRepr('[f(a=+5, b=-True)]')).toBe("[{'f': {'a': -5, 'b': -1}}]")
    expect(decodedRepr('[f(a=-(1+2))]')).toBe('FAIL')
    expect(decodedRepr('[f(a=--1)]')).toBe('FAIL')
  })

  test('what Python itself would refuse or resolve differently', () => {
    expect(decodedRepr('[f(a=math.pi)]')).toBe('FAIL') // attribute access is unsupported
    expect(decodedRepr('[f(from=1)]')).toBe('FAIL') // a keyword cannot be an argument name
    expect(decodedRepr('[f(a=lambda x: x)]')).toBe('FAIL')
    expect(decodedRepr('[f(a=1, b=2, a=3)]')).toBe("[{'f': {'a': 3, 'b': 2}}]") // ast.parse allows it; last wins
    expect(decodedRepr('[f(a=1), 5]')).toBe('FAIL') // every element must be a call
    expect(decodedRepr('[]')).toBe('[]')
  })

  test('deep nesting is refused, not a stack overflow', () => {
    const deep = '[f(a=' + '['.repeat(50_000) + ']'.repeat(50_000) + ')]'
    expect(decodedRepr(deep)).toBe('FAIL')
    const deepJson = [new Map([['f', '{"a": ' + '['.repeat(50_000) + ']'.repeat(50_000) + '}']])]
    expect(decodeResult(deepJson).ok).toBe(false)
  })
})

describe('summaries', () => {
  test("the leaderboard's unweighted and weighted means, N/A for missing parts", () => {
    const s = summarizeBfcl({
      simple_python: { accuracy: 0.9, total_count: 400 },
      simple_java: { accuracy: 0.6, total_count: 100 },
      simple_javascript: { accuracy: 0.3, total_count: 50 },
      multiple: { accuracy: 1, total_count: 200 },
      parallel: { accuracy: 0.5, total_count: 200 },
      parallel_multiple: { accuracy: 0.5, total_count: 200 },
      live_simple: { accuracy: 0.5, total_count: 100 },
      live_multiple: { accuracy: 1, total_count: 300 },
      live_parallel: { accuracy: 0, total_count: 0 },
      live_parallel_multiple: { accuracy: 0, total_count: 0 },
      irrelevance: { accuracy: 0.8, total_count: 240 },
    })
    expect(s.non_live_simple.accuracy).toBeCloseTo(0.6)
    expect(s.non_live_ast.accuracy).toBeCloseTo((0.6 + 1 + 0.5 + 0.5) / 4)
    expect(s.live_ast.accuracy).toBeCloseTo((0.5 * 100 + 300) / 400)
    expect(formatPercent(s.irrelevance)).toBe('N/A') // live_irrelevance missing
    expect(s.irrelevance.accuracy).toBeCloseTo(0.4) // counted as 0, as the leaderboard does
  })
})

describe('parsing JSON test helper', () => {
  test('py() keeps integral floats', () => {
    expect(py('1.0')).toBeInstanceOf(PyFloat)
    expect(fromJson(JSON.parse('[1.0]') as JsonValue)).toEqual([1])
  })
})
