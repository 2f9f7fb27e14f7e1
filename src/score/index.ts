// Scoring: NeMo-compatible per-sample metrics, call alignment, run-level aggregation.
export * from './types.js'
export { scoreSample, scorePair, alignCalls, argumentsEqual, expectedArguments, zeroMetrics } from './nemo.js'
export { maxWeightAssignment } from './match.js'
export {
  aggregate,
  createAccumulator,
  addRecord,
  mergeAccumulators,
  finishAggregate,
  metricValue,
  isReportMetric,
  type Accumulator,
} from './aggregate.js'
