/**
 * Progress on long runs: tests done out of the total, errored samples, rate and ETA.
 *
 * - `live` (a terminal): a line when a test finishes, at most every `intervalMs` (and less often as the run goes on).
 * - `log` (CI, a file, a pipe): a line every `intervalMs` (default 15 s) from a timer, whether or not a test finished,
 *   so a log shows the run is alive while one slow sample is answered; compact enough for hours of CI log.
 * - `off`.
 *
 * Constant work per test (counters and a clock read).
 */
export type ProgressMode = 'off' | 'live' | 'log'

/** Lines in a log (CI) every 15 s: often enough to see a run move, rare enough for an hour-long log. */
export const LOG_INTERVAL_MS = 15_000

export class Progress {
  private total = 0
  private done = 0
  private errored = 0
  private startedAt = 0
  /** When the first test finished: the rate is measured from there (start-up time is not sample time). */
  private firstAt = 0
  private lastPrint = 0
  private timer: ReturnType<typeof setInterval> | undefined
  private readonly mode: ProgressMode
  private readonly intervalMs: number

  /** `mode`: `true` is `live`, `false` `off`. `intervalMs`: default 2 s live, 15 s in a log. */
  constructor(
    private readonly print: (line: string) => void,
    mode: boolean | ProgressMode,
    intervalMs?: number,
    private readonly now: () => number = Date.now,
  ) {
    this.mode = mode === true ? 'live' : mode === false ? 'off' : mode
    this.intervalMs = intervalMs ?? (this.mode === 'log' ? LOG_INTERVAL_MS : 2000)
  }

  start(): void {
    this.stop()
    this.total = 0
    this.done = 0
    this.errored = 0
    this.startedAt = this.now()
    this.lastPrint = this.startedAt
    if (this.mode === 'log' && this.intervalMs > 0) {
      this.timer = setInterval(() => this.print(this.line()), this.intervalMs)
      // Never what keeps the process alive.
      this.timer.unref?.()
    }
  }

  /** The run ended (or was cut short): no more log lines. */
  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer)
    this.timer = undefined
  }

  /** Tests that will run were collected. */
  addTotal(n: number): void {
    this.total += n
  }

  /** One test finished; `errored`: its sample could not be evaluated. */
  tick(errored = false): void {
    this.done++
    if (errored) this.errored++
    const t = this.now()
    if (this.done === 1) {
      this.firstAt = t
      this.lastPrint = t
      return
    }
    if (this.mode !== 'live') return
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
    const errored = this.errored > 0 ? ` · ${this.errored} errored` : ''
    return `tool-evals: ${this.done}/${total} tests${errored} · ${rate.toFixed(1)}/s${eta}`
  }
}

export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${Math.ceil(seconds)}s`
  const m = Math.floor(seconds / 60)
  const s = Math.round(seconds % 60)
  if (m < 60) return `${m}m${String(s).padStart(2, '0')}s`
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`
}
