/**
 * BFCL's single-turn categories and how the leaderboard treats each: which runner (AST checker, relevance or
 * irrelevance), which checker (by substring of the name, as the leaderboard decides), and which language.
 */

/** The v4 single-turn categories, in the leaderboard's order. */
export const BFCL_CATEGORIES = [
  'simple_python',
  'simple_java',
  'simple_javascript',
  'multiple',
  'parallel',
  'parallel_multiple',
  'irrelevance',
  'live_simple',
  'live_multiple',
  'live_parallel',
  'live_parallel_multiple',
  'live_irrelevance',
  'live_relevance',
] as const

export type BfclCategory = (typeof BFCL_CATEGORIES)[number]

export interface CategoryInfo {
  name: string
  /** 'ast': checked against possible answers; 'irrelevance': right when no call; 'relevance': right when a call. */
  kind: 'ast' | 'irrelevance' | 'relevance'
  /** The AST checker the leaderboard picks by name: `parallel` first, then `multiple`, else simple. */
  checker: 'simple' | 'multiple' | 'parallel'
  language: 'python' | 'java' | 'javascript'
  live: boolean
  /** Whether this project scores it (every single-turn category now; kept for callers that ask). */
  supported: boolean
}

export function isBfclCategory(name: string): name is BfclCategory {
  return (BFCL_CATEGORIES as readonly string[]).includes(name)
}

/** How the leaderboard treats a category name (the rules are by substring, so unknown names get an answer too). */
export function categoryInfo(name: string): CategoryInfo {
  const kind = name.includes('irrelevance') ? 'irrelevance' : name.includes('relevance') ? 'relevance' : 'ast'
  const checker = name.includes('parallel') ? 'parallel' : name.includes('multiple') ? 'multiple' : 'simple'
  // "javascript" contains "java": the leaderboard tests for JavaScript last.
  const language = name.includes('javascript') ? 'javascript' : name.includes('java') ? 'java' : 'python'
  return { name, kind, checker, language, live: name.startsWith('live_'), supported: true }
}

/** Why a category cannot be scored, or undefined when it can (every single-turn category can). */
export function unsupportedReason(_name: string): string | undefined {
  return undefined
}

/** File names, with the leaderboard's version prefix (`BFCL_v4`). */
export function dataFileName(category: string, version = 'BFCL_v4'): string {
  return `${version}_${category}.json`
}

export function resultFileName(category: string, version = 'BFCL_v4'): string {
  return `${version}_${category}_result.json`
}

export function scoreFileName(category: string, version = 'BFCL_v4'): string {
  return `${version}_${category}_score.json`
}

/**
 * The leaderboard's entry order within a category: by the number after the last `_` of the id (for live ids such
 * as `live_multiple_12-4-4`, its first part), then by id.
 */
export function compareIds(a: string, b: string): number {
  const ka = idSortKey(a)
  const kb = idSortKey(b)
  if (ka.prefix !== kb.prefix) return ka.prefix < kb.prefix ? -1 : 1
  if (ka.index !== kb.index) return ka.index - kb.index
  return a < b ? -1 : a > b ? 1 : 0
}

function idSortKey(id: string): { prefix: string; index: number } {
  const cut = id.lastIndexOf('_')
  const prefix = cut < 0 ? '' : id.slice(0, cut)
  const n = Number.parseInt(id.slice(cut + 1).split('-')[0]!, 10)
  return { prefix, index: Number.isNaN(n) ? Number.MAX_SAFE_INTEGER : n }
}
