/**
 * The correctness classes of parser v2 (issue 13): several calls in one block, partial recovery of a list with a
 * malformed entry, and format hints that never find fewer calls than detection. Test strings are our own, written
 * from each template's shape.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { FORMATS, parseToolCalls } from '../../../src/calls/index.js'
import { argumentsEqual, scorePair } from '../../../src/score/nemo.js'

const shape = (calls: { name: string; arguments: Record<string, unknown>; argumentsValid: boolean; format: string }[]) =>
  calls.map((c) => ({ name: c.name, arguments: c.arguments, argumentsValid: c.argumentsValid, format: c.format }))
const ok = (name: string, args: Record<string, unknown>, format: string) => ({ name, arguments: args, argumentsValid: true, format })

describe('several calls inside one block', () => {
  it('Gemma 4: every `call:` entry of one <|tool_call> block, with or without separators', () => {
    const q = '<|"|>'
    for (const sep of ['', '\n', ', ', ' ,\n']) {
      const out = `<|tool_call>call:get_weather{city:${q}Paris${q}}${sep}call:get_time{zone:${q}CET${q},h24:true}<tool_call|>`
      expect(shape(parseToolCalls(out))).toEqual([
        ok('get_weather', { city: 'Paris' }, 'gemma4'),
        ok('get_time', { zone: 'CET', h24: true }, 'gemma4'),
      ])
    }
  })
  it('Gemma 4: a `call:` inside a string value is text, not an entry', () => {
    const q = '<|"|>'
    const out = `<|tool_call>call:say{text:${q}then call:other{}${q}}<tool_call|>`
    expect(shape(parseToolCalls(out))).toEqual([ok('say', { text: 'then call:other{}' }, 'gemma4')])
  })
  it('Gemma 4: a malformed entry after a good one keeps the good one and marks the bad one invalid', () => {
    const out = '<|tool_call>call:a{x:1}call:b{y:<tool_call|>'
    expect(shape(parseToolCalls(out))).toEqual([ok('a', { x: 1 }, 'gemma4'), { name: 'b', arguments: {}, argumentsValid: false, format: 'gemma4' }])
  })
  it('FunctionGemma: several entries in one <start_function_call> block', () => {
    const out =
      '<start_function_call>call:set_alarm{time:<escape>07:00<escape>}call:set_volume{level:<escape>5<escape>}<end_function_call>'
    expect(shape(parseToolCalls(out))).toEqual([
      ok('set_alarm', { time: '07:00' }, 'functiongemma'),
      ok('set_volume', { level: 5 }, 'functiongemma'),
    ])
  })
  it('many name-only entries stay linear (no re-search per entry)', () => {
    const out = '<|tool_call>' + 'call:f '.repeat(50_000) + '<tool_call|>'
    const calls = parseToolCalls(out, { maxCalls: Infinity })
    expect(calls).toHaveLength(50_000)
    expect(calls.every((c) => c.name === 'f' && !c.argumentsValid)).toBe(true)
  })
  it('Mistral v11: calls chained after one [TOOL_CALLS] marker', () => {
    const out = '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}get_time[ARGS]{"zone": "CET"} search{"q": "x"}'
    expect(shape(parseToolCalls(out))).toEqual([
      ok('get_weather', { city: 'Paris' }, 'mistral'),
      ok('get_time', { zone: 'CET' }, 'mistral'),
      ok('search', { q: 'x' }, 'mistral'),
    ])
  })
  it('Mistral v11: the chain stops at text that is not a call', () => {
    const out = '[TOOL_CALLS]a[ARGS]{"x": 1} and that is all.'
    expect(shape(parseToolCalls(out))).toEqual([ok('a', { x: 1 }, 'mistral')])
  })
})

describe('partial recovery', () => {
  it('Command R7B: a malformed entry among valid ones keeps the valid ones and marks the bad one', () => {
    const out =
      '<|START_ACTION|>[\n' +
      '  {"tool_call_id": "0", "tool_name": "a", "parameters": {"x": 1}},\n' +
      '  {"tool_call_id": "1", "tool_name": "b", "parameters": {"y": }},\n' +
      '  {"tool_call_id": "2", "tool_name": "c", "parameters": {}}\n' +
      ']<|END_ACTION|>'
    expect(shape(parseToolCalls(out))).toEqual([
      ok('a', { x: 1 }, 'command_r7b'),
      { name: '', arguments: {}, argumentsValid: false, format: 'command_r7b' },
      ok('c', {}, 'command_r7b'),
    ])
  })
  it('Command R7B: an entry whose brackets never close ends the list, keeping the calls before it', () => {
    const out = '<|START_ACTION|>[{"tool_name": "a", "parameters": {}}, {"tool_name": "b", "parameters": {"y": [}]<|END_ACTION|>'
    expect(shape(parseToolCalls(out))).toEqual([ok('a', {}, 'command_r7b')])
  })
  it('the same rule in the other JSON-list-in-tags formats (<tool_calls>)', () => {
    const out = '<tool_calls>[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {,}}, {"name": "c", "arguments": {}}]</tool_calls>'
    expect(parseToolCalls(out).map((c) => [c.name, c.argumentsValid])).toEqual([['a', true], ['', false], ['c', true]])
  })
})

describe('format hints never find fewer calls than detection', () => {
  it('the lfm2 hint finds the bare pythonic list detection finds', () => {
    const out = '[get_weather(city="Paris"), get_time(zone="CET")]'
    const detected = parseToolCalls(out)
    expect(detected.map((c) => c.name)).toEqual(['get_weather', 'get_time'])
    expect(parseToolCalls(out, { format: 'lfm2' })).toEqual(detected)
  })
  it('the hinted format wins when it finds at least as many calls', () => {
    // Both Hermes and the generic JSON reader see one call; the hint decides which.
    const out = '<tool_call>{"name": "f", "arguments": {}}</tool_call>'
    expect(parseToolCalls(out, { format: 'hermes' })[0]!.format).toBe('hermes')
  })
  it('property: for every format name and rendered text, hinted(f) finds at least as many calls as detection', () => {
    const identifier = fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/)
    const call = fc.record({ name: identifier, arguments: fc.dictionary(identifier, fc.oneof(fc.integer(), fc.boolean()), { maxKeys: 2 }) })
    const renderable = FORMATS.filter((f) => f.render)
    fc.assert(
      fc.property(fc.constantFrom(...renderable), fc.constantFrom(...FORMATS), fc.array(call, { minLength: 1, maxLength: 3 }), (r, hint, cs) => {
        const text = r.render!(cs)
        expect(parseToolCalls(text, { format: hint.name }).length).toBeGreaterThanOrEqual(parseToolCalls(text).length)
      }),
      { numRuns: 300, seed: 1313 },
    )
  })
})

describe('integers beyond 2^53', () => {
  it('a call keeps their digits by path, from JSON and Python call syntax alike', () => {
    const json = parseToolCalls('<tool_call>{"name": "f", "arguments": {"id": 9007199254740993, "l": [1, -12345678901234567891]}}</tool_call>')
    expect(json[0]!.bigInts).toEqual({ '/id': '9007199254740993', '/l/1': '-12345678901234567891' })
    const py = parseToolCalls('[f(id=9007199254740993, small=5)]')
    expect(py[0]!.bigInts).toEqual({ '/id': '9007199254740993' })
    expect(parseToolCalls('[f(id=5)]')[0]!.bigInts).toBeUndefined()
  })
  it('scoring compares them exactly (9007199254740993 is not 9007199254740992)', () => {
    const [call] = parseToolCalls('<tool_call>{"name": "f", "arguments": {"id": 9007199254740993}}</tool_call>')
    expect(scorePair(call, { name: 'f', arguments: '{"id": 9007199254740993}' }).args_exact_match).toBe(1)
    expect(scorePair(call, { name: 'f', arguments: '{"id": 9007199254740992}' }).args_exact_match).toBe(0)
    expect(scorePair(call, { name: 'f', arguments: { id: 9007199254740993n } as never }).args_exact_match).toBe(1)
    expect(argumentsEqual({ a: 1, b: true }, { a: 1.0, b: 1 })).toBe(true)
  })
})
