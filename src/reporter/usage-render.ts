/**
 * Usage in the terminal summary (a line for the model, one for the judge) and in the Markdown summary (rows under
 * the metrics table, one column per suite like the rates).
 */
import type { ChalkInstance } from 'chalk'
import { printable } from '../calls/printable.js'
import { tokensAllUnknown, unknownCostNote, unknownTokensNote, type UsagePartReport, type UsageReport } from './usage.js'

/** `$0.0123`: four significant decimals below a cent, two above. */
export function formatUsd(x: number): string {
  if (x === 0) return '$0'
  return x >= 1 ? `$${x.toFixed(2)}` : `$${x.toPrecision(3).replace(/0+$/, '').replace(/\.$/, '')}`
}

function formatMs(ms: number): string {
  return ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`
}

const int = (n: number) => n.toLocaleString('en-US')

/** `1,234 + 567 tokens (mean 123 + 57) · latency p50 812 ms, p95 1930 ms · $0.0123 · 3 cached`. */
export function describeUsagePart(part: UsagePartReport): string {
  const bits: string[] = []
  if (part.samples > 0) {
    const unknown = unknownTokensNote(part)
    if (tokensAllUnknown(part)) bits.push(`tokens unknown (${part.samples} ${part.samples === 1 ? 'sample' : 'samples'} reported none)`)
    else {
      const mean = (m: number | null) => (m === null ? '?' : String(Math.round(m)))
      const tokens = `${int(part.promptTokens)} prompt + ${int(part.completionTokens)} completion tokens (mean ${mean(part.meanPromptTokens)} + ${mean(part.meanCompletionTokens)})`
      // A total short of some samples' counts says so: it is no total.
      bits.push(unknown === undefined ? tokens : `${tokens}, partial (${printable(unknown)})`)
    }
  }
  if (part.latencyMs) bits.push(`latency p50 ${formatMs(part.latencyMs.p50)}, p95 ${formatMs(part.latencyMs.p95)}`)
  if (part.firstTokenMs) bits.push(`first token p50 ${formatMs(part.firstTokenMs.p50)}, p95 ${formatMs(part.firstTokenMs.p95)}`)
  if (part.costUsd !== undefined) {
    const unknown = unknownCostNote(part)
    // A partial cost says so; nothing known: a cost of $0 would read as free.
    bits.push(unknown === undefined ? formatUsd(part.costUsd) : part.costUsd === 0 ? printable(unknown) : `${formatUsd(part.costUsd)}, partial (${printable(unknown)})`)
  }
  if (part.cached > 0) bits.push(`${part.cached} cached (not counted)`)
  if (part.retries) bits.push(`${part.retries} ${part.retries === 1 ? 'retry' : 'retries'}`)
  return bits.join(' · ')
}

/** The terminal's usage lines (none when no sample reported usage). */
export function usageLines(usage: UsageReport | undefined, c: ChalkInstance): string[] {
  if (!usage) return []
  const rows = ['', `  ${c.dim('usage')}  model  ${describeUsagePart(usage.model)}`]
  if (usage.judge) rows.push(`  ${c.dim('usage')}  judge  ${describeUsagePart(usage.judge)}`)
  return rows
}

/** A cell's cost: partial when some sample's cost is unknown (never shown as if complete), unknown when none is known. */
function markdownCost(u: UsageReport): string {
  if (!u.unpriced?.length) return formatUsd(u.costUsd ?? 0)
  return u.costUsd === 0 ? 'unknown' : `${formatUsd(u.costUsd ?? 0)} (partial)`
}

/** A cell's token total: partial when some fresh sample has no count, unknown when none has either. */
function markdownTokens(part: UsagePartReport): string {
  if (tokensAllUnknown(part)) return 'unknown'
  const tokens = `${part.promptTokens} + ${part.completionTokens}`
  return part.promptTokensUnknown || part.completionTokensUnknown ? `${tokens} (partial)` : tokens
}

/** Markdown rows for the metrics table (`| usage … | all | suite… |`); none when no sample reported usage. */
export function usageMarkdownRows(overall: UsageReport | undefined, suites: readonly (UsageReport | undefined)[]): string[] {
  if (!overall) return []
  const row = (name: string, value: (u: UsageReport) => string | undefined) => {
    const all = value(overall)
    if (all === undefined) return []
    return [`| ${name} | ${all} |${suites.map((u) => ` ${(u && value(u)) ?? '—'} |`).join('')}`]
  }
  return [
    ...row('usage: tokens (prompt + completion)', (u) => (u.model.samples > 0 ? markdownTokens(u.model) : undefined)),
    ...row('usage: latency p50 / p95 (ms)', (u) => (u.model.latencyMs ? `${u.model.latencyMs.p50} / ${u.model.latencyMs.p95}` : undefined)),
    ...row('usage: cost (USD, model + judge)', (u) => (u.costUsd !== undefined ? markdownCost(u) : undefined)),
    ...row('usage: judge tokens', (u) => (u.judge && u.judge.samples > 0 ? markdownTokens(u.judge) : undefined)),
    ...row('usage: cached samples', (u) => (u.model.cached > 0 ? String(u.model.cached) : undefined)),
  ]
}
