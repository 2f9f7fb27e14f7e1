// BFCL's Java/JavaScript type conversion of argument strings, Python's int()/float() string rules and json error
// messages. Expected values are what BFCL's Python (gorilla 8db0b7ca, type_convertor/*.py) gives for the same input.
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { checkCall, type BfclFunction } from '../../../src/bfcl/checker/checker.js'
import { javaConvert, jsConvert, parseJavaValue, parseJsValue } from '../../../src/bfcl/checker/lang-convert.js'
import { pythonJsonError } from '../../../src/python/json-error.js'
import { pyFloatFromString, pyIntFromString } from '../../../src/python/number.js'
import { PyCrash, PyFloat, pyRepr, type PyValue } from '../../../src/python/operations.js'

const r = (v: PyValue) => pyRepr(v)

describe("Python's int() and float() of strings", () => {
  test.each([
    ['42', 42],
    [' -7\n', -7],
    ['+3', 3],
    ['1_000', 1000],
    ['007', 7],
    ['-0', 0],
    ['\u0663\u0664', 34], // Arabic-Indic digits
    ['\u{1D7D9}', 1], // MATHEMATICAL DOUBLE-STRUCK DIGIT ONE
  ])('int(%j) = %d', (s, n) => expect(pyIntFromString(s)).toBe(n))

  test.each(['', '1_', '_1', '1__0', '1.0', '0x10', '- 1', '١a'])('int(%j) raises', (s) => expect(pyIntFromString(s)).toBeUndefined())

  test.each([
    ['3.14', 3.14],
    ['1e3', 1000],
    ['.5', 0.5],
    ['5.', 5],
    ['-1_0.2_5e1_0', -10.25e10],
    ['  inf ', Infinity],
    ['-Infinity', -Infinity],
    ['1e400', Infinity],
  ])('float(%j) = %d', (s, x) => expect(pyFloatFromString(s)).toBe(x))

  test.each(['', '.', 'e5', '1e', '1.2.3', 'infx', '1_.5', '3.14f'])('float(%j) raises', (s) => expect(pyFloatFromString(s)).toBeUndefined())
  test('float("nan") is NaN', () => expect(pyFloatFromString('NaN')).toBeNaN())

  test('property: every safe integer and every finite double reads back from its text', () => {
    fc.assert(fc.property(fc.maxSafeInteger(), (n) => pyIntFromString(String(n)) === n && pyFloatFromString(String(n)) === n))
    fc.assert(fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => Object.is(pyFloatFromString(String(x)), x === 0 ? x : x) || (x === 0 && pyFloatFromString(String(x)) === 0)))
  })

  test('property: any string gives a number or undefined, never an exception, in linear time', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('1', '_', '.', 'e', '-', '+', ' ', 'a', '\u0663', 'i', 'n', 'f') }), (s) => {
        const i = pyIntFromString(s)
        const x = pyFloatFromString(s)
        // Whatever int() accepts, float() accepts with the same value.
        return (i === undefined || x === i) && (x === undefined || typeof x === 'number')
      }),
    )
    const long = '1_'.repeat(200_000) + '1'
    expect(pyIntFromString(long)).toBeGreaterThan(0)
  })
})

