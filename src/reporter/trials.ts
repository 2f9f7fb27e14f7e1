/**
 * The report's `trials` field (describeEval's `trials`): how stable the samples were across their repeated
 * generations. A sample's flip rate is the share of its trials whose outcome (fully right or not) differs from its
 * majority outcome (0: every trial agreed; 0.5 at most); a sample is unstable when it is above 0. Each sample's
 * summary is in its record (`record.trials`); the report lists the unstable ones by name (capped) with their flip rates.
 */
import type { ChalkInstance } from 'chalk'
import type { EvalMeta } from '../eval/meta.js'
import { printable } from '../calls/printable.js'
import { NO_SUITE } from '../score/types.js'

export interface TrialsReport {
  /** Samples that ran with trials. */
  samples: number
  /** Trials per sample (the largest count met, when suites differ). */
  count: number
  /** Samples whose trials disagreed, and their share of `samples`. */
  unstable: number
  unstableShare: number
  /** The mean flip rate over the samples. */
  meanFlipRate: number
  /** Flip rate of each unstable sample, by `<suite> > <id>` (sorted; capped, see `unlisted`). */
  flipRates: Record<string, number>
  /** Unstable samples left out of `flipRates` by the cap. */
  unlisted?: number
}

/** Unstable samples listed by name; beyond this only their count. */
export const MAX_LISTED_UNSTABLE = 500

export class TrialsCollector {
  private samples = 0
  private count = 0
  private flipSum = 0
  private readonly unstable: [string, number][] = []
  private unstableCount = 0

  add(meta: EvalMeta): void {
    const t = meta.record.trials
    if (!t) return
    this.samples++
    this.count = Math.max(this.count, t.count)
    this.flipSum += t.flipRate
    if (t.flipRate <= 0) return
    this.unstableCount++
    // Keep the smallest names (a stable choice whatever order the samples came in), cut at the cap when done.
    this.unstable.push([`${meta.record.suite ?? NO_SUITE} > ${meta.record.id}`, t.flipRate])
  }

  finish(): TrialsReport | undefined {
    if (this.samples === 0) return undefined
    const listed = this.unstable.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).slice(0, MAX_LISTED_UNSTABLE)
    const report: TrialsReport = {
      samples: this.samples,
      count: this.count,
      unstable: this.unstableCount,
      unstableShare: this.unstableCount / this.samples,
      meanFlipRate: this.flipSum / this.samples,
      flipRates: Object.fromEntries(listed),
    }
    if (this.unstableCount > listed.length) report.unlisted = this.unstableCount - listed.length
    return report
  }
}

/** `trials: 5 per sample · 3 of 40 samples unstable (7.5%) · mean flip rate 0.025`, and the most unstable few. */
export function trialsLine(report: { trials?: TrialsReport }, c: ChalkInstance): string[] {
  const t = report.trials
  if (!t) return []
  const share = `${(t.unstableShare * 100).toFixed(1)}%`
  const head = `  ${c.dim('trials')}  ${t.count} per sample · ${t.unstable} of ${t.samples} samples unstable (${share}) · mean flip rate ${t.meanFlipRate.toFixed(3)}`
  const worst = Object.entries(t.flipRates)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([id, r]) => `    ${c.yellow('~')} ${printable(id)}  flip rate ${r.toFixed(2)}`)
  return ['', head, ...worst]
}
