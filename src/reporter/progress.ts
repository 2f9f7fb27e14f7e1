/**
 * Progress on long runs: samples done out of the total, rate and ETA, printed at most every `intervalMs` (and less
 * often as the run goes on). Constant
 * work per sample (a counter and a clock read); silent unless enabled (the reporter enables it on a TTY).
 */
export class Progress {
  private total = 0
  private done = 0
  private startedAt = 0
  /** When the first test finished: the rate is measured from there (start-up time is not sample time). */
  private firstAt = 0
  private lastPrint = 0

  constructor(
    private readonly print: (line: string) => void,
    private readonly enabled: boolean,
    private readonly intervalMs = 2000,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    this.total = 0
    this.done = 0
    this.startedAt = this.now()
    this.lastPrint = this.startedAt
  }

  /** Tests that will run were collected. */
  addTotal(n: number): void {
    this.total += n
  }

  /** One test finished. */
  tick(): void {
    this.done++
    if (!this.enabled) return
    const t = this.now()
    if (this.done === 1) {
      this.firstAt = t
      this.lastPrint = t
      return
    }
    // The gap grows with the run (a tenth of the time so far): a few lines on short runs, tens on hour-long ones.
    if (t - this.lastPrint < Math.max(this.intervalMs, (t - this.startedAt) / 10)) return
    this.lastPrint = t
    this.print(this.line(t))
  }

  elapsedMs(): number {
    return this.now() - this.startedAt
  }

  line(t = this.now()): string {
    const seconds = Math.max((t - (this.done > 1 ? this.firstAt : this.startedAt)) / 1000, 1e-3)
    const rate = Math.max(this.done - 1, 0) / seconds
    const total = Math.max(this.total, this.done)
    const left = total - this.done
    const eta = rate > 0 && left > 0 ? ` · ETA ${formatDuration(left / rate)}` : ''
    return `tool-evals: ${this.done}/${total} tests · ${rate.toFixed(1)}/s${eta}`
  }
}

export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${Math.ceil(seconds)}s`
  const m = Math.floor(seconds / 60)
  const s = Math.round(seconds % 60)
  if (m < 60) return `${m}m${String(s).padStart(2, '0')}s`
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`
}
