// describeEval's parts in process: generation scheduling and per-sample evaluation. (The subprocess runs of whole
// eval projects are in integration.test.ts.)
import { describe, expect, it } from 'vitest'
import type { Sample } from '../../../src/data/types.js'
import { evaluate, invalidSampleTestName } from '../../../src/eval/describe-eval.js'
import { Generations } from '../../../src/eval/generations.js'
import type { ModelOutput, ModelProvider } from '../../../src/models/types.js'

const sample = (id: string, expected: Sample['expected'] = [{ name: 'f', arguments: { a: 1 } }]): Sample => ({ id, messages: [], expected })

/** A model whose generations finish when the test says so. */
function controlledModel() {
  const pending = new Map<string, Array<(o: ModelOutput) => void>>()
  const started: string[] = []
  let inFlight = 0
  let maxInFlight = 0
  const model: ModelProvider = {
    id: 'controlled',
    generate(s) {
      started.push(s.id)
      inFlight++
      maxInFlight = Math.max(maxInFlight, inFlight)
      return new Promise<ModelOutput>((resolve) => {
        const list = pending.get(s.id) ?? []
        list.push((o) => {
          inFlight--
          resolve(o)
        })
        pending.set(s.id, list)
      })
    },
  }
  const finish = async (id: string, text = id) => {
    const resolve = pending.get(id)?.shift()
    if (!resolve) throw new Error(`${id} is not generating`)
    resolve({ text })
    await new Promise((r) => setTimeout(r, 0))
  }
  return { model, started, finish, maxInFlight: () => maxInFlight }
}

const tick = () => new Promise((r) => setTimeout(r, 0))

describe('Generations', () => {
  it('generates planned samples in order, never more than `concurrency` at once nor further than `lookahead` ahead', async () => {
    const m = controlledModel()
    const samples = ['a', 'b', 'c', 'd', 'e', 'f'].map((id) => sample(id))
    const g = new Generations(m.model, 2, 3)
    g.plan(samples)
    await tick()
    expect(m.started).toEqual(['a', 'b'])
    await m.finish('a')
    expect(m.started).toEqual(['a', 'b', 'c']) // lookahead 3: a, b, c started, nothing consumed yet
    await m.finish('b')
    expect(m.started).toEqual(['a', 'b', 'c'])
    expect((await g.get(samples[0] as Sample)).output?.text).toBe('a')
    await tick()
    expect(m.started).toEqual(['a', 'b', 'c', 'd'])
    expect(m.maxInFlight()).toBe(2)
  })

  it('a sample asked for before its turn jumps the queue, within the concurrency limit', async () => {
    const m = controlledModel()
    const samples = ['a', 'b', 'c'].map((id) => sample(id))
    const g = new Generations(m.model, 1, 10)
    g.plan(samples)
    const late = g.get(samples[2] as Sample)
    await tick()
    expect(m.started).toEqual(['a']) // the limit holds
    await m.finish('a')
    expect(m.started).toEqual(['a', 'c'])
    await m.finish('c')
    expect((await late).output?.text).toBe('c')
    await tick()
    expect(m.started).toEqual(['a', 'c', 'b']) // c is not generated twice when the plan reaches it
  })

  it('works without a plan, and generates again when a retried test asks twice', async () => {
    const m = controlledModel()
    const g = new Generations(m.model, 4, 4)
    const s = sample('x')
    const first = g.get(s)
    await tick()
    await m.finish('x', 'one')
    expect((await first).output?.text).toBe('one')
    const second = g.get(s)
    await tick()
    await m.finish('x', 'two')
    expect((await second).output?.text).toBe('two')
  })

  it('never rejects: provider errors, thrown or rejected, are results', async () => {
    const throwing: ModelProvider = {
      id: 't',
      generate() {
        throw new Error('sync boom')
      },
    }
    const rejecting: ModelProvider = { id: 'r', generate: () => Promise.reject(new Error('async boom')) }
    expect(((await new Generations(throwing, 1, 1).get(sample('a'))).error as Error).message).toBe('sync boom')
    expect(((await new Generations(rejecting, 1, 1).get(sample('a'))).error as Error).message).toBe('async boom')
  })
})

