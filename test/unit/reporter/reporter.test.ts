import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import type { ToolCall } from '../../../src/calls/types.js'
import { META_KEY, readEvalMeta, storedCalls, truncate, type EvalMeta } from '../../../src/eval/meta.js'
import ToolEvalsReporter from '../../../src/reporter/index.js'
import { RunCollector, sampleQuality } from '../../../src/reporter/collect.js'
import { renderMarkdown } from '../../../src/reporter/markdown.js'
import { Progress, formatDuration } from '../../../src/reporter/progress.js'
import { buildReport } from '../../../src/reporter/report.js'
import { applyGate } from '../../../src/reporter/gate.js'
import { renderSummary } from '../../../src/reporter/terminal.js'
import { checkThresholds, validateThresholds } from '../../../src/reporter/thresholds.js'
import { aggregate } from '../../../src/score/aggregate.js'
import { scoreSample } from '../../../src/score/nemo.js'
import type { ExpectedCall } from '../../../src/score/types.js'

const call = (name: string, args: Record<string, unknown>, valid = true): ToolCall => ({ name, arguments: args, argumentsValid: valid, format: 'hermes' })
const exp = (name: string, args: Record<string, unknown>): ExpectedCall => ({ name, arguments: args })

function scored(id: string, suite: string, calls: ToolCall[], expected: ExpectedCall[]): EvalMeta {
  return { v: 1, record: { id, suite, score: scoreSample(calls, expected) }, expected, calls: storedCalls(calls) }
}
function errored(id: string, suite: string, expected: ExpectedCall[], reason: string): EvalMeta {
  return { v: 1, record: { id, suite, error: reason, score: scoreSample([], expected) }, expected, detail: `${reason} (${id})` }
}
function skipped(id: string, suite: string): EvalMeta {
  return { v: 1, record: { id, suite, skipped: 'prompt over maxPromptTokens' } }
}

/** A small run: two suites, right and wrong calls, no-call samples, an errored and a skipped sample. */
function sampleRun(): EvalMeta[] {
  const paris = exp('get_weather', { city: 'Paris' })
  return [
    scored('w1', 'weather', [call('get_weather', { city: 'Paris' })], [paris]),
    scored('w2', 'weather', [call('get_weather', { city: 'paris' })], [paris]),
    scored('w3', 'weather', [call('get_forecast', { city: 'Paris', days: 1 })], [paris]),
    scored('w4', 'weather', [], []),
    scored('w5', 'weather', [call('get_weather', { city: 'X' })], []),
    scored('c1', 'calendar', [call('cancel_event', { id: 'e7' }), call('cancel_event', { id: 'e9' })], [exp('cancel_event', { id: 'e7' }), exp('cancel_event', { id: 'e9' })]),
    scored('c2', 'calendar', [call('create_event', {}, false)], [exp('create_event', { title: 'x' })]),
    errored('c3', 'calendar', [exp('list_events', { date: 'd' })], 'no recorded output in out.jsonl'),
    skipped('c4', 'calendar'),
  ]
}

function collect(metas: EvalMeta[], worst = 5): RunCollector {
  const c = new RunCollector(worst)
  for (const m of metas) c.add(m)
  return c
}

describe('task meta', () => {
  it('round-trips through the meta key and rejects what is not ours', () => {
    const m = sampleRun()[0] as EvalMeta
    expect(readEvalMeta({ [META_KEY]: m })).toBe(m)
    expect(readEvalMeta({})).toBeUndefined()
    expect(readEvalMeta({ [META_KEY]: { v: 2, record: { id: 'a' } } })).toBeUndefined()
    expect(readEvalMeta({ [META_KEY]: { v: 1, record: {} } })).toBeUndefined()
  })

  it('stays small: long outputs, huge arguments and many calls are capped', () => {
    expect(truncate('x'.repeat(5000), 100)).toMatch(/^x{100}… \[4900 more chars\]$/)
    const many = Array.from({ length: 100 }, (_, i) => call('f', { i }))
    expect(storedCalls(many)).toHaveLength(32)
    const [big] = storedCalls([call('f', { blob: 'y'.repeat(10_000) })])
    expect(JSON.stringify(big).length).toBeLessThan(200)
    const [invalid] = storedCalls([call('f', {}, false)])
    expect(invalid).toEqual({ name: 'f', arguments: {}, argumentsValid: false, format: 'hermes' })
  })
})

