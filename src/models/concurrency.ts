/**
 * Process-wide state for providers: a bounded-concurrency limiter and a registry that survives module re-evaluation.
 *
 * Vitest can run several test files in one worker, and with isolation each file evaluates the library's modules
 * afresh; a plain module-level Map would then hold one limiter (or one loaded model) per file. The registry lives on
 * `globalThis` under a `Symbol.for` key instead, so every copy of this module in a process sees the same entries.
 */

const REGISTRY = Symbol.for('vitest-tool-evals.shared-state')

type Registry = Map<string, unknown>

function registry(): Registry {
  const g = globalThis as { [REGISTRY]?: Registry }
  g[REGISTRY] ??= new Map()
  return g[REGISTRY]
}

/** The process-wide value under `key`, created by `create` on first use. */
export function shared<T>(key: string, create: () => T): T {
  const r = registry()
  if (!r.has(key)) r.set(key, create())
  return r.get(key) as T
}

/** Forget a process-wide value (the next `shared` call creates it again). */
export function forgetShared(key: string): void {
  registry().delete(key)
}

/** Every process-wide key with the given prefix. */
export function sharedKeys(prefix: string): string[] {
  return [...registry().keys()].filter((k) => k.startsWith(prefix))
}

function abortReason(signal: AbortSignal): Error {
  const r: unknown = signal.reason
  return r instanceof Error ? r : new Error('aborted')
}

/** A FIFO counting semaphore: at most `limit` holders at a time. */
export class Limiter {
  private active = 0
  private readonly waiting: { grant: () => void; signal?: AbortSignal; onAbort?: () => void }[] = []
  /** Most holders seen at once (for tests and benchmarks). */
  peak = 0

  constructor(readonly limit: number) {
    if (!(limit >= 1)) throw new Error(`concurrency must be at least 1 (got ${limit})`)
  }

  get inFlight(): number {
    return this.active
  }

  /** Wait for a slot; resolves to the function that gives it back (call it exactly once). */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal))
    return new Promise((resolve, reject) => {
      const entry: (typeof this.waiting)[number] = {
        grant: () => {
          if (entry.onAbort) signal?.removeEventListener('abort', entry.onAbort)
          this.active++
          this.peak = Math.max(this.peak, this.active)
          let released = false
          resolve(() => {
            if (released) return
            released = true
            this.active--
            this.next()
          })
        },
      }
      if (signal) {
        entry.onAbort = () => {
          const i = this.waiting.indexOf(entry)
          if (i >= 0) this.waiting.splice(i, 1)
          reject(abortReason(signal))
        }
        signal.addEventListener('abort', entry.onAbort, { once: true })
      }
      this.waiting.push(entry)
      this.next()
    })
  }

  /** Run `task` holding a slot. */
  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const release = await this.acquire(signal)
    try {
      return await task()
    } finally {
      release()
    }
  }

  private next(): void {
    while (this.active < this.limit && this.waiting.length > 0) {
      ;(this.waiting.shift() as (typeof this.waiting)[number]).grant()
    }
  }
}

/** Resolve after `ms`, or reject early when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortReason(signal))
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer)
      reject(abortReason(signal as AbortSignal))
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
