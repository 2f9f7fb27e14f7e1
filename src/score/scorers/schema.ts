/**
 * DeepFabric-style schema metrics (score/schema.ts) as a scorer (describeEval's `schema` option: `true` or its
 * options): the first call against the first expected one. Reported as `schema_tool_selection`,
 * `schema_parameter_accuracy`, `schema_execution_success` (shares of samples scoring 1; an errored sample scores 0)
 * and `schema_overall` (the mean of the per-sample weighted sums, summed exactly), with counts under `schema`.
 */
import { addExact, exactTotal, rate } from '../aggregate.js'
import { checkSchemaOptions, schemaMetrics, type DeepFabricOutcome, type SchemaSampleMetrics, type SchemaSemantics, type SchemaWeights } from '../schema.js'
import type { BuiltinScorer, Scorer, ScorerTypesOf } from '../scorer.js'

/** `schema` option: DeepFabric-style metrics of the first call against the first expected one. */
export interface SchemaScorerOptions {
  /**
   * Weights of the overall score; default 0.40 / 0.35 / 0.25 (tool_selection / parameter_accuracy / execution_success).
   * Given weights replace the defaults: one left out counts as 0 (DeepFabric's rule); they must sum to at most 1.
   */
  weights?: Partial<SchemaWeights>
  /** 'deepfabric' (default): DeepFabric's own numbers; 'jsonschema': our corrections (README: deliberate differences). */
  semantics?: SchemaSemantics
}

/** One sample's schema metrics as recorded: 1 or 0 each, and their weighted sum. Errored samples score 0. */
export interface SchemaRecord {
  tool_selection: 0 | 1
  parameter_accuracy: 0 | 1
  execution_success: 0 | 1
  overall: number
  /** With the default DeepFabric semantics: DeepFabric would reject this sample (error score) or crash on it. */
  deepfabric?: DeepFabricOutcome
}

/** Schema metric counts of a run or suite (samples scoring 1 on each). */
export interface SchemaAggregate {
  samples: number
  tool_selection: number
  parameter_accuracy: number
  execution_success: number
  /** Samples DeepFabric would reject (counted with its error score, 0) or crash on (scored our documented way); present when any. */
  deepfabric_rejected?: number
  deepfabric_crashed?: number
}

const SCHEMA_KEYS = ['tool_selection', 'parameter_accuracy', 'execution_success'] as const
export type SchemaAccumulator = Required<SchemaAggregate> & { overall: number[] }

const schemaAccumulator: Scorer<SchemaRecord, SchemaAccumulator, SchemaAggregate>['accumulator'] = {
  create: () => ({ samples: 0, tool_selection: 0, parameter_accuracy: 0, execution_success: 0, deepfabric_rejected: 0, deepfabric_crashed: 0, overall: [] }),
  add(acc, s, errored) {
    acc.samples++
    for (const k of SCHEMA_KEYS) if (!errored && s[k] === 1) acc[k]++
    if (!errored && s.deepfabric === 'rejected') acc.deepfabric_rejected++
    if (!errored && s.deepfabric === 'crashed') acc.deepfabric_crashed++
    addExact(acc.overall, !errored && typeof s.overall === 'number' && Number.isFinite(s.overall) ? s.overall : 0)
  },
  merge(into, from) {
    into.samples += from.samples
    for (const k of SCHEMA_KEYS) into[k] += from[k]
    into.deepfabric_rejected += from.deepfabric_rejected
    into.deepfabric_crashed += from.deepfabric_crashed
    for (const x of from.overall) addExact(into.overall, x)
    return into
  },
  finish(s) {
    return {
      metrics: {
        schema_tool_selection: rate(s.tool_selection, s.samples),
        schema_parameter_accuracy: rate(s.parameter_accuracy, s.samples),
        schema_execution_success: rate(s.execution_success, s.samples),
        schema_overall: rate(exactTotal(s.overall), s.samples),
      },
      counts: Object.fromEntries(schemaMetricNames.map((m) => [m, s.samples])),
      details: {
        samples: s.samples,
        tool_selection: s.tool_selection,
        parameter_accuracy: s.parameter_accuracy,
        execution_success: s.execution_success,
        ...(s.deepfabric_rejected > 0 ? { deepfabric_rejected: s.deepfabric_rejected } : {}),
        ...(s.deepfabric_crashed > 0 ? { deepfabric_crashed: s.deepfabric_crashed } : {}),
      },
    }
  },
}

function schemaRecord(m: SchemaSampleMetrics): SchemaRecord {
  return {
    tool_selection: m.tool_selection ? 1 : 0,
    parameter_accuracy: m.parameter_accuracy ? 1 : 0,
    execution_success: m.execution_success ? 1 : 0,
    overall: m.overall,
    ...(m.deepfabric ? { deepfabric: m.deepfabric } : {}),
  }
}

const schemaMetricNames = ['schema_tool_selection', 'schema_parameter_accuracy', 'schema_execution_success', 'schema_overall'] as const

export const schemaScorer: BuiltinScorer<boolean | SchemaScorerOptions, SchemaRecord, SchemaAccumulator, SchemaAggregate, 'schema', (typeof schemaMetricNames)[number]> = {
  name: 'schema',
  metrics: schemaMetricNames,
  accumulator: schemaAccumulator,
  configure(option) {
    if (!option) return undefined
    const options = option === true ? {} : option
    checkSchemaOptions(options) // a bad option fails the eval file at definition, not each sample
    return {
      name: 'schema',
      metrics: schemaMetricNames,
      accumulator: schemaAccumulator,
      score({ sample, calls }) {
        const m = schemaMetrics(calls, sample.expected, sample.tools ?? [], options)
        return { value: schemaRecord(m), result: m }
      },
      errored: () => ({ tool_selection: 0, parameter_accuracy: 0, execution_success: 0, overall: 0 }),
    }
  },
}

declare module '../types.js' {
  interface BuiltinScorerTypes {
    /** Hands `assert` the schema metrics with the `problems` found (`missing required parameter 'city'`, ...). */
    schema: ScorerTypesOf<typeof schemaScorer, SchemaSampleMetrics>
  }
}