describe('RunCollector', () => {
  it('gives exactly what aggregate gives over the same records, overall and per suite', () => {
    const metas = sampleRun()
    const c = collect(metas)
    expect(c.overallAggregate()).toEqual(aggregate(metas.map((m) => m.record)))
    const suites = c.suiteAggregates()
    expect([...suites.keys()]).toEqual(['calendar', 'weather'])
    expect(suites.get('weather')).toEqual(aggregate(metas.filter((m) => m.record.suite === 'weather').map((m) => m.record)))
    const overall = c.overallAggregate()
    expect(overall.samples).toBe(9)
    expect(overall.errored).toEqual({ count: 1, byReason: { 'no recorded output in out.jsonl': 1 } })
    expect(overall.skipped.count).toBe(1)
    expect(overall.metrics.no_call_accuracy).toBe(0.5)
  })

  it('gives the same numbers whatever the order and however the records are split (sharding)', () => {
    const metas = sampleRun()
    const one = collect(metas)
    const reversed = collect([...metas].reverse())
    expect(reversed.overallAggregate()).toEqual(one.overallAggregate())
    expect(reversed.suiteAggregates()).toEqual(one.suiteAggregates())
    expect(reversed.worst).toEqual(one.worst)
  })

  it('keeps the worst samples, worst first, ties broken by suite and id; errored and skipped samples are listed apart', () => {
    const c = collect(sampleRun(), 3)
    expect(c.worst.map((w) => w.id)).toEqual(['w5', 'c2', 'w3'])
    expect(c.worst[1]).toMatchObject({ suite: 'calendar', failures: ['malformed_call'], expected: [{ name: 'create_event' }] })
    expect(c.errored).toEqual([{ id: 'c3', suite: 'calendar', reason: 'no recorded output in out.jsonl', detail: 'no recorded output in out.jsonl (c3)' }])
    expect(collect(sampleRun(), 0).worst).toEqual([])
  })

  it('caps the errored list but still counts every errored sample', () => {
    const metas = Array.from({ length: 250 }, (_, i) => errored(`e${i}`, 's', [], 'boom'))
    const c = collect(metas)
    expect(c.errored).toHaveLength(200)
    expect(c.erroredUnlisted).toBe(50)
    expect(c.overallAggregate().errored.count).toBe(250)
  })

  it('sampleQuality: mean of the six for call samples, 0/1 for no-call samples', () => {
    expect(sampleQuality({ id: 'x', score: scoreSample([call('f', { a: 1 })], [exp('f', { a: 1 })]) })).toBe(1)
    expect(sampleQuality({ id: 'x', score: scoreSample([call('f', {})], []) })).toBe(0)
    expect(sampleQuality({ id: 'x', score: scoreSample([], []) })).toBe(1)
  })
})

