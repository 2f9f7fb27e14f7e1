import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadArray, loadJsonl, loadSamples, parseJsonlSamples, formatSampleError } from '../../../src/data/index.js'
import type { DataEntry, Sample, SampleError } from '../../../src/data/types.js'
import { callsFromOpenAI, parseRecording, replay } from '../../../src/models/replay.js'

const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }]
const line = (o: unknown) => JSON.stringify(o)

function samplesOf(entries: DataEntry[]): Sample[] {
  return entries.filter((e) => e.sample).map((e) => e.sample as Sample)
}
function errorsOf(entries: DataEntry[]): SampleError[] {
  return entries.filter((e) => e.error).map((e) => e.error as SampleError)
}

describe('chat JSONL samples', () => {
  it('reads messages, tools and expected calls, keeping extra fields and the source line', () => {
    const text = [
      line({ id: 'w1', messages: [{ role: 'user', content: 'Weather in Paris?' }], tools, expected: [{ name: 'get_weather', arguments: { city: 'Paris' } }], category: 'simple' }),
      '',
      line({ id: 'w2', messages: [{ role: 'user', content: 'Hi' }], expected: [] }),
    ].join('\n')
    const entries = parseJsonlSamples(text, 'data.jsonl')
    const samples = samplesOf(entries)
    expect(samples.map((s) => s.id)).toEqual(['w1', 'w2'])
    expect(samples[0]).toMatchObject({
      tools,
      expected: [{ name: 'get_weather', arguments: { city: 'Paris' } }],
      source: { file: 'data.jsonl', line: 1 },
      extra: { category: 'simple' },
    })
    expect(samples[1]?.source).toEqual({ file: 'data.jsonl', line: 3 })
    expect(samples[1]?.expected).toEqual([])
    expect(samples[1]?.tools).toBeUndefined()
  })

  it('accepts CRLF line ends, a BOM, numeric ids, JSON-string arguments and bare function tools', () => {
    const text = '\uFEFF' + line({ id: 7, messages: [], tools: [{ name: 'f', parameters: { type: 'dict', properties: {} } }], expected: [{ name: 'f', arguments: '{"a": 1}' }] }) + '\r\n'
    const [sample] = samplesOf(parseJsonlSamples(text, 'x.jsonl'))
    expect(sample?.id).toBe('7')
    expect(sample?.expected).toEqual([{ name: 'f', arguments: '{"a": 1}' }])
    expect(sample?.tools).toEqual([{ type: 'function', function: { name: 'f', parameters: { type: 'dict', properties: {} } } }])
  })

  it('reports a bad line with file, line and field, and keeps every other line', () => {
    const text = [
      line({ id: 'a', messages: [], expected: [] }),
      '{"id": "b", "messages": [', // not JSON
      line({ id: 'c', messages: [], expected: [{ name: '', arguments: {} }] }),
      line({ id: 'd', messages: [{ content: 'no role' }], expected: [{ name: 'f' }] }),
      line({ id: 'e', messages: [], expected: [{ name: 'f', arguments: 'not json' }] }),
      line({ messages: [], expected: [] }),
      line([1, 2]),
      line({ id: 'h', messages: [{ role: 'user', content: 'x' }] }),
      line({ id: 'i', messages: [], expected: [] }),
    ].join('\n')
    const entries = parseJsonlSamples(text, 'fixtures/bad.jsonl')
    expect(entries).toHaveLength(9)
    expect(samplesOf(entries).map((s) => s.id)).toEqual(['a', 'i'])
    const errors = errorsOf(entries)
    expect(errors.map((e) => [e.where, e.field])).toEqual([
      ['fixtures/bad.jsonl:2', ''],
      ['fixtures/bad.jsonl:3', 'expected[0].name'],
      ['fixtures/bad.jsonl:4', 'messages[0].role'],
      ['fixtures/bad.jsonl:5', 'expected[0].arguments'],
      ['fixtures/bad.jsonl:6', 'id'],
      ['fixtures/bad.jsonl:7', ''],
      ['fixtures/bad.jsonl:8', 'expected'],
    ])
    expect(errors[0]?.message).toMatch(/not valid JSON/)
    expect(errors[1]?.id).toBe('c')
    // The expected calls of a line that has them are kept (the errored sample scores as "no prediction").
    expect(errors[2]?.expected).toEqual([{ name: 'f' }])
    expect(errors[4]?.id).toBeUndefined()
    expect(formatSampleError(errors[1] as SampleError)).toBe('fixtures/bad.jsonl:3: field `expected[0].name`: must be a non-empty string')
  })

  it('makes a repeated id an error naming the first occurrence', () => {
    const text = [line({ id: 'a', messages: [], expected: [] }), line({ id: 'a', messages: [], expected: [{ name: 'f' }] })].join('\n')
    const entries = parseJsonlSamples(text, 'd.jsonl')
    expect(samplesOf(entries)).toHaveLength(1)
    expect(errorsOf(entries)[0]).toMatchObject({ where: 'd.jsonl:2', field: 'id', id: 'a', expected: [{ name: 'f' }] })
    expect(errorsOf(entries)[0]?.message).toContain('first at d.jsonl:1')
  })

  it('reads files, and makes an unreadable file one error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tool-evals-data-'))
    try {
      const file = join(dir, 'd.jsonl')
      writeFileSync(file, line({ id: 'a', messages: [], expected: [] }) + '\n')
      expect(samplesOf(loadJsonl(file)).map((s) => s.id)).toEqual(['a'])
      const missing = loadJsonl(join(dir, 'missing.jsonl'))
      expect(errorsOf(missing)).toHaveLength(1)
      // Not found is said as such, with the path looked for (absolute here: no root to name).
      expect(errorsOf(missing)[0]).toMatchObject({ message: `data file not found: looked for ${join(dir, 'missing.jsonl')}`, unreadable: true })
      // A directory is there but cannot be read as a file: the system's reason.
      expect(errorsOf(loadJsonl(dir))[0]?.message).toMatch(/^cannot read the data file: EISDIR/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('dialogues', () => {
  const call = (id: string, name: string, args: unknown) => ({ id, type: 'function', function: { name, arguments: JSON.stringify(args) } })
  const dialogue = {
    id: 'd1',
    tools,
    messages: [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'What is on today?' },
      { role: 'assistant', content: null, tool_calls: [call('1', 'list_events', { date: '2025-05-02' })] },
      { role: 'tool', tool_call_id: '1', content: '[...]' },
      { role: 'assistant', content: 'Two events.' },
      { role: 'user', content: 'Cancel both' },
      { role: 'assistant', content: null, tool_calls: [call('2', 'cancel_event', { event_id: 'e7' })] },
      { role: 'assistant', content: null, tool_calls: [call('3', 'cancel_event', { event_id: 'e9' })] },
      { role: 'tool', tool_call_id: '2', content: 'ok' },
      { role: 'tool', tool_call_id: '3', content: 'ok' },
      { role: 'assistant', content: 'Done.' },
    ],
  }

  it('expands into one sample per tool-calling turn; consecutive tool-call rows are one parallel turn', () => {
    const samples = samplesOf(loadArray([dialogue]))
    expect(samples.map((s) => s.id)).toEqual(['d1#1', 'd1#2'])
    expect(samples[0]?.messages).toEqual(dialogue.messages.slice(0, 2))
    expect(samples[0]?.expected).toEqual([{ name: 'list_events', arguments: '{"date":"2025-05-02"}' }])
    expect(samples[1]?.messages).toEqual(dialogue.messages.slice(0, 6))
    expect(samples[1]?.expected.map((e) => [e.name, e.arguments])).toEqual([
      ['cancel_event', '{"event_id":"e7"}'],
      ['cancel_event', '{"event_id":"e9"}'],
    ])
    expect(samples[1]?.tools).toEqual(tools)
  })

  it('a turn after a tool result is a new turn', () => {
    const msgs = [
      { role: 'user', content: 'x' },
      { role: 'assistant', tool_calls: [call('1', 'a', {})] },
      { role: 'tool', content: 'r' },
      { role: 'assistant', tool_calls: [call('2', 'b', {})] },
    ]
    expect(samplesOf(loadArray([{ id: 'z', messages: msgs }])).map((s) => [s.id, s.messages.length])).toEqual([
      ['z#1', 1],
      ['z#2', 3],
    ])
  })

  it('a dialogue with a broken tool call is an error at that call', () => {
    const msgs = [{ role: 'user', content: 'x' }, { role: 'assistant', tool_calls: [{ function: { name: 'a', arguments: '{oops' } }] }]
    const [error] = errorsOf(loadArray([{ id: 'z', messages: msgs }]))
    expect(error).toMatchObject({ where: 'data[0]', id: 'z', field: 'messages[1].tool_calls[0].function.arguments' })
  })
})

describe('in-memory arrays', () => {
  it('are validated like lines, located by index', () => {
    const entries = loadArray([{ id: 'a', messages: [], expected: [] }, { id: 'b', messages: 'nope', expected: [] }])
    expect(samplesOf(entries).map((s) => s.id)).toEqual(['a'])
    expect(errorsOf(entries)[0]).toMatchObject({ where: 'data[1]', field: 'messages', id: 'b' })
  })

  it('loadSamples throws on the first invalid entry with its location', () => {
    expect(() => loadSamples([{ id: 'a', messages: [], expected: 'x' }])).toThrow('data[0]: field `expected`: must be an array')
    expect(loadSamples([{ id: 'a', messages: [], expected: [] }])).toHaveLength(1)
  })
})

describe('replay', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tool-evals-replay-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const sample = (id: string): Sample => ({ id, messages: [], expected: [] })

  it('answers by sample id: raw text, or OpenAI tool_calls with decoded arguments and their validity', async () => {
    const file = join(dir, 'out.jsonl')
    writeFileSync(
      file,
      [
        line({ id: 'a', output: '<tool_call>{"name": "f", "arguments": {}}</tool_call>' }),
        line({ id: 'b', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"x": 3.0}' } }, { function: { name: 'g', arguments: '{"x": ' } }] }),
        line({ id: 'c', skipped: 'prompt too long' }),
        line({ id: 'd', error: 'HTTP 500' }),
        line({ id: 'e', output: 'v1' }),
        line({ id: 'e', output: 'v2' }),
      ].join('\n'),
    )
    const model = replay(file)
    expect(model.id).toBe(`replay:${file}`)
    expect(await model.generate(sample('a'))).toEqual({ text: '<tool_call>{"name": "f", "arguments": {}}</tool_call>', replayed: true })
    const b = await model.generate(sample('b'))
    expect(b.calls).toEqual([
      { name: 'f', arguments: { x: 3 }, argumentsValid: true, format: 'openai', id: 'call_1', floatPaths: ['/x'] },
      { name: 'g', arguments: {}, argumentsValid: false, format: 'openai' },
    ])
    expect(await model.generate(sample('c'))).toEqual({ skipped: 'prompt too long' })
    await expect(model.generate(sample('d'))).rejects.toThrow(/recorded generation error .*out\.jsonl:4.*HTTP 500/)
    expect((await model.generate(sample('e'))).text).toBe('v2') // the later line wins
  })

  it('a sample with nothing recorded is an error naming the sample and the file, with a groupable reason', async () => {
    const file = join(dir, 'partial.jsonl')
    writeFileSync(file, line({ id: 'a', output: 'x' }) + '\n{broken\n')
    const err = await replay(file).generate(sample('zz')).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(Error)
    expect((err as Error).message).toContain(`no recorded output for sample "zz" in ${file}`)
    expect((err as Error).message).toContain('1 unreadable line(s)')
    expect((err as { reason?: string }).reason).toBe(`no recorded output in ${file}`)
  })

  it('a missing recording file makes every lookup fail with "recording file not found: <path>"', async () => {
    const file = join(dir, 'nope.jsonl')
    const err = await replay(file).generate(sample('a')).catch((e: unknown) => e)
    expect((err as Error).message).toBe(`recording file not found: ${file}`)
    expect((err as { reason?: string }).reason).toBe(`recording file not found: ${file}`)
  })

  it('an unknown format hint: replay() rejects it at once, a recorded text line naming one is that sample\'s error', async () => {
    expect(() => replay('x.jsonl', { format: 'hermes2' })).toThrow(/replay\(x\.jsonl\): option `format`: unknown format "hermes2"; known formats: .*\bhermes\b/)
    const rec = parseRecording([line({ id: 'a', output: 'x', format: 'nope' }), line({ id: 'b', tool_calls: [], format: 'openai' })].join('\n'), 'r.jsonl')
    expect(rec.byId.get('a')?.error).toMatch(/^r\.jsonl:1: field `format`: unknown format "nope"; known formats: /)
    expect(rec.byId.get('b')?.output).toEqual({ calls: [], format: 'openai' }) // tool_calls are not parsed: no hint needed
  })

  it('passes the format hint on for raw text', async () => {
    const file = join(dir, 'hint.jsonl')
    writeFileSync(file, [line({ id: 'a', output: 'x' }), line({ id: 'b', output: 'y', format: 'mistral' })].join('\n'))
    const model = replay(file, { format: 'hermes' })
    expect(await model.generate(sample('a'))).toEqual({ text: 'x', format: 'hermes', replayed: true })
    expect(await model.generate(sample('b'))).toEqual({ text: 'y', format: 'mistral', replayed: true })
  })

  it('parseRecording files unusable lines under their id, and lines without an id as unreadable', () => {
    const rec = parseRecording([line({ id: 'a', tool_calls: 'x' }), line({ id: 'b' }), line({ output: 'x' })].join('\n'), 'r.jsonl')
    expect(rec.byId.get('a')?.error).toBe('r.jsonl:1: field `tool_calls`: must be an array')
    expect(rec.byId.get('b')?.error).toMatch(/neither `output` nor `tool_calls`/)
    expect(rec.unreadable).toEqual(['r.jsonl:3: field `id`: missing (a recorded line needs the sample id)'])
  })

  it('callsFromOpenAI: object arguments are valid, no arguments is {} and valid, a nameless call has name ""', () => {
    expect(callsFromOpenAI([{ function: { name: 'f', arguments: { a: 1 } } }, { function: { name: 'g' } }, { function: { arguments: '{}' } }])).toEqual([
      { name: 'f', arguments: { a: 1 }, argumentsValid: true, format: 'openai' },
      { name: 'g', arguments: {}, argumentsValid: true, format: 'openai' },
      { name: '', arguments: {}, argumentsValid: true, format: 'openai' },
    ])
    expect(callsFromOpenAI({})).toBe('must be an array')
  })
})
