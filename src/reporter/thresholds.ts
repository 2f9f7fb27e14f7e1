/**
 * Thresholds: minimum rates a run must reach, overall, per describe block (suite) and per expected tool.
 *
 *   thresholds: {
 *     name_correct: 0.9,                                    // overall
 *     suites: { weather: { args_exact_match: 0.8 } },       // one describeEval block
 *     tools: { get_weather: { name_correct: 0.95 } },       // positions expecting that tool
 *   }
 *
 * Overall and suite keys are the report's metrics: NeMo's six and `no_call_accuracy`, the built-in scorers'
 * (`bfcl_accuracy`; `schema_tool_selection`, `schema_parameter_accuracy`, `schema_execution_success`,
 * `schema_overall`; `judge_tool_selection`, `judge_tool_invocation`: see score/scorers/index.ts) and user scorers'
 * (`<scorer>.<metric>`, see defineScorer); tool keys are `name_correct` and `args_exact_match`. A name without a dot
 * must be a built-in metric (checked up front: a typo must not disable a gate); a user metric is known only once
 * samples produced it (user scorers run in the workers). A threshold whose rate cannot be measured (no sample in its
 * scope produced it) fails: a gate on nothing is most likely a misspelt suite, tool or metric name. In a partial run
 * (`-t`, some files, `--changed`, a watch rerun) such a threshold is "not run" instead: listed, never a failure,
 * since its scope was not selected.
 *
 * A threshold is a number (the rate must reach it) or `{ min, on: 'lower' }`: the lower bound of the rate's 95%
 * interval must reach it (see intervals.ts), so a small suite cannot pass a gate on luck. `on: 'value'` is the plain
 * number's meaning.
 */
import { closest } from '../calls/options.js'
import { BUILTIN_SCORER_METRICS } from '../score/scorers/index.js'
import type { Interval } from '../score/intervals.js'
import { REPORT_METRICS, type Aggregate, type RunMetric } from '../score/types.js'

/**
 * Metrics known before any sample ran (the built-in scorers registered by now: a part above registers its own when
 * loaded); user scorers' (`<scorer>.<metric>`) are learnt from the samples.
 */
const knownMetrics = (): readonly string[] => [...REPORT_METRICS, ...BUILTIN_SCORER_METRICS]
/** A user scorer's metric as reported: `<scorer>.<metric>` (see defineScorer). */
const USER_METRIC = /^[a-z][a-z0-9_-]*\.[a-z][a-z0-9_-]*$/

/** What a threshold is checked against: the rate itself, or the lower bound of its 95% interval. */
export type ThresholdOn = 'value' | 'lower'
/** A minimum: a plain number (on the rate), or `{ min, on: 'lower' }` (on the interval's lower bound). */
export type ThresholdSpec = number | { min: number; on?: ThresholdOn }
export type MetricThresholds = Partial<Record<RunMetric, ThresholdSpec>>
export const TOOL_METRICS = ['name_correct', 'args_exact_match'] as const
export type ToolMetric = (typeof TOOL_METRICS)[number]
export type ToolThresholds = Partial<Record<ToolMetric, ThresholdSpec>>

/** The intervals a check on `on: 'lower'` reads (the report's `metricIntervals` and `toolIntervals`). */
export interface ThresholdIntervals {
  overall: Readonly<Record<string, Interval | null>>
  suites: ReadonlyMap<string, Readonly<Record<string, Interval | null>>>
  tools: Readonly<Record<string, Readonly<Record<string, Interval | null>>>>
}

export type Thresholds = MetricThresholds & {
  suites?: Record<string, MetricThresholds>
  tools?: Record<string, ToolThresholds>
}

/** One threshold's outcome, as the JSON report lists it (`suite` / `tool` only on scoped ones). */
export interface ThresholdResult {
  metric: string
  min: number
  /** The rate. */
  actual: number | null
  pass: boolean
  /** Present when the threshold applies to the interval's lower bound: `'lower'`. */
  on?: 'lower'
  /** The lower bound of the rate's 95% interval, compared with `min` when `on` is `'lower'`. */
  lower?: number | null
  suite?: string
  tool?: string
  /**
   * A suite or tool threshold whose suite or tool no sample of a run with some had (most likely a misspelt name):
   * the names the run had, for the message (at most 20).
   */
  known?: string[]
  /** Partial runs only: no sample in this threshold's scope ran, so it was not checked (and does not fail). */
  notRun?: true
}

