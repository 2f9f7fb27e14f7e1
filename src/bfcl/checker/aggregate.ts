/**
 * The leaderboard's summaries over category scores (its `data_non_live.csv` / `data_live.csv` columns):
 *
 * - non-live simple: unweighted mean of simple_python, simple_java, simple_javascript;
 * - non-live AST summary (also its "Non-Live Overall Acc"): unweighted mean of simple, multiple, parallel,
 *   parallel_multiple;
 * - live AST summary (also its "Live Overall Acc"): mean over the four live AST categories weighted by entry count;
 * - hallucination (irrelevance) summary: unweighted mean of irrelevance and live_irrelevance;
 * - relevance: live_relevance.
 *
 * A category that was not scored counts as 0 in every mean and makes the summaries that include it "N/A" for
 * display (`complete: false`), as in the leaderboard.
 */

import { percentCell } from './leaderboard.js'

export interface CategoryCount {
  accuracy: number
  total_count: number
  /** Optional; when given, the summaries carry correct counts too. */
  correct_count?: number
}

export interface Summary {
  accuracy: number
  total_count: number
  /** False when a constituent category is missing (the leaderboard shows "N/A"; the accuracy counts it as 0). */
  complete: boolean
  /** The categories it combines. */
  categories: string[]
}

export interface BfclSummaries {
  non_live_simple: Summary
  non_live_ast: Summary
  live_ast: Summary
  irrelevance: Summary
  relevance: Summary
}

const NON_LIVE_SIMPLE = ['simple_python', 'simple_java', 'simple_javascript']
const NON_LIVE_OTHER = ['multiple', 'parallel', 'parallel_multiple']
const LIVE_AST = ['live_simple', 'live_multiple', 'live_parallel', 'live_parallel_multiple']
const IRRELEVANCE = ['irrelevance', 'live_irrelevance']

type Scores = Readonly<Record<string, CategoryCount | undefined>>

function part(scores: Scores, name: string): Summary {
  const s = scores[name]
  return s === undefined
    ? { accuracy: 0, total_count: 0, complete: false, categories: [name] }
    : { accuracy: s.accuracy, total_count: s.total_count, complete: true, categories: [name] }
}

function unweighted(parts: Summary[]): Summary {
  return {
    accuracy: parts.reduce((a, p) => a + p.accuracy, 0) / parts.length,
    total_count: parts.reduce((a, p) => a + p.total_count, 0),
    complete: parts.every((p) => p.complete),
    categories: parts.flatMap((p) => p.categories),
  }
}

function weighted(parts: Summary[]): Summary {
  const total = parts.reduce((a, p) => a + p.total_count, 0)
  return {
    accuracy: total === 0 ? 0 : parts.reduce((a, p) => a + p.accuracy * p.total_count, 0) / total,
    total_count: total,
    complete: parts.every((p) => p.complete),
    categories: parts.flatMap((p) => p.categories),
  }
}

/** The leaderboard's summaries from per-category scores (keyed by category name). */
export function summarizeBfcl(scores: Scores): BfclSummaries {
  const nonLiveSimple = unweighted(NON_LIVE_SIMPLE.map((c) => part(scores, c)))
  return {
    non_live_simple: nonLiveSimple,
    non_live_ast: unweighted([nonLiveSimple, ...NON_LIVE_OTHER.map((c) => part(scores, c))]),
    live_ast: weighted(LIVE_AST.map((c) => part(scores, c))),
    irrelevance: unweighted(IRRELEVANCE.map((c) => part(scores, c))),
    relevance: part(scores, 'live_relevance'),
  }
}

/** How the leaderboard's CSVs print an accuracy: `88.71%`, or `N/A` when incomplete. */
export function formatPercent(s: Summary | CategoryCount | undefined): string {
  if (s === undefined || ('complete' in s && !s.complete)) return 'N/A'
  return percentCell(s.accuracy)
}
