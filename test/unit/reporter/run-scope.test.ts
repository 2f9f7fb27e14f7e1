// Partial-run helpers: where a partial report goes, and thresholds whose scope did not run.
import { describe, expect, it } from 'vitest'
import { partialReportPath } from '../../../src/reporter/run-scope.js'
import { checkThresholds, describeThreshold } from '../../../src/reporter/thresholds.js'
import { RunCollector } from '../../../src/reporter/collect.js'

describe('partialReportPath', () => {
  it('puts `.partial` before the extension, never over the whole run file', () => {
    expect(partialReportPath('tool-evals-report.json')).toBe('tool-evals-report.partial.json')
    expect(partialReportPath('out/report.v2.json')).toBe('out/report.v2.partial.json')
    expect(partialReportPath('out.d/report')).toBe('out.d/report.partial')
    expect(partialReportPath('.report')).toBe('.report.partial')
  })
})

describe('thresholds in a partial run', () => {
  const empty = new RunCollector(0)
  const overall = empty.overallAggregate()
  const suites = empty.suiteAggregates()
  const thresholds = { name_correct: 0.9, suites: { weather: { has_call: 1 } }, tools: { f: { name_correct: 1 } } }

  it('a whole run: a scope with no samples fails', () => {
    const results = checkThresholds(thresholds, overall, suites)
    expect(results.map((r) => r.pass)).toEqual([false, false, false])
    expect(describeThreshold(results[1]!)).toBe('has_call (suite weather): no samples to measure (required 1.000)')
  })

  it('a partial run: the same scopes are "not run", listed and passing', () => {
    const results = checkThresholds(thresholds, overall, suites, { partial: true })
    expect(results.every((r) => r.pass && r.notRun === true)).toBe(true)
    expect(describeThreshold(results[2]!)).toBe('name_correct (tool f): not run in this partial run (required 1.000)')
  })
})
