/**
 * A sample's usage as its record keeps it (task meta, so it travels through blobs and `--merge-reports`): who
 * generated, the tokens, the wall time, and whether the answer came from the cache. Small and plain JSON.
 */
export interface UsageRecord {
  /** The provider's id (pricing is looked up by it). */
  provider: string
  promptTokens?: number
  completionTokens?: number
  /** Wall time of the generation in ms, to 0.1 ms (the provider's measure: see ModelOutput.usage). */
  latencyMs?: number
  /** Time to the first token in ms, where the transport streams. */
  firstTokenMs?: number
  /** The answer came from the generation cache: no model ran, so it counts in neither latency nor cost. */
  cached?: true
  /**
   * Fresh generations summed into this record (describeEval's `trials`: one per uncached trial); absent: 1. The
   * tokens are their sum, `latencyMs` the sum of their times, `latenciesMs` each one's (for percentiles per request).
   */
  requests?: number
  latenciesMs?: number[]
  /** Each fresh trial's first-token time, where the provider gave one (`firstTokenMs` is absent then). */
  firstTokensMs?: number[]
  /**
   * USD the generations cost as the provider (or task) billed them, over every one of them; absent: unknown (the
   * reporter prices the tokens where `pricing` has a price). Used as is: it wins over `pricing`.
   */
  costUsd?: number
}

/** Milliseconds to 0.1 ms: compact in meta, and exact as integer tenths when summed (see score/usage-sums.ts). */
export function roundMs(ms: number): number {
  return Math.round(ms * 10) / 10
}

/** `n` when it is an amount (a finite number >= 0: a count, a latency, a cost), else undefined (unknown). */
export function usageAmount(n: unknown): number | undefined {
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : undefined
}

/** What usageRecord reads of a model output (a ModelOutput has this shape). */
export interface UsageSource {
  usage?: { promptTokens?: number; completionTokens?: number; latencyMs?: number; firstTokenMs?: number; requests?: number; latenciesMs?: number[]; costUsd?: number }
  cached?: true
  replayed?: true
}

/**
 * The usage of one output. A fresh generation always has a record, even one whose provider reported nothing (then
 * `{ provider }` alone: its tokens, latency and cost are unknown, never zero, and it is counted as such); an answer
 * that ran no model now (a cache hit, a replayed recording) and reported nothing has none.
 */

export function usageRecord(provider: string, output: UsageSource): UsageRecord | undefined {
  const u = output.usage
  const record: UsageRecord = { provider }
  const fields = ['promptTokens', 'completionTokens', 'latencyMs', 'firstTokenMs'] as const
  for (const k of fields) {
    const v = usageAmount(u?.[k])
    if (v !== undefined) record[k] = k === 'latencyMs' || k === 'firstTokenMs' ? roundMs(v) : Math.round(v)
  }
  // A cost is kept as billed (no rounding: fractions of a cent add up); one that is no amount is unknown, not zero.
  const cost = usageAmount(u?.costUsd)
  if (cost !== undefined) record.costUsd = cost
  // Several generations (an agent loop's steps): counted, each one's latency kept; a summed latency that cannot be
  // split into its requests is no request's latency, so it is left out rather than counted as one slow request.
  const requests = usageAmount(u?.requests)
  if (requests !== undefined && Number.isInteger(requests) && requests > 1) {
    record.requests = requests
    const each = u?.latenciesMs
    delete record.firstTokenMs
    if (Array.isArray(each) && each.length === requests && each.every((v) => usageAmount(v) !== undefined)) {
      record.latenciesMs = each.map(roundMs)
      record.latencyMs = roundMs(record.latenciesMs.reduce((a, b) => a + b, 0))
    } else delete record.latencyMs
  }
  // A cache hit (or a replayed answer) of a provider that reports no usage ran no model and has nothing to count.
  const nothing = Object.keys(record).length === 1 || (Object.keys(record).length === 2 && record.requests !== undefined)
  if (nothing && (output.cached || output.replayed)) return undefined
  if (output.cached) record.cached = true
  return record
}

/**
 * Several generations of one sample (the judge asks once per kind) as one record: the fresh ones' tokens, latencies
 * and cost summed (no first-token time: a sum of those means nothing); cached only when every one was (a cached
 * one ran no model: in no sum). A count that some fresh part lacks (one that reported nothing included) is left out,
 * never summed short.
 */
export function sumUsage(parts: readonly UsageRecord[]): UsageRecord | undefined {
  const fresh = parts.filter((p) => !p.cached)
  const first = fresh[0] ?? parts[0]
  if (!first) return undefined
  if (fresh.length === 0) return { ...first }
  const out: UsageRecord = { provider: first.provider }
  for (const k of ['promptTokens', 'completionTokens', 'latencyMs', 'costUsd'] as const) {
    const sum = sumOfAll(fresh, k)
    if (sum !== undefined) out[k] = k === 'latencyMs' ? roundMs(sum) : sum
  }
  return out
}

/** The sum of `key` over `parts`; undefined when some part lacks it (a sum short of one part is no total). */
function sumOfAll(parts: readonly UsageRecord[], key: 'promptTokens' | 'completionTokens' | 'latencyMs' | 'costUsd'): number | undefined {
  let sum = 0
  for (const p of parts) {
    const v = p[key]
    if (v === undefined) return undefined
    sum += v
  }
  return sum
}

/**
 * A sample's trials as one record: the fresh trials' tokens, cost and latencies summed, each latency kept for
 * percentiles over every request (a token count or cost some fresh trial lacks, or that a fresh trial reporting
 * nothing lacks, is left out, never summed short). Cached trials ran no model: left out, as cached samples are;
 * cached when every trial was.
 */
export function sumTrialUsage(parts: readonly (UsageRecord | undefined)[]): UsageRecord | undefined {
  const present = parts.filter((p): p is UsageRecord => p !== undefined)
  const fresh = present.filter((p) => !p.cached)
  if (fresh.length === 0) return present[0] === undefined ? undefined : { ...present[0] }
  const first = fresh[0] as UsageRecord
  if (fresh.length === 1) return { ...first }
  const out: UsageRecord = { provider: first.provider, requests: 0 }
  const latencies: number[] = []
  const firstTokens: number[] = []
  for (const k of ['promptTokens', 'completionTokens', 'costUsd'] as const) {
    const sum = sumOfAll(fresh, k)
    if (sum !== undefined) out[k] = sum
  }
  for (const p of fresh) {
    out.requests = (out.requests as number) + (p.requests ?? 1)
    if (p.latenciesMs) latencies.push(...p.latenciesMs)
    else if (p.latencyMs !== undefined) latencies.push(p.latencyMs)
    if (p.firstTokensMs) firstTokens.push(...p.firstTokensMs)
    else if (p.firstTokenMs !== undefined) firstTokens.push(p.firstTokenMs)
  }
  if (firstTokens.length > 0) out.firstTokensMs = firstTokens
  if (latencies.length > 0) {
    out.latencyMs = roundMs(latencies.reduce((a, b) => a + b, 0))
    out.latenciesMs = latencies
  }
  return out
}
