/**
 * Property tests over every wire format: rendering calls and parsing them back gives the calls; and no format's
 * parser throws or returns ill-typed calls on generated or mutated output. Format parsers are called directly
 * (not through `parseToolCalls`, which guards against throws) so a throwing parser is caught here.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { FORMATS, parseToolCalls } from '../../../src/calls/index.js'
import { typeValue } from '../../../src/calls/schema-values.js'
import type { ToolCall, ToolDefinition } from '../../../src/calls/types.js'

const identifier = fc.stringMatching(/^[a-z][a-z0-9_]{0,11}$/)
// Text a model plausibly puts in an argument: quotes, backslashes, punctuation and non-ASCII included; no markup
// brackets (XML-style formats cannot carry them unescaped) and no surrounding whitespace (XML formats trim it).
const text = fc
  .stringMatching(/^[A-Za-z0-9 .,:;'"!?/\\é日\-]{0,20}$/)
  .map((s) => s.trim())
  .filter((s) => s.length > 0)
const scalar = fc.oneof(text, fc.integer({ min: -1000, max: 100000 }), fc.constantFrom(0.5, -2.25, 3.75), fc.boolean())
const value = fc.oneof(
  { weight: 4, arbitrary: scalar },
  { weight: 1, arbitrary: fc.array(fc.oneof(text, fc.integer()), { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.dictionary(identifier, fc.oneof(text, fc.integer(), fc.boolean()), { maxKeys: 3 }) },
)
const call = fc.record({ name: identifier, arguments: fc.dictionary(identifier, value, { maxKeys: 4 }) })
const calls = fc.array(call, { minLength: 1, maxLength: 3 })

function jsonType(v: unknown): string {
  if (Array.isArray(v)) return 'array'
  if (v === null) return 'null'
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number'
  if (typeof v === 'object') return 'object'
  return typeof v
}

/** Tools whose schemas type every argument as generated: XML-style formats need them to recover value types. */
function toolsFor(cs: readonly { name: string; arguments: Record<string, unknown> }[]): ToolDefinition[] {
  return cs.map((c) => ({
    type: 'function',
    function: {
      name: c.name,
      parameters: {
        type: 'object',
        properties: Object.fromEntries(Object.entries(c.arguments).map(([k, v]) => [k, { type: jsonType(v) }])),
      },
    },
  }))
}

function assertWellTyped(out: ToolCall[]): void {
  expect(Array.isArray(out)).toBe(true)
  for (const c of out) {
    expect(typeof c.name).toBe('string')
    expect(typeof c.arguments === 'object' && c.arguments !== null && !Array.isArray(c.arguments)).toBe(true)
    expect(typeof c.argumentsValid).toBe('boolean')
    expect(typeof c.format).toBe('string')
  }
}

const renderable = FORMATS.filter((f) => f.render)

describe('round trip: parse(render(calls)) gives the calls back', () => {
  it('every format can render', () => {
    expect(FORMATS.filter((f) => !f.render).map((f) => f.name)).toEqual([])
  })
  it.for(renderable.map((f) => [f.name, f] as const))('%s', ([, f]) => {
    fc.assert(
      fc.property(calls, (cs) => {
        const rendered = f.render!(cs)
        const back = f.parse(rendered, { tools: toolsFor(cs) })
        expect(back.map((c) => ({ name: c.name, arguments: c.arguments }))).toEqual(cs)
        // Detection finds the same calls without the hint.
        const detected = parseToolCalls(rendered, { tools: toolsFor(cs) })
        expect(detected.map((c) => ({ name: c.name, arguments: c.arguments }))).toEqual(cs)
      }),
      { numRuns: 60, seed: 20261122 },
    )
  })
})

