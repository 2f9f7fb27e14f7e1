// Repeated trials as units: the option's validation, the reducers on NeMo's metrics, no-call samples and user
// scorers, flip rates, replay's lookup of trial lines, the cache key, and the snapshot normalisation of calls.
import { basename } from 'node:path'
import { describe, expect, it } from 'vitest'
import { callsKey, composeSnapshotFile, normaliseCalls, parseSnapshotFile, readSnapshotText } from '../../../src/score/snapshot-format.js'
import { snapshotPath, snapshotPlan } from '../../../src/eval/snapshot.js'
import { modalTrial, reduceTrials, trialsPlan, trialSummary, type TrialOutcome } from '../../../src/eval/trials.js'
import { generationKey } from '../../../src/models/cache.js'
import { parseRecording, replay } from '../../../src/models/replay.js'
import { aggregateRun } from '../../../src/score/run.js'
import { scoreSample } from '../../../src/score/nemo.js'
import type { Sample } from '../../../src/data/types.js'
import type { SampleRecord } from '../../../src/score/types.js'

const gw = (city: string) => ({ name: 'get_weather', arguments: { city } })
const call = (name: string, args: Record<string, unknown>, valid = true) => ({ name, arguments: args, argumentsValid: valid, format: 'test' })

function trial(right: boolean, extra: Partial<SampleRecord> = {}): TrialOutcome {
  const calls = right ? [call('get_weather', { city: 'Paris' })] : [call('get_time', {})]
  return { record: { id: 's', suite: 'x', score: scoreSample(calls, [gw('Paris')]), ...extra }, callsKey: right ? 'R' : 'W' }
}

describe('trials option', () => {
  it('validates count and reducers with the option named', () => {
    expect(trialsPlan(undefined, 'e')).toBeUndefined()
    expect(trialsPlan(3, 'e')?.reducerOf('name_correct')).toBe('mean')
    expect(trialsPlan({ count: 2, reduce: 'any' }, 'e')?.reducerOf('has_call')).toBe('any')
    const plan = trialsPlan({ count: 2, reduce: { name_correct: 'all' } }, 'e')!
    expect([plan.reducerOf('name_correct'), plan.reducerOf('has_call')]).toEqual(['all', 'mean'])
    expect(() => trialsPlan(0, 'describeEval("w")')).toThrow('describeEval("w"): option `trials` must be a whole number from 1 to 1000')
    expect(() => trialsPlan({ count: 2.5 }, 'e')).toThrow('option `trials.count`')
    expect(() => trialsPlan({ count: 2, reduce: { name_correct: 'most' as never } }, 'e')).toThrow("`trials.reduce.name_correct` must be 'mean', 'all' or 'any'")
  })
})

