// The README's terminal excerpt is what `npm run evals` prints, trimmed: scripts/readme-excerpt.mjs writes both the
// excerpt and test/fixtures/readme-run.txt (the whole summary of that run, its timings masked) from one real run,
// and CI's `--check` compares the README with a fresh run. Here: the README against the recorded run.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
// @ts-expect-error: a plain .mjs script without types
import { FIXTURE, README, excerptOf, maskVolatile, readmeExcerpt, summaryOf } from '../scripts/readme-excerpt.mjs'

describe("the README's terminal excerpt", () => {
  it('is the recorded run of `npm run evals`, trimmed, its timings aside', () => {
    const recorded = readFileSync(FIXTURE, 'utf8').trimEnd()
    expect(recorded).toMatch(/^ Tool evals \d+ samples · run took <time>\n/)
    expect(maskVolatile(readmeExcerpt(readFileSync(README, 'utf8')))).toBe(excerptOf(recorded))
  })

  it('is cut from the summary, masked where runs differ, and trimmed by section', () => {
    const output = [
      'vitest noise',
      ' Tool evals 3 samples · run took 1.2s',
      '',
      '  metric  all',
      ...['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((m) => `  ${m}  1.000`),
      '',
      '  usage  model  1 prompt · latency p50 12 ms, p95 1,034 ms   ',
      '',
      '  ✓ a: 1.000 >= required 0.5',
      '  ✓ b: 1.000 >= required 0.5',
      '  ✓ c: 1.000 >= required 0.5',
      '',
      'tool-evals: JSON report written to /home/me/p/tool-evals-report.json',
      'after',
    ].join('\n')
    const summary = summaryOf(output)
    expect(summary.split('\n').at(-1)).toBe('tool-evals: JSON report written to …/tool-evals-report.json')
    expect(maskVolatile(summary)).toContain('run took <time>')
    expect(maskVolatile(summary)).toContain('latency p50 <ms>, p95 <ms>')
    expect(excerptOf(summary).split('\n')).toEqual([
      ' Tool evals 3 samples · run took 1.2s',
      '',
      '  metric  all',
      ...['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((m) => `  ${m}  1.000`),
      '  ...',
      '',
      '  usage  model  1 prompt · latency p50 12 ms, p95 1,034 ms',
      '',
      '  ✓ a: 1.000 >= required 0.5',
      '  ✓ b: 1.000 >= required 0.5',
      '  ...',
      '',
      'tool-evals: JSON report written to …/tool-evals-report.json',
    ])
  })
})
