/**
 * The report's usage: per suite and overall, the model's and the judge's apart: tokens (totals and means per fresh
 * sample), latency (mean, p50, p95, max; first-token time where a provider gives it) and cost in USD. Samples
 * answered from the generation cache (`cached()`) are counted as `cached` and left out of tokens, latency and cost:
 * no model ran for them. With describeEval's `trials`, every trial's request counts: tokens and cost are summed over
 * trials, and latency percentiles are over requests (`requests` says how many).
 *
 * A sample's cost is the one its provider or task reported (`usage.costUsd`, as billed: it wins over `pricing`), else
 * its tokens priced by the `pricing` option:
 *
 *   pricing: { 'openai:gpt-4o': { prompt: 2.5, completion: 10 } }   // USD per million tokens, by provider id
 *
 * A pricing key is a provider's id (`openai:<model>@<baseURL>`, `local:<model>`, your provider's `id`) or, for ids
 * with an `@`, the part before it (`openai:gpt-4o` prices that model at any base URL). Cost is reported when there is
 * a `pricing` or some sample reported one; a sample with neither a reported cost nor a price (or without the token
 * counts its price needs) has an unknown cost: its provider is listed in `unpriced`, and the cost is partial.
 */
import { addUsage, createUsageAccumulator, latencyStats, sumCosts, type LatencyStats, type ProviderSums, type ProviderTokens, type UsageAccumulator } from '../score/usage-sums.js'
import type { SampleRecord } from '../score/types.js'
import { usageAmount } from '../score/usage.js'

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
  /** Over the fresh samples that reported the count; partial when `promptTokensUnknown` (`completionTokensUnknown`) is set. */
  promptTokens: number
  completionTokens: number
  /**
   * Fresh samples without a prompt (completion) token count (their provider or task reported none): not in the
   * total, so the total is partial; absent when every fresh sample has it.
   */
  promptTokensUnknown?: number
  completionTokensUnknown?: number
  /** Per fresh sample that has the count (all its trials); null when none has it. */
  meanPromptTokens: number | null
  meanCompletionTokens: number | null
  /** Over fresh requests that measured it (every trial's); null when none did. p50 / p95 by nearest rank (exact). */
  latencyMs: LatencyStats | null
  /** Time to first token, where the provider streams (absent otherwise). */
  firstTokenMs?: LatencyStats
  /**
   * What the fresh samples cost (USD): their reported costs, and their tokens priced by `pricing`. Present with
   * `pricing` or when some sample of the run reported a cost; partial when `unpriced` lists a provider.
   */
  costUsd?: number
  /**
   * Providers some of whose fresh samples have an unknown cost (none reported and no price for their tokens): those
   * samples are not in `costUsd`, and each provider's `costUnknown` says how many.
   */
  unpriced?: string[]
  /** Tokens and cost by provider id. */
  providers: Record<string, ProviderUsage>
  /**
   * The model's part only: failed requests its provider retried (a 503, a refused connection), over every sample,
   * errored ones included. The judge's retries are not counted.
   */
  retries?: number
}

/** One provider's part: its tokens and, where cost is reported, what is known of it. */
export interface ProviderUsage extends ProviderTokens {
  /** Fresh samples without a prompt (completion) token count: not in its total (absent when none lacks it). */
  promptTokensUnknown?: number
  completionTokensUnknown?: number
  /** The known part of its cost: reported costs and priced tokens (absent when it has neither). */
  costUsd?: number
  /** Fresh samples that reported their own cost (in `costUsd` as reported). */
  costReported?: number
  /** Fresh samples whose cost is unknown: no reported cost, and no price or no token count for it. */
  costUnknown?: number
}

