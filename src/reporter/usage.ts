/**
 * The report's usage: per suite and overall, the model's and the judge's apart: tokens (totals and means per fresh
 * sample), latency (mean, p50, p95, max; first-token time where a provider gives it) and, with the `pricing` option,
 * cost in USD. Samples answered from the generation cache (`cached()`) are counted as `cached` and left out of
 * tokens, latency and cost: no model ran for them. With describeEval's `trials`, every trial's request counts:
 * tokens and cost are summed over trials, and latency percentiles are over requests (`requests` says how many).
 *
 *   pricing: { 'openai:gpt-4o': { prompt: 2.5, completion: 10 } }   // USD per million tokens, by provider id
 *
 * A pricing key is a provider's id (`openai:<model>@<baseURL>`, `local:<model>`, your provider's `id`) or, for ids
 * with an `@`, the part before it (`openai:gpt-4o` prices that model at any base URL).
 */
import { addUsage, createUsageAccumulator, latencyStats, type LatencyStats, type ProviderTokens, type UsageAccumulator } from '../score/usage-sums.js'
import type { SampleRecord } from '../score/types.js'

/** USD per million tokens. */
export interface Price {
  prompt: number
  completion: number
}

/** Prices by provider id (or its part before `@`). */
export type Pricing = Record<string, Price>

export interface UsagePartReport {
  /** Samples whose usage came from a fresh generation (in tokens, latency and cost). */
  samples: number
  /** Samples answered from the cache: in none of the numbers below. */
  cached: number
  /** Fresh generations behind `samples` (samples × trials with describeEval's `trials`): what the server answered. */
  requests: number
  promptTokens: number
  completionTokens: number
  /** Per fresh sample (all its trials); null when there is none. */
  meanPromptTokens: number | null
  meanCompletionTokens: number | null
  /** Over fresh requests that measured it (every trial's); null when none did. p50 / p95 by nearest rank (exact). */
  latencyMs: LatencyStats | null
  /** Time to first token, where the provider streams (absent otherwise). */
  firstTokenMs?: LatencyStats
  /** With `pricing`: what the fresh samples cost (priced providers only: see `unpriced`). */
  costUsd?: number
  /** With `pricing`: providers that used tokens but have no price (their tokens are not in `costUsd`). */
  unpriced?: string[]
  /** Tokens by provider id. */
  providers: Record<string, ProviderTokens & { costUsd?: number }>
  /**
   * The model's part only: failed requests its provider retried (a 503, a refused connection), over every sample,
   * errored ones included. The judge's retries are not counted.
   */
  retries?: number
}

export interface UsageReport {
  model: UsagePartReport
  /** The judge's usage, apart from the model's (present when a judge ran). */
  judge?: UsagePartReport
  /** With `pricing`: the model's and the judge's cost together. */
  costUsd?: number
  unpriced?: string[]
}

interface Parts {
  model: UsageAccumulator
  judge: UsageAccumulator
}

const createParts = (): Parts => ({ model: createUsageAccumulator(), judge: createUsageAccumulator() })

/** Usage of a run, overall and per suite, from the records (see RunCollector). */
export class UsageCollector {
  readonly overall = createParts()
  readonly suites = new Map<string, Parts>()

  add(record: SampleRecord, suite: string): void {
    if (record.usage === undefined && record.judgeUsage === undefined && record.retries === undefined) return
    let parts = this.suites.get(suite)
    if (!parts) this.suites.set(suite, (parts = createParts()))
    for (const p of [this.overall, parts]) {
      addUsage(p.model, record.usage)
      addUsage(p.judge, record.judgeUsage)
      p.model.retries += record.retries ?? 0
    }
  }
}

/** Throws a clear error for a `pricing` option that is not one (a typo must not price a run at zero). */
export function validatePricing(pricing: unknown): Pricing | undefined {
  if (pricing === undefined) return undefined
  if (!isObject(pricing)) throw new Error('tool-evals reporter: `pricing` must be an object: { "<provider id>": { prompt, completion } } (USD per million tokens)')
  for (const [id, price] of Object.entries(pricing)) {
    const where = `pricing[${JSON.stringify(id)}]`
    if (!isObject(price)) throw new Error(`tool-evals reporter: \`${where}\` must be { prompt, completion } (USD per million tokens)`)
    for (const key of Object.keys(price)) {
      if (key !== 'prompt' && key !== 'completion') throw new Error(`tool-evals reporter: unknown key \`${where}.${key}\`; known: prompt, completion`)
    }
    for (const key of ['prompt', 'completion'] as const) {
      const v = price[key]
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
        throw new Error(`tool-evals reporter: \`${where}.${key}\` must be a number >= 0 (USD per million tokens)`)
      }
    }
  }
  return pricing as Pricing
}

/** The price of a provider: by its id, else by the id's part before `@`. */
export function priceFor(pricing: Pricing, providerId: string): Price | undefined {
  if (Object.hasOwn(pricing, providerId)) return pricing[providerId]
  const at = providerId.indexOf('@')
  const model = at < 0 ? undefined : providerId.slice(0, at)
  return model !== undefined && Object.hasOwn(pricing, model) ? pricing[model] : undefined
}

function partReport(acc: UsageAccumulator, pricing: Pricing | undefined): UsagePartReport {
  let promptTokens = 0
  let completionTokens = 0
  let cost = 0
  const unpriced: string[] = []
  const providers: UsagePartReport['providers'] = {}
  for (const id of [...acc.byProvider.keys()].sort()) {
    const p = acc.byProvider.get(id) as ProviderTokens
    promptTokens += p.promptTokens
    completionTokens += p.completionTokens
    const entry: UsagePartReport['providers'][string] = { ...p }
    const price = pricing && priceFor(pricing, id)
    if (price) {
      // Integer token counts times the price: the same cost however the samples were sharded.
      entry.costUsd = (p.promptTokens * price.prompt + p.completionTokens * price.completion) / 1e6
      cost += entry.costUsd
    } else if (pricing && p.promptTokens + p.completionTokens > 0) unpriced.push(id)
    providers[id] = entry
  }
  const out: UsagePartReport = {
    samples: acc.samples,
    cached: acc.cached,
    requests: acc.requests,
    promptTokens,
    completionTokens,
    meanPromptTokens: acc.samples === 0 ? null : promptTokens / acc.samples,
    meanCompletionTokens: acc.samples === 0 ? null : completionTokens / acc.samples,
    latencyMs: latencyStats(acc.latencies),
    providers,
  }
  const firstToken = latencyStats(acc.firstTokens)
  if (firstToken) out.firstTokenMs = firstToken
  if (pricing) out.costUsd = cost
  if (unpriced.length > 0) out.unpriced = unpriced
  return out
}

const used = (acc: UsageAccumulator) => acc.samples + acc.cached + acc.retries > 0

/** The usage section of a run or suite; undefined when no sample reported any usage. */
export function usageReport(parts: Parts, pricing: Pricing | undefined): UsageReport | undefined {
  if (!used(parts.model) && !used(parts.judge)) return undefined
  const report: UsageReport = { model: { ...partReport(parts.model, pricing), retries: parts.model.retries } }
  if (used(parts.judge)) report.judge = partReport(parts.judge, pricing)
  if (pricing) report.costUsd = (report.model.costUsd ?? 0) + (report.judge?.costUsd ?? 0)
  const unpriced = [...new Set([...(report.model.unpriced ?? []), ...(report.judge?.unpriced ?? [])])]
  if (unpriced.length > 0) report.unpriced = unpriced
  return report
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
