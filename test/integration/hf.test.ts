// `data: 'hf://datasets/...'` in a real `vitest run` subprocess importing the built package, with HF_ENDPOINT on a
// Hub-shaped server on 127.0.0.1: a Parquet split and a JSONL split (limit, maxSamples), a bad row and a missing
// split as failing tests, the token sent and never printed; then the server stops and HF_HUB_OFFLINE=1 runs the same
// evals from the cache. Two runs, in one process (project.runs).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEvalProject, ensureBuilt, type EvalProject, type RunResult } from '../helpers/eval-project.js'
import { sampleParquet, startHubServer, type HubServer } from '../helpers/hub-server.js'

const REPO = 'acme/tool-calls'
const TOKEN = 'hf_IntegrationSecret0987654321'
const ask = (text: string) => [{ role: 'user', content: text }]
const gw = (city: string) => ({ name: 'get_weather', arguments: { city } })
const hermes = (city: string) => `<tool_call>\n${JSON.stringify(gw(city))}\n</tool_call>`

const FILES = {
  'data/test-00000-of-00001.parquet': sampleParquet([
    { id: 't1', messages: ask('weather in Lima?'), expected: [gw('Lima')] },
    { id: 't2', messages: ask('weather in Quito?'), expected: [gw('Quito')] },
    { id: 't3', messages: ask('weather in Bogota?'), expected: [{ arguments: { city: 'Bogota' } }] },
  ]),
  'data/validation.jsonl': [
    { id: 'v1', messages: ask('Paris?'), expected: [gw('Paris')] },
    { id: 'v2', messages: ask('Rome?'), expected: [gw('Rome')] },
    { id: 'v3', messages: ask('Oslo?'), expected: [gw('Oslo')] },
    { id: 'v4', messages: ask('Nice?'), expected: [gw('Nice')] },
  ]
    .map((l) => JSON.stringify(l))
    .join('\n'),
}

// Outputs by sample id: t1 Lima, t2 wrong city (a recorded miss, not a failure), v1..v3.
const recorded = [
  { id: 't1', output: hermes('Lima') },
  { id: 't2', output: hermes('Lima') },
  { id: 'v1', output: hermes('Paris') },
  { id: 'v2', output: hermes('Rome') },
  { id: 'v3', output: hermes('Oslo') },
]
  .map((r) => JSON.stringify(r))
  .join('\n')

const evals = `
import { describeEval, replay } from 'vitest-tool-evals'
const model = replay('data/outputs.jsonl')
describeEval('hub-test', { data: 'hf://datasets/${REPO}', split: 'test', model })
describeEval('hub-validation', { data: 'hf://datasets/${REPO}', split: 'validation', limit: 3, maxSamples: 2, model })
describeEval('hub-missing', { data: 'hf://datasets/${REPO}', split: 'train', model })
`

const config = `
import { defineConfig } from 'vitest/config'
import ToolEvalsReporter from 'vitest-tool-evals/reporter'
export default defineConfig({
  test: {
    include: ['evals/*.eval.mjs'],
    reporters: ['default', ['json', { outputFile: 'vitest.json' }], new ToolEvalsReporter({ outputFile: 'report.json', markdownFile: false })],
  },
})
`

interface VitestJson {
  testResults: { assertionResults: { fullName: string; status: string; failureMessages: string[] }[] }[]
}

describe('hf:// data in a vitest run', () => {
  let project: EvalProject
  let server: HubServer
  let online: RunResult
  let onlineTests: VitestJson['testResults'][number]['assertionResults']
  /** The online run's files, read once it ended (the offline run writes them again); the offline run and its tests. */
  let onlineVitestJson: string
  let onlineReport: string
  let offline: RunResult
  let offlineTests: [string, string][]

  const tests = () => (JSON.parse(readFileSync(join(project.dir, 'vitest.json'), 'utf8')) as VitestJson).testResults.flatMap((r) => r.assertionResults)

  beforeAll(async () => {
    ensureBuilt()
    server = await startHubServer({ repo: REPO, files: FILES, token: TOKEN })
    project = createEvalProject({ 'vitest.config.mjs': config, 'evals/hub.eval.mjs': evals, 'data/outputs.jsonl': recorded })
    // Both runs in one process (project.runs): what is tested is what each run reads and reports. The offline one
    // runs with the server stopped.
    ;[online, offline] = (await project.runs([
      {
        args: ['run'],
        env: { HF_ENDPOINT: server.url, HF_TOKEN: TOKEN },
        after: () => {
          onlineTests = tests()
          onlineVitestJson = readFileSync(join(project.dir, 'vitest.json'), 'utf8')
          onlineReport = readFileSync(join(project.dir, 'report.json'), 'utf8')
        },
      },
      { args: ['run'], env: { HF_ENDPOINT: server.url, HF_HUB_OFFLINE: '1' }, before: () => server.close(), after: () => void (offlineTests = tests().map((t) => [t.fullName, t.status])) },
    ])) as [RunResult, RunResult]
  })
  afterAll(async () => {
    await server?.close()
    project?.remove()
  })

  it('runs the Parquet and JSONL splits as one test per sample, capped by limit and maxSamples', () => {
    const byName = new Map(onlineTests.map((t) => [t.fullName, t.status]))
    expect([...byName.keys()].sort()).toEqual([
      'hub-missing [invalid sample at hf://datasets/acme/tool-calls]',
      'hub-test t1',
      'hub-test t2',
      'hub-test t3 [invalid sample at hf://datasets/acme/tool-calls/data/test-00000-of-00001.parquet row 2]',
      'hub-validation v1',
      'hub-validation v2',
    ])
    expect(byName.get('hub-test t1')).toBe('passed')
    expect(byName.get('hub-test t2')).toBe('passed') // a wrong city is recorded, not failed
    expect(byName.get('hub-validation v2')).toBe('passed')
    const report = JSON.parse(onlineReport) as { samples?: { id: string }[] }
    expect(JSON.stringify(report)).toContain('hub-validation')
  })

  it('a bad row fails its own test naming file, row and field; a missing split lists the splits', () => {
    const bad = onlineTests.find((t) => t.fullName.startsWith('hub-test t3'))
    expect(bad?.status).toBe('failed')
    expect(bad?.failureMessages.join('\n')).toContain('data/test-00000-of-00001.parquet row 2: field `expected[0].name`')
    const missing = onlineTests.find((t) => t.fullName.startsWith('hub-missing'))
    expect(missing?.failureMessages.join('\n')).toContain('split "train" not found; splits available: test, validation')
  })

  it('sends HF_TOKEN to the Hub and prints it nowhere', () => {
    expect(server.requests.length).toBeGreaterThan(0)
    expect(server.requests.every((r) => r.authorization === `Bearer ${TOKEN}`)).toBe(true)
    const printed = online.stdout + online.stderr + onlineVitestJson + onlineReport
    expect(printed).not.toContain(TOKEN)
  })

  it('runs again from the cache with HF_HUB_OFFLINE=1 and the server stopped', () => {
    const again = offlineTests
    expect(again.sort()).toEqual(onlineTests.map((t) => [t.fullName, t.status]).sort())
    expect(offline.stdout + offline.stderr).not.toContain('cannot reach')
  })
})