describe('thresholds', () => {
  const c = collect(sampleRun())
  const overall = c.overallAggregate()
  const suites = c.suiteAggregates()

  it('are checked overall, per suite and per tool; a rate that cannot be measured fails', () => {
    const results = checkThresholds(
      {
        has_call: 0.5,
        args_exact_match: 0.9,
        suites: { weather: { no_call_accuracy: 0.5 }, nope: { has_call: 0.1 } },
        tools: { cancel_event: { args_exact_match: 1 }, ghost: { name_correct: 0.1 } },
      },
      overall,
      suites,
    )
    expect(results.map((r) => [r.metric, r.suite ?? r.tool ?? '', r.pass])).toEqual([
      ['has_call', '', true],
      ['args_exact_match', '', false],
      ['no_call_accuracy', 'weather', true],
      ['has_call', 'nope', false],
      ['args_exact_match', 'cancel_event', true],
      ['name_correct', 'ghost', false],
    ])
    expect(results[1]?.actual).toBe(overall.metrics.args_exact_match)
    expect(results[3]?.actual).toBeNull()
  })

  it('tolerate rounding a hair under the minimum', () => {
    const [r] = checkThresholds({ has_call: 0.1 + 0.2 }, { ...overall, metrics: { ...overall.metrics, has_call: 0.3 } }, suites)
    expect(r?.pass).toBe(true)
  })

  it('reject unknown metrics and values outside [0, 1] up front', () => {
    expect(() => validateThresholds({ name_corect: 0.9 })).toThrow(/unknown metric in `thresholds.name_corect`/)
    expect(() => validateThresholds({ suites: { a: { has_call: 2 } } })).toThrow(/`thresholds.suites.a.has_call` must be a number in \[0, 1\]/)
    expect(() => validateThresholds({ tools: { t: { has_call: 0.5 } } })).toThrow(/known: name_correct, args_exact_match/)
    expect(() => new ToolEvalsReporter({ thresholds: { nope: 1 } as never })).toThrow(/unknown metric/)
    expect(validateThresholds(undefined)).toEqual({})
  })
})