describe('reducing trials', () => {
  const outcomes = [trial(true), trial(false), trial(true)]

  it('mean, all (pass^k) and any (pass@k) per metric; the record keeps the most frequent outcome', () => {
    const mean = reduceTrials(outcomes, trialsPlan(3, 'e')!)
    expect(mean.score?.metrics.name_correct).toBeCloseTo(2 / 3, 12)
    expect(mean.score?.failures).toEqual([]) // the modal trial (right, twice)
    expect(mean.trials).toEqual({ count: 3, right: 2, flipRate: 1 / 3 })
    const all = reduceTrials(outcomes, trialsPlan({ count: 3, reduce: 'all' }, 'e')!)
    expect(all.score?.metrics.name_correct).toBe(0)
    const any = reduceTrials(outcomes, trialsPlan({ count: 3, reduce: 'any' }, 'e')!)
    expect(any.score?.metrics.name_correct).toBe(1)
  })

  it('no-call samples: a share under mean, summed into no_call_accuracy', () => {
    const none = (right: boolean): TrialOutcome => ({
      record: { id: 'n', score: scoreSample(right ? [] : [call('get_time', {})], []) },
      callsKey: right ? '[]' : 'W',
    })
    const reduced = reduceTrials([none(true), none(true), none(false), none(true)], trialsPlan(4, 'e')!)
    expect(reduced.score?.noCallShare).toBe(0.75)
    expect(aggregateRun([reduced]).metrics.no_call_accuracy).toBe(0.75)
    const all = reduceTrials([none(true), none(false)], trialsPlan({ count: 2, reduce: 'all' }, 'e')!)
    expect(all.score?.noCallCorrect).toBe(false)
    expect(aggregateRun([all]).metrics.no_call_accuracy).toBe(0)
  })

  it("user scorers' values reduce metric by metric (booleans stay booleans under all/any)", () => {
    const withScores = (celsius: number, kelvin: boolean) => trial(true, { scores: { units: { celsius, kelvin } } })
    const list = [withScores(1, true), withScores(0, false), withScores(0.5, true)]
    const plan = trialsPlan({ count: 3, reduce: { 'units.kelvin': 'all' } }, 'e')!
    expect(reduceTrials(list, plan).scores?.['units']).toEqual({ celsius: 0.5, kelvin: false })
  })

  it('a trial that errored makes the sample errored', () => {
    const failed = reduceTrials([trial(true), trial(false, { error: 'backend down' })], trialsPlan(2, 'e')!)
    expect(failed.error).toBe('backend down')
    expect(failed.trials).toEqual({ count: 2, right: 1, flipRate: 0.5 })
  })

  it("the sample's usage and retries are every trial's, errored or not", () => {
    const u = (promptTokens: number, latencyMs: number) => ({ provider: 'p', promptTokens, completionTokens: 2, latencyMs })
    const right = reduceTrials([trial(true, { usage: u(10, 5), retries: 1 }), trial(true, { usage: u(20, 7) }), trial(false, { usage: u(30, 9), retries: 2 })], trialsPlan(3, 'e')!)
    expect(right.usage).toEqual({ provider: 'p', requests: 3, promptTokens: 60, completionTokens: 6, latencyMs: 21, latenciesMs: [5, 7, 9] })
    expect(right.retries).toBe(3)
    const failed = reduceTrials([trial(true, { usage: u(10, 5) }), trial(false, { error: 'refused', retries: 4 })], trialsPlan(2, 'e')!)
    expect(failed).toMatchObject({ error: 'refused', retries: 4, usage: u(10, 5) })
  })

  it('flip rate and modal trial', () => {
    expect(trialSummary([trial(true).record, trial(true).record]).flipRate).toBe(0)
    expect(modalTrial([trial(false), trial(true), trial(true)])).toEqual({ index: 1, frequency: 2 })
  })
})

describe('replaying and caching trials', () => {
  const sample: Sample = { id: 'w1', messages: [{ role: 'user', content: 'hi' }], expected: [] }

  it('trial t is the line tagged `trial: t`, else the t-th untagged line of that id', async () => {
    const text = [
      { id: 'w1', output: 'zero' },
      { id: 'w1', output: 'two', trial: 2 },
      { id: 'w1', output: 'one' },
      { id: 'w1', output: 'bad', trial: -1 },
    ].map((l) => JSON.stringify(l)).join('\n')
    const recording = parseRecording(text, 'r.jsonl')
    expect(recording.lines.get('w1')?.length).toBe(4)
    const { mkdtempSync, writeFileSync } = await import('node:fs')
    const { join } = await import('node:path')
    const { tmpdir } = await import('node:os')
    const file = join(mkdtempSync(join(tmpdir(), 'trials-')), 'r.jsonl')
    writeFileSync(file, text)
    const model = replay(file)
    expect((await model.generate({ ...sample, trial: 0 })).text).toBe('zero')
    expect((await model.generate({ ...sample, trial: 1 })).text).toBe('one')
    expect((await model.generate({ ...sample, trial: 2 })).text).toBe('two')
    await expect(model.generate({ ...sample, trial: 3 })).rejects.toThrow('no recorded output for sample "w1" trial 3 (4 line(s) recorded for it)')
    // Without trials, the later line wins as before.
    await expect(model.generate(sample)).rejects.toThrow('field `trial`')
  })

  it('the cache key carries the trial from trial 1 on (trial 0 shares the untrialled key)', () => {
    const provider = { id: 'm' }
    expect(generationKey(provider, { ...sample, trial: 0 })).toBe(generationKey(provider, sample))
    expect(generationKey(provider, { ...sample, trial: 1 })).not.toBe(generationKey(provider, sample))
    expect(generationKey(provider, { ...sample, trial: 1 })).not.toBe(generationKey(provider, { ...sample, trial: 2 }))
  })
})