/** Rates computed from exact sums may land a hair under a threshold they meet (0.9 as 0.8999999999999999). */
const EPSILON = 1e-9

/** Throws a clear error for a thresholds object that is not one (a typo must not silently disable a gate). */
export function validateThresholds(thresholds: unknown): Thresholds {
  if (thresholds === undefined) return {}
  if (!isObject(thresholds)) throw new Error('tool-evals reporter: `thresholds` must be an object')
  for (const [key, value] of Object.entries(thresholds)) {
    if (key === 'suites' || key === 'tools') {
      if (!isObject(value)) throw new Error(`tool-evals reporter: \`thresholds.${key}\` must be an object`)
      const allowed = key === 'suites' ? knownMetrics() : TOOL_METRICS
      for (const [scope, mins] of Object.entries(value)) {
        if (!isObject(mins)) throw new Error(`tool-evals reporter: \`thresholds.${key}.${scope}\` must be an object`)
        for (const [metric, min] of Object.entries(mins)) checkEntry(`thresholds.${key}.${scope}.${metric}`, metric, min, allowed, [], key === 'suites')
      }
      continue
    }
    checkEntry(`thresholds.${key}`, key, value, knownMetrics(), ['suites', 'tools'], true)
  }
  return thresholds as Thresholds
}

function checkEntry(path: string, metric: string, spec: unknown, allowed: readonly string[], scopes: readonly string[] = [], userMetrics = false): void {
  const userMetric = userMetrics && USER_METRIC.test(metric)
  if (!allowed.includes(metric) && !userMetric) {
    const near = closest(metric, [...allowed, ...scopes])
    const user = userMetrics ? ', or a user scorer\'s `<scorer>.<metric>`' : ''
    const hint = near !== undefined ? `; did you mean \`${near}\`?` : ''
    throw new Error(`tool-evals reporter: unknown metric in \`${path}\`; known: ${allowed.join(', ')}${user}${hint}`)
  }
  if (isObject(spec)) {
    for (const key of Object.keys(spec)) {
      if (key !== 'min' && key !== 'on') throw new Error(`tool-evals reporter: \`${path}.${key}\`: unknown field (a threshold is \`{ min, on }\`)`)
    }
    if (spec['on'] !== undefined && spec['on'] !== 'value' && spec['on'] !== 'lower') {
      throw new Error(`tool-evals reporter: \`${path}.on\` must be 'value' or 'lower'`)
    }
    checkMin(`${path}.min`, spec['min'])
    return
  }
  checkMin(path, spec)
}

function checkMin(path: string, min: unknown): void {
  if (typeof min !== 'number' || !Number.isFinite(min) || min < 0 || min > 1) {
    throw new Error(`tool-evals reporter: \`${path}\` must be a number in [0, 1] (or \`{ min, on: 'lower' }\`)`)
  }
}

