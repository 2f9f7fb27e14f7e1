/**
 * Progress of one category of `tool-evals bfcl run` on stderr: on a terminal one line redrawn in place; elsewhere
 * (CI logs, pipes) a compact line at most every `TOOL_EVALS_PROGRESS_INTERVAL` seconds (default 15; `off` for none),
 * so a long category is never silent and a log is never flooded.
 */

/** Seconds between progress lines when stderr is not a terminal. */
export const DEFAULT_PROGRESS_INTERVAL_S = 15

/** The interval from `TOOL_EVALS_PROGRESS_INTERVAL` (seconds, fractions allowed), or undefined for none (`off`, `0`). */
export function progressIntervalMs(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const v = env['TOOL_EVALS_PROGRESS_INTERVAL']
  if (v === undefined || v.trim() === '') return DEFAULT_PROGRESS_INTERVAL_S * 1000
  const n = Number(v)
  if (v.trim().toLowerCase() === 'off' || !Number.isFinite(n) || n <= 0) return undefined
  return n * 1000
}

/** `1 h 02 min`, `3 min 05 s`, `42 s`. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds))
  if (s >= 3600) return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`
  if (s >= 60) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`
  return `${s} s`
}

export interface ProgressState {
  category: string
  /** Entries to ask in this run, and those answered so far (errors included). */
  total: number
  done: number
  errors: number
  /** Entries kept from an earlier run. */
  reused: number
  elapsedMs: number
}

/** One progress line: `simple_python 169/400 (50 reused), 2 errors, 4.1/s, ETA 56 s`. */
export function progressLine(p: ProgressState): string {
  const rate = p.elapsedMs > 0 ? (p.done * 1000) / p.elapsedMs : 0
  const parts = [`${p.category} ${p.done}/${p.total}${p.reused > 0 ? ` (${p.reused} reused)` : ''}`, `${p.errors} error${p.errors === 1 ? '' : 's'}`, `${rate.toFixed(rate >= 10 ? 0 : 1)}/s`]
  if (p.done > 0 && p.done < p.total) parts.push(`ETA ${duration((p.total - p.done) / rate)}`)
  return parts.join(', ')
}

export interface ProgressOptions {
  /** Redraw one line in place (stderr is a terminal). */
  tty: boolean
  /** Least time between lines when not a terminal; undefined: no lines. */
  intervalMs: number | undefined
  now?: () => number
}

/** A category's progress, written to `out` as entries are answered. */
export class CategoryProgress {
  private readonly state: ProgressState
  private readonly start: number
  private last: number
  private readonly now: () => number
  private shown = false
  private timer: ReturnType<typeof setInterval> | undefined

  constructor(
    private readonly out: NodeJS.WritableStream,
    category: string,
    private readonly options: ProgressOptions,
  ) {
    this.now = options.now ?? (() => performance.now())
    this.start = this.now()
    this.last = this.start
    this.state = { category, total: 0, done: 0, errors: 0, reused: 0, elapsedMs: 0 }
    // Off a terminal a line comes on a clock, not on answers: a stalled endpoint shows as a line that does not move.
    if (!options.tty && options.intervalMs !== undefined) {
      this.timer = setInterval(() => this.write(), options.intervalMs)
      this.timer.unref()
    }
  }

  /** The number of entries this run asks, and of those kept from an earlier run. */
  begin(total: number, reused: number): void {
    this.state.total = total
    this.state.reused = reused
  }

  /** One entry answered (`failed`: its generation failed). */
  tick(failed: boolean): void {
    this.state.done++
    if (failed) this.state.errors++
    if (this.options.tty && this.now() - this.last >= 200) this.write()
  }

  private write(): void {
    const t = this.now()
    this.last = t
    this.state.elapsedMs = t - this.start
    const line = `tool-evals bfcl run: ${progressLine(this.state)}`
    this.out.write(this.options.tty ? `\r\x1b[K${line}` : `${line}\n`)
    this.shown = true
  }

  /** The category is done: stop the clock, clear a terminal's line (the category's result line follows on stdout). */
  end(): void {
    if (this.timer !== undefined) clearInterval(this.timer)
    this.timer = undefined
    if (this.options.tty && this.shown) this.out.write('\r\x1b[K')
  }
}
