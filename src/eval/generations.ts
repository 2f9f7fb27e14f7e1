/**
 * Model generations for one eval suite, with bounded concurrency. Generation is decoupled from the test cases:
 * once the suite knows which samples will run (after `-t` filtering), it starts generating them in test order, at
 * most `concurrency` at a time and at most `lookahead` ahead of the tests consuming them. The tests themselves run
 * in order and each awaits its own sample's generation. A test whose sample was not planned (or that runs out of
 * order, under `sequence.concurrent`) jumps the queue, still within the concurrency limit.
 */
import type { Sample } from '../data/types.js'
import type { GenerateOptions, ModelOutput, ModelProvider } from '../models/types.js'

/** A generation's key: the sample id, and its trial when describeEval repeats samples (`trials`). */
function keyOf(sample: Sample): string {
  return sample.trial === undefined ? sample.id : `${sample.id}\u0000${sample.trial}`
}

export type Generation = { output: ModelOutput; error?: undefined } | { error: unknown; output?: undefined }

export class Generations {
  /** Generations started and not yet consumed. */
  private readonly started = new Map<string, Promise<Generation>>()
  /** Every sample id ever started (a consumed sample must not be generated again when the plan reaches it). */
  private readonly everStarted = new Set<string>()
  private planned: readonly Sample[] = []
  private nextPlanned = 0
  private readonly urgent: Sample[] = []
  private readonly waiters = new Map<string, (p: Promise<Generation>) => void>()
  private inFlight = 0
  private startedCount = 0
  private consumedCount = 0
  private budgetMs: number | undefined

  constructor(
    private readonly model: ModelProvider,
    private readonly concurrency: number,
    private readonly lookahead: number,
    private readonly signal?: AbortSignal,
  ) {}

  /**
   * The samples that will run, in test order: generation starts now. `timeoutMs`, the tests' timeout, bounds each
   * generation's retries (see retryBudget).
   */
  plan(samples: readonly Sample[], timeoutMs?: number): void {
    this.budgetMs = retryBudget(timeoutMs)
    this.planned = samples
    this.nextPlanned = 0
    this.pump()
  }

  /** The generation for `sample` (each sample is consumed once). Never rejects: failures are in the result. */
  get(sample: Sample): Promise<Generation> {
    this.consumedCount++
    const running = this.started.get(keyOf(sample))
    if (running) {
      this.started.delete(keyOf(sample))
      this.pump()
      return running
    }
    return new Promise<Generation>((resolve) => {
      this.waiters.set(keyOf(sample), (p) => {
        this.started.delete(keyOf(sample))
        resolve(p)
      })
      this.urgent.push(sample)
      this.pump()
    })
  }

  private pump(): void {
    while (this.inFlight < this.concurrency) {
      const sample = this.nextToStart()
      if (!sample) return
      this.start(sample)
    }
  }

  private nextToStart(): Sample | undefined {
    while (this.urgent.length > 0) {
      const s = this.urgent.shift() as Sample
      // Already running (planned meanwhile): hand it over. Otherwise generate it, again if a retried test asks twice.
      if (!this.started.has(keyOf(s))) return s
      this.handOver(keyOf(s))
    }
    while (this.nextPlanned < this.planned.length && this.startedCount - this.consumedCount < this.lookahead) {
      const s = this.planned[this.nextPlanned++] as Sample
      if (!this.everStarted.has(keyOf(s))) return s
    }
    return undefined
  }

  private start(sample: Sample): void {
    this.inFlight++
    this.startedCount++
    this.everStarted.add(keyOf(sample))
    const p = this.generate(sample).finally(() => {
      this.inFlight--
      this.pump()
    })
    this.started.set(keyOf(sample), p)
    this.handOver(keyOf(sample))
  }

  private handOver(id: string): void {
    const waiter = this.waiters.get(id)
    const p = this.started.get(id)
    if (!waiter || !p) return
    this.waiters.delete(id)
    waiter(p)
  }

  private async generate(sample: Sample): Promise<Generation> {
    try {
      const options: GenerateOptions = {}
      if (this.signal) options.signal = this.signal
      // From the generation's start, so within its test's timeout: a generation starts before its test asks for it,
      // or when it does, unless it then waits for a free slot (a trial queued behind the others may still time out).
      if (this.budgetMs !== undefined) options.deadline = Date.now() + this.budgetMs
      return { output: await this.model.generate(sample, options) }
    } catch (error) {
      return { error }
    }
  }
}

/**
 * How long a generation may take, retries included, under a test timeout of `timeoutMs`: the timeout less a margin
 * for scoring (a tenth, from 100 ms to 1 s), so a provider that keeps failing ends with its own error, not a timeout.
 * Undefined when there is no timeout (0 or Infinity).
 */
export function retryBudget(timeoutMs: number | undefined): number | undefined {
  if (timeoutMs === undefined || !Number.isFinite(timeoutMs) || timeoutMs <= 0) return undefined
  const margin = Math.min(1000, Math.max(100, timeoutMs / 10))
  return Math.max(0, timeoutMs - margin)
}
