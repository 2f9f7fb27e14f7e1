// Usage per sample and its report: the endpoint's usage and latency from a real loopback server, cache hits marked,
// the judge's usage apart, the record staying small, exact percentiles, pricing, and `maxThresholds` checked up front.
// (The whole path through `vitest run` subprocesses is in integration-usage.test.ts.)
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { Sample } from '../../../src/data/types.js'
import { evaluateWith } from '../../../src/eval/describe-eval.js'
import { activeScorers, withPreparation } from '../../../src/eval/scorers.js'
import { cached } from '../../../src/models/cache.js'
import { openaiCompatible } from '../../../src/models/openai-compatible.js'
import type { ModelOutput, ModelProvider } from '../../../src/models/types.js'
import ToolEvalsReporter from '../../../src/reporter/index.js'
import { priceFor, usageReport, UsageCollector, validatePricing } from '../../../src/reporter/usage.js'
import { checkMaxThresholds, validateMaxThresholds } from '../../../src/reporter/usage-thresholds.js'
import { describeUsagePart, usageMarkdownRows } from '../../../src/reporter/usage-render.js'
import { latencyStats, nearestRank } from '../../../src/score/usage-sums.js'
import { sumTrialUsage, sumUsage, usageRecord, type UsageRecord } from '../../../src/score/usage.js'
import { recordUsage } from '../../../src/eval/usage.js'
import { completion, startOpenAIServer, type OpenAIServer } from '../../helpers/openai-server.js'

const weatherTool = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }
const sample = (id: string): Sample => ({
  id,
  messages: [{ role: 'user', content: 'Weather in Paris?' }],
  tools: [weatherTool],
  expected: [{ name: 'get_weather', arguments: { city: 'Paris' } }],
})
const hermes = `<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>`

let servers: OpenAIServer[] = []
const dirs: string[] = []
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()))
  servers = []
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

describe('endpoint usage', () => {
  it("keeps the server's token counts and the request's latency (at least the server's delay)", async () => {
    const body = { ...completion(hermes), usage: { prompt_tokens: 321, completion_tokens: 17, total_tokens: 338 } }
    const server = await startOpenAIServer(() => ({ json: body, delayMs: 40 }))
    servers.push(server)
    const model = openaiCompatible({ baseURL: server.baseURL, model: `usage-${Math.random()}`, timeoutMs: 5000 })
    const out = await model.generate(sample('e1'))
    expect(out.usage?.promptTokens).toBe(321)
    expect(out.usage?.completionTokens).toBe(17)
    expect(out.usage?.latencyMs).toBeGreaterThanOrEqual(40)
    expect(out.usage).not.toHaveProperty('firstTokenMs') // non-streaming: no first-token time
    expect(usageRecord(model.id, out)).toMatchObject({ provider: model.id, promptTokens: 321, completionTokens: 17 })
  })

  it('counts only the answering attempt: a retried 503 does not add its time or tokens', async () => {
    const server = await startOpenAIServer((req) => (req.hit === 1 ? { status: 503, json: { error: { message: 'busy' } }, delayMs: 1000 } : { content: hermes }))
    servers.push(server)
    const model = openaiCompatible({ baseURL: server.baseURL, model: `usage-${Math.random()}`, retryDelayMs: 1, timeoutMs: 5000 })
    const out = await model.generate(sample('e2'))
    expect(server.hits).toBe(2)
    expect(out.usage).toMatchObject({ promptTokens: 10, completionTokens: 5 })
    // The first attempt alone took 1 s; the answering one had no delay (a bound the first attempt cannot meet, and
    // one a loaded machine keeps: 80 ms was exceeded at a load average of 8 on 2 cores).
    expect(out.usage?.latencyMs).toBeLessThan(1000)
  })
})

