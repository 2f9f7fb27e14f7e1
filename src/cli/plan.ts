/**
 * `tool-evals plan --baseline report.json [--mde 0.03] [--trials k]`: from one run's report (its samples sidecar
 * beside it), the power the baseline gate has against a drop, the drop it detects with 80% power, and the samples
 * or trials that reach 80% power at the drop you want to catch. The noise comes from the baseline's own trials
 * (flakiness) and dialogues (clusters); see src/reporter/compare/plan.ts.
 */
import { loadReport } from '../reporter/compare/load.js'
import { planGate, renderPlan, type PlanOptions } from '../reporter/compare/plan.js'
import { EXIT_BAD_INPUT, EXIT_OK, UsageError, type Command, type OptionValues } from './command.js'

function number(values: OptionValues, name: string, min: number, max: number): number | undefined {
  const v = values[name]
  if (v === undefined) return undefined
  const x = Number(v)
  if (typeof v !== 'string' || v.trim() === '' || !Number.isFinite(x) || x < min || x > max) throw new UsageError(`--${name} must be a number between ${min} and ${max}, got ${String(v)}`)
  return x
}

export const planCommand: Command = {
  name: 'plan',
  synopsis: '--baseline REPORT.json [--mde 0.03] [--trials K] [--alpha 0.05] [--min-drop 0.02] [--metric NAME] [--format text|json]',
  description: [
    'Plans the baseline gate from one run: how likely it is to flag a drop (its power), the drop it flags with 80%',
    'power (MDE), and how many samples, or trials per sample, reach 80% power at the drop you want to catch. The',
    'noise is the baseline\'s own: its trials show how flaky each sample is, its dialogues how samples cluster.',
    '',
    '  --baseline F     the run\'s JSON report (its samples sidecar beside it); run it with trials for flakiness',
    '  --mde D          the drop to catch, as a share (default 0.03)',
    '  --trials K       trials per sample the gated runs will use (default 1)',
    '  --alpha A        the gate\'s family-wise level (default 0.05)',
    '  --min-drop D     the gate\'s smallest drop that counts (default 0.02)',
    '  --metric NAME    the metric to plan for (default the gate\'s primary metric)',
    '  --format F       text (default) or json',
  ].join('\n'),
  options: {
    baseline: { type: 'string' },
    mde: { type: 'string' },
    trials: { type: 'string' },
    alpha: { type: 'string' },
    'min-drop': { type: 'string' },
    metric: { type: 'string' },
    format: { type: 'string' },
  },
  async run(values, _positionals, io) {
    const file = values['baseline']
    if (typeof file !== 'string') throw new UsageError('give the baseline report: --baseline report.json')
    const format = (values['format'] as string | undefined) ?? 'text'
    if (!['text', 'json'].includes(format)) throw new UsageError(`--format must be text or json, got ${format}`)
    const options: PlanOptions = {}
    const mde = number(values, 'mde', 0.001, 1)
    if (mde !== undefined) options.mde = mde
    const trials = number(values, 'trials', 1, 64)
    if (trials !== undefined) {
      if (!Number.isInteger(trials)) throw new UsageError(`--trials must be a whole number, got ${trials}`)
      options.trials = trials
    }
    const alpha = number(values, 'alpha', 1e-6, 0.5)
    if (alpha !== undefined) options.alpha = alpha
    const minDrop = number(values, 'min-drop', 0, 1)
    if (minDrop !== undefined) options.minDrop = minDrop
    if (typeof values['metric'] === 'string') options.metric = values['metric']
    let plan
    try {
      const base = loadReport(file)
      const trialsReport = base.report['trials']
      plan = planGate(base.outcomes, typeof trialsReport === 'object' && trialsReport !== null ? (trialsReport as never) : undefined, options)
    } catch (err) {
      io.stderr.write(`tool-evals plan: ${(err as Error).message}\n`)
      return EXIT_BAD_INPUT
    }
    io.stdout.write(`${format === 'json' ? JSON.stringify(plan, null, 2) : renderPlan(plan)}\n`)
    return EXIT_OK
  },
}
