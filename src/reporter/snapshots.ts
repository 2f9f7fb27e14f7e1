/**
 * The report's `snapshots` field (describeEval's `snapshot`): which samples' calls changed from their stored
 * snapshot, which are new, which stored entries are obsolete (ids no longer in the data), how many are unchanged.
 * Ids are `<suite> > <id>`, sorted. Changed samples also carry their call diff (`diffs`, capped).
 */
import type { ChalkInstance } from 'chalk'
import type { EvalMeta } from '../eval/meta.js'
import { printable } from '../calls/printable.js'
import { NO_SUITE } from '../score/types.js'
import { mdText } from './markdown-text.js'

export interface SnapshotReport {
  changed: string[]
  added: string[]
  obsolete: string[]
  unchanged: number
  /** Per changed sample (the first MAX_DIFFS by id): the stored line and this run's. */
  diffs: { id: string; before: string; after: string }[]
  /** The suites' snapshot files (relative to the project root) and whether this run wrote them. */
  files: { file: string; written: boolean }[]
}

/** Changed samples whose diff the report carries; the others are listed by id only. */
export const MAX_DIFFS = 50

export class SnapshotCollector {
  private readonly changed: { id: string; before: string; after: string }[] = []
  private readonly added: string[] = []
  private readonly obsolete: string[] = []
  private readonly files: { file: string; written: boolean }[] = []
  private unchanged = 0
  private seen = false

  add(meta: EvalMeta): void {
    const suite = meta.record.suite ?? NO_SUITE
    if (meta.snapshotSuite) {
      this.seen = true
      for (const id of meta.snapshotSuite.obsolete) this.obsolete.push(`${suite} > ${id}`)
      this.files.push({ file: meta.snapshotSuite.file, written: meta.snapshotSuite.written })
    }
    const s = meta.snapshot
    if (!s) return
    this.seen = true
    const id = `${suite} > ${meta.record.id}`
    if (s.status === 'unchanged') this.unchanged++
    else if (s.status === 'added') this.added.push(id)
    else this.changed.push({ id, before: s.before ?? '', after: s.after ?? '' })
  }

  finish(): SnapshotReport | undefined {
    if (!this.seen) return undefined
    const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
    const changed = [...this.changed].sort((a, b) => byId(a.id, b.id))
    return {
      changed: changed.map((c) => c.id),
      added: [...this.added].sort(byId),
      obsolete: [...this.obsolete].sort(byId),
      unchanged: this.unchanged,
      diffs: changed.slice(0, MAX_DIFFS),
      files: [...this.files].sort((a, b) => byId(a.file, b.file)),
    }
  }
}

/** How many of each list the terminal and Markdown show. */
const SHOWN = 10

/** The terminal's snapshot section: counts, then the changed samples with their diffs, new and obsolete ids. */
export function snapshotSection(report: { snapshots?: SnapshotReport }, c: ChalkInstance): string[] {
  const s = report.snapshots
  if (!s) return []
  const written = s.files.filter((f) => f.written).map((f) => f.file)
  const head = `  ${c.dim('snapshots')}  ${s.changed.length} changed · ${s.added.length} new · ${s.obsolete.length} obsolete · ${s.unchanged} unchanged`
  const rows = ['', s.changed.length > 0 ? c.yellow(head) : head]
  for (const d of s.diffs.slice(0, SHOWN)) rows.push(`  ${c.yellow('Δ')} ${printable(d.id)}`, `      ${c.red(`- ${printable(d.before)}`)}`, `      ${c.green(`+ ${printable(d.after)}`)}`)
  if (s.changed.length > SHOWN) rows.push(c.dim(`  … ${s.changed.length - SHOWN} more changed (in the JSON report)`))
  const list = (label: string, ids: string[]) => {
    if (ids.length === 0) return
    const more = ids.length > SHOWN ? ` … ${ids.length - SHOWN} more` : ''
    rows.push(`  ${c.dim(label)} ${ids.slice(0, SHOWN).map(printable).join(', ')}${more}`)
  }
  list('new:', s.added)
  list('obsolete:', s.obsolete)
  if (written.length > 0) rows.push(c.dim(`  snapshot file(s) written: ${written.map(printable).join(', ')}`))
  return rows
}

/** The Markdown summary's snapshot section. */
export function snapshotMarkdown(report: { snapshots?: SnapshotReport }): string[] {
  const s = report.snapshots
  if (!s) return []
  const lines = ['', `**Tool-call snapshots:** ${s.changed.length} changed · ${s.added.length} new · ${s.obsolete.length} obsolete · ${s.unchanged} unchanged`]
  if (s.diffs.length > 0) {
    lines.push('', `<details><summary>Changed samples (${s.changed.length})</summary>`, '')
    for (const d of s.diffs.slice(0, SHOWN)) {
      // A fenced diff block shows the lines as they are: each starts with `- ` or `+ ` and is one printable line, so no model text can close the fence.
      lines.push(`**${mdText(d.id)}**`, '', '````diff', `- ${printable(d.before)}`, `+ ${printable(d.after)}`, '````', '')
    }
    if (s.changed.length > SHOWN) lines.push(`… ${s.changed.length - SHOWN} more in the JSON report`, '')
    lines.push('</details>')
  }
  if (s.obsolete.length > 0) lines.push('', `Obsolete: ${s.obsolete.slice(0, SHOWN).map(mdText).join(', ')}${s.obsolete.length > SHOWN ? ` … ${s.obsolete.length - SHOWN} more` : ''}`)
  return lines
}