describe('cache hits', () => {
  it('cached() marks a hit, and the entry on disk never carries the mark', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'usage-cache-'))
    dirs.push(dir)
    const inner: ModelProvider = { id: 'm', generate: async () => ({ text: hermes, usage: { promptTokens: 9, completionTokens: 2, latencyMs: 123.4 } }) }
    const model = cached(inner, { dir })
    const first = await model.generate(sample('c1'))
    expect(first.cached).toBeUndefined()
    const second = await model.generate(sample('c1'))
    expect(second.cached).toBe(true)
    expect(second.usage).toEqual({ promptTokens: 9, completionTokens: 2, latencyMs: 123.4 })
    expect(usageRecord('m', second)).toEqual({ provider: 'm', promptTokens: 9, completionTokens: 2, latencyMs: 123.4, cached: true })
    const sub = readdirSync(dir)[0] as string
    const entry = readFileSync(join(dir, sub, readdirSync(join(dir, sub))[0] as string), 'utf8')
    expect(entry).not.toContain('"cached"')
  })
})

describe('per-sample record', () => {
  const judge: ModelProvider = {
    id: 'judge-model',
    generate: async () => ({ text: '{"label": "correct", "explanation": "fine"}', usage: { promptTokens: 200, completionTokens: 12, latencyMs: 30.25 } }),
  }
  const model: ModelProvider = {
    id: 'openai:some-long-model-name-for-size@https://api.example.com/v1',
    generate: async () => ({ text: hermes, usage: { promptTokens: 1234, completionTokens: 56, latencyMs: 812.345 } }),
  }

  it("keeps the model's and the judge's usage apart (both judge kinds summed), and a right sample under 1 KB", async () => {
    const scorers = activeScorers({ schema: true, judge: { model: judge } })
    const generator = withPreparation(model, scorers, undefined)
    const s = sample('w01')
    const output = await generator.generate(s)
    const { stored } = await evaluateWith(s, output, undefined, 'weather', scorers, {})
    recordUsage(stored.record, model.id, output)
    expect(stored.record.score?.failures).toEqual([])
    expect(stored.record.usage).toEqual({ provider: model.id, promptTokens: 1234, completionTokens: 56, latencyMs: 812.3 })
    expect(stored.record.judgeUsage).toEqual({ provider: 'judge-model', promptTokens: 400, completionTokens: 24, latencyMs: 60.6 }) // 30.25 kept as 30.3, twice
    expect(JSON.stringify(stored).length).toBeLessThan(1024)
  })

  it('records nothing for a skipped sample or a failed generation', () => {
    const record = { id: 'x' }
    recordUsage(record, 'm', { skipped: 'too long', usage: { promptTokens: 5000 } })
    recordUsage(record, 'm', undefined)
    expect(record).toEqual({ id: 'x' })
  })

  it('sums judgements: the fresh ones (a cached one ran no judge), cached only when every one was, no first-token time', () => {
    expect(sumUsage([
      { provider: 'j', promptTokens: 1, latencyMs: 0.1, firstTokenMs: 5, cached: true },
      { provider: 'j', promptTokens: 2, latencyMs: 0.2 },
      { provider: 'j', promptTokens: 4, latencyMs: 0.4, firstTokenMs: 1 },
    ])).toEqual({ provider: 'j', promptTokens: 6, latencyMs: 0.6 })
    expect(sumUsage([{ provider: 'j', promptTokens: 1, cached: true }, { provider: 'j', promptTokens: 2, cached: true }])).toEqual({ provider: 'j', promptTokens: 1, cached: true })
    // Amounts that are none: a fresh generation whose usage is unknown, not one that used nothing.
    expect(usageRecord('m', { usage: { promptTokens: -1, latencyMs: Number.NaN } })).toEqual({ provider: 'm' })
  })
})