// Markers of every format, so mutations splice in the tokens parsers key on.
const MARKERS = [
  '<tool_call>', '</tool_call>', '<|python_tag|>', '[TOOL_CALLS]', '[ARGS]', '<|channel|>', '<|message|>', '<|call|>',
  ' to=functions.', '<|constrain|>', '<think>', '</think>', '<function=', '<parameter=', '</parameter>', '</function>',
  '<|tool_calls_section_begin|>', '<|tool_call_begin|>', '<|tool_call_argument_begin|>', '<|tool_call_end|>',
  '<｜tool▁calls▁begin｜>', '<｜tool▁call▁begin｜>', '<｜tool▁sep｜>', '<arg_key>', '<arg_value>', 'functools[',
  '<|tool_call_start|>', '[', ']', '(', ')', '{', '}', '"', "'", '\\', ',', ':', '=', '```json', '<tool_calls>',
  '<start_function_call>', 'call:', '<escape>', '<|"|>', '<invoke name="', '<|START_ACTION|>', '>>>',
  '<longcat_arg_key>', '</longcat_arg_value>', '<tool_sep>', '<minimax:invoke name="', '</minimax:parameter>',
  '<|open|>tools<|sep|>', '<|open|>call tool="', '<|close|>call', '<|sep|>', '<function name="', '<param name="',
]

const mutation = fc.oneof(
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), what: fc.constantFrom(...MARKERS) }),
  fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), len: fc.integer({ min: 1, max: 8 }) }),
  fc.record({ kind: fc.constant('repeat' as const), at: fc.nat(), len: fc.integer({ min: 1, max: 12 }), times: fc.integer({ min: 2, max: 50 }) }),
)

type Mutation = typeof mutation extends fc.Arbitrary<infer M> ? M : never

function mutate(s: string, m: Mutation): string {
  const at = s.length === 0 ? 0 : m.at % (s.length + 1)
  switch (m.kind) {
    case 'insert':
      return s.slice(0, at) + m.what + s.slice(at)
    case 'cut':
      return s.slice(0, at)
    case 'delete':
      return s.slice(0, at) + s.slice(at + m.len)
    case 'repeat':
      return s.slice(0, at) + s.slice(at, at + m.len).repeat(m.times) + s.slice(at + m.len)
  }
}

describe('robustness: no parser throws or returns ill-typed calls', () => {
  it('on mutated renderings of every format', () => {
    fc.assert(
      fc.property(fc.constantFrom(...renderable), calls, fc.array(mutation, { minLength: 1, maxLength: 4 }), (f, cs, ms) => {
        const broken = ms.reduce(mutate, f.render!(cs))
        for (const g of FORMATS) assertWellTyped(g.parse(broken, {}))
        assertWellTyped(parseToolCalls(broken))
      }),
      { numRuns: 300, seed: 7 },
    )
  })
  it('on marker soup', () => {
    const soup = fc.array(fc.oneof(fc.constantFrom(...MARKERS), fc.string({ maxLength: 4 })), { maxLength: 60 }).map((a) => a.join(''))
    fc.assert(
      fc.property(soup, (s) => {
        for (const g of FORMATS) assertWellTyped(g.parse(s, {}))
      }),
      { numRuns: 300, seed: 11 },
    )
  })
})

describe('format hints', () => {
  it('an unknown hint is a programming error: a TypeError listing the known names (never silent detection)', () => {
    const text = '<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>'
    expect(() => parseToolCalls(text, { format: 'hermes2' })).toThrow(TypeError)
    expect(() => parseToolCalls(text, { format: 'hermes2' })).toThrow(/options\.format: unknown format "hermes2"; known formats: .*\bhermes\b/)
    // Thrown whatever the text, so the mistake shows on the first sample, not only on outputs with calls.
    expect(() => parseToolCalls('', { format: 'nope' })).toThrow(/unknown format "nope"/)
    // Names and aliases are accepted.
    for (const f of FORMATS) for (const name of [f.name, ...(f.aliases ?? [])]) expect(() => parseToolCalls('x', { format: name })).not.toThrow()
  })
})

