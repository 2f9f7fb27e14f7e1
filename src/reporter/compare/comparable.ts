/**
 * Whether two runs' paired samples can show a regression at all: the reasons a comparison is refused rather than
 * passed (see `comparability`).
 */

export interface PairCounts {
  paired: number
  baseSamples: number
  headSamples: number
  /** Paired samples the baseline evaluated (not skipped), and of those, the ones that errored in every trial. */
  baseEvaluated: number
  baseErrored: number
  /** Samples (`<suite> > <id>`) listed more than once without distinct trial indexes, per run. */
  baseRepeated: readonly string[]
  headRepeated: readonly string[]
  /** Paired samples the baseline scored that this run skipped (by policy) or errored on (in sample order). */
  headSkipped: readonly string[]
  headErrored: readonly string[]
}

const listed = (ids: readonly string[]) => `${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ` and ${ids.length - 5} more` : ''}`

/**
 * Whether the paired samples can show a regression at all. Anything that would let a real drop pass unseen is a
 * reason (`incomparable`): no shared sample, a baseline with nothing evaluated or only errors (every value 0, so no
 * drop is possible), a sample the baseline scored that this run skipped or errored on, a gated metric one side lacks, a metric the baseline measured and this run no longer does
 * (renamed or dropped: without `metrics` every measured metric is gated). A metric new in this run is a warning.
 */
export function comparability(
  counts: PairCounts,
  baseMeasured: ReadonlySet<string>,
  headMeasured: ReadonlySet<string>,
  available: readonly string[],
  explicit: readonly string[] | undefined,
): { incomparable: string[]; warnings: string[] } {
  const incomparable: string[] = []
  const warnings: string[] = []
  // Repeats would be averaged as trials: a sample counted twice weighs twice, a silent wrong number.
  if (counts.baseRepeated.length > 0) incomparable.push(`samples listed more than once in the baseline: ${listed(counts.baseRepeated)}`)
  if (counts.headRepeated.length > 0) incomparable.push(`samples listed more than once in this run (two suites of one name?): ${listed(counts.headRepeated)}`)
  if (counts.paired === 0) {
    incomparable.push(`no sample is in both runs (paired by suite and id; baseline ${counts.baseSamples}, this run ${counts.headSamples}): another dataset or suite?`)
    return { incomparable, warnings }
  }
  // A sample this run did not score cannot show whether it dropped: the gate never passes what it could not compare.
  if (counts.headSkipped.length > 0) incomparable.push(`${counts.headSkipped.length} sample(s) the baseline scored were skipped in this run (by policy, e.g. maxPromptTokens), so they cannot be compared: ${listed(counts.headSkipped)}`)
  if (counts.headErrored.length > 0) incomparable.push(`${counts.headErrored.length} sample(s) the baseline scored errored in this run, so they cannot be compared: ${listed(counts.headErrored)}`)
  if (counts.baseEvaluated === 0) incomparable.push(`none of the ${counts.paired} paired baseline samples was evaluated (all skipped)`)
  else if (counts.baseErrored === counts.baseEvaluated) incomparable.push(`all ${counts.baseErrored} paired baseline samples errored: no drop can be seen against them`)
  else if (counts.baseErrored > 0) warnings.push(`${counts.baseErrored} of ${counts.baseEvaluated} paired baseline samples errored: they cannot show a regression`)
  const has = new Set(available)
  const gated = explicit ? new Set(explicit) : undefined
  for (const m of explicit ?? []) {
    if (has.has(m)) continue
    const why = !baseMeasured.has(m) ? 'the baseline did not measure it' : !headMeasured.has(m) ? 'this run did not measure it' : 'no paired sample has it in both runs'
    incomparable.push(`gated metric ${m}: ${why}`)
  }
  for (const m of baseMeasured) {
    if (has.has(m) || gated?.has(m)) continue
    if (gated) warnings.push(`metric ${m} is in the baseline but not in this run (not gated)`)
    else incomparable.push(`metric ${m} is in the baseline but not measured in this run (renamed or removed?): gate the metrics both runs have with regression.metrics (--metric)`)
  }
  for (const m of headMeasured) if (!has.has(m) && !baseMeasured.has(m) && !gated?.has(m)) warnings.push(`metric ${m} is new in this run (not in the baseline): not compared`)
  if (available.length === 0 && incomparable.length === 0) incomparable.push('no metric is measured by both runs')
  return { incomparable, warnings }
}
