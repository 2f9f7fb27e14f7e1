/**
 * `tool-evals history [DIR]`: the run history (the reporter's `historyDir`) as one self-contained HTML page: each
 * metric over the runs with its interval, thresholds, the gate's verdicts and regressions; checkpoint curves with the
 * best checkpoint and the significantly worse later ones; a table of runs; the files skipped and why.
 */
import { existsSync, statSync } from 'node:fs'
import { resolve } from 'node:path'
import { printable } from '../calls/printable.js'
import { writeFileAtomic } from '../data/write-atomic.js'
import { EXIT_BAD_INPUT, EXIT_OK, UsageError, type Command, type OptionValues } from './command.js'
import { checkpointCurves } from './history-curves.js'
import { renderHistoryPage } from './history-page.js'
import { readHistory } from './history-read.js'

export const DEFAULT_HISTORY_DIR = 'tool-evals-history'

function share(values: OptionValues, name: string): number | undefined {
  const v = values[name]
  if (v === undefined) return undefined
  const x = Number(v)
  if (typeof v !== 'string' || v.trim() === '' || !Number.isFinite(x) || x < 0 || x > 1) throw new UsageError(`--${name} must be a number between 0 and 1, got ${String(v)}`)
  return x
}

export const historyCommand: Command = {
  name: 'history',
  synopsis: `[DIR] [--out FILE] [--alpha 0.05] [--min-drop 0.02]`,
  description: [
    `Reads every JSON report in DIR (default ${DEFAULT_HISTORY_DIR}, where the reporter's historyDir appends runs) and`,
    'writes one self-contained HTML page (no network needed to open it): each metric over the runs with its 95%',
    'interval, thresholds, the gate\'s verdict per run and regressions; for runs labelled with a training step, each',
    'metric against the step, the best checkpoint and the later checkpoints significantly worse than it (the gate\'s',
    'paired test on the runs\' samples files, Bonferroni over earlier-later pairs); a table of runs. A file that is not',
    'a report is listed as skipped with why (exit 1); the page is written all the same.',
    '',
    '  --out FILE       where the page goes (default DIR/history.html)',
    '  --alpha A        significance level per metric of the checkpoint comparison (default 0.05)',
    '  --min-drop D     smallest drop that counts as worse, as a share (default 0.02)',
  ].join('\n'),
  options: {
    out: { type: 'string' },
    alpha: { type: 'string' },
    'min-drop': { type: 'string' },
  },
  allowPositionals: true,
  async run(values, positionals, io) {
    if (positionals.length > 1) throw new UsageError(`give at most one folder (got ${positionals.length} arguments)`)
    const dir = positionals[0] ?? DEFAULT_HISTORY_DIR
    const alpha = share(values, 'alpha')
    const minDrop = share(values, 'min-drop')
    if (!existsSync(dir) || !statSync(dir).isDirectory()) {
      io.stderr.write(`tool-evals history: no history folder ${printable(dir)} (set the reporter's historyDir to make one)\n`)
      return EXIT_BAD_INPUT
    }
    const history = readHistory(dir)
    const curves = checkpointCurves(dir, history.runs, { ...(alpha !== undefined ? { alpha } : {}), ...(minDrop !== undefined ? { minDrop } : {}) })
    const out = resolve((values['out'] as string | undefined) ?? `${dir}/history.html`)
    writeFileAtomic(out, renderHistoryPage(history, curves))
    for (const s of history.skipped) io.stderr.write(`tool-evals history: skipped ${printable(s.file)}: ${printable(s.reason)}\n`)
    io.stdout.write(`tool-evals history: ${history.runs.length} run(s), ${history.skipped.length} skipped; page written to ${out}\n`)
    return history.skipped.length > 0 ? EXIT_BAD_INPUT : EXIT_OK
  },
}
