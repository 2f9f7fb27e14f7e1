/**
 * describeEval's hook: a sample's usage onto its record, the model's and the judge's apart. The judge's comes from
 * its judgements made in the generation pipeline (see eval/scorers.ts, `withPreparation`), so it is kept even when
 * scoring failed afterwards.
 */
import { retriesOf, type ModelOutput } from '../models/types.js'
import type { SampleRecord } from '../score/types.js'
import { sumUsage, usageRecord, type UsageRecord } from '../score/usage.js'

/**
 * Record `output`'s usage (and its judge's) on `record`; a skipped sample used nothing and records none. Retries are
 * recorded from the output or, when generation failed, from the provider's error (a cache hit retried nothing now).
 */
export function recordUsage(record: SampleRecord, providerId: string, output: ModelOutput | undefined, error?: unknown): void {
  const retries = output === undefined ? retriesOf(error) : output.cached ? undefined : output.usage?.retries
  if (retries !== undefined && retries > 0) record.retries = retries
  if (output === undefined || output.skipped !== undefined) return
  const usage = usageRecord(providerId, output)
  if (usage) record.usage = usage
  const judgeUsage = judgeUsageOf(output)
  if (judgeUsage) record.judgeUsage = judgeUsage
}

/** The judge's usage, summed over its judgements of this sample (one per judge kind). */
function judgeUsageOf(output: ModelOutput): UsageRecord | undefined {
  const prepared = (output as { prepared?: Record<string, unknown> }).prepared
  const judged = prepared?.['judge']
  if (!Array.isArray(judged)) return undefined
  const parts: UsageRecord[] = []
  for (const j of judged) {
    const u = (j as { usage?: unknown } | null)?.usage
    if (typeof u === 'object' && u !== null) parts.push(u as UsageRecord)
  }
  return sumUsage(parts)
}
