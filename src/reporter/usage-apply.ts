/** The reporter's hook: usage and its upper bounds onto a built report (see usage.ts, usage-thresholds.ts). */
import type { UndecidedReport } from './report.js'
import { reportsCost, usageReport, type Pricing, type UsageCollector, type UsageReport } from './usage.js'
import { checkMaxThresholds, describeMaxThreshold, type MaxThresholds } from './usage-thresholds.js'

export interface UsageOptions {
  pricing: Pricing | undefined
  maxThresholds: MaxThresholds
}

/** Adds `usage` (overall and per suite) and `maxThresholds` to `report` (the gate reads the bounds' outcomes). */
export function applyUsage(report: UndecidedReport, usage: UsageCollector, options: UsageOptions, partial: boolean): void {
  // Cost is the run's question: when any sample reported one, every suite's is shown (unknown where not reported).
  const costing = options.pricing !== undefined || reportsCost(usage.overall)
  const overall = usageReport(usage.overall, options.pricing, costing)
  if (overall) report.usage = overall
  const suites = new Map<string, UsageReport | undefined>()
  for (const [name, suite] of Object.entries(report.suites)) {
    const parts = usage.suites.get(name)
    const u = parts && usageReport(parts, options.pricing, costing)
    suites.set(name, u)
    if (u) suite.usage = u
  }
  const bounds = checkMaxThresholds(options.maxThresholds, overall, suites, { partial })
  if (bounds.length > 0) report.maxThresholds = bounds
}

/** One line per failed bound (the reporter lists them with the failed minimums). */
export function failedMaxThresholds(report: UndecidedReport): string[] {
  return (report.maxThresholds ?? []).filter((b) => !b.pass).map(describeMaxThreshold)
}