describe("BFCL's Java type converter", () => {
  test.each<[string, string, string | undefined, string]>([
    ['123', 'integer', undefined, '123'],
    ['-128', 'byte', undefined, '-128'],
    ['12\n', 'integer', undefined, '12'], // Python's `$` matches before a final newline
    ['3.14f', 'float', undefined, '3.14'],
    ['3e3F', 'float', undefined, '3000.0'],
    ['3.14', 'float', undefined, "'3.14'"],
    ['3.14e-2', 'double', undefined, '0.0314'],
    ['123L', 'long', undefined, '123'],
    ['42', 'long', undefined, "'42'"],
    ['true', 'boolean', undefined, 'True'],
    ['True', 'boolean', undefined, "'True'"],
    ["'a'", 'char', undefined, '"\'a\'"'],
    ['abc', 'String', undefined, "'abc'"],
    ['new int[]{1, 2, 3}', 'Array', 'integer', '[1, 2, 3]'],
    ['new int[] { }', 'Array', 'integer', '[]'],
    ['new long[]{1L, 2, 3L}', 'Array', 'long', "[1, '2', 3]"],
    ['new Object[]{1, "abc", true}', 'Array', undefined, "[1, 'abc', True]"],
    ['new String[]{"suspend","log"}', 'Array', 'String', '[\'"suspend"\', \'"log"\']'],
    ['[1, 2]', 'Array', 'integer', "'[1, 2]'"],
    ['new ArrayList<>(Arrays.asList("a", "b"))', 'ArrayList', 'String', "['a', 'b']"],
    ['new ArrayList<Float>() {{ add(1.0f); add(2.0f); }}', 'ArrayList', 'float', '[1.0, 2.0]'],
    ["new ArrayList<Character>() {{ add('a'); add('b'); }}", 'ArrayList', 'char', "['a', 'b']"],
    ['new ArrayList<>()', 'ArrayList', 'integer', '[]'],
    ['new HashMap<>() {{ }}', 'HashMap', undefined, '{}'],
    ['new HashMap<String, Object>() {{ put("k1", 1); put("k2", "v"); put("k3", true); }}', 'HashMap', undefined, "{'k1': 1, 'k2': 'v', 'k3': True}"],
    ['new HashMap<String, String>() { { put("key", "value"); } }', 'HashMap', undefined, "{'key': 'value'}"],
    ['{"a": 1}', 'HashMap', undefined, '\'{"a": 1}\''],
  ])('java_type_converter(%j, %s, %s) = %s', (value, type, nested, expected) => {
    expect(r(javaConvert(value, type, nested))).toBe(expected)
  })

  test('Set, Hashtable, Queue and Stack crash the reference (NotImplementedError); unknown types too', () => {
    for (const t of ['Set', 'Hashtable', 'Queue', 'Stack', 'List']) expect(() => javaConvert('x', t)).toThrow(PyCrash)
  })

  test('parse_java_value', () => {
    expect(['true', '"s"', '"', '5L', '2.5f', '7', '1e2', 'x'].map((s) => r(parseJavaValue(s)))).toEqual([
      'True', "'s'", "''", '5', '2.5', '7', '100.0', "'x'",
    ])
  })
})

describe("BFCL's JavaScript type converter", () => {
  test.each<[string, string, string | undefined, string]>([
    ['"abc"', 'String', undefined, "'abc'"],
    ["'abc'", 'String', undefined, "'abc'"],
    ['abc', 'String', undefined, "'abc'"],
    ['-123', 'integer', undefined, '-123'],
    ['3', 'float', undefined, '3.0'],
    ['3.14abc', 'float', undefined, "'3.14abc'"],
    ['123n', 'Bigint', undefined, '123'],
    ['false', 'Boolean', undefined, 'False'],
    ['[1, 2, 3]', 'array', undefined, '[1, 2, 3]'],
    ['new Array(4n, 5n)', 'array', 'Bigint', '[4, 5]'],
    ['["hello", "world"]', 'array', 'String', "['hello', 'world']"],
    [' [ [ 1, 2 ], [ 3,   4], [5, 6]]', 'array', 'array', '[[1, 2], [3, 4], [5, 6]]'],
    ['[[10, 15], [20, 25]]', 'array', 'float', '[[10, 15], [20, 25]]'],
    ['[]', 'array', 'integer', '[]'],
    ['[1,]', 'array', 'integer', "[1, '']"],
    ['userDataArray', 'array', 'integer', "'userDataArray'"],
    ['{}', 'dict', undefined, '{}'],
    ["{'key1': 123, 'key2': 'value', 'key3': false}", 'dict', undefined, "{'key1': 123, 'key2': 'value', 'key3': False}"],
    ['{ stopProgation: true }', 'dict', undefined, "{'stopProgation': True}"],
    [
      '{"initialState": initialStateObject, "middlewares": ["loggerMiddleware"], "enhancers": ["a", "b"]}',
      'dict',
      undefined,
      "{'initialState': 'initialStateObject', 'middlewares': ['loggerMiddleware'], 'enhancers': ['a', 'b']}",
    ],
  ])('js_type_converter(%j, %s, %s) = %s', (value, type, nested, expected) => {
    expect(r(jsConvert(value, type, nested))).toBe(expected)
  })

  test('an item of an unknown nested type gives the array text back (the reference catches every error)', () => {
    expect(jsConvert('[1, 2]', 'array', 'Nope')).toBe('[1, 2]')
  })

  test('parse_js_value', () => {
    expect(["'x'", ' 12 ', '1.5', 'null'].map((s) => r(parseJsValue(s)))).toEqual(["'x'", '12', '1.5', "'null'"])
  })

  test('property: converters return for any string (no throw beyond PyCrash) and never evaluate', () => {
    const unit = fc.constantFrom('[', ']', '{', '}', ',', ':', '"', "'", ' ', '1', 'n', 'a', '(', ')', '\n', 'new Array', 'new int[]')
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 40 }), fc.constantFrom('array', 'dict', 'String', 'integer', 'float', 'Bigint'), (s, t) => {
        try {
          jsConvert(s, t, t === 'array' ? 'integer' : undefined)
        } catch (e) {
          if (!(e instanceof PyCrash)) throw e
        }
        return true
      }),
    )
  })
})

