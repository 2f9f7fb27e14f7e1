/** What a comparison says of one metric, and of the gate's power: the shapes the tests make and the report carries. */
export type Verdict = 'regressed' | 'improved' | 'inconclusive' | 'unchanged'

export interface MetricComparison {
  /** Paired samples in the test. */
  n: number
  base: number
  head: number
  delta: number
  ci: [number, number]
  /** One-sided p-value in the direction of the change (a drop's, or a rise's), before correction. */
  pValue: number
  /** Holm-corrected p-value (gated metrics only; 1 for one left out of the family, as it cannot reject). */
  pAdjusted?: number
  verdict: Verdict
  /** 0/1 metrics: pairs right → wrong (`regressed`) and wrong → right; fractional: pairs lower and higher. */
  discordant: { regressed: number; improved: number }
  /**
   * `mcnemar` (0/1, one sample per cluster), `paired-t` (fractional, one sample per cluster), `sign-flip` (exact,
   * over clusters' summed differences, up to SIGN_FLIP_MAX changed clusters), `clustered-t` (beyond).
   */
  test: 'mcnemar' | 'paired-t' | 'sign-flip' | 'clustered-t'
  /**
   * The drop the gate flags as regressed with 80% power, as it decides: at the corrected level (`mdeLevel`), with
   * `minDrop` and the test's discreteness; null when no drop can be detected (e.g. one cluster).
   */
  mde: number | null
  /** The one-sided level the MDE is computed at: α over the family size for gated metrics, α otherwise. */
  mdeLevel?: number
  /** Clusters in the test (dialogues; a sample outside one is its own). */
  clusters?: number
  /** Gated metrics: whether the hypothesis is in the Holm family (left out when it cannot reach α/m: Tarone). */
  inFamily?: boolean
  /** Why a drop cannot be tested, or why the metric is out of the family. */
  note?: string
  gated: boolean
}

/** The gate's power on args_exact_match (else its first gated metric), overall: what `tool-evals plan` gives. */
export interface GatePowerSummary {
  metric: string
  /** The level each test in the family is held to first (α over the family size, at least one). */
  level: number
  /** The family: hypotheses Holm corrects over. */
  family: number
  mde: number | null
  /** Power against drops of 2, 3, 5 and 10 points. */
  powerAt: { drop: number; power: number }[]
  /** Paired samples that reach 80% power against a drop of 5 points (this run's flakiness; null past 1,000x). */
  samplesFor5Points: number | null
}
