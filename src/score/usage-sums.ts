/**
 * Summing usage over a run or a suite: per provider, the fresh (uncached) samples' tokens (and how many samples lack
 * each count); every fresh latency,
 * kept as integer tenths of a millisecond. Percentiles are exact (nearest rank over all values), and every sum is of
 * integers, so a run merged from shards (`--merge-reports`) gives the very numbers of one unsharded run, whatever
 * order the samples arrive in. Memory: one number per sample with a latency (and one per first-token time).
 */
import type { UsageRecord } from './usage.js'

export interface ProviderTokens {
  /** Fresh samples with usage from this provider. */
  samples: number
  promptTokens: number
  completionTokens: number
}

/**
 * A provider's sums as the accumulator keeps them: its tokens, and what its cost is made of. A sample's cost is the
 * one it reported (`costUsd`), else its tokens priced by `pricing` (reporter/usage.ts), which needs the token counts
 * the price is not zero for: the samples that reported no cost are tallied by which counts they lack.
 */
export interface ProviderSums extends ProviderTokens {
  /** Each reported cost (USD), summed in ascending order when reported, so shards merge to the very same sum. */
  reportedCosts: number[]
  /** Tokens of the samples that reported no cost: what `pricing` prices. */
  unreportedPromptTokens: number
  unreportedCompletionTokens: number
  /** Samples that reported no cost, by what they lack: nothing (with tokens; zero tokens cost nothing), a count. */
  unreported: { withTokens: number; noPrompt: number; noCompletion: number; noTokens: number }
  /** Fresh samples without a prompt (completion) token count: not in `promptTokens` (`completionTokens`). */
  promptTokensUnknown: number
  completionTokensUnknown: number
}

/** One part of the usage (the model's, or the judge's). */
export interface UsageAccumulator {
  /** Samples whose usage came from a fresh generation. */
  samples: number
  /** Samples answered from the cache (left out of tokens, latency and cost). */
  cached: number
  /** Fresh generations (requests) behind those samples: more than `samples` with trials. */
  requests: number
  /** Failed requests retried (SampleRecord.retries), errored samples' included. */
  retries: number
  byProvider: Map<string, ProviderSums>
  /** Fresh latencies in tenths of a ms. */
  latencies: number[]
  firstTokens: number[]
}

export function createUsageAccumulator(): UsageAccumulator {
  return { samples: 0, cached: 0, requests: 0, retries: 0, byProvider: new Map(), latencies: [], firstTokens: [] }
}

export function addUsage(acc: UsageAccumulator, usage: UsageRecord | undefined): void {
  if (usage === undefined) return
  if (usage.cached) {
    acc.cached++
    return
  }
  acc.samples++
  acc.requests += usage.requests ?? 1
  let p = acc.byProvider.get(usage.provider)
  if (!p) acc.byProvider.set(usage.provider, (p = createProviderSums()))
  p.samples++
  // A count the sample lacks is unknown, not 0: tallied, so the totals can say they are partial.
  if (usage.promptTokens === undefined) p.promptTokensUnknown++
  else p.promptTokens += usage.promptTokens
  if (usage.completionTokens === undefined) p.completionTokensUnknown++
  else p.completionTokens += usage.completionTokens
  if (usage.costUsd !== undefined) p.reportedCosts.push(usage.costUsd)
  else {
    p.unreportedPromptTokens += usage.promptTokens ?? 0
    p.unreportedCompletionTokens += usage.completionTokens ?? 0
    const [prompt, completion] = [usage.promptTokens !== undefined, usage.completionTokens !== undefined]
    if (prompt && completion) {
      if ((usage.promptTokens as number) + (usage.completionTokens as number) > 0) p.unreported.withTokens++
    } else if (prompt) p.unreported.noCompletion++
    else if (completion) p.unreported.noPrompt++
    else p.unreported.noTokens++
  }
  // Every request's latency where the record keeps them (trials), so percentiles are over requests.
  if (usage.latenciesMs) for (const ms of usage.latenciesMs) acc.latencies.push(Math.round(ms * 10))
  else if (usage.latencyMs !== undefined) acc.latencies.push(Math.round(usage.latencyMs * 10))
  if (usage.firstTokensMs) for (const ms of usage.firstTokensMs) acc.firstTokens.push(Math.round(ms * 10))
  else if (usage.firstTokenMs !== undefined) acc.firstTokens.push(Math.round(usage.firstTokenMs * 10))
}

function createProviderSums(): ProviderSums {
  return {
    samples: 0,
    promptTokens: 0,
    completionTokens: 0,
    reportedCosts: [],
    unreportedPromptTokens: 0,
    unreportedCompletionTokens: 0,
    unreported: { withTokens: 0, noPrompt: 0, noCompletion: 0, noTokens: 0 },
    promptTokensUnknown: 0,
    completionTokensUnknown: 0,
  }
}

/** The sum of reported costs in ascending order: the same float whatever order the samples (shards) came in. */
export function sumCosts(costs: readonly number[]): number {
  let sum = 0
  for (const c of [...costs].sort((a, b) => a - b)) sum += c
  return sum
}

export interface LatencyStats {
  /** Fresh requests measured (one per sample, or one per trial with `trials`). */
  samples: number
  mean: number
  p50: number
  p95: number
  max: number
}

/**
 * The `q` quantile by nearest rank: the smallest value with at least `q` of all values at or below it (so p95 of 20
 * values is the 19th smallest). Always one of the values; `sorted` ascending and non-empty.
 */
export function nearestRank(sorted: readonly number[], q: number): number {
  const rank = Math.max(1, Math.ceil(q * sorted.length))
  return sorted[Math.min(rank, sorted.length) - 1] as number
}

/** Mean, p50, p95 and max of latencies in tenths of a ms, in ms; null when none. */
export function latencyStats(tenths: readonly number[]): LatencyStats | null {
  if (tenths.length === 0) return null
  const sorted = [...tenths].sort((a, b) => a - b)
  let sum = 0
  for (const t of sorted) sum += t
  const ms = (t: number) => t / 10
  return {
    samples: sorted.length,
    mean: ms(sum) / sorted.length,
    p50: ms(nearestRank(sorted, 0.5)),
    p95: ms(nearestRank(sorted, 0.95)),
    max: ms(sorted[sorted.length - 1] as number),
  }
}
