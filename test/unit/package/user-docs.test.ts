// What a newcomer reads. The README's terminal excerpt is what `npm run evals` prints, trimmed:
// scripts/readme-excerpt.mjs writes both the excerpt and test/fixtures/readme-run.txt (the whole summary of that run,
// its timings masked) from one real run, and CI's `--check` compares the README with a fresh run; here, the README
// against the recorded run. The install command works while the package is unpublished. User docs speak of
// versions, never of our work items.
import { readFileSync, readdirSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { REPO } from '../../helpers/eval-project.js'
// @ts-expect-error: a plain .mjs script without types
import { FIXTURE, README, excerptOf, maskVolatile, readmeExcerpt, summaryOf } from '../../../scripts/readme-excerpt.mjs'

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

describe('the README and the docs', () => {
  const readme = readFileSync(`${REPO}README.md`, 'utf8')
  const pkg = JSON.parse(readFileSync(`${REPO}package.json`, 'utf8')) as { name: string; version: string; scripts: Record<string, string> }

  it('installs from the packed tarball that `npm pack` builds, until the package is on the registry', () => {
    const install = readme.slice(readme.indexOf('## Install'), readme.indexOf('## A first eval'))
    expect(install).toContain('not on the npm registry yet')
    const tarball = `${pkg.name}-${pkg.version}.tgz`
    expect(install).toContain('npm ci && npm pack')
    expect(install).toContain(`npm install -D vitest ../vitest-tool-evals/${tarball}`)
    // `npm pack` packs a fresh build: dist/ is not in the repository.
    expect(pkg.scripts['prepack']).toBe('npm run build')
  })

  it('speak of versions, not of issue numbers or "new" markers', () => {
    const files = ['README.md', ...readdirSync(`${REPO}docs`).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)]
    const found = files.flatMap((file) =>
      readFileSync(`${REPO}${file}`, 'utf8')
        .split('\n')
        .flatMap((line, i) => (/\bissues?[ -]\d+|\(new\)|\*\*new\*\*/i.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    )
    expect(found).toEqual([])
  })
})