describe('trials', () => {
  it("sums the fresh trials' tokens and keeps each latency; cached trials are left out; all cached stays cached", () => {
    const t = (promptTokens: number, latencyMs: number, cached?: true) => ({ provider: 'm', promptTokens, completionTokens: 1, latencyMs, ...(cached ? { cached } : {}) })
    expect(sumTrialUsage([t(10, 1.5), t(20, 2.5), t(30, 9, true), undefined])).toEqual({
      provider: 'm', requests: 2, promptTokens: 30, completionTokens: 2, latencyMs: 4, latenciesMs: [1.5, 2.5],
    })
    expect(sumTrialUsage([t(10, 1, true), t(20, 2, true)])).toEqual(t(10, 1, true))
    expect(sumTrialUsage([{ ...t(1, 1), firstTokenMs: 0.5 }, { ...t(1, 2), firstTokenMs: 0.7 }])?.firstTokensMs).toEqual([0.5, 0.7])
    expect(sumTrialUsage([undefined, undefined])).toBeUndefined()
    // Percentiles over requests: three requests of one sample are three latencies.
    const collector = new UsageCollector()
    collector.add({ id: 'a', usage: sumTrialUsage([t(1, 1), t(1, 2), { ...t(1, 30), firstTokenMs: 4 }]) as never }, 's')
    const report = usageReport(collector.overall, undefined)
    expect(report?.model).toMatchObject({ samples: 1, requests: 3, promptTokens: 3, latencyMs: { samples: 3, p50: 2, max: 30 }, firstTokenMs: { samples: 1, max: 4 } })
  })
})

describe('percentiles and sums', () => {
  it('nearest rank: always one of the values; p95 of 20 values is the 19th smallest', () => {
    const values = Array.from({ length: 20 }, (_, i) => (i * 7) % 20) // 0..19, shuffled
    const sorted = [...values].sort((a, b) => a - b)
    expect(nearestRank(sorted, 0.95)).toBe(18)
    expect(nearestRank(sorted, 0.5)).toBe(9)
    expect(nearestRank([42], 0.95)).toBe(42)
    expect(latencyStats([])).toBeNull()
    expect(latencyStats([30, 10, 20])).toEqual({ samples: 3, mean: 2, p50: 2, p95: 3, max: 3 })
  })

  it('gives the same numbers whatever order the samples arrive in (shards merged in any order)', () => {
    const records = Array.from({ length: 50 }, (_, i) => ({
      id: `s${i}`,
      usage: { provider: i % 3 === 0 ? 'b@x' : 'a', promptTokens: 100 + i, completionTokens: i % 9, latencyMs: Math.round(((i * 7919) % 1000) + 0.1 * (i % 10) * 10) / 10 },
    }))
    const pricing = { a: { prompt: 0.15, completion: 0.6 }, b: { prompt: 3, completion: 15 } }
    const build = (order: typeof records) => {
      const c = new UsageCollector()
      for (const r of order) c.add(r, 'suite')
      return usageReport(c.overall, pricing)
    }
    const forward = build(records)
    expect(build([...records].reverse())).toEqual(forward)
    expect(build([...records.filter((_, i) => i % 2), ...records.filter((_, i) => i % 2 === 0)])).toEqual(forward)
    expect(forward?.model.providers['b@x']?.costUsd).toBeGreaterThan(0) // priced by the part before `@`
  })
})

