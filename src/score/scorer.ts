/**
 * The scorer interface: everything one metric family is, in one object. A scorer
 *
 * - scores one sample (`score`: the sample, its parsed calls, the raw output) into a small plain-JSON value that the
 *   sample's record keeps under `record.scores[scorer.name]` (and, optionally, a full result handed to `assert`);
 * - says what a sample that could not be evaluated scores (`errored`: never more than a wrong answer);
 * - sums those values over a run or a suite (`accumulator`: create, add, merge, finish) from counts and exact sums
 *   only, so the records of sharded runs give the numbers of one run, bit for bit, in any order; `finish` gives each
 *   metric's rate and its denominator (how many samples or judgements the rate averages over).
 *
 * NeMo's metrics are the base every record carries (`record.score`, summed by aggregate.ts); the scorers are what an
 * eval adds beside them. The built-in ones are listed in `scorers/index.ts`; users make theirs with `defineScorer`.
 */
import type { ProviderCall, ToolCall } from '../calls/types.js'
import type { Trajectory } from './trajectory.js'
import type { Sample } from './types.js'
import type { UsageSource } from './usage.js'

/** What a scorer sees of one sample. */
export interface ScorerInput {
  sample: Sample
  /** The calls parsed from the output (or given by the provider); parsed once per sample. */
  calls: readonly ToolCall[]
  /** The model's raw output text, when it gave one. */
  text?: string
  /** What the scorer's own `prepare` made of this sample in the generation pipeline (see `prepare`). */
  prepared?: unknown
  /** The agent loop's run of the sample, when the eval runs one (`tools` or `environment`). */
  trajectory?: Trajectory
}

/** One sample's outcome: `value` goes into the record (task meta: keep it small), `result` to `assert` in full. */
export interface ScoreOutcome<V> {
  value: V
  result?: unknown
}

/** A scorer's strict-mode verdict on a sample: `undefined` leaves the call to NeMo's failure categories. */
export type StrictVerdict = { pass: true } | { pass: false; message: string } | undefined

/** What a run or suite's sums come to: rates by report metric name, and counts for the report's own field. */
export interface ScorerSummary<D = unknown> {
  metrics: Record<string, number | null>
  /**
   * Per metric in `metrics`: how many samples (or judgements) stand behind its rate, i.e. its denominator (0 where the
   * rate is null). The report carries them as `metricCounts`, so views show `n` without knowing any scorer.
   */
  counts: Record<string, number>
  /** Counts behind the rates; the report carries them under the scorer's name (omitted when undefined). */
  details?: D
}

/** Counts and exact sums behind a scorer's run-level metrics. */
export interface ScorerAccumulator<V, A, D = unknown> {
  create(): A
  /** Add one record's value; `errored`: the sample could not be evaluated (it must never count as right). */
  add(acc: A, value: V, errored: boolean): void
  /** Fold `from` into `into` (e.g. two shards') and return `into`. */
  merge(into: A, from: A): A
  finish(acc: A): ScorerSummary<D>
}

/**
 * A model as a scorer sees one (a judge): any ModelProvider of models/ fits. Declared here, in the scoring layer, so
 * that scorers depend on the shape and not on the providers' layer.
 */
export interface ScorerModel {
  readonly id: string
  generate(sample: Sample, options?: { signal?: AbortSignal }): Promise<{ text?: string; calls?: ProviderCall[]; skipped?: string } & UsageSource>
  close?(): Promise<void>
}

/** Services describeEval lends scorers when it sets them up (so scorers need not reach into the providers). */
export interface ScorerContext {
  /** Wire-format hint of the eval. */
  format?: string
  /** A provider behind the on-disk generation cache (`true`: default folder, or the cache's options). */
  cached(provider: ScorerModel, options: true | { dir?: string }): ScorerModel
}

