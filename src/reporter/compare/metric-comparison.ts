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
  /**
   * The family-adjusted p-value of the gate's procedure (overall first, per metric: `overallFirstGate`; gated metrics
   * only; 1 for one left out of the family, as it cannot reject). The verdict compares it with α.
   */
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
  /**
   * The one-sided level the MDE is computed at: for a gated metric, the level the procedure holds it to once the
   * hypotheses before it are rejected (overall: α over the gated metrics; a suite: that over its metric's suites);
   * α otherwise.
   */
  mdeLevel?: number
  /** Clusters in the test (dialogues; a sample outside one is its own). */
  clusters?: number
  /** Gated metrics: whether the hypothesis is in the gate's family (left out when it cannot reach its level: Tarone). */
  inFamily?: boolean
  /** Why a drop cannot be tested, or why the metric is out of the family. */
  note?: string
  gated: boolean
}

/** The gate's power on args_exact_match (else its first gated metric), overall: what `tool-evals plan` gives. */
export interface GatePowerSummary {
  metric: string
  /** The level the metric's overall test is held to: its share of α (equal shares, args_exact_match's doubled beside name_correct). */
  level: number
  /** The metrics (chains) α is split over: the overall level is α over this. */
  family: number
  mde: number | null
  /** Power against drops of 2, 3, 5 and 10 points. */
  powerAt: { drop: number; power: number }[]
  /** Paired samples that reach 80% power against a drop of 5 points (this run's flakiness; null past 1,000x). */
  samplesFor5Points: number | null
}
