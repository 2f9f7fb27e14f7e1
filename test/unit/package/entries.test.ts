/**
 * The package's entries: the root keeps what most users need, and every name that left it is on the entry that
 * docs/reference.md ("Entry points") names. Values are checked on the loaded modules, types on the entries' sources
 * (a type has no runtime name), so dropping either from its entry fails here.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

/** Names the root exported before BFCL and the built-in scorers got their own entries, by where they are now. */
const MOVED: Record<string, { values: string[]; types: string[] }> = {
  bfcl: {
    values: ['BFCL_ENVIRONMENTS', 'bfclEnvironment', 'bfclMatchers', 'bfclMultiTurn', 'bfclTools', 'checkBfclAnswer', 'loadBfclCategory'],
    types: [
      'BfclAggregate',
      'BfclAnswer',
      'BfclEnvironmentName',
      'BfclEnvironmentOptions',
      'BfclLoadOptions',
      'BfclLoadResult',
      'BfclMultiTurnOptions',
      'BfclRecord',
      'BfclSampleLine',
    ],
  },
  scorers: {
    values: ['DEFAULT_SCHEMA_WEIGHTS', 'JUDGE_KINDS', 'judgeSample', 'judgeSampleId', 'schemaMetrics', 'scoreTrajectory'],
    types: [
      'JudgeAggregate',
      'JudgeKind',
      'JudgeRecord',
      'JudgeResult',
      'SchemaAggregate',
      'SchemaOptions',
      'SchemaRecord',
      'SchemaSampleMetrics',
      'SchemaSemantics',
      'SchemaWeights',
      'ScoredTrajectory',
      'TrajectoryAggregate',
      'TrajectoryMode',
      'TrajectoryRecord',
      'TrajectoryScore',
      'TrajectoryScorerOptions',
    ],
  },
}

const SOURCES: Record<string, string> = { bfcl: '../../../src/bfcl/index.ts', scorers: '../../../src/scorers.ts' }
const source = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8')

describe('package entries', () => {
  it('the root keeps the everyday names and no BFCL name', async () => {
    const root = await import('../../../src/index.js')
    for (const name of ['describeEval', 'loadData', 'openaiCompatible', 'replay', 'parseToolCalls', 'scoreSample', 'aggregateRun', 'defineScorer', 'toolMatchers', 'compareRuns']) {
      expect(Object.keys(root), name).toContain(name)
    }
    expect(Object.keys(root).filter((n) => /bfcl/i.test(n))).toEqual([])
    // It loads BFCL's registration for its effect (so its `bfcl` option and matcher work), and names nothing of it.
    const text = source('../../../src/index.ts')
    expect(text).toMatch(/^import '\.\/bfcl\/register\.js'$/m)
    expect(text.replace(/^import '\.\/bfcl\/register\.js'$/m, '')).not.toMatch(/bfcl\//)
  })

  it('BFCL registers once: again is a no-op, another scorer or matcher under its name an error', async () => {
    await import('../../../src/reporter.js')
    const { BUILTIN_SCORERS, BUILTIN_SCORER_METRICS, builtinScorer, registerBuiltinScorer } = await import('../../../src/score/scorers/index.js')
    const { addMatchers, allMatchers } = await import('../../../src/matchers/registry.js')
    const bfcl = builtinScorer('bfcl')!
    expect(bfcl).toBeDefined()
    const count = BUILTIN_SCORERS.length
    await import('../../../src/bfcl/register.js')
    registerBuiltinScorer(bfcl)
    expect(BUILTIN_SCORERS.length).toBe(count)
    expect(BUILTIN_SCORER_METRICS.filter((m) => m === 'bfcl_accuracy')).toEqual(['bfcl_accuracy'])
    expect(() => registerBuiltinScorer({ ...bfcl })).toThrow('a built-in scorer named "bfcl" is registered already')
    addMatchers({ toMatchBfclAnswer: allMatchers['toMatchBfclAnswer']! })
    expect(() => addMatchers({ toMatchBfclAnswer: () => ({ pass: true, message: () => '' }) })).toThrow('a matcher named "toMatchBfclAnswer"')
  })

  it('each entry that may meet BFCL loads its registration, and the registration loads nothing of Vitest', () => {
    for (const file of ['index.ts', 'setup.ts', 'plugin.ts', 'reporter.ts', 'matchers.ts', 'cli.ts', 'bfcl/index.ts']) {
      expect(source(`../../../src/${file}`), file).toMatch(/^import '\.\/(bfcl\/)?register\.js'$/m)
    }
    expect(source('../../../src/bfcl/register.ts')).not.toMatch(/from 'vitest'|matchers\/register\.js/)
  })

  it.each(Object.keys(MOVED))('every name that left the root is on vitest-tool-evals/%s', async (entry) => {
    const mod = (await import(SOURCES[entry]!.replace(/\.ts$/, '.js'))) as Record<string, unknown>
    const root = (await import('../../../src/index.js')) as Record<string, unknown>
    for (const name of MOVED[entry]!.values) {
      expect(mod[name], name).toBeDefined()
      expect(root[name], name).toBeUndefined()
    }
    const text = source(SOURCES[entry]!)
    for (const name of MOVED[entry]!.types) expect(text, name).toMatch(new RegExp(`\\b${name}\\b`))
  })

  it('the root namespace `bfcl` is the bfcl entry itself (import * as bfcl)', async () => {
    const bfcl = await import('../../../src/bfcl/index.js')
    for (const name of ['scoreCategory', 'decodeResult', 'checkSimple', 'summarizeBfcl', 'categoryInfo', 'PyFloat']) expect(bfcl, name).toHaveProperty(name)
  })

  it('package.json exports both entries with their types', () => {
    const pkg = JSON.parse(source('../../../package.json')) as { exports: Record<string, { types: string; import: string }> }
    expect(pkg.exports['./bfcl']).toEqual({ types: './dist/bfcl/index.d.ts', import: './dist/bfcl/index.js', default: './dist/bfcl/index.js' })
    expect(pkg.exports['./scorers']).toEqual({ types: './dist/scorers.d.ts', import: './dist/scorers.js', default: './dist/scorers.js' })
    expect(pkg.exports['./ai-sdk']).toEqual({ types: './dist/ai-sdk.d.ts', import: './dist/ai-sdk.js', default: './dist/ai-sdk.js' })
  })
})