describe('evaluate', () => {
  const expected = [{ name: 'get_weather', arguments: { city: 'Paris' } }]
  const s = sample('w1', expected)

  it('parses raw text, scores it, and stores record, calls, expected and output of a sample that is not fully right', async () => {
    const { stored, result } = await evaluate(s, { text: '<tool_call>{"name": "get_weather", "arguments": {"city": "Lyon"}}</tool_call>' }, undefined, 'weather', {})
    expect(stored.record).toMatchObject({ id: 'w1', suite: 'weather', score: { failures: ['wrong_arguments'], metrics: { args_exact_match: 0 } } })
    expect(stored.calls).toEqual([{ name: 'get_weather', arguments: { city: 'Lyon' }, format: 'hermes' }])
    expect(stored.expected).toEqual(expected)
    expect(stored.output).toContain('<tool_call>')
    expect(result.calls).toHaveLength(1)
    expect(JSON.parse(JSON.stringify(stored))).toEqual(stored) // plain JSON: it travels through blob reports
  })

  it('a fully right sample stores its record and one line of its calls (the reporter shows the rest only for samples that are not fully right)', async () => {
    const { stored, result } = await evaluate(s, { text: '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>' }, undefined, 'weather', {})
    expect(stored.record).toMatchObject({ id: 'w1', suite: 'weather', score: { failures: [], metrics: { args_exact_match: 1 } } })
    // The record, the hash of its normalised calls (a baseline comparison tells changed calls by it), and the calls
    // as one line (the HTML report shows what was right).
    expect(Object.keys(stored).sort()).toEqual(['callsHash', 'record', 'rightCalls', 'v'])
    expect(stored.rightCalls).toBe('get_weather({"city":"Paris"})')
    expect(result.calls).toHaveLength(1) // `assert` still gets everything
  })

  it('uses the calls a provider gives, and a format hint', async () => {
    const calls = [{ name: 'get_weather', arguments: { city: 'Rome' }, argumentsValid: true, format: 'openai' }]
    expect((await evaluate(s, { calls }, undefined, 'x', {})).stored.record.score?.failures).toEqual(['wrong_arguments'])
    // A hint naming another format never finds fewer calls than detection: the Hermes block is still read.
    const hinted = await evaluate(s, { text: '<tool_call>{"name": "get_weather", "arguments": {}}</tool_call>' }, undefined, 'x', { format: 'mistral' })
    expect(hinted.stored.calls?.map((c) => [c.name, c.format])).toEqual([['get_weather', 'hermes']])
  })

  it('a provider error is an errored record scored as no prediction, grouped by the error reason', async () => {
    const error = Object.assign(new Error('no recorded output for sample "w1" in out.jsonl'), { reason: 'no recorded output in out.jsonl' })
    const { stored } = await evaluate(s, undefined, error, 'weather', {})
    expect(stored.record.error).toBe('no recorded output in out.jsonl')
    expect(stored.detail).toBe('no recorded output for sample "w1" in out.jsonl')
    expect(stored.record.score?.metrics.has_call).toBe(0)
    expect(stored.record.score?.failures).toEqual(['no_call'])
    expect((await evaluate(s, undefined, 'a string', 'w', {})).stored.record.error).toBe('a string')
  })

  it('a skipped output is a skipped record without a score', async () => {
    const { stored } = await evaluate(s, { skipped: 'prompt over maxPromptTokens' }, undefined, 'w', {})
    expect(stored.record).toEqual({ id: 'w1', suite: 'w', skipped: 'prompt over maxPromptTokens' })
  })

  it('truncates the stored output', async () => {
    const { stored } = await evaluate(s, { text: 'x'.repeat(5000) }, undefined, 'w', { maxOutputChars: 100 })
    expect(stored.output?.length).toBeLessThan(130)
  })

  it('names invalid-sample tests so users find them', () => {
    expect(invalidSampleTestName({ where: 'd.jsonl:3', field: 'id', message: 'x', id: 'w3' })).toBe('w3 [invalid sample at d.jsonl:3]')
    expect(invalidSampleTestName({ where: 'd.jsonl:4', field: '', message: 'x' })).toBe('[invalid sample at d.jsonl:4]')
  })
})
