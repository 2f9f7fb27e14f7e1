/**
 * `tool-evals compare BASE HEAD`: the baseline comparison the reporter makes (`baseline` option), from two finished
 * runs' JSON reports and their samples sidecars, outside Vitest. Exit 1 when the head regressed (or a `mustPass`
 * sample went wrong), so a CI step can gate on it; `--format md` prints the pull-request comment.
 */
import { printable } from '../calls/printable.js'
import { compareRuns, type RegressionOptions } from '../reporter/compare/compare.js'
import { loadReport } from '../reporter/compare/load.js'
import { renderComparisonMarkdown, renderComparisonText } from '../reporter/compare/render.js'
import { EXIT_BAD_INPUT, EXIT_OK, UsageError, type Command, type OptionValues } from './command.js'

function share(values: OptionValues, name: string, max: number): number | undefined {
  const v = values[name]
  if (v === undefined) return undefined
  const x = Number(v)
  if (typeof v !== 'string' || v.trim() === '' || !Number.isFinite(x) || x < 0 || x > max) throw new UsageError(`--${name} must be a number between 0 and ${max}, got ${String(v)}`)
  return x
}

export const compareCommand: Command = {
  name: 'compare',
  synopsis: 'BASE.json HEAD.json [--alpha 0.05] [--min-drop 0.02] [--metric NAME]... [--must-pass ID]... [--format text|md|json]',
  description: [
    'Compares two runs sample by sample from their JSON reports (each with its samples sidecar beside it): per metric',
    'and suite the paired rates, the difference with a 95% interval, a one-sided p-value (exact McNemar for 0/1',
    'metrics of single samples; over dialogues an exact sign-flip test or a clustered t; paired t for fractions),',
    'adjusted for the gate\'s family (α split over the gated metrics, each overall before its suites), the MDE of the gate as it decides, and a verdict.',
    'Exit 1 on a regression, a mustPass sample gone wrong, or runs that cannot be compared (no shared samples, a',
    'metric one side lacks, samples the baseline scored that HEAD skipped or errored on, a baseline that is',
    'partial, all errored, or whose samples file does not match its report); 0 otherwise.',
    '',
    '  --alpha A        family-wise significance level (default 0.05)',
    '  --min-drop D     smallest drop that counts as a regression, as a share (default 0.02)',
    '  --metric NAME    gate these metrics (repeatable; default the primary ones: args_exact_match, no_call_accuracy, scorers\' metrics)',
    '  --must-pass ID   a sample (`<suite> > <id>` or id) that fails the gate if it goes wrong (repeatable)',
    '  --format F       text (default), md (the pull-request comment) or json (the report\'s `comparison` field)',
  ].join('\n'),
  options: {
    alpha: { type: 'string' },
    'min-drop': { type: 'string' },
    metric: { type: 'string', multiple: true },
    'must-pass': { type: 'string', multiple: true },
    format: { type: 'string' },
  },
  allowPositionals: true,
  async run(values, positionals, io) {
    if (positionals.length !== 2) throw new UsageError(`give two reports, BASE and HEAD (got ${positionals.length} argument(s))`)
    const format = (values['format'] as string | undefined) ?? 'text'
    if (!['text', 'md', 'json'].includes(format)) throw new UsageError(`--format must be text, md or json, got ${format}`)
    const options: RegressionOptions = {}
    const alpha = share(values, 'alpha', 1)
    if (alpha !== undefined) options.alpha = alpha
    const minDrop = share(values, 'min-drop', 1)
    if (minDrop !== undefined) options.minDrop = minDrop
    if (Array.isArray(values['metric'])) options.metrics = values['metric'] as string[]
    const mustPass = Array.isArray(values['must-pass']) ? (values['must-pass'] as string[]) : []
    let comparison
    try {
      // The same loading and checks as the reporter's baseline; the head may be a partial run, never an interrupted one.
      const base = loadReport(positionals[0] as string, 'baseline')
      const head = loadReport(positionals[1] as string, 'head')
      comparison = compareRuns(base, head, { ...options, mustPass })
    } catch (err) {
      io.stderr.write(`tool-evals compare: ${printable((err as Error).message)}\n`)
      return EXIT_BAD_INPUT
    }
    const text = format === 'json' ? JSON.stringify(comparison, null, 2) : format === 'md' ? renderComparisonMarkdown(comparison) : renderComparisonText(comparison)
    io.stdout.write(`${text}\n`)
    for (const reason of comparison.incomparable) io.stderr.write(`tool-evals compare: not comparable: ${printable(reason)}\n`)
    return comparison.pass ? EXIT_OK : EXIT_BAD_INPUT
  },
}
