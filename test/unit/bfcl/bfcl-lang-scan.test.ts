// The linear scans of lang-scan.ts against BFCL's own regular expressions (the oracle, kept only here): on generated
// short strings over each pattern's alphabet they give the same matches and captures. Also crafted long inputs that
// make the patterns backtrack give the right answers (their speed is in bench/bfcl-convert.js, not asserted here).
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { javaConvert, jsConvert } from '../../../src/bfcl/checker/lang-convert.js'
import {
  javaAddArgs,
  javaAddBlockBody,
  javaArrayBody,
  javaAsListBody,
  javaHasEmptyArrayList,
  javaHasEmptyHashMap,
  javaHashMapBody,
  javaPutPairs,
  jsArray2dPrefix,
  jsArrayBody,
  jsDictBody,
  jsInnerArrays,
  jsPairs,
} from '../../../src/bfcl/checker/lang-scan.js'
import { PY_S } from '../../../src/python/number.js'
import { pyRepr } from '../../../src/python/operations.js'

// BFCL's patterns (gorilla type_convertor/{java,js}_type_converter.py) with Python's meanings in JavaScript's engine.
const S = PY_S
const W = '[\\p{L}\\p{N}_]'
const DOT = '[^\\n]'
const ANY = '[\\s\\S]'
const END = '(?=\\n?$)'
const re = (source: string, flags = '') => new RegExp(source, 'u' + flags)

const AS_LIST_RE = re(`new${S}+ArrayList<${W}*>\\(Arrays\\.asList\\((${DOT}+?)\\)\\)`)
const ADD_BLOCK_RE = re(`new${S}+ArrayList<${W}*>\\(\\)${S}*\\{\\{${S}*(${ANY}+?)${S}*\\}\\}`)
const ADD_RE = re(`add\\((${DOT}+?)\\)`, 'g')
const EMPTY_LIST_RE = re(`new${S}+ArrayList<${W}*>\\(\\)`)
const ARRAY_RE = re(`new${S}+${W}+\\[\\]${S}*\\{(${DOT}*?)\\}`)
const HASHMAP_RE = re(`new${S}+HashMap<${ANY}*?>${S}*\\(\\)${S}*\\{${S}*\\{?${S}*(${ANY}*?)${S}*\\}?${S}*\\}`)
const PUT_RE = re(`put\\("(${DOT}*?)",${S}*(${DOT}*?)\\)`, 'g')
const EMPTY_MAP_RE = re(`new${S}+HashMap<${DOT}*?>${S}*\\(\\)`)
const ARRAY_2D_RE = re(
  `^(?:\\[${S}*\\[${DOT}*?\\]${S}*(,${S}*\\[${DOT}*?\\]${S}*)*\\]|new${S}+Array\\(${S}*\\[${DOT}*?\\]${S}*(,${S}*\\[${DOT}*?\\]${S}*)*\\))`,
)
const INNER_ARRAY_RE = re(`\\[(${DOT}*?)\\]`, 'g')
const ARRAY_1D_RE = re(`^(?:\\[(${DOT}*?)\\]|new${S}+Array\\((${DOT}*?)\\))`)
const DICT_RE = re(`^\\{(${DOT}*?)\\}`)
const PAIR_RE = re(`([^:]+):${S}*(${DOT}*?)(?:,${S}*(?=[^,]+:)|${END})`, 'g')

const group = (r: RegExp, s: string) => r.exec(s)?.[1]
const all = (r: RegExp, s: string) => [...s.matchAll(r)].map((m) => m[1]!)
const pairs = (r: RegExp, s: string) => [...s.matchAll(r)].map((m) => [m[1]!, m[2]!])

// The alphabet of the brief plus each pattern's own pieces.
const COMMON = ['new', 'new ', ' ', '  ', '\n', '\t', '\u00a0', 'a', 'x1', '_', '7', '"', ',', ':', '(', ')', '{', '}', '<', '>']
const JAVA = [...COMMON, 'ArrayList<', 'Arrays.asList', '(Arrays.asList(', '))', '{{', '}}', 'add(', 'put("', '",', 'HashMap<', '()', 'int', '[]', '[', ']', ';', 'é', '\u{1D7D9}']
const JS = [...COMMON, '[', ']', '[[', '],', ', [', 'new Array(', 'Array(', "'", '{', '}', 'k:', ' : ', ',\n', '\u{1F600}']
const RUNS = { seed: 20250607, numRuns: 2000 }