describe('the checker with Java and JavaScript', () => {
  const fn: BfclFunction = {
    name: 'Calc.add',
    parameters: {
      type: 'dict',
      properties: { nums: { type: 'Array', items: { type: 'integer' } }, scale: { type: 'double' } },
      required: ['nums'],
    },
  }
  const answer = new Map([['Calc.add', new Map<string, PyValue>([['nums', [[1, 2]]], ['scale', [new PyFloat(2), '']]])]])
  const call = (args: [string, PyValue][]) => new Map([['Calc_add', new Map(args)]])
  const opts = { language: 'java' as const, underscoreToDot: true }

  test('strings are converted by the schema type before the checks', () => {
    expect(checkCall(fn, call([['nums', 'new int[]{1, 2}'], ['scale', '2.0']]), answer, opts)).toEqual({ valid: true, error: [] })
  })

  test('a non-string argument is type_error:java, with the type Python names', () => {
    const v = checkCall(fn, call([['nums', [1, 2]]]), answer, opts)
    expect(v.error_type).toBe('type_error:java')
    expect(v.error).toEqual(["Incorrect type for parameter 'nums'. Expected type String, got list. Parameter value: [1, 2]."])
    const jsFn: BfclFunction = { ...fn, parameters: { ...fn.parameters, properties: { nums: { type: 'array', items: { type: 'integer' } } } } }
    expect(checkCall(jsFn, call([['nums', [1, 2]]]), answer, { ...opts, language: 'javascript' }).error_type).toBe('type_error:js')
  })

  test('a string the converter leaves alone fails the type check', () => {
    const v = checkCall(fn, call([['nums', '[1, 2]']]), answer, opts)
    expect(v.error_type).toBe('type_error:simple')
    expect(v.error).toEqual(["Incorrect type for parameter 'nums'. Expected type Array, got str. Parameter value: '[1, 2]'."])
  })

  test('a type the language does not know crashes the reference (KeyError)', () => {
    const bad: BfclFunction = { ...fn, parameters: { ...fn.parameters, properties: { nums: { type: 'tuple' } } } }
    expect(() => checkCall(bad, call([['nums', 'x']]), answer, opts)).toThrow(PyCrash)
  })
})

describe("Python's json error messages", () => {
  test.each([
    ['{"a": 1}', undefined],
    ['[NaN, -Infinity, 1e5]', undefined],
    ['', 'Expecting value: line 1 column 1 (char 0)'],
    ['{"a": 1', "Expecting ',' delimiter: line 1 column 8 (char 7)"],
    ['{"a" 1}', "Expecting ':' delimiter: line 1 column 6 (char 5)"],
    ["{'a': 1}", 'Expecting property name enclosed in double quotes: line 1 column 2 (char 1)'],
    ['{"a": "x\ny"}', 'Invalid control character at: line 1 column 9 (char 8)'],
    ['{\n"a": "x', 'Unterminated string starting at: line 2 column 6 (char 7)'],
    ['{"a": "\\q"}', 'Invalid \\escape: line 1 column 8 (char 7)'],
    ['{} x', 'Extra data: line 1 column 4 (char 3)'],
    ['[1,]', 'Expecting value: line 1 column 4 (char 3)'],
    ['{"\u{1F600}": x}', 'Expecting value: line 1 column 7 (char 6)'],
  ])('json.loads(%j)', (text, message) => expect(pythonJsonError(text)).toBe(message))
})