describe('pricing and maxThresholds', () => {
  it('prices a provider by its id, else by the part before `@`', () => {
    const pricing = { 'openai:gpt-4o': { prompt: 2.5, completion: 10 }, 'local:x': { prompt: 0, completion: 0 } }
    expect(priceFor(pricing, 'openai:gpt-4o@https://api.openai.com/v1')).toEqual({ prompt: 2.5, completion: 10 })
    expect(priceFor(pricing, 'local:x')).toEqual({ prompt: 0, completion: 0 })
    expect(priceFor(pricing, 'openai:gpt-4o-mini@https://api.openai.com/v1')).toBeUndefined()
  })

  it('rejects a malformed pricing or bound at startup, naming the field', () => {
    expect(() => validatePricing({ m: { prompt: 1 } })).toThrow('`pricing["m"].completion` must be a number >= 0')
    expect(() => validatePricing({ m: { prompt: 1, completion: 2, cache: 1 } })).toThrow('unknown key `pricing["m"].cache`')
    expect(() => new ToolEvalsReporter({ maxThresholds: { latency_p59_ms: 1 } as never })).toThrow(
      'unknown metric in `maxThresholds.latency_p59_ms`',
    )
    expect(() => validateMaxThresholds({ suites: { a: { latency_p95_ms: -1 } } })).toThrow('`maxThresholds.suites.a.latency_p95_ms` must be a number >= 0')
    // Without `pricing` too: a task may report its cost (a bound with no cost to measure fails at the end).
    expect(validateMaxThresholds({ cost_usd: 5 })).toEqual({ cost_usd: 5 })
  })

  it('fails a cost bound over an unpriced provider, and a bound with nothing measured; an all-cached latency is not run', () => {
    const c = new UsageCollector()
    c.add({ id: 'a', usage: { provider: 'priced', promptTokens: 1_000_000, latencyMs: 10 } }, 's')
    c.add({ id: 'b', usage: { provider: 'other', promptTokens: 5 } }, 's')
    c.add({ id: 'c', usage: { provider: 'priced', latencyMs: 99, cached: true } }, 't')
    const pricing = { priced: { prompt: 2, completion: 0 } }
    const overall = usageReport(c.overall, pricing)
    expect(overall?.model.costUsd).toBe(2)
    expect(overall?.unpriced).toEqual(['other'])
    const suites = new Map([...c.suites].map(([k, v]) => [k, usageReport(v, pricing)]))
    const results = checkMaxThresholds(
      { cost_usd: 10, latency_p95_ms: 50, suites: { t: { latency_p95_ms: 1 }, missing: { prompt_tokens: 1 } } },
      overall,
      suites,
    )
    expect(results).toEqual([
      { metric: 'cost_usd', max: 10, actual: null, pass: false, note: 'no price for other' },
      { metric: 'latency_p95_ms', max: 50, actual: 10, pass: true },
      { metric: 'latency_p95_ms', max: 1, actual: null, pass: true, notRun: true, note: 'every sample was cached', suite: 't' },
      { metric: 'prompt_tokens', max: 1, actual: null, pass: false, note: 'no sample reported usage', suite: 'missing' },
    ])
  })
})

