/**
 * The single scan at the front of the parser (src/calls/marker-scan.ts) and the dispatcher built on it: the scan
 * finds exactly the first occurrence of every marker, and detection through it gives exactly what trying every
 * format in order (each format's own `detect`, then `parse`) gives, on renderings of every format mixed with marker
 * soup. The second property is what lets the dispatcher skip formats: if it skipped one wrongly, the two differ.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { FORMATS, parseToolCalls, stripReasoning } from '../../../src/calls/index.js'
import { MarkerScan, detectMarkers, detectsMarkersOnly } from '../../../src/calls/marker-scan.js'
import type { ToolCall } from '../../../src/calls/types.js'

const ALL_MARKERS = [...new Set(FORMATS.flatMap((f) => f.markers ?? []))]

/** Every marker's first index by brute force. */
function firstIndexes(text: string, markers: readonly string[]): Map<string, number> {
  const out = new Map<string, number>()
  for (const m of markers) if (text.includes(m)) out.set(m, text.indexOf(m))
  return out
}

function scanned(scan: MarkerScan, text: string): Map<string, number> {
  const out = new Map<string, number>()
  const n = scan.scan(text)
  for (let k = 0; k < n; k++) out.set(scan.markers[scan.foundIds[k]!]!, scan.foundAt[k]!)
  // Unanchored markers are the caller's to search (the dispatcher does so lazily).
  for (const m of scan.unanchored) if (text.includes(m)) out.set(m, text.indexOf(m))
  return out
}

// Pieces of markers, whole markers and noise: texts where markers overlap, nest and almost occur.
const piece = fc.oneof(
  fc.constantFrom(...ALL_MARKERS),
  fc.constantFrom(...ALL_MARKERS).chain((m) => fc.integer({ min: 1, max: m.length }).map((k) => m.slice(0, k))),
  fc.constantFrom(...ALL_MARKERS).chain((m) => fc.integer({ min: 0, max: m.length - 1 }).map((k) => m.slice(k))),
  fc.constantFrom('<', '[', '|', '｜', '>', ' ', '\n', 'x', 'function call', '<<', '[['),
)
const soup = fc.array(piece, { maxLength: 12 }).map((ps) => ps.join(''))

describe('MarkerScan', () => {
  const scan = new MarkerScan(ALL_MARKERS)

  it('finds the first occurrence of every marker, and nothing else', () => {
    fc.assert(
      fc.property(soup, (text) => {
        expect(scanned(scan, text)).toEqual(firstIndexes(text, ALL_MARKERS))
      }),
      { numRuns: 400, seed: 13 },
    )
  })

  it('reads text before a marker’s `<` at the stop (GigaChat’s `function call<|role_sep|>`)', () => {
    const s = new MarkerScan(['function call<|role_sep|>', '<|role_sep|>'])
    expect(scanned(s, 'user<|role_sep|>hi')).toEqual(new Map([['<|role_sep|>', 4]]))
    expect(scanned(s, 'x function call<|role_sep|>{}')).toEqual(
      new Map([
        ['function call<|role_sep|>', 2],
        ['<|role_sep|>', 15],
      ]),
    )
    // The text before the `<` must be there in full: a cut-off prefix at the start of the text is no match.
    expect(scanned(s, 'call<|role_sep|>')).toEqual(new Map([['<|role_sep|>', 4]]))
  })

  it('leaves markers without a `<` to the caller, and refuses an empty marker', () => {
    const s = new MarkerScan(['[TOOL_CALLS]', '<tool_call>'])
    expect(s.unanchored).toEqual(['[TOOL_CALLS]'])
    expect(s.scan('[TOOL_CALLS]<tool_call>')).toBe(1)
    expect(() => new MarkerScan([''])).toThrow(/empty marker/)
  })

  it('overwrites one scan’s result with the next (and reports only what the last text holds)', () => {
    const s = new MarkerScan(['<a>', '<b>'])
    expect(s.scan('<a><b>')).toBe(2)
    expect(s.scan('<b>')).toBe(1)
    expect(s.markers[s.foundIds[0]!]).toBe('<b>')
  })

  it('knows a detect made from markers', () => {
    const d = detectMarkers(['<x>', '<y>'])
    expect(d('a <y> b')).toBe(true)
    expect(d('a <z> b')).toBe(false)
    expect(detectsMarkersOnly(d)).toBe(true)
    expect(detectsMarkersOnly((t) => t.includes('<x>'))).toBe(false)
  })
})

/** Detection as it was before the scan: every format in order, its own detect, the first that yields calls. */
function referenceDetect(text: string): ToolCall[] {
  const stripped = stripReasoning(text)
  for (const f of FORMATS) {
    const input = f.reasoning === 'keep' ? text : stripped
    if (!f.detect(input)) continue
    let calls: ToolCall[]
    try {
      calls = f.parse(input, {})
    } catch {
      calls = []
    }
    if (calls.length > 0) return calls
  }
  return []
}

const identifier = fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/)
const call = fc.record({
  name: identifier,
  arguments: fc.dictionary(identifier, fc.oneof(fc.integer(), fc.constantFrom('Paris', 'a b', 'x"y')), { maxKeys: 2 }),
})
const rendering = fc
  .tuple(fc.constantFrom(...FORMATS.filter((f) => f.render)), fc.array(call, { minLength: 1, maxLength: 2 }))
  .map(([f, cs]) => f.render!(cs))
const REASONING = ['<think>', '</think>', '<|channel|>analysis<|message|>', '<|end|>', '<seed:think>', '</seed:think>', '[BEGIN FINAL RESPONSE]']
const outputText = fc
  .array(fc.oneof(rendering, soup, fc.constantFrom(...REASONING), fc.constantFrom('Sure. ', '{"a": 1}', '[f(a=1)]')), {
    minLength: 1,
    maxLength: 4,
  })
  .map((parts) => parts.join(''))

describe('detection through the scan', () => {
  it('gives exactly what trying every format in order gives', () => {
    fc.assert(
      fc.property(outputText, (text) => {
        expect(parseToolCalls(text)).toEqual(referenceDetect(text))
      }),
      { numRuns: 600, seed: 7 },
    )
  })

  it('on each format’s own rendering, with reasoning around it', () => {
    for (const f of FORMATS.filter((x) => x.render)) {
      const text = '<think>I could <tool_call>{"name": "no", "arguments": {}}</tool_call></think>' + f.render!([{ name: 'get_weather', arguments: { city: 'Paris' } }])
      const calls = parseToolCalls(text)
      expect(calls, f.name).toEqual(referenceDetect(text))
      expect(calls.map((c) => c.name), f.name).toEqual(['get_weather'])
    }
  })
})