/**
 * Short strings that often come close to the pattern: its pieces in order, each kept, dropped or doubled, with a
 * little noise from the alphabet between them; and plain strings over the alphabet.
 */
function near(shape: string[], units: string[]): fc.Arbitrary<string> {
  const noise = fc.oneof({ weight: 5, arbitrary: fc.constant('') }, fc.string({ unit: fc.constantFrom(...units), maxLength: 3 }))
  const piece = (p: string) => fc.tuple(fc.constantFrom(p, p, p, p, '', p + p), noise).map(([a, b]) => a + b)
  const shaped = fc.tuple(noise, ...shape.map(piece)).map((parts) => parts.join(''))
  const plain = fc.string({ unit: fc.constantFrom(...units), maxLength: 24 })
  return fc.oneof({ weight: 3, arbitrary: shaped }, plain)
}

function agrees<T>(gen: fc.Arbitrary<string>, scan: (s: string) => T, oracle: (s: string) => T): void {
  let hits = 0
  fc.assert(
    fc.property(gen, (s) => {
      const got = scan(s)
      expect(got, JSON.stringify(s)).toEqual(oracle(s))
      if (got !== undefined && got !== false && !(Array.isArray(got) && got.length === 0)) hits++
    }),
    RUNS,
  )
  // The property means something only if the pattern matches often enough.
  expect(hits).toBeGreaterThan(RUNS.numRuns / 40)
}

describe('Java scans agree with BFCL patterns', () => {
  const J = (shape: string[]) => near(shape, JAVA)
  test('new ArrayList<T>(Arrays.asList(...))', () =>
    agrees(J(['new', ' ', 'ArrayList<', 'T', '>', '(Arrays.asList(', '1, 2', ')', ')']), javaAsListBody, (s) => group(AS_LIST_RE, s)))
  test('new ArrayList<T>() {{ ... }}', () =>
    agrees(J(['new', ' ', 'ArrayList<', '>', '()', ' ', '{{', ' ', 'add(1);', ' ', '}}']), javaAddBlockBody, (s) => group(ADD_BLOCK_RE, s)))
  test('add(...) items', () => agrees(J(['add(', 'x', ')', ' ', 'add(', '2', ')']), javaAddArgs, (s) => all(ADD_RE, s)))
  test('new ArrayList<T>()', () => agrees(J(['new', ' ', 'ArrayList<', 'T', '>', '()']), javaHasEmptyArrayList, (s) => EMPTY_LIST_RE.test(s)))
  test('new T[] {...}', () => agrees(J(['new', ' ', 'int', '[]', ' ', '{', '1, 2', '}']), javaArrayBody, (s) => group(ARRAY_RE, s)))
  test('new HashMap<K, V>() {{ ... }}', () =>
    agrees(
      J(['new', ' ', 'HashMap<', 'K, V', '>', ' ', '()', ' ', '{', ' ', '{', ' ', 'put("k", 1);', ' ', '}', ' ', '}']),
      javaHashMapBody,
      (s) => group(HASHMAP_RE, s),
    ))
  test('put("k", v) pairs', () =>
    agrees(J(['put("', 'k', '",', ' ', 'v', ')', ' ', 'put("', '",', ')']), javaPutPairs, (s) => pairs(PUT_RE, s)))
  test('new HashMap<K, V>()', () =>
    agrees(J(['new', ' ', 'HashMap<', 'K', '>', ' ', '()']), javaHasEmptyHashMap, (s) => EMPTY_MAP_RE.test(s)))
})

