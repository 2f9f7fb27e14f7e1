// Tools from an MCP server in four real `vitest run`s (sharing one process: project.runs) against the built package:
// an agent eval whose calls run against a stdio server the test writes (a result, an isError result, a server that
// dies mid-call, one that hangs, and a call after both), a single-turn eval offered the server's tools, recorded and
// then replayed with the server gone (and the schema snapshot file gone: CI refuses it), and the tool-schema snapshot
// failing with a diff when a tool gains a required parameter, then accepted with -u.
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEvalProject, ensureBuilt, type EvalProject, type RunResult } from '../helpers/eval-project.js'
import { SERVER_SOURCE } from '../helpers/mcp-server.js'

const TOKEN = 'tok-SECRET-0123456789'
const user = (content: string) => [{ role: 'user', content }]
const call = (name: string, args: unknown) => ({ name, arguments: args })

const agentData = [
  { id: 'paris', messages: user('get_weather Paris'), expectedTrajectory: [[call('get_weather', { city: 'Paris' })]] },
  { id: 'atlantis', messages: user('get_weather Atlantis'), expectedTrajectory: [[call('get_weather', { city: 'Atlantis' })]] },
  { id: 'crash', messages: user('crash'), expectedTrajectory: [[call('crash', {})]] },
  { id: 'hang', messages: user('hang'), expectedTrajectory: [[call('hang', {})]] },
  { id: 'after', messages: user('get_weather Lima'), expectedTrajectory: [[call('get_weather', { city: 'Lima' })]] },
]
const singleData = [{ id: 'offered', messages: user('Weather in Paris?'), expected: [call('get_weather', { city: 'Paris' })] }]

const evalFile = `
import { describeEval, mcpTools } from 'vitest-tool-evals'
import { expect } from 'vitest'
import { readFileSync } from 'node:fs'

const data = (name) => JSON.parse(readFileSync('data/' + name + '.json', 'utf8'))
const server = { command: process.execPath, args: ['server.mjs'], env: { MCP_TOKEN: '${TOKEN}', MCP_VARIANT: process.env.MCP_VARIANT ?? 'v1' } }

// Calls the tool the user names (with the city after it), then answers with the tool's result.
const agentModel = {
  id: 'scripted-mcp',
  async generate(sample) {
    const last = sample.messages[sample.messages.length - 1]
    if (last.role === 'tool') return { text: 'done: ' + last.content }
    const [name, city] = last.content.split(' ')
    return { calls: [{ name, arguments: city ? { city } : {}, argumentsValid: true, format: 'openai' }] }
  },
}
// Calls get_weather only if the server's definition (with its required city) reached the sample.
const singleModel = {
  id: 'scripted-single',
  async generate(sample) {
    const tool = (sample.tools ?? []).find((t) => t.function.name === 'get_weather')
    if (!tool || !tool.function.parameters.required.includes('city')) return { text: 'no tool' }
    return { calls: [{ name: 'get_weather', arguments: { city: 'Paris' }, argumentsValid: true, format: 'openai' }] }
  },
}

describeEval('weather-agent', {
  data: data('agent'),
  model: agentModel,
  tools: mcpTools(server, { name: 'weather', recording: 'fixtures/weather.mcp.jsonl', timeoutMs: 1500 }),
  maxSteps: 3,
  concurrency: 1,
  // Starting the server again after the crash takes a few seconds on a loaded machine.
  timeout: 30_000,
})

describeEval('weather-single', {
  data: data('single'),
  model: singleModel,
  tools: mcpTools(server, { name: 'weather', recording: 'fixtures/weather-single.mcp.jsonl', execute: false, schemaSnapshot: false }),
  assert(result) {
    expect(result.sample.tools.map((t) => t.function.name)).toEqual(['get_weather', 'crash', 'hang', 'strict_rpc'])
  },
})
`

const config = `
import { defineConfig } from 'vitest/config'
import ToolEvalsReporter from 'vitest-tool-evals/reporter'
export default defineConfig({
  test: {
    include: ['evals/**/*.eval.mjs'],
    reporters: ['default', new ToolEvalsReporter({ outputFile: 'report.json', markdownFile: false })],
  },
})
`

