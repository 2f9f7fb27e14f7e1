/**
 * One run of detection (`parseToolCalls` trying formats in turn) as a scope for sharing work between formats that
 * read the same text the same way: Hermes and then the generic JSON format both look for bare JSON calls in an
 * output without `<tool_call>` tags. A result remembered here is used again only within the same run, where the
 * text and the options cannot change: detection and the hinted format run after it (`parseToolCalls`); a format
 * called directly is never in a run.
 */

let current = 0 // the run in progress; 0: none
let runs = 0

/** `fn()` as one detection run; `outermost` is false when the run started inside another. */
export function inDetectionRun<T>(fn: (outermost: boolean) => T): T {
  const outer = current
  current = ++runs
  try {
    return fn(outer === 0)
  } finally {
    current = outer
  }
}

/** Remembers, for one detection run, the texts in which a reader found no call. */
export class NoCallMemo {
  private run = 0
  private text: string | undefined

  /** True when `text` was recorded as giving no call earlier in the current run. */
  has(text: string): boolean {
    return current !== 0 && this.run === current && this.text === text
  }

  record(text: string): void {
    if (current === 0) return
    this.run = current
    this.text = text
  }
}