// Typed numbers: formats that type raw text by the parameter's schema (integer / number). A long digit run that
// ends in a non-digit once made the number pattern backtrack quadratically (100K digits took seconds); these
// shapes must parse correctly (kept as the string, or read as the number) at sizes where quadratic work would not
// finish. Their speed at 1 MB and 4 MB is measured in bench/parse.js, not asserted here.
describe('typed numbers: long digit runs in integer- and number-typed parameters', () => {
  const typed = ['qwen3_coder', 'glm45', 'minimax_m2', 'seed_oss', 'step3'].map((n) => FORMATS.find((f) => f.name === n)!)
  const digits = '7'.repeat(200_000)
  const notNumbers = [digits + 'x', digits + '.' + digits + 'x', '1_'.repeat(100_000) + 'x', digits + 'e', digits + 'e+', '-' + digits + '..']
  const tool = (type: string): ToolDefinition[] => [
    { type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { n: { type } } } } },
  ]

  it.for(typed.map((f) => [f.name, f] as const))('%s keeps a long digit run that is no number as the string', ([, f]) => {
    for (const type of ['integer', 'number']) {
      for (const value of notNumbers) {
        const out = f.parse(f.render!([{ name: 'f', arguments: { n: value } }]), { tools: tool(type) })
        expect(out).toHaveLength(1)
        expect(out[0]!.arguments['n']).toBe(value)
      }
    }
  })

  it.for(typed.map((f) => [f.name, f] as const))('%s reads long Python number literals as numbers', ([, f]) => {
    const cases: [string, number][] = [
      ['1_000_000', 1_000_000],
      ['0'.repeat(200_000) + '.5', 0.5],
      ['.' + '5'.repeat(200_000), 0.5555555555555556],
      ['2_5.0_0', 25],
    ]
    for (const [text, expected] of cases) {
      const out = f.parse(f.render!([{ name: 'f', arguments: { n: text } }]), { tools: tool('number') })
      expect(out[0]!.arguments['n']).toBe(expected)
    }
  })

  it('the hand-written number scan accepts exactly what the Python number pattern accepts', () => {
    // The pattern the scan replaced, safe on these short strings.
    const PY_NUMBER = /^[-+]?(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][-+]?\d+)?$/
    const short = fc.array(fc.constantFrom('0', '1', '9', '_', '.', 'e', 'E', '+', '-', 'x'), { maxLength: 10 }).map((a) => a.join(''))
    fc.assert(
      fc.property(short, (s) => {
        const clean = s.replace(/_/g, '')
        const n = Number(clean)
        const json = (() => {
          try {
            return typeof JSON.parse(s) === 'number'
          } catch {
            return false
          }
        })()
        const isNumber = s.length > 0 && (json || (PY_NUMBER.test(s) && Number.isFinite(n)))
        const got = typeValue(s, { type: 'number' }).value
        if (isNumber) expect(got).toBe(json ? JSON.parse(s) : n)
        else expect(got).toBe(s)
      }),
      { numRuns: 2000, seed: 8 },
    )
  })
})

// The dispatcher's pre-scan is derived from the markers each format declares: a format whose `detect` accepted a
// text holding none of its markers would be skipped wrongly. Each text here is checked with its markers removed.
describe('declared markers: without one of them the format is not there', () => {
  const withMarkers = FORMATS.filter((f) => f.markers && f.markers.length > 0)
  const stripMarkers = (text: string, markers: readonly string[]): string => {
    let out = text
    for (let changed = true; changed; ) {
      const before = out
      for (const m of markers) out = out.split(m).join('')
      changed = out !== before
    }
    return out
  }
  it('the formats with a tag marker declare it', () => {
    expect(withMarkers.length).toBeGreaterThanOrEqual(27)
  })
  it.for(withMarkers.map((f) => [f.name, f] as const))('%s', ([, f]) => {
    fc.assert(
      fc.property(calls, fc.array(mutation, { maxLength: 3 }), (cs, ms) => {
        // The dispatcher skips a format none of whose markers occurs: that must lose nothing, so either its
        // detect is false there or its parse finds no call.
        const text = stripMarkers(ms.reduce(mutate, 'Sure.\n' + f.render!(cs)), f.markers!)
        expect(f.detect(text) && f.parse(text, {}).length > 0).toBe(false)
      }),
      { numRuns: 40, seed: 5 },
    )
    expect(f.detect(f.render!([{ name: 'f', arguments: {} }]))).toBe(true)
  })
})