describe('a cost the samples report', () => {
  const collect = (records: { id: string; suite?: string; usage: UsageRecord }[]) => {
    const c = new UsageCollector()
    for (const r of records) c.add({ id: r.id, usage: r.usage }, r.suite ?? 's')
    return c
  }

  it('is used as is and wins over `pricing`, which prices only the samples that report none', () => {
    const c = collect([
      { id: 'a', usage: { provider: 'app', promptTokens: 1_000_000, completionTokens: 0, costUsd: 0.5 } },
      { id: 'b', usage: { provider: 'app', promptTokens: 1_000_000, completionTokens: 0 } },
    ])
    const priced = usageReport(c.overall, { app: { prompt: 2, completion: 8 } })
    expect(priced?.model.providers['app']).toEqual({ samples: 2, promptTokens: 2_000_000, completionTokens: 0, costUsd: 2.5, costReported: 1 })
    expect(priced).toMatchObject({ costUsd: 2.5 })
    expect(priced?.unpriced).toBeUndefined()
  })

  it('without a price for the rest, the cost is partial: marked, shown as such, and a cost bound fails closed', () => {
    const c = collect([
      { id: 'a', usage: { provider: 'app', promptTokens: 10, completionTokens: 2, costUsd: 0.5 } },
      { id: 'b', usage: { provider: 'app', promptTokens: 10, completionTokens: 2 } },
      { id: 'c', suite: 't', usage: { provider: 'app', promptTokens: 10, completionTokens: 2, costUsd: 0.25 } },
    ])
    const overall = usageReport(c.overall, undefined)
    expect(overall?.model).toMatchObject({ costUsd: 0.75, unpriced: ['app'], providers: { app: { costUsd: 0.75, costReported: 2, costUnknown: 1 } } })
    expect(overall).toMatchObject({ costUsd: 0.75, unpriced: ['app'] })
    expect(describeUsagePart(overall!.model)).toContain('$0.75, partial (cost unknown for 1 of 3 samples of app)')
    const suites = new Map([...c.suites].map(([k, v]) => [k, usageReport(v, undefined, true)]))
    expect(usageMarkdownRows(overall, [suites.get('s'), suites.get('t')])).toContain('| usage: cost (USD, model + judge) | $0.75 (partial) | $0.5 (partial) | $0.25 |')
    expect(checkMaxThresholds({ cost_usd: 100, suites: { s: { cost_usd: 100 }, t: { cost_usd: 100 } } }, overall, suites)).toEqual([
      { metric: 'cost_usd', max: 100, actual: null, pass: false, note: 'cost unknown for 1 of 3 samples of app' },
      { metric: 'cost_usd', max: 100, actual: null, pass: false, note: 'cost unknown for 1 of 2 samples of app', suite: 's' },
      { metric: 'cost_usd', max: 100, actual: 0.25, pass: true, suite: 't' },
    ])
  })

  it('every sample reporting one needs no `pricing`; a suite that reported none shows its cost as unknown, not $0', () => {
    const c = collect([
      { id: 'a', usage: { provider: 'app', costUsd: 0.5 } },
      { id: 'b', usage: { provider: 'app', promptTokens: 3, completionTokens: 1, costUsd: 0.75 } },
      { id: 'c', suite: 'other', usage: { provider: 'bare', promptTokens: 3, completionTokens: 1 } },
    ])
    const suite = (name: string) => usageReport(c.suites.get(name)!, undefined, true)
    expect(suite('s')?.costUsd).toBe(1.25)
    expect(checkMaxThresholds({ cost_usd: 1 }, suite('s'), new Map())).toEqual([{ metric: 'cost_usd', max: 1, actual: 1.25, pass: false }])
    expect(suite('other')?.model).toMatchObject({ costUsd: 0, unpriced: ['bare'] })
    expect(describeUsagePart(suite('other')!.model)).toContain('no price for bare')
    expect(describeUsagePart(suite('other')!.model)).not.toContain('$0')
    // No reported cost and no pricing anywhere: no cost in the report, and a cost bound has nothing to measure.
    const none = usageReport(collect([{ id: 'a', usage: { provider: 'bare', promptTokens: 3, completionTokens: 1 } }]).overall, undefined)
    expect(none).not.toHaveProperty('costUsd')
    expect(checkMaxThresholds({ cost_usd: 1 }, none, new Map())).toEqual([
      { metric: 'cost_usd', max: 1, actual: null, pass: false, note: 'no sample reported a cost and there is no `pricing`' },
    ])
  })

  it('a priced sample without the token count its price needs has an unknown cost, not $0', () => {
    const c = collect([
      { id: 'a', usage: { provider: 'm', latencyMs: 12 } },
      { id: 'b', usage: { provider: 'm', promptTokens: 1_000_000 } },
      { id: 'c', usage: { provider: 'm', promptTokens: 1_000_000, completionTokens: 10 } },
    ])
    expect(usageReport(c.overall, { m: { prompt: 1, completion: 0 } })?.model).toMatchObject({ costUsd: 2, unpriced: ['m'], providers: { m: { costUnknown: 1 } } })
    expect(usageReport(c.overall, { m: { prompt: 1, completion: 4 } })?.model).toMatchObject({ unpriced: ['m'], providers: { m: { costUnknown: 2 } } })
  })

  it('sums reported costs to the same number in any order (shards merged in any order)', () => {
    // Float addition is not associative: 1 + 1e-16 + 1e-16 is 1, 1e-16 + 1e-16 + 1 is not.
    const records = [1, 1e-16, 1e-16, 0.1, 0.2].map((costUsd, i) => ({ id: `s${i}`, usage: { provider: 'app', costUsd } }))
    const cost = (order: typeof records) => usageReport(collect(order).overall, undefined)?.costUsd
    expect(cost(records)).toBeCloseTo(1.3, 12)
    expect(cost([...records].reverse())).toBe(cost(records))
    expect(cost([records[2]!, records[0]!, records[4]!, records[1]!, records[3]!])).toBe(cost(records))
  })

  it('trials and a judge\'s kinds: a cost summed over every part, left out when one part has none', () => {
    expect(sumTrialUsage([{ provider: 'a', costUsd: 0.25 }, { provider: 'a', costUsd: 0.5 }])).toMatchObject({ costUsd: 0.75 })
    expect(sumTrialUsage([{ provider: 'a', costUsd: 0.25, promptTokens: 4 }, { provider: 'a', promptTokens: 5 }])).not.toHaveProperty('costUsd')
    expect(sumUsage([{ provider: 'j', costUsd: 0.25 }, { provider: 'j', costUsd: 0.5 }])).toMatchObject({ costUsd: 0.75 })
    expect(sumUsage([{ provider: 'j', costUsd: 0.25, promptTokens: 3 }, { provider: 'j', promptTokens: 2 }])).toEqual({ provider: 'j', promptTokens: 5 })
  })
})