describe('snapshot normalisation', () => {
  it('drops call ids, sorts keys and parallel calls, normalises numbers, masks volatile paths, marks malformed ones', () => {
    const a = normaliseCalls(
      [
        { ...call('b', { z: 1, a: { y: -0, x: 0.1 + 0.2 } }), id: 'call_1' } as never,
        call('a', { request_id: 'r1', q: 'x' }),
        call('c', {}, false),
      ],
      ['arguments.request_id'],
    )
    expect(JSON.stringify(a)).toBe(
      '[{"arguments":{"q":"x","request_id":"<volatile>"},"name":"a"},{"arguments":{"a":{"x":0.3,"y":0},"z":1},"name":"b"},{"arguments":{},"malformed":true,"name":"c"}]',
    )
    const reordered = normaliseCalls([call('a', { q: 'x', request_id: 'other' }), call('c', {}, false), call('b', { a: { x: 0.3, y: 0 }, z: 1 })], ['arguments.request_id'])
    expect(callsKey(reordered)).toBe(callsKey(a))
    expect(normaliseCalls([call('a', { items: [{ id: 1 }, { id: 2 }] })], ['arguments.items.*.id'])[0]?.arguments).toEqual({ items: [{ id: '<volatile>' }, { id: '<volatile>' }] })
  })

  it('files: natural id order, a broken line named by file and line', () => {
    expect(composeSnapshotFile(new Map([['w10', 'B'], ['w2', 'A']]))).toBe('A\nB\n')
    expect(() => parseSnapshotFile('{"id":"w1","calls":[]}\nnope\n', 'x.calls.jsonl')).toThrow('x.calls.jsonl:2: not a snapshot line')
    // -u rewrites the file: lenient reading keeps the good lines and lists the bad ones.
    const read = readSnapshotText('{"id":"w1","calls":[]}\n{"id":"w2","ca', 'x.calls.jsonl', { lenient: true })
    expect([...read.entries.keys()]).toEqual(['w1'])
    expect(read.errors).toEqual(['x.calls.jsonl:2: not a snapshot line (not valid JSON); fix it, or rerun with -u to rewrite the file'])
    expect(snapshotPath('/p/evals/weather.eval.ts', 'weather_tools')).toBe('/p/evals/weather.eval.weather_tools.calls.jsonl')
    // A name the slug does not keep exactly gets a hash of the exact name: colliding slugs, distinct files.
    expect(snapshotPath('/p/evals/weather.eval.ts', 'Weather tools')).toMatch(/^\/p\/evals\/weather\.eval\.weather-tools\.[0-9a-f]{10}\.calls\.jsonl$/)
    const paths = ['天気', '日本', 'a b', 'a-b', 'suite', ''].map((s) => snapshotPath('/p/w.eval.ts', s))
    expect(new Set(paths).size).toBe(paths.length)
    expect(basename(snapshotPath('/p/w.eval.ts', 'Ab'.repeat(150))).length).toBeLessThan(100)
    expect(snapshotPlan('fail', 'e')).toEqual({ mode: 'fail', ignore: [] })
    expect(snapshotPlan({ ignore: ['arguments.id'] }, 'e')).toEqual({ mode: 'report', ignore: ['arguments.id'] })
    expect(() => snapshotPlan({ mode: 'strict' as never }, 'describeEval("w")')).toThrow("describeEval(\"w\"): option `snapshot.mode` must be 'report' or 'fail'")
  })
})