describe('JavaScript scans agree with BFCL patterns', () => {
  const J = (shape: string[]) => near(shape, JS)
  test('2-D arrays', () => {
    const oracle = (s: string) => ARRAY_2D_RE.exec(s)?.[0]
    agrees(J(['[', ' ', '[', '1', ']', ' ', ',', ' ', '[', '2', ']', ' ', ',', '[', ']', ' ', ']']), jsArray2dPrefix, oracle)
    agrees(J(['new', ' ', 'Array(', ' ', '[', '1', ']', ',', ' ', '[', ']', ')']), jsArray2dPrefix, oracle)
  })
  test('inner arrays', () => agrees(J(['[', '1', ']', ' ', '[', ']']), jsInnerArrays, (s) => all(INNER_ARRAY_RE, s)))
  test('1-D arrays', () => {
    const oracle = (s: string) => {
      const m = ARRAY_1D_RE.exec(s)
      return m ? (m[1] ?? m[2]) : undefined
    }
    agrees(J(['[', '1, 2', ']']), jsArrayBody, oracle)
    agrees(J(['new', ' ', 'Array(', '1', ')']), jsArrayBody, oracle)
  })
  test('dicts', () => agrees(J(['{', 'a: 1', '}']), jsDictBody, (s) => group(DICT_RE, s)))
  test('key: value pairs', () =>
    agrees(J(['k', ':', ' ', 'v', ',', ' ', "'k2'", ':', ' ', 'v2', ',', ' ', ':']), jsPairs, (s) => pairs(PAIR_RE, s)))
})

describe('crafted inputs that make the patterns backtrack', () => {
  const K200 = 200_000
  const fill = (piece: string) => piece.repeat(Math.ceil(K200 / piece.length))

  test('Java ArrayList: an unclosed Arrays.asList repeated, then one that closes', () => {
    const s = fill('new ArrayList<>(Arrays.asList(1, ') + 'new ArrayList<>(Arrays.asList(7))'
    // The first opening runs to the only `))`: every comma splits it, as in the reference.
    const out = javaConvert(s, 'ArrayList', 'integer') as unknown[]
    expect(out).toHaveLength(s.split(',').length)
    expect(out[0]).toBe(1)
    expect(out.at(-1)).toBe('new ArrayList<>(Arrays.asList(7')
  })

  test('Java ArrayList: add blocks with and without closing braces, add( with no parenthesis', () => {
    const adds = fill(' add(1); ')
    expect(javaConvert('new ArrayList<>() {{' + adds + ' }', 'ArrayList', 'integer')).toEqual([])
    expect(javaConvert('new ArrayList<>() {{' + adds + ' }}', 'ArrayList', 'integer')).toEqual(adds.split(';').slice(0, -1).map(() => 1))
    expect(javaConvert('new ArrayList<>() {{' + fill(' add(1; ') + ' }}', 'ArrayList', 'integer')).toEqual([])
  })

  test('Java HashMap: many put( with no closing parenthesis', () => {
    const s = 'new HashMap<String, String>() {{ ' + fill('put("k", "v", ') + ' }}'
    expect(pyRepr(javaConvert(s, 'HashMap'))).toBe('{}')
  })

  test('Java HashMap: type brackets that never close', () => {
    const s = fill('new HashMap<') + '>'
    expect(javaConvert(s, 'HashMap')).toBe(s)
  })

  test('Java Array: many openings, no closing brace', () => {
    const s = fill('new int[]{1, ')
    expect(javaConvert(s, 'Array', 'integer')).toBe(s)
  })

  test('JavaScript 2-D array that never closes (exponential for the pattern)', () => {
    // Not 2-D, so read as 1-D up to the first `]`.
    expect(jsConvert('[' + fill('[1],'), 'array', 'integer')).toEqual(['[1'])
    const closed = '[' + fill('[1],') + '[2]]'
    const out = jsConvert(closed, 'array', 'array') as unknown[][]
    expect(out.at(-1)).toEqual([2])
  })

  test('JavaScript dict: a long key with no colon, and many pairs', () => {
    const noColon = '{' + fill('a') + '}'
    expect(pyRepr(jsConvert(noColon, 'dict'))).toBe('{}')
    const many = '{' + fill('k: 1, ') + 'z: 2}'
    expect(pyRepr(jsConvert(many, 'dict'))).toBe("{'k': 1, 'z': 2}")
  })
})