/** A threshold's minimum and what it applies to; undefined for anything that is not one. */
export function readSpec(spec: unknown): { min: number; on: ThresholdOn } | undefined {
  if (typeof spec === 'number') return { min: spec, on: 'value' }
  if (isObject(spec) && typeof spec['min'] === 'number') return { min: spec['min'], on: spec['on'] === 'lower' ? 'lower' : 'value' }
  return undefined
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** Every threshold's outcome: overall ones first, then per suite, then per tool (each in the order given). */
export function checkThresholds(
  thresholds: Thresholds,
  overall: Aggregate,
  suites: ReadonlyMap<string, Aggregate>,
  options: { partial?: boolean; intervals?: ThresholdIntervals } = {},
): ThresholdResult[] {
  const results: ThresholdResult[] = []
  const iv = options.intervals
  for (const [metric, raw] of Object.entries(thresholds)) {
    const spec = metric === 'suites' || metric === 'tools' ? undefined : readSpec(raw)
    if (!spec) continue
    results.push(outcome(metric, spec, overall.metrics[metric as RunMetric] ?? null, iv?.overall[metric]))
  }
  for (const [suite, mins] of Object.entries(thresholds.suites ?? {})) {
    const agg = suites.get(suite)
    for (const [metric, raw] of Object.entries(mins)) {
      const spec = readSpec(raw)
      if (!spec) continue
      const value = agg ? (agg.metrics[metric as RunMetric] ?? null) : null
      const result: ThresholdResult = { ...outcome(metric, spec, value, iv?.suites.get(suite)?.[metric]), suite }
      if (!agg && suites.size > 0) result.known = [...suites.keys()].slice(0, MAX_KNOWN)
      results.push(result)
    }
  }
  for (const [tool, mins] of Object.entries(thresholds.tools ?? {})) {
    const breakdown = overall.tools[tool]
    for (const [metric, raw] of Object.entries(mins)) {
      const spec = readSpec(raw)
      if (!spec) continue
      const value = breakdown ? breakdown[metric as ToolMetric] : null
      const result: ThresholdResult = { ...outcome(metric, spec, value, iv?.tools[tool]?.[metric]), tool }
      const tools = Object.keys(overall.tools)
      if (!breakdown && tools.length > 0) result.known = tools.slice(0, MAX_KNOWN)
      results.push(result)
    }
  }
  return options.partial ? results.map(markNotRun) : results
}

/** Names of the suites or tools a run had, listed at most in a threshold's result. */
const MAX_KNOWN = 20

/** In a partial run an unmeasurable threshold means its scope was not selected, not that it is misspelt. */
function markNotRun(r: ThresholdResult): ThresholdResult {
  if (r.actual !== null) return r
  const { known: _known, ...rest } = r
  return { ...rest, pass: true, notRun: true }
}

function outcome(metric: string, spec: { min: number; on: ThresholdOn }, actual: number | null, interval?: Interval | null): ThresholdResult {
  const { min } = spec
  if (spec.on === 'value') return { metric, min, actual, pass: actual !== null && actual >= min - EPSILON }
  // No interval (no denominator, or none computed): nothing to pass with.
  const lower = actual === null ? null : (interval?.[0] ?? null)
  return { metric, min, actual, pass: lower !== null && lower >= min - EPSILON, on: 'lower', lower }
}


/** The minimum set for a metric in a scope (for colouring tables), if any. */
export function thresholdFor(thresholds: Thresholds, metric: string, suite?: string): number | undefined {
  const scope: Record<string, unknown> = suite === undefined ? thresholds : (thresholds.suites?.[suite] ?? {})
  return readSpec(scope[metric])?.min
}

/** The threshold set for a metric in a scope, with what it applies to (for colouring tables), if any. */
export function thresholdSpecFor(thresholds: Thresholds, metric: string, suite?: string): { min: number; on: ThresholdOn } | undefined {
  const scope: Record<string, unknown> = suite === undefined ? thresholds : (thresholds.suites?.[suite] ?? {})
  return readSpec(scope[metric])
}

/** `name_correct 0.850 < 0.900 (suite weather)`: one line naming a threshold's outcome. */
export function describeThreshold(r: ThresholdResult): string {
  const scope = r.suite !== undefined ? ` (suite ${r.suite})` : r.tool !== undefined ? ` (tool ${r.tool})` : ''
  if (r.notRun) return `${r.metric}${scope}: not run in this partial run (required ${formatRate(r.min)})`
  if (r.actual === null && !knownMetrics().includes(r.metric)) {
    return `${r.metric}${scope}: no sample produced this metric: is the scorer on, and are its name and metric spelt right? (required ${formatRate(r.min)})`
  }
  if (r.known !== undefined) {
    const kind = r.suite !== undefined ? 'suite' : 'tool'
    const name = r.suite ?? r.tool ?? ''
    const near = closest(name, r.known)
    const hint = near !== undefined ? `; did you mean \`${near}\`?` : ''
    return `${r.metric}${scope}: no ${kind} named "${name}" in this run${hint} (${kind}s in this run: ${r.known.join(', ')}) (required ${formatRate(r.min)})`
  }
  if (r.actual === null) return `${r.metric}${scope}: no samples to measure (required ${formatRate(r.min)})`
  if (r.on === 'lower') {
    const lower = r.lower === null || r.lower === undefined ? 'no interval' : formatRate(r.lower)
    return `${r.metric}${scope}: lower 95% bound ${lower} ${r.pass ? '>=' : '<'} required ${formatRate(r.min)} (rate ${formatRate(r.actual)})`
  }
  return `${r.metric}${scope}: ${formatRate(r.actual)} ${r.pass ? '>=' : '<'} required ${formatRate(r.min)}`
}

export function formatRate(x: number | null): string {
  return x === null ? '—' : x.toFixed(3)
}
