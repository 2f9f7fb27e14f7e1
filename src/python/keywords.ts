/** The keyword arguments of one call as the parser collects them (parser.ts). */
import type { PyNode } from './types.js'

export type Keyword = { key: string; value: PyNode }

/** The keyword arguments of the calls that have none: shared, never written to. */
export const NO_KEYWORDS: Keyword[] = []

/**
 * The keywords of one call so far. Calls have a handful, which a look along the list checks faster than a hash set
 * is built; past `KEYWORD_SET_FROM` of them a set takes over, so a call with thousands of keywords stays linear. The
 * list starts as an array of one (an empty array's first push reserves 17 slots, per call).
 */
export class Keywords {
  list = NO_KEYWORDS
  private set: Set<string> | undefined

  has(key: string): boolean {
    if (this.set) return this.set.has(key)
    for (const kw of this.list) if (kw.key === key) return true
    return false
  }

  add(key: string, value: PyNode): void {
    if (this.list === NO_KEYWORDS) this.list = [{ key, value }]
    else this.list.push({ key, value })
    if (this.set) this.set.add(key)
    else if (this.list.length >= KEYWORD_SET_FROM) this.set = new Set(this.list.map((kw) => kw.key))
  }
}

const KEYWORD_SET_FROM = 8

/** The keywords of a call while the parser discards (`Parser.discard`): none, one name, or from the second a Keywords of names. */
export type SeenKeywords = Keywords | string | undefined
