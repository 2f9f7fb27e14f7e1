/**
 * The scanning toolkit the format parsers share. Every search here moves forward only, so a format that scans with
 * these stays linear however many unclosed or repeated markers the text holds.
 */

/**
 * Successive occurrences of one token: `next(from)` is the first index of `token` at or after `from`, or -1. Each
 * search resumes where the previous one stopped, so as long as callers ask with non-decreasing `from` the text is
 * searched at most once per token, however many times it is asked.
 */
export class ForwardSearch {
  private found = -2 // last result (-1: none at or after `searchedFrom`; -2: not searched yet)
  private searchedFrom = -1

  constructor(
    private readonly text: string,
    readonly token: string,
  ) {}

  next(from: number): number {
    if (this.found !== -2 && from >= this.searchedFrom && (this.found === -1 || this.found >= from)) return this.found
    this.searchedFrom = from
    this.found = this.text.indexOf(this.token, from)
    return this.found
  }
}

/**
 * The bodies of a format's blocks: the text after each `open` marker up to the next `close`, or up to the next
 * `open` (or the end) when the block is not closed first; `visit` also gets the body's bounds and whether `close`
 * ended it. Both searches only move forward, so one pass is linear however many unclosed markers the text holds.
 */
export function forEachBlock(
  text: string,
  open: string,
  close: string,
  visit: (body: string, from: number, to: number, closed: boolean) => void,
): void {
  let end = -2 // the next `close` at or after the current block (-1: none left)
  let start = text.indexOf(open)
  while (start >= 0) {
    const from = start + open.length
    if (end !== -1 && end < from) end = text.indexOf(close, from)
    const next = text.indexOf(open, from)
    const closed = end >= 0 && (next < 0 || end < next)
    const to = closed ? end : next >= 0 ? next : text.length
    visit(text.slice(from, to), from, to, closed)
    start = next
  }
}

/**
 * The regions after each `marker`: from the end of the marker to the next occurrence of it (or the end of the
 * text). Formats whose calls follow a marker with no closing token read each region once, so the pass is linear.
 */
export function forEachMarkerRegion(text: string, marker: string, visit: (start: number, limit: number) => void): void {
  let at = text.indexOf(marker)
  while (at >= 0) {
    const next = text.indexOf(marker, at + marker.length)
    visit(at + marker.length, next < 0 ? text.length : next)
    at = next
  }
}
