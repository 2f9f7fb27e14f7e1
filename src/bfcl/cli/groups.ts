/**
 * BFCL's category names and groups (gorilla 8db0b7ca, `constants/category_mapping.py`, `TEST_COLLECTION_MAPPING`),
 * and the result-file folder of each category (`get_general_grouping`).
 */
const NON_LIVE = ['simple_python', 'simple_java', 'simple_javascript', 'multiple', 'parallel', 'parallel_multiple', 'irrelevance']
const LIVE = ['live_simple', 'live_multiple', 'live_parallel', 'live_parallel_multiple', 'live_irrelevance', 'live_relevance']
const MULTI_TURN = ['multi_turn_base', 'multi_turn_miss_func', 'multi_turn_miss_param', 'multi_turn_long_context']
const WEB_SEARCH = ['web_search_base', 'web_search_no_snippet']
const MEMORY = ['memory_kv', 'memory_vector', 'memory_rec_sum']
const AGENTIC = [...MEMORY, ...WEB_SEARCH]
const SINGLE_TURN = [...NON_LIVE, ...LIVE]
const ALL_SCORING = [...SINGLE_TURN, ...MULTI_TURN, ...AGENTIC]

export const BFCL_GROUPS: Readonly<Record<string, readonly string[]>> = {
  all: [...ALL_SCORING, 'format_sensitivity'],
  all_scoring: ALL_SCORING,
  multi_turn: MULTI_TURN,
  single_turn: SINGLE_TURN,
  live: LIVE,
  non_live: NON_LIVE,
  non_python: ['simple_java', 'simple_javascript'],
  python: ['simple_python', 'irrelevance', 'parallel', 'multiple', 'parallel_multiple', 'live_simple', 'live_multiple', 'live_parallel', 'live_parallel_multiple', 'live_irrelevance', 'live_relevance'],
  memory: MEMORY,
  web_search: WEB_SEARCH,
  agentic: AGENTIC,
}

export const BFCL_ALL_CATEGORIES: readonly string[] = BFCL_GROUPS['all']!

/** Category and group names as categories, each once, in the order given; unknown names are returned apart. */
export function expandCategories(names: readonly string[]): { categories: string[]; unknown: string[] } {
  const categories: string[] = []
  const unknown: string[] = []
  for (const name of names) {
    const members = BFCL_GROUPS[name] ?? (BFCL_ALL_CATEGORIES.includes(name) ? [name] : undefined)
    if (members === undefined) unknown.push(name)
    else for (const c of members) if (!categories.includes(c)) categories.push(c)
  }
  return { categories, unknown }
}

/** The folder BFCL files a category's results and scores under. */
export function bfclGroupFolder(category: string): string {
  if (category === 'format_sensitivity') return 'format_sensitivity'
  if (NON_LIVE.includes(category)) return 'non_live'
  if (LIVE.includes(category)) return 'live'
  if (MULTI_TURN.includes(category)) return 'multi_turn'
  if (MEMORY.includes(category)) return `agentic/memory/${category.slice('memory_'.length)}`
  return 'agentic'
}

export function isMultiTurnName(category: string): boolean {
  return MULTI_TURN.includes(category)
}
