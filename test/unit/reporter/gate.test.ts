/**
 * The gate: one function decides `pass` and lists every reason; nothing else in the sources writes a report's
 * `pass`. The reasons are checked from the report's facts alone (the subprocess tests check that Vitest's runs
 * produce those facts).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildRunReport, type RunFacts } from '../../../src/reporter/build.js'
import type { EvalMeta } from '../../../src/eval/meta.js'
import type { Comparison } from '../../../src/reporter/compare/compare.js'
import type { ToolCall } from '../../../src/calls/types.js'
import { scoreSample } from '../../../src/score/nemo.js'

const SRC = join(import.meta.dirname, '../..', '..', 'src')

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : []
  })
}

function meta(id: string, right: boolean): EvalMeta {
  const expected = [{ name: 'get_weather', arguments: { city: 'Paris' } }]
  const calls: ToolCall[] = [{ name: right ? 'get_weather' : 'get_time', arguments: { city: 'Paris' }, argumentsValid: true, format: 'hermes' }]
  return { v: 1, record: { id, suite: 's', score: scoreSample(calls, expected) } }
}

const metas = [meta('a', true), meta('b', true), meta('c', false)]
const options = { thresholds: { name_correct: 0.9 }, usage: { pricing: undefined, maxThresholds: {} }, worst: 5 }

describe('the gate', () => {
  it('is the only writer of a report\'s pass', () => {
    const writers: string[] = []
    for (const file of sources(SRC)) {
      const text = readFileSync(file, 'utf8')
      // `report.pass =`, `.pass = ` on a report-typed name, or a `pass:` field in a report literal.
      for (const m of text.matchAll(/\b(report|undecided|decided)\.pass\s*=[^=]/g)) writers.push(`${relative(SRC, file)}: ${m[0]}`)
    }
    expect(writers).toEqual(['reporter/gate.ts: report.pass = '])
    // The report builder makes an undecided report, which has no `pass`: only the gate makes a ToolEvalsReport.
    const builder = readFileSync(join(SRC, 'reporter/report.ts'), 'utf8')
    expect(builder.slice(builder.indexOf('export function buildReport'))).not.toMatch(/\bpass\b/)
  })

  it('passes a whole run that meets its thresholds, with no reasons', () => {
    const report = buildRunReport([meta('a', true)], { testsPass: true }, options)
    expect(report.pass).toBe(true)
    expect(report.gate).toEqual({ pass: true, reasons: [] })
  })

  it('lists every reason, each with its kind', () => {
    const comparison = {
      base: { file: 'base.json' },
      metrics: { name_correct: { gated: true, verdict: 'regressed' } },
      suites: {},
      mustPassFailed: ['s > a'],
      incomparable: ['no sample of the head run is in the baseline'],
    } as unknown as Comparison
    const facts: RunFacts = {
      testsPass: false,
      failedTests: 2,
      runErrors: ['Worker exited unexpectedly'],
      unfinishedFiles: ['evals/b.eval.ts'],
      baseline: { comparison },
    }
    const report = buildRunReport(metas, facts, options)
    expect(report.pass).toBe(false)
    expect(report.gate.reasons.map((r) => r.kind)).toEqual(['run_error', 'file_unfinished', 'tests_failed', 'threshold', 'baseline', 'regression', 'must_pass'])
    expect(report.gate.reasons.map((r) => r.message)).toContain('name_correct: 0.667 < required 0.900')
    expect(report.gate.reasons[1]?.message).toMatch(/evals\/b\.eval\.ts did not finish/)
  })

  it('never passes a run cut short, whatever it scored', () => {
    for (const reason of ['bail', 'interrupted'] as const) {
      const report = buildRunReport([meta('a', true)], { testsPass: true, partial: { reason, planned: 3, ran: 1 } }, options)
      expect(report.pass).toBe(false)
      expect(report.gate.reasons[0]?.kind).toBe(reason)
    }
  })

  it('a filtered run shows its thresholds and regressions but gates only failed tests, mustPass and errors', () => {
    const comparison = { metrics: { name_correct: { gated: true, verdict: 'regressed' } }, suites: {}, mustPassFailed: [] } as unknown as Comparison
    const partial = { reason: 'filter' as const, planned: 3, ran: 3, selection: ['-t c'] }
    const report = buildRunReport(metas, { testsPass: true, partial, baseline: { comparison } }, options)
    expect(report.thresholds[0]).toMatchObject({ metric: 'name_correct', pass: false })
    expect(report.thresholdsPass).toBe(false)
    expect(report.pass).toBe(true)
    expect(report.gate.notGated).toMatch(/filtered run \(-t c\): thresholds and regression verdicts are shown, not gated/)
    const failing = buildRunReport(metas, { testsPass: false, failedTests: 1, partial }, options)
    expect(failing.gate.reasons.map((r) => r.kind)).toEqual(['tests_failed'])
  })

  it('a baseline that cannot be read fails the run, naming it', () => {
    const report = buildRunReport([meta('a', true)], { testsPass: true, baseline: { error: { file: 'base.json', message: 'base.json: not a JSON report' } } }, options)
    expect(report.gate.reasons).toEqual([{ kind: 'baseline', message: 'baseline base.json cannot be used: base.json: not a JSON report' }])
  })
})