describe('report and summaries', () => {
  const c = collect(sampleRun())
  const overall = c.overallAggregate()
  const suites = c.suiteAggregates()
  const thresholdsConfig = { name_correct: 0.9, suites: { weather: { has_call: 0.5 } } }
  const thresholds = checkThresholds(thresholdsConfig, overall, suites)
  const report = applyGate(buildReport(c, overall, suites, thresholds, true))

  it("has the README's documented shape, extended", () => {
    expect(report).toMatchObject({
      samples: 9,
      metrics: overall.metrics,
      suites: { weather: { samples: 5, metrics: suites.get('weather')?.metrics }, calendar: { samples: 4 } },
      thresholds: [
        { metric: 'name_correct', min: 0.9, actual: overall.metrics.name_correct, pass: false },
        { metric: 'has_call', min: 0.5, actual: 1, pass: true, suite: 'weather' },
      ],
      pass: false,
      thresholdsPass: false,
      testsPass: true,
      errored: { count: 1, samples: [{ id: 'c3' }] },
      skipped: { count: 1 },
    })
    expect(Object.keys(report.metrics)).toEqual([
      'has_call',
      'name_correct',
      'args_json_valid',
      'args_field_precision',
      'args_field_recall',
      'args_exact_match',
      'no_call_accuracy',
    ])
    expect(report.tools['cancel_event']).toMatchObject({ positions: 2, name_correct: 1 })
  })

  it('terminal summary: rates per suite, tools, errored and worst samples with expected vs actual, verdicts', () => {
    const text = renderSummary(report, { thresholds: thresholdsConfig, colorLevel: 0 })
    expect(text).toContain('9 samples · 1 errored · 1 skipped')
    expect(text).toMatch(/metric\s+all \(95% CI\)\s+calendar\s+weather\s+min/)
    // Each rate with its 95% interval (Wilson over 2 positions for 2/2: 0.34 to 1).
    expect(text).toMatch(/name_correct\s+0\.667 \(0\.\d\d–0\.\d\d\)\s+0\.667 \(0\.\d\d–\d\.\d\d\)\s+0\.667 \(0\.\d\d–\d\.\d\d\)\s+0\.900/)
    expect(text).toMatch(/cancel_event\s+2\s+1\.000 \(0\.34–1\.00\)\s+1\.000 \(0\.34–1\.00\)/)
    expect(text).toContain('! calendar > c3: no recorded output in out.jsonl (c3)')
    expect(text).toContain('✗ calendar > c2  malformed_call')
    expect(text).toMatch(/expected\s+create_event\(\{"title":"x"\}\)/)
    expect(text).toMatch(/actual\s+create_event\(<malformed arguments>\)/)
    expect(text).toMatch(/expected\s+\(no call\)\n\s+actual\s+get_weather\(\{"city":"X"\}\)/)
    expect(text).toContain('✗ name_correct: 0.667 < required 0.900')
    expect(text).toContain('✓ has_call (suite weather): 1.000 >= required 0.500')
    expect(text).toContain('The run fails (1 reason):')
  })

  it('terminal summary fits the width: suite columns, then intervals, go before a metric name is cut', () => {
    const tableRows = (text: string) => {
      const lines = text.split('\n')
      const start = lines.findIndex((l) => l.trimStart().startsWith('metric'))
      return lines.slice(start, lines.findIndex((l, i) => i > start && l.includes('samples expect calls')))
    }
    const wide = tableRows(renderSummary(report, { colorLevel: 0, width: 200 }))
    expect(wide[0]).toMatch(/all \(95% CI\)\s+calendar\s+weather/)
    const mid = renderSummary(report, { colorLevel: 0, width: 70 })
    expect(tableRows(mid)[0]).not.toContain('calendar')
    expect(mid).toContain('per-suite rates: JSON report')
    for (const line of tableRows(mid)) expect(line.length).toBeLessThanOrEqual(70)
    const narrow = renderSummary(report, { colorLevel: 0, width: 44 })
    for (const line of tableRows(narrow)) expect(line.length).toBeLessThanOrEqual(44)
    // Whole metric names (users copy them into thresholds), rates without intervals.
    expect(narrow).toMatch(/\n  args_field_precision\s+\d\.\d{3}\s/)
    expect(narrow).toContain('95% intervals: JSON report')
  })

  it('terminal summary colours rates against thresholds', () => {
    const text = renderSummary(report, { thresholds: thresholdsConfig, colorLevel: 1 })
    expect(text).toMatch(/\u001b\[31m\s*0\.667 \([\d.–]+\)\u001b\[39m/) // red: name_correct under 0.9
    expect(text).toMatch(/\u001b\[32m\s*1\.000 \([\d.–]+\)\u001b\[39m/) // green: weather has_call over 0.5
  })

  it('markdown summary: tables and verdicts, with model text escaped', () => {
    const md = renderMarkdown(report)
    expect(md).toContain('## Tool evals ❌')
    expect(md).toContain('| metric | all | calendar | weather |')
    expect(md).toContain('| name\\_correct | 0.667 | 0.667 | 0.667 |')
    expect(md).toContain('| ❌ | name\\_correct: 0.667 \\< required 0.900 |')
    expect(md).toContain('- **calendar \\> c2** (malformed\\_call)')
    expect(md).toContain('  - actual: create\\_event(\\<malformed arguments\\>)')
  })
})

describe('ToolEvalsReporter', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tool-evals-reporter-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const savedExitCode = process.exitCode
  afterEach(() => {
    process.exitCode = savedExitCode
  })

  /** Stand-ins for Vitest's TestModule / TestCase: only what the reporter reads. */
  function modulesOf(groups: unknown[][]) {
    return groups.map((metas) => ({
      children: {
        *allTests() {
          for (const m of metas) yield { options: { mode: 'run' }, meta: () => (m === undefined ? {} : { [META_KEY]: m }) }
        },
      },
    }))
  }
  function run(reporter: ToolEvalsReporter, groups: unknown[][], reason: 'passed' | 'failed' = 'passed'): string[] {
    const logs: string[] = []
    reporter.onInit({ logger: { log: (t: string) => logs.push(t) }, config: { root: dir } } as never)
    reporter.onTestRunStart()
    for (const m of modulesOf(groups)) reporter.onTestModuleCollected(m as never)
    reporter.onTestRunEnd(modulesOf(groups) as never, [], reason)
    return logs
  }

  it('reads task meta of every test (ignoring tests that are not eval samples) and writes the JSON report', () => {
    const metas = sampleRun()
    const reporter = new ToolEvalsReporter({ outputFile: 'out/report.json', markdownFile: false, progress: false })
    const logs = run(reporter, [metas.slice(0, 4), [undefined, ...metas.slice(4)]])
    const written = JSON.parse(readFileSync(join(dir, 'out/report.json'), 'utf8'))
    expect(written).toEqual(JSON.parse(JSON.stringify(reporter.report)))
    expect(written.samples).toBe(9)
    expect(written.metrics).toEqual(aggregate(metas.map((m) => m.record)).metrics)
    expect(logs.join('\n')).toContain('Tool evals')
    expect(logs.join('\n')).toContain(`JSON report written to ${join(dir, 'out/report.json')}`)
    expect(process.exitCode).toBe(savedExitCode)
  })

  it('fails the run when a threshold is missed, naming the metric, its value and the minimum', () => {
    const reporter = new ToolEvalsReporter({ thresholds: { args_exact_match: 0.95 }, markdownFile: false, progress: false, summary: false })
    const logs = run(reporter, [sampleRun()])
    expect(process.exitCode).toBe(1)
    expect(reporter.report?.pass).toBe(false)
    expect(logs.join('\n')).toMatch(/the run fails: args_exact_match: 0\.\d{3} < required 0\.950/)
  })

  it('pass is false when tests failed even if thresholds pass', () => {
    const reporter = new ToolEvalsReporter({ thresholds: { has_call: 0.1 }, markdownFile: false, progress: false, summary: false })
    run(reporter, [sampleRun()], 'failed')
    expect(reporter.report).toMatchObject({ pass: false, thresholdsPass: true, testsPass: false })
  })

  it('appends the Markdown summary to $GITHUB_STEP_SUMMARY', () => {
    const file = join(dir, 'step-summary.md')
    const saved = process.env['GITHUB_STEP_SUMMARY']
    process.env['GITHUB_STEP_SUMMARY'] = file
    try {
      run(new ToolEvalsReporter({ progress: false, summary: false }), [sampleRun()])
      run(new ToolEvalsReporter({ progress: false, summary: false }), [sampleRun()])
    } finally {
      if (saved === undefined) delete process.env['GITHUB_STEP_SUMMARY']
      else process.env['GITHUB_STEP_SUMMARY'] = saved
    }
    const md = readFileSync(file, 'utf8')
    expect(md.match(/## Tool evals/g)).toHaveLength(2)
  })

  it('replaces a markdownFile of its own (never the last run\'s summary above this one\'s), written whole', () => {
    const file = join(dir, 'own-summary.md')
    writeFileSync(file, '## Tool evals ✅\n')
    run(new ToolEvalsReporter({ markdownFile: 'own-summary.md', thresholds: { has_call: 1 }, progress: false, summary: false }), [sampleRun()])
    const md = readFileSync(file, 'utf8')
    expect(md.match(/## Tool evals/g)).toEqual(['## Tool evals'])
    expect(md.startsWith('## Tool evals ❌')).toBe(true)
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([])
  })
})

describe('Progress', () => {
  it('prints done / total, rate and ETA, throttled, and nothing when disabled', () => {
    let t = 0
    const lines: string[] = []
    const p = new Progress((l) => lines.push(l), true, 2000, () => t)
    p.start()
    p.addTotal(100)
    for (let i = 0; i < 10; i++) {
      t += 100
      p.tick()
    }
    expect(lines).toEqual([]) // 1 s in: under the interval
    t = 2100
    p.tick()
    // The rate runs from the first finished test (t = 100 ms): 10 more in 2 s.
    expect(lines).toEqual(['tool-evals: 11/100 tests · 5.0/s · ETA 18s'])
    t = 2500
    p.tick()
    expect(lines).toHaveLength(1)
    const quiet: string[] = []
    const q = new Progress((l) => quiet.push(l), false, 0, () => (t += 5000))
    q.start()
    q.tick()
    expect(quiet).toEqual([])
  })

  it('prints less often as the run goes on', () => {
    let t = 0
    const lines: string[] = []
    const p = new Progress((l) => lines.push(l), true, 1000, () => t)
    p.start()
    p.addTotal(1_000_000)
    for (let i = 0; i < 3600; i++) {
      t += 1000
      p.tick()
    }
    expect(lines.length).toBeGreaterThan(10)
    expect(lines.length).toBeLessThan(80) // an hour at one sample a second
  })

  it('off a terminal: a line every interval from a timer, with errored samples, and none after the run', () => {
    vi.useFakeTimers()
    try {
      let t = 0
      const lines: string[] = []
      const p = new Progress((l) => lines.push(l), 'log', 15_000, () => t)
      p.start()
      p.addTotal(40)
      t = 1000
      p.tick()
      t = 3000
      p.tick(true)
      p.tick()
      expect(lines).toEqual([]) // ticks alone print nothing in a log
      t = 15_000
      vi.advanceTimersByTime(15_000)
      expect(lines).toEqual(['tool-evals: 3/40 tests · 1 errored · 0.1/s · ETA 4m19s'])
      // One slow sample: no test finishes, the log still says where the run is.
      t = 30_000
      vi.advanceTimersByTime(15_000)
      expect(lines).toHaveLength(2)
      p.stop()
      vi.advanceTimersByTime(60_000)
      expect(lines).toHaveLength(2)
    } finally {
      vi.useRealTimers()
    }
  })

  it('off a terminal with JUnit on stdout: the reporter prints its progress lines to stderr', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'progress-'))
    const isTTY = Object.getOwnPropertyDescriptor(process.stdout, 'isTTY')
    Object.defineProperty(process.stdout, 'isTTY', { value: false, configurable: true })
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true)
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    try {
      const reporter = new ToolEvalsReporter({ markdownFile: false, summary: false, progressIntervalMs: 10 })
      const logged: string[] = []
      reporter.onInit({ logger: { log: (t: string) => logged.push(t) }, config: { root: dir, reporters: ['junit'], env: {} } } as never)
      await reporter.onTestRunStart()
      await new Promise((r) => setTimeout(r, 60))
      const toStderr = stderr.mock.calls.map((c) => String(c[0])).filter((l) => l.startsWith('tool-evals: 0/0 tests'))
      expect(toStderr.length).toBeGreaterThan(0)
      expect([...logged, ...stdout.mock.calls.map((c) => String(c[0]))].join('')).not.toContain('tool-evals: 0/0')
      reporter.onTestRunEnd([], [], 'passed')
    } finally {
      stdout.mockRestore()
      stderr.mockRestore()
      if (isTTY) Object.defineProperty(process.stdout, 'isTTY', isTTY)
      else delete (process.stdout as { isTTY?: boolean }).isTTY
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('refuses a progress interval that is not a positive number of ms', () => {
    expect(() => new ToolEvalsReporter({ progressIntervalMs: 0 })).toThrow('option `progressIntervalMs` must be a positive number of milliseconds, got 0')
    expect(() => new ToolEvalsReporter({ progressIntervalMs: '10s' as never })).toThrow('got 10s')
  })

  it('hands the workers a testTimeout the user set, and the journal folder', () => {
    const dir = mkdtempSync(join(tmpdir(), 'timeout-'))
    try {
      const set = { root: dir, testTimeout: 60_000, env: {} as Record<string, string> }
      new ToolEvalsReporter({ progress: false }).onInit({ logger: { log: () => {} }, config: set } as never)
      expect(set.env).toEqual({ TOOL_EVALS_TEST_TIMEOUT: '60000', TOOL_EVALS_JOURNAL: join(dir, '.tool-evals/journal/run') })
      // Vitest's default is no choice of the user's: describeEval derives its own.
      const unset = { root: dir, testTimeout: 5000, shard: { index: 1, count: 2 }, env: {} as Record<string, string> }
      new ToolEvalsReporter({ progress: false }).onInit({ logger: { log: () => {} }, config: unset } as never)
      expect(unset.env).toEqual({ TOOL_EVALS_JOURNAL: join(dir, '.tool-evals/journal/shard-1-of-2') })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('formats durations', () => {
    expect(formatDuration(5.2)).toBe('6s')
    expect(formatDuration(125)).toBe('2m05s')
    expect(formatDuration(7300)).toBe('2h01m')
  })
})