export interface UsageReport {
  model: UsagePartReport
  /** The judge's usage, apart from the model's (present when a judge ran). */
  judge?: UsagePartReport
  /** The model's and the judge's cost together (present as `costUsd` of a part is; partial with `unpriced`). */
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
      if (usageAmount(price[key]) === undefined) {
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

function partReport(acc: UsageAccumulator, pricing: Pricing | undefined, costing: boolean): UsagePartReport {
  let promptTokens = 0
  let completionTokens = 0
  let promptUnknown = 0
  let completionUnknown = 0
  let cost = 0
  const unpriced: string[] = []
  const providers: UsagePartReport['providers'] = {}
  for (const id of [...acc.byProvider.keys()].sort()) {
    const p = acc.byProvider.get(id) as ProviderSums
    promptTokens += p.promptTokens
    completionTokens += p.completionTokens
    promptUnknown += p.promptTokensUnknown
    completionUnknown += p.completionTokensUnknown
    const entry: ProviderUsage = { samples: p.samples, promptTokens: p.promptTokens, completionTokens: p.completionTokens }
    if (p.promptTokensUnknown > 0) entry.promptTokensUnknown = p.promptTokensUnknown
    if (p.completionTokensUnknown > 0) entry.completionTokensUnknown = p.completionTokensUnknown
    if (costing) {
      const known = providerCost(p, pricing && priceFor(pricing, id))
      if (known.costUsd !== undefined) {
        entry.costUsd = known.costUsd
        cost += known.costUsd
      }
      if (p.reportedCosts.length > 0) entry.costReported = p.reportedCosts.length
      if (known.unknown > 0) {
        entry.costUnknown = known.unknown
        unpriced.push(id)
      }
    }
    providers[id] = entry
  }
  const out: UsagePartReport = {
    samples: acc.samples,
    cached: acc.cached,
    requests: acc.requests,
    promptTokens,
    completionTokens,
    meanPromptTokens: meanOver(promptTokens, acc.samples - promptUnknown),
    meanCompletionTokens: meanOver(completionTokens, acc.samples - completionUnknown),
    latencyMs: latencyStats(acc.latencies),
    providers,
  }
  if (promptUnknown > 0) out.promptTokensUnknown = promptUnknown
  if (completionUnknown > 0) out.completionTokensUnknown = completionUnknown
  const firstToken = latencyStats(acc.firstTokens)
  if (firstToken) out.firstTokenMs = firstToken
  if (costing) out.costUsd = cost
  if (unpriced.length > 0) out.unpriced = unpriced
  return out
}

const meanOver = (total: number, samples: number): number | null => (samples > 0 ? total / samples : null)

/**
 * A provider's known cost (absent: it has neither a reported cost nor a price) and how many samples' cost is unknown.
 * Reported costs are used as they are; the other samples' tokens are priced, which needs each count whose price is
 * not zero (a sample without it has an unknown cost). With no price, only samples of zero tokens cost a known $0.
 */
function providerCost(p: ProviderSums, price: Price | undefined): { costUsd?: number; unknown: number } {
  const reported = p.reportedCosts.length > 0 ? sumCosts(p.reportedCosts) : undefined
  const u = p.unreported
  if (!price) return { ...(reported === undefined ? {} : { costUsd: reported }), unknown: u.withTokens + u.noPrompt + u.noCompletion + u.noTokens }
  // Integer token counts times the price: the same cost however the samples were sharded.
  const priced = (p.unreportedPromptTokens * price.prompt + p.unreportedCompletionTokens * price.completion) / 1e6
  const needPrompt = price.prompt > 0
  const needCompletion = price.completion > 0
  const unknown = (needPrompt ? u.noPrompt : 0) + (needCompletion ? u.noCompletion : 0) + (needPrompt || needCompletion ? u.noTokens : 0)
  return { costUsd: (reported ?? 0) + priced, unknown }
}

/** Whether some fresh sample of these parts reported its own cost (then the report shows cost without `pricing`). */
export function reportsCost(parts: Parts): boolean {
  for (const acc of [parts.model, parts.judge]) for (const p of acc.byProvider.values()) if (p.reportedCosts.length > 0) return true
  return false
}

/** Why a part's cost is partial: `no price for <id>`, `cost unknown for 2 of 5 samples of <id>`; undefined: it is not. */
export function unknownCostNote(part: UsagePartReport | undefined): string | undefined {
  if (!part?.unpriced?.length) return undefined
  return part.unpriced
    .map((id) => {
      const p = part.providers[id]
      if (!p || p.costUsd === undefined) return `no price for ${id}`
      return `cost unknown for ${p.costUnknown ?? 0} of ${p.samples} samples of ${id}`
    })
    .join('; ')
}

export type TokenCount = 'prompt' | 'completion'

/**
 * Why a part's token total is partial or unknown: `prompt tokens unknown for 2 of 5 samples of <id>`, per provider
 * (`prompt and completion tokens unknown for …` when as many samples lack each); undefined: every fresh sample has it.
 */
export function unknownTokensNote(part: UsagePartReport | undefined, counts: readonly TokenCount[] = ['prompt', 'completion']): string | undefined {
  if (!part) return undefined
  const notes: string[] = []
  for (const [id, p] of Object.entries(part.providers)) {
    const missing = counts.map((c) => [c, (c === 'prompt' ? p.promptTokensUnknown : p.completionTokensUnknown) ?? 0] as const).filter(([, n]) => n > 0)
    if (missing.length === 0) continue
    if (missing.length === 2 && missing[0]?.[1] === missing[1]?.[1]) notes.push(`prompt and completion tokens unknown for ${missing[0]?.[1]} of ${p.samples} samples of ${id}`)
    else for (const [c, n] of missing) notes.push(`${c} tokens unknown for ${n} of ${p.samples} samples of ${id}`)
  }
  return notes.length > 0 ? notes.join('; ') : undefined
}

/** Whether a part's fresh samples all lack both token counts (nothing known of its tokens). */
export function tokensAllUnknown(part: UsagePartReport): boolean {
  return part.samples > 0 && part.promptTokensUnknown === part.samples && part.completionTokensUnknown === part.samples
}

const used = (acc: UsageAccumulator) => acc.samples + acc.cached + acc.retries > 0

/**
 * The usage section of a run or suite; undefined when no sample reported any usage. `costing`: whether cost is
 * reported (default: with `pricing`, or when some sample here reported a cost; a suite gets the run's answer, so a
 * suite whose samples reported none still shows their cost as unknown).
 */
export function usageReport(parts: Parts, pricing: Pricing | undefined, costing = pricing !== undefined || reportsCost(parts)): UsageReport | undefined {
  if (!used(parts.model) && !used(parts.judge)) return undefined
  const report: UsageReport = { model: { ...partReport(parts.model, pricing, costing), retries: parts.model.retries } }
  if (used(parts.judge)) report.judge = partReport(parts.judge, pricing, costing)
  if (costing) report.costUsd = (report.model.costUsd ?? 0) + (report.judge?.costUsd ?? 0)
  const unpriced = [...new Set([...(report.model.unpriced ?? []), ...(report.judge?.unpriced ?? [])])]
  if (unpriced.length > 0) report.unpriced = unpriced
  return report
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