describe('tools from an MCP server, end to end', () => {
  let project: EvalProject
  const report = () => JSON.parse(readFileSync(join(project.dir, 'report.json'), 'utf8'))
  const erroredOf = (r: any) => Object.fromEntries((r.errored.samples as { id: string; reason: string; detail?: string }[]).map((e) => [e.id, e]))
  const snapshotFile = () => join(project.dir, 'evals/weather.eval.weather.tools.json')
  /** Each run and what it left on disk, read once it ended (the next run overwrites the report). */
  let recorded: RunResult, replayed: RunResult, changed: RunResult, accepted: RunResult
  let recordedReport: any, recordedReportText: string, recording: string, recordedSnapshot: string
  let replayedReport: any, serverAfterReplay: boolean, snapshotAfterReplay: boolean
  let acceptedSnapshot: string

  // The four runs share one process (project.runs): their subject is the reports and the files written; the MCP
  // servers are the workers' children, new in each run.
  beforeAll(async () => {
    ensureBuilt()
    project = createEvalProject({
      'vitest.config.mjs': config,
      'evals/weather.eval.mjs': evalFile,
      'server.mjs': SERVER_SOURCE,
      'data/agent.json': JSON.stringify(agentData),
      'data/single.json': JSON.stringify(singleData),
    })
    let kept = ''
    ;[recorded, replayed, changed, accepted] = (await project.runs([
      {
        args: ['run', '-u'],
        env: { TOOL_EVALS_MCP: 'record' },
        after: () => {
          recordedReport = report()
          recordedReportText = readFileSync(join(project.dir, 'report.json'), 'utf8')
          recording = readFileSync(join(project.dir, 'fixtures/weather.mcp.jsonl'), 'utf8')
          recordedSnapshot = readFileSync(snapshotFile(), 'utf8')
        },
      },
      // The replay with the server gone and the schema snapshot file gone (put back after it).
      {
        args: ['run'],
        before: () => {
          rmSync(join(project.dir, 'server.mjs'))
          kept = readFileSync(snapshotFile(), 'utf8')
          rmSync(snapshotFile())
        },
        after: () => {
          replayedReport = report()
          serverAfterReplay = existsSync(join(project.dir, 'server.mjs'))
          snapshotAfterReplay = existsSync(snapshotFile())
          project.write('evals/weather.eval.weather.tools.json', kept)
        },
      },
      { args: ['run', '-t', 'schemas'], env: { TOOL_EVALS_MCP: 'live', MCP_VARIANT: 'v2' }, before: () => project.write('server.mjs', SERVER_SOURCE) },
      // `-u` accepts the change.
      { args: ['run', '-t', 'schemas', '-u'], env: { TOOL_EVALS_MCP: 'live', MCP_VARIANT: 'v2' }, after: () => void (acceptedSnapshot = readFileSync(snapshotFile(), 'utf8')) },
    ])) as [RunResult, RunResult, RunResult, RunResult]
  })
  afterAll(() => project.remove())

  it('records: results and tool errors go to the model, a dying or hung server errors only its sample', () => {
    const out = recorded.stdout + recorded.stderr
    expect(recorded.code, out).toBe(1) // the two errored samples fail their tests
    const r = recordedReport
    expect(r.samples).toBe(6)
    const e = erroredOf(r)
    expect(Object.keys(e).sort()).toEqual(['crash', 'hang'])
    expect(e['crash']?.detail).toContain('MCP server "weather": the server failed during tools/call crash')
    expect(e['crash']?.detail).toContain('fatal: lost the token ***')
    expect(e['hang']?.detail, JSON.stringify(e)).toContain('MCP server "weather": tools/call hang timed out after 1500 ms')
    // The sample after both ran against a fresh server; the isError result went back to the model.
    expect(r.suites['weather-agent'].trajectory.toolErrors).toBe(1)
    expect(r.metrics.name_correct).toBeGreaterThan(0)
    expect(recordedReportText).not.toContain(TOKEN)
    expect(out).not.toContain(TOKEN)
    // The recording and the schema snapshot are written; the token is in neither.
    expect(recording).toContain('"name":"get_weather","arguments":{"city":"Paris"}')
    expect(recording).toContain('no weather for Atlantis')
    expect(recording).not.toContain('"name":"crash","arguments"') // a server that died answered nothing
    expect(recording).not.toContain(TOKEN)
    const snapshot = JSON.parse(recordedSnapshot)
    expect(snapshot.map((t: { name: string }) => t.name)).toEqual(['crash', 'get_weather', 'hang', 'strict_rpc'])
  })

  // One run for two checks: the replay (server gone) and CI refusing the missing schema snapshot. The schema test is
  // a test of its own beside the samples, so its failure leaves the samples' scores as they were.
  it('replays with the server gone: the same scores; a call the recording lacks errors its sample, named; CI refuses a missing schema snapshot (Vitest writes none there)', () => {
    const before = recordedReport
    const run = replayed
    const out = run.stdout + run.stderr
    expect(run.code).toBe(1)
    const r = replayedReport
    expect(r.metrics).toEqual(before.metrics)
    expect(r.suites['weather-agent'].trajectory).toEqual(before.suites['weather-agent'].trajectory)
    const e = erroredOf(r)
    expect(Object.keys(e).sort()).toEqual(['crash', 'hang'])
    expect(e['crash']?.reason).toBe('not in the MCP recording: tools/call crash')
    expect(e['crash']?.detail).toContain('MCP recording fixtures/weather.mcp.jsonl has no answer of server "weather" to crash({})')
    expect(serverAfterReplay).toBe(false)
    // The schema test failed on the missing file (the samples' two failures are crash and hang) and wrote none.
    expect(out).toContain('FAIL  evals/weather.eval.mjs > weather-agent > weather tool schemas [mcp]')
    expect(out).toMatch(/Snapshots\s+1 failed/)
    expect(out).toMatch(/Tests\s+3 failed \| 4 passed \(7\)/)
    expect(snapshotAfterReplay).toBe(false)
  })

  it('a tool that gains a required parameter fails the schema snapshot with the diff', () => {
    const run = changed
    const out = run.stdout + run.stderr
    expect(run.code).toBe(1)
    expect(out).toContain('the tools of MCP server "weather" changed (run with -u to accept)')
    expect(out).toMatch(/\+\s+"units"/)
    // `-u` accepts the change: the file now requires units.
    expect(accepted.code, accepted.stdout + accepted.stderr).toBe(0)
    const snapshot = JSON.parse(acceptedSnapshot)
    expect(snapshot.find((t: { name: string }) => t.name === 'get_weather').inputSchema.required).toEqual(['city', 'units'])
  })
})
