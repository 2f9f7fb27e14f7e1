/**
 * The renderer's own budget checks (cooperative): the supervisor's deadline and the worker's heap limit are a
 * backstop only, because V8 can abort the whole process when a worker is stopped near its heap limit, or when one step
 * (a `tojson` of a huge list, a string doubled in one `~`) allocates past it before the stop is seen. So the renderer
 * counts the nodes it evaluates and, every few thousand, checks the time against the budget and the heap against a
 * fraction of it; and a value built in one step (a string, a list, `range(n)`, the text of `str()`/`tojson`/`join`) is
 * checked against a size derived from the memory budget before or as it is built. Over either, it throws a
 * `BudgetError` naming the budget, which the worker reports as that budget's failure.
 *
 * This function runs in the renderer worker from its source text (self-contained).
 */

/** What a meter checks against: the job's budget, and how to read the worker's heap. */
export interface RenderLimits {
  timeMs: number
  memoryMb: number
  /** Bytes in use on this thread's heap (`v8.getHeapStatistics().used_heap_size`). */
  heapUsed(): number
}

/** The checks of one rendering job (every context of it), see pythonBudget. */
export interface Meter {
  /** Called for every node: every `EVERY` calls, checks the time and the heap. Once over, throws on every call. */
  tick(): void
  /** A string of `n` characters is being built. */
  chars(n: number, what: string): void
  /** A list (or dict) of `n` items is being built. */
  count(n: number, what: string): void
  /**
   * `str()`, `tojson` or `join` is about to write `v`: its text, estimated without building it, must fit. `indent`:
   * the characters of one level of indentation each item is written with (tojson's `indent`).
   */
  text(v: { type: string; value: any }, what: string, indent?: number): void
}

export function pythonBudget(): { BudgetError: new (budget: 'time' | 'memory', why: string) => Error & { budget: 'time' | 'memory'; why: string }; meter(limits: RenderLimits): Meter } {
  // Nodes between two checks: a check costs about a microsecond, a node about as much (a cold one more).
  const EVERY = 256
  // The heap the renderer may hold before it stops itself: well below the hard limit, where V8 is still at ease.
  const HEAP_FRACTION = 0.6
  const MB = 1024 * 1024

  class BudgetError extends Error {
    constructor(readonly budget: 'time' | 'memory', readonly why: string) {
      super(`the chat template went over its ${budget} budget: ${why}`)
    }
  }

  function meter(limits: RenderLimits): Meter {
    const deadline = performance.now() + limits.timeMs
    const heapBytes = limits.memoryMb * MB * HEAP_FRACTION
    // A string costs 1 or 2 bytes a character, a list 8 bytes an item and its values more: an eighth of the budget
    // each, so that a value twice the size (the step after the check) still fits.
    const maxChars = Math.floor((limits.memoryMb * MB) / 16)
    const maxItems = Math.floor((limits.memoryMb * MB) / 64)
    let nodes = 0
    let stopped: BudgetError | undefined
    const stop = (budget: 'time' | 'memory', why: string): never => {
      throw (stopped = new BudgetError(budget, why))
    }
    const chars = (n: number, what: string): void => {
      if (n > maxChars) stop('memory', `${what} of ${n} characters, more than the ${maxChars} it allows`)
    }
    return {
      tick() {
        if (stopped !== undefined) throw stopped
        if (++nodes % EVERY !== 0) return
        if (performance.now() > deadline) stop('time', `still running after ${nodes} steps: a template looping without bound?`)
        if (limits.heapUsed() > heapBytes) stop('memory', `its values took ${Math.round(HEAP_FRACTION * 100)}% of it`)
      },
      chars,
      count(n, what) {
        if (n > maxItems) stop('memory', `${what} of ${n} items, more than the ${maxItems} it allows`)
      },
      text(v, what, indent = 0) {
        // A walk that stops once past the limit, allocating nothing: it costs at most as much as the limit.
        let size = 0
        const measure = (x: { type: string; value: any }, depth: number): void => {
          const item = 1 + indent * (depth + 1)
          if (typeof x.value === 'string') size += x.value.length + 2
          else if (Array.isArray(x.value)) {
            size += 2 + item * x.value.length
            for (const y of x.value) if (size <= maxChars) measure(y, depth + 1)
          } else if (x.value instanceof Map) {
            size += 2 + (item + 3) * x.value.size
            for (const [k, y] of x.value) if (size <= maxChars) (size += k.length), measure(y, depth + 1)
          } else size += 24
        }
        measure(v, 0)
        if (size > maxChars) stop('memory', `${what} of more than the ${maxChars} characters it allows`)
      },
    }
  }

  return { BudgetError, meter }
}
