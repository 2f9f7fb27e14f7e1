/**
 * Function-calling APIs that forbid dots in tool names (OpenAI's `^[a-zA-Z0-9_-]{1,64}$`) make BFCL's handlers send
 * `math.factorial` as `math_factorial`; the leaderboard then scores such models with `underscore_to_dot` (a model
 * config flag). Results scored without it fail every dotted function, a silently wrong number (Java: 3/100 where the
 * leaderboard says 56/100), so the CLI detects the spelling and applies the mapping, saying so.
 */
import type { PyValue } from '../../python/operations.js'
import type { BfclCategoryInput } from './score.js'

/** The function names a function-calling result (`[{name: args}, ...]`) calls; none for other shapes. */
function calledNames(result: PyValue): string[] {
  if (!Array.isArray(result)) return []
  const out: string[] = []
  for (const item of result) if (item instanceof Map) for (const k of item.keys()) out.push(String(k))
  return out
}

/**
 * True when some result calls a dotted data function by its underscored name and no result calls a dotted name as
 * written: the results come from a model that only saw underscored names.
 */
export function needsUnderscoreToDot(input: Pick<BfclCategoryInput, 'entries' | 'results'>): boolean {
  const dotted = new Set<string>()
  const underscored = new Set<string>()
  for (const entry of input.entries.values()) {
    for (const f of entry.functions) {
      if (!f.name.includes('.')) continue
      dotted.add(f.name)
      underscored.add(f.name.replace(/\./g, '_'))
    }
  }
  if (dotted.size === 0) return false
  let mapped = false
  for (const line of input.results) {
    if (!('result' in line)) continue
    for (const name of calledNames(line.result)) {
      if (dotted.has(name)) return false
      if (underscored.has(name)) mapped = true
    }
  }
  return mapped
}