describe('usage a fresh generation did not report', () => {
  const collect = (records: { id: string; suite?: string; usage?: UsageRecord | undefined; judgeUsage?: UsageRecord | undefined }[]) => {
    const c = new UsageCollector()
    for (const { suite, ...r } of records) c.add(r as never, suite ?? 's')
    return c
  }
  const nothing = (provider = 'm') => usageRecord(provider, {}) as UsageRecord

  it('is a record that says so; a cache hit (or a replayed answer) that reported nothing is none', () => {
    expect(nothing()).toEqual({ provider: 'm' })
    expect(usageRecord('m', { cached: true })).toBeUndefined()
    expect(usageRecord('m', { replayed: true })).toBeUndefined()
    const record = { id: 'x' }
    recordUsage(record, 'm', { text: 'hi' })
    expect(record).toEqual({ id: 'x', usage: { provider: 'm' } })
    // A cache hit with nothing reported still adds nothing: no usage section at all.
    expect(usageReport(collect([{ id: 'a', usage: usageRecord('m', { cached: true }) }]).overall, undefined)).toBeUndefined()
  })

  it('makes a sum over trials or judge kinds unknown where it lacks: $0.01, nothing, $0.01 is no $0.02', () => {
    const trials = sumTrialUsage([usageRecord('m', { usage: { costUsd: 0.01 } }), nothing(), usageRecord('m', { usage: { costUsd: 0.01 } })])
    expect(trials).toEqual({ provider: 'm', requests: 3 })
    const record = { id: 'x' }
    const judged = (usage: UsageRecord | undefined) => ({ usage, label: 'correct' })
    recordUsage(record, 'm', { text: 'hi', prepared: { judge: [judged(usageRecord('j', { usage: { costUsd: 0.01, promptTokens: 5 } })), judged(nothing('j'))] } } as ModelOutput)
    expect(record).toEqual({ id: 'x', usage: { provider: 'm' }, judgeUsage: { provider: 'j' } })
    const report = usageReport(collect([{ id: 'a', usage: trials, judgeUsage: (record as { judgeUsage?: UsageRecord }).judgeUsage }]).overall, undefined, true)
    expect(report).toMatchObject({ costUsd: 0, unpriced: ['m', 'j'], model: { requests: 3, providers: { m: { costUnknown: 1 } } }, judge: { providers: { j: { costUnknown: 1 } } } })
    expect(checkMaxThresholds({ cost_usd: 1 }, report, new Map())).toEqual([{ metric: 'cost_usd', max: 1, actual: null, pass: false, note: 'no price for m; no price for j' }])
  })

  it('half the samples reporting a cost: the cost is partial, not the whole', () => {
    const records = ['a', 'b', 'c', 'd'].map((id, i) => ({ id, usage: i % 2 ? nothing() : (usageRecord('m', { usage: { costUsd: 0.01 } }) as UsageRecord) }))
    const report = usageReport(collect(records).overall, undefined)!
    expect(report).toMatchObject({ costUsd: 0.02, unpriced: ['m'], model: { samples: 4, requests: 4, providers: { m: { costReported: 2, costUnknown: 2 } } } })
    expect(describeUsagePart(report.model)).toContain('$0.02, partial (cost unknown for 2 of 4 samples of m)')
    expect(describeUsagePart(report.model)).toMatch(/^tokens unknown \(4 samples reported none\)/)
    expect(usageMarkdownRows(report, [])).toEqual(expect.arrayContaining(['| usage: tokens (prompt + completion) | unknown |', '| usage: cost (USD, model + judge) | $0.02 (partial) |']))
  })

  it('a record with a latency but no token counts: totals and means over the samples that have them, marked partial; a token bound fails', () => {
    const c = collect([
      { id: 'a', usage: { provider: 'm', promptTokens: 10, completionTokens: 2, latencyMs: 5 } },
      { id: 'b', usage: { provider: 'm', latencyMs: 7 } },
      { id: 'c', suite: 't', usage: { provider: 'm', promptTokens: 30, completionTokens: 4, latencyMs: 9 } },
    ])
    const overall = usageReport(c.overall, { m: { prompt: 1, completion: 1 } })!
    expect(overall.model).toMatchObject({
      samples: 3, promptTokens: 40, completionTokens: 6, promptTokensUnknown: 1, completionTokensUnknown: 1, meanPromptTokens: 20, meanCompletionTokens: 3,
      providers: { m: { samples: 3, promptTokens: 40, completionTokens: 6, promptTokensUnknown: 1, completionTokensUnknown: 1, costUnknown: 1 } },
      unpriced: ['m'],
    })
    expect(overall.model.latencyMs?.samples).toBe(3)
    expect(describeUsagePart(overall.model)).toContain('40 prompt + 6 completion tokens (mean 20 + 3), partial (prompt and completion tokens unknown for 1 of 3 samples of m)')
    const suites = new Map([...c.suites].map(([k, v]) => [k, usageReport(v, { m: { prompt: 1, completion: 1 } })]))
    expect(usageMarkdownRows(overall, [suites.get('s'), suites.get('t')])).toContain('| usage: tokens (prompt + completion) | 40 + 6 (partial) | 10 + 2 (partial) | 30 + 4 |')
    expect(checkMaxThresholds({ prompt_tokens: 1000, completion_tokens: 1000, suites: { t: { prompt_tokens: 1000 } } }, overall, suites, { partial: true })).toEqual([
      { metric: 'prompt_tokens', max: 1000, actual: null, pass: false, note: 'prompt tokens unknown for 1 of 3 samples of m' },
      { metric: 'completion_tokens', max: 1000, actual: null, pass: false, note: 'completion tokens unknown for 1 of 3 samples of m' },
      { metric: 'prompt_tokens', max: 1000, actual: 30, pass: true, suite: 't' },
    ])
    // One count lacking: only its total is partial.
    const half = usageReport(collect([{ id: 'a', usage: { provider: 'm', completionTokens: 2 } }, { id: 'b', usage: { provider: 'm', promptTokens: 4, completionTokens: 2 } }]).overall, undefined)!
    expect(half.model).toMatchObject({ promptTokens: 4, promptTokensUnknown: 1, completionTokens: 4, meanPromptTokens: 4, meanCompletionTokens: 2 })
    expect(half.model).not.toHaveProperty('completionTokensUnknown')
    expect(describeUsagePart(half.model)).toContain('partial (prompt tokens unknown for 1 of 2 samples of m)')
    expect(checkMaxThresholds({ completion_tokens: 3 }, half, new Map())).toEqual([{ metric: 'completion_tokens', max: 3, actual: 4, pass: false }])
  })

  it('gives the same numbers whatever order the samples arrive in (shards merged in any order)', () => {
    const records = Array.from({ length: 12 }, (_, i) => ({
      id: `s${i}`,
      suite: i % 2 ? 'a' : 'b',
      usage: i % 3 === 0 ? nothing() : i % 3 === 1 ? { provider: 'm', latencyMs: i } : { provider: 'm', promptTokens: i, completionTokens: 1, costUsd: i / 100 },
    }))
    const build = (order: typeof records) => {
      const c = collect(order)
      return [usageReport(c.overall, undefined), usageReport(c.suites.get('a')!, undefined, true), usageReport(c.suites.get('b')!, undefined, true)]
    }
    const forward = build(records)
    expect(forward[0]?.model).toMatchObject({ samples: 12, promptTokensUnknown: 8, completionTokensUnknown: 8, providers: { m: { costReported: 4, costUnknown: 8 } } })
    expect(build([...records].reverse())).toEqual(forward)
    expect(build([...records.filter((_, i) => i % 2), ...records.filter((_, i) => i % 2 === 0)])).toEqual(forward)
  })
})
