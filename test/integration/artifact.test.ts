// The run artifact's worker side: `mustPass` kept from the data line onto the record, the calls hash and the cache
// hit in task meta (a fully right sample's meta still under 1 KB), the outcome made from meta alone.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadArray } from '../../src/data/load.js'
import type { Sample } from '../../src/data/types.js'
import { callsHash } from '../../src/eval/calls-hash.js'
import { evaluate } from '../../src/eval/describe-eval.js'
import { suiteRunInfo } from '../../src/eval/run-info.js'
import { cached } from '../../src/models/cache.js'
import type { ModelProvider } from '../../src/models/types.js'
import { cachedLookup, outcomeFromMeta } from '../../src/reporter/compare/outcomes.js'
import { gitCommit } from '../../src/reporter/compare/run-meta.js'

const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }]
const line = (extra: Record<string, unknown> = {}) => ({ id: 'w1', messages: [{ role: 'user', content: 'Weather in Paris?' }], tools, expected: [{ name: 'get_weather', arguments: { city: 'Paris' } }], ...extra })
const hermes = (args: unknown) => `<tool_call>\n${JSON.stringify({ name: 'get_weather', arguments: args })}\n</tool_call>`

describe('mustPass on a sample line', () => {
  it('is kept on the sample (dialogue turns too) and refused when not a boolean, naming the field', () => {
    const [ok, plain, bad] = loadArray([line({ mustPass: true }), line({ id: 'w2' }), line({ id: 'w3', mustPass: 'yes' })])
    expect(ok?.sample?.mustPass).toBe(true)
    expect(ok?.sample?.extra).toBeUndefined()
    expect(plain?.sample?.mustPass).toBeUndefined()
    expect(bad?.error).toMatchObject({ field: 'mustPass', message: 'must be true or false' })
    const turns = loadArray([{ id: 'd', mustPass: true, messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', tool_calls: [{ function: { name: 'f', arguments: '{}' } }] }] }])
    expect(turns[0]?.sample?.mustPass).toBe(true)
  })

  it('reaches the record, and so the outcome', async () => {
    const sample = loadArray([line({ mustPass: true })])[0]?.sample as Sample
    const { stored } = await evaluate(sample, { text: hermes({ city: 'Lyon' }) }, undefined, 'weather', {})
    expect(stored.record.mustPass).toBe(true)
    const o = outcomeFromMeta(stored, cachedLookup())
    expect(o).toMatchObject({ suite: 'weather', id: 'w1', mustPass: true, failures: ['wrong_arguments'], values: { name_correct: 1, args_exact_match: 0 } })
    expect(o.calls).toBe('get_weather({"city":"Lyon"})')
    expect(o.expected).toBe('get_weather({"city":"Paris"})')
  })
})

describe('task meta of a sample', () => {
  it('carries the normalised calls hash and stays under 1 KB when fully right', async () => {
    const sample = loadArray([line({ mustPass: true })])[0]?.sample as Sample
    const { stored } = await evaluate(sample, { text: hermes({ city: 'Paris' }) }, undefined, 'weather', { schema: true })
    expect(stored.callsHash).toBe(callsHash([{ name: 'get_weather', arguments: { city: 'Paris' } }]))
    expect(JSON.stringify(stored).length).toBeLessThan(1024)
    const o = outcomeFromMeta(stored, cachedLookup())
    expect(o.callsHash).toBe(stored.callsHash)
    expect(o.calls).toBeUndefined() // a right sample keeps no call lines
  })

  it('marks outputs served from the generation cache (cached: true), the output otherwise unchanged', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tool-evals-hit-'))
    try {
      const model: ModelProvider = { id: 'fake', generate: async () => ({ text: hermes({ city: 'Paris' }) }) }
      const c = cached(model, { dir })
      const sample = loadArray([line()])[0]?.sample as Sample
      const cold = await c.generate(sample)
      const warm = await c.generate(sample)
      const { cached: hit, ...rest } = warm
      expect(hit).toBe(true)
      expect(rest).toEqual(cold)
      expect((await evaluate(sample, cold, undefined, 's', {})).stored.cacheHit).toBeUndefined()
      expect((await evaluate(sample, warm, undefined, 's', {})).stored.cacheHit).toBe(true)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('run metadata', () => {
  it('hashes settings and tool schemas, never keeping the settings themselves', () => {
    const samples = loadArray([line(), line({ id: 'w2' })]).map((e) => e.sample as Sample)
    const info = suiteRunInfo({ id: 'm', settings: { temperature: 0, secretish: 'sk-123' }, generate: async () => ({}) }, [], samples)
    expect(JSON.stringify(info)).not.toContain('sk-123')
    expect(info.settings).toMatch(/^[0-9a-f]{16}$/)
    expect(info.tools).toMatch(/^[0-9a-f]{16}$/)
    const other = suiteRunInfo({ id: 'm', settings: { temperature: 0.7 }, generate: async () => ({}) }, [], samples)
    expect(other.settings).not.toBe(info.settings)
  })

  it('reads the git commit from .git as git itself does, in a fresh repository with a loose ref and a packed one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tool-evals-git-'))
    try {
      const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'pipe', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } }).toString().trim()
      git('init', '-q', '-b', 'main')
      git('commit', '-q', '--allow-empty', '-m', 'one')
      expect(gitCommit(dir)).toEqual({ commit: git('rev-parse', 'HEAD'), branch: 'main' })
      git('pack-refs', '--all')
      expect(gitCommit(join(dir))).toEqual({ commit: git('rev-parse', 'HEAD'), branch: 'main' })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