export interface Scorer<V = unknown, A = unknown, D = unknown> {
  /** Key of its values in `record.scores` and of its counts in the report; unique within a run. */
  readonly name: string
  /** The report metrics it can give (in table order). */
  readonly metrics: readonly string[]
  /** Score one sample; `undefined`: this sample is not for this scorer (no value, left out of its sums). */
  score(input: ScorerInput): ScoreOutcome<V> | undefined | Promise<ScoreOutcome<V> | undefined>
  /** The value of a sample that could not be evaluated (`sample` undefined: an unreadable data line). */
  errored(sample: Sample | undefined): V | undefined
  readonly accumulator: ScorerAccumulator<V, A, D>
  /**
   * Optional work done in the generation pipeline, right after the sample's generation and concurrently with the
   * others (e.g. asking a judge model); its result reaches `score` as `input.prepared`.
   */
  prepare?(input: ScorerInput, signal?: AbortSignal): Promise<unknown>
  /** Optional: how this scorer decides strict mode for a sample instead of NeMo's failure categories. */
  strict?(outcome: ScoreOutcome<V>, sample: Sample): StrictVerdict
  /** Providers the scorer uses: closed with the eval's model when the last suite using them ends. */
  readonly providers?: readonly ScorerModel[]
}

/**
 * A scorer built into the package: turned on per eval by the describeEval option of its name (`bfcl: true`,
 * `schema: {...}`, `judge: {...}`). The reporter uses `accumulator` and `metrics`, which do not depend on options.
 */
export interface BuiltinScorer<O = unknown, V = unknown, A = unknown, D = unknown, N extends string = string, M extends string = string>
  extends Omit<Scorer<V, A, D>, 'name' | 'metrics' | 'score' | 'errored' | 'prepare' | 'strict' | 'providers'> {
  /** Also the name of its describeEval option. */
  readonly name: N
  readonly metrics: readonly M[]
  /** The eval's scorer for its option, or undefined when the option leaves it off. */
  configure(option: O | undefined, context: ScorerContext): Scorer<V, A, D> | undefined
}

/**
 * A built-in scorer's entry in `BuiltinScorerTypes` (score/types.ts), from its declaration: its option, the value a
 * record keeps, the counts a report carries, its metric names, and `R`, the full result it hands `assert`.
 */
export type ScorerTypesOf<S, R = never> =
  S extends BuiltinScorer<infer O, infer V, infer _A, infer D, infer _N, infer M> ? { option: O; value: V; details: D; metric: M; result: R } : never

// ---- summing the scorers' values of many records ----

/** Where the reporter finds a scorer for a name it meets in the records. */
export type ScorerLookup = (name: string) => Pick<Scorer, 'name' | 'metrics' | 'accumulator'>

interface Entry {
  scorer: Pick<Scorer, 'name' | 'metrics' | 'accumulator'>
  acc: unknown
}

/**
 * The scorers' sums of one scope (the run, or a suite): one accumulator per scorer name met in the records, in the
 * order `lookup` ranks them. Records without scores add nothing.
 */
export class ScoreSums {
  private readonly entries = new Map<string, Entry>()

  constructor(private readonly lookup: ScorerLookup) {}

  private entry(name: string): Entry {
    let e = this.entries.get(name)
    if (!e) {
      const scorer = this.lookup(name)
      e = { scorer, acc: scorer.accumulator.create() }
      this.entries.set(name, e)
    }
    return e
  }

  /** Add one record's values (constant work per scorer). Skipped records (policy) are left out. */
  add(record: { scores?: Record<string, unknown>; error?: string; skipped?: string }): void {
    if (record.scores === undefined) return
    if (record.skipped !== undefined && record.error === undefined) return
    const errored = record.error !== undefined
    for (const [name, value] of Object.entries(record.scores)) {
      if (value === undefined || value === null) continue
      const e = this.entry(name)
      e.scorer.accumulator.add(e.acc, value, errored)
    }
  }

  merge(from: ScoreSums): this {
    for (const [name, f] of from.entries) {
      const e = this.entry(name)
      e.acc = e.scorer.accumulator.merge(e.acc, f.acc)
    }
    return this
  }

  get size(): number {
    return this.entries.size
  }

  /** Every scorer's summary, by name, in a stable order (the lookup's rank, then name). */
  finish(rank: (name: string) => number): Map<string, ScorerSummary> {
    const names = [...this.entries.keys()].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0))
    const out = new Map<string, ScorerSummary>()
    for (const name of names) {
      const e = this.entries.get(name) as Entry
      out.set(name, e.scorer.accumulator.finish(e.acc))
    }
    return out
  }
}
