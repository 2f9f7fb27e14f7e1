/**
 * Options objects checked at run time. Vitest loads configs and eval files without type-checking them, so a
 * misspelt key would otherwise be ignored (a gate silently off) or fail far from its cause: every entry point that
 * takes an options object lists its keys here and rejects any other, naming the closest known one.
 */

/** The keys of an options type as a value the compiler holds complete (a missing or extra key is a type error). */
export type OptionKeys<T> = { readonly [K in keyof Required<T>]: true }

/**
 * Throws a TypeError when `value` is not a plain object or holds a key that `known` does not list:
 * "describeEval("weather"): unknown option `modle`; did you mean `model`?". `where` names the object.
 */
export function checkOptionKeys(value: unknown, known: object | readonly string[], where: string): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError(`${where}: options must be an object, got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`)
  }
  const keys = Array.isArray(known) ? (known as readonly string[]) : Object.keys(known)
  for (const key of Object.keys(value)) {
    if (!keys.includes(key)) throw new TypeError(`${where}: unknown option \`${key}\`; ${suggestion(key, keys, 'options')}`)
  }
}

/** "did you mean `model`?" when a known name is close to `name`, else the list of known names (`what` names them). */
export function suggestion(name: string, known: readonly string[], what: string): string {
  const near = closest(name, known)
  if (near !== undefined) return `did you mean \`${near}\`?`
  return known.length === 0 ? `there are no ${what}` : `known ${what}: ${known.join(', ')}`
}

/**
 * The known name closest to `name`, if one is close enough to be a typo of it: at most a third of its length in
 * edits (at least one), counting a swap of neighbours as one edit and ignoring case. Ties go to the first listed.
 */
export function closest(name: string, known: readonly string[]): string | undefined {
  const target = name.toLowerCase()
  const limit = Math.max(1, Math.floor(target.length / 3))
  let best: string | undefined
  let bestDistance = limit + 1
  for (const candidate of known) {
    const d = editDistance(target, candidate.toLowerCase(), bestDistance)
    if (d < bestDistance) {
      best = candidate
      bestDistance = d
    }
  }
  return best
}

/**
 * Optimal string alignment distance (insertions, deletions, substitutions, swaps of neighbours), at most `cap`:
 * quadratic in the names' lengths, which are option and metric names.
 */
export function editDistance(a: string, b: string, cap = Infinity): number {
  if (Math.abs(a.length - b.length) >= cap) return cap
  let before = new Array<number>(b.length + 1).fill(0)
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = new Array<number>(b.length + 1)
    current[0] = i
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let d = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, (before[j - 2] as number) + 1)
      current[j] = d
    }
    before = previous
    previous = current
  }
  return Math.min(previous[b.length] as number, cap)
}
