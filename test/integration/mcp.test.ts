/**
 * mcpTools against a real MCP server (the SDK's server side, test/helpers/mcp-server.ts) over stdio and over
 * streamable HTTP on 127.0.0.1: tool lists, results, `isError`, JSON-RPC errors, a server that dies or hangs, record
 * then replay with the server gone, and the agent loop over the server's tools.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runAgent, ToolRuntimeError, unknownToolMessage } from '../../src/eval/agent.js'
import { composeRecording, mcpKey, parseRecording, recordEntry } from '../../src/eval/mcp/recording.js'
import { mcpPlan, scrubSecrets } from '../../src/eval/mcp/server.js'
import { schemaSnapshotText } from '../../src/eval/mcp/suite.js'
import { callOutcome, mcpTools, type McpTools } from '../../src/eval/mcp/tools.js'
import type { ModelProvider } from '../../src/models/types.js'
import type { ToolCall } from '../../src/calls/types.js'
import { startHttpServer, writeServerScript, type HttpMcpServer } from '../helpers/mcp-server.js'
import { startHostileHttpServer, writeHostileStdioScript, type HostileHttpServer } from '../helpers/mcp-hostile.js'

const TOKEN = 'tok-SECRET-0123456789'
const dir = mkdtempSync(join(tmpdir(), 'mcp-test-'))
const script = writeServerScript(dir)
const stdio = (options: Parameters<typeof mcpTools>[1] = {}) =>
  mcpTools({ command: process.execPath, args: [script], env: { MCP_TOKEN: TOKEN } }, { name: 'weather', mode: 'live', timeoutMs: 5000, ...options })

afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function expectRuntimeError(p: Promise<unknown>): Promise<ToolRuntimeError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(ToolRuntimeError)
  return err as ToolRuntimeError
}

describe('mcpTools over stdio', () => {
  let mcp: McpTools
  beforeAll(() => {
    mcp = stdio({ timeoutMs: 1500 })
  })
  afterAll(() => mcp.close())

  it('lists the tools with their JSON Schemas as the server gives them', async () => {
    const defs = await mcp.definitions()
    expect(defs.map((d) => d.function.name)).toEqual(['get_weather', 'crash', 'hang', 'strict_rpc'])
    expect(defs[0]).toEqual({
      type: 'function',
      function: {
        name: 'get_weather',
        description: 'Current weather of a city',
        parameters: { type: 'object', properties: { city: { type: 'string', description: 'City name, e.g. "Paris"' } }, required: ['city'], additionalProperties: false },
      },
    })
  })

  it('runs a call; isError and JSON-RPC errors are tool errors', async () => {
    expect(await mcp.call('get_weather', { city: 'Paris' })).toEqual({ content: '{"city":"Paris","temp":21}', value: '{"city":"Paris","temp":21}' })
    // A result that echoes a secret of the server's env is scrubbed before the model or a report sees it.
    expect((await mcp.call('get_weather', { city: `in ${TOKEN}` })).content).toBe('{"city":"in ***","temp":21}')
    await expect(mcp.call('get_weather', { city: 'Atlantis' })).rejects.toThrow(/^no weather for Atlantis$/)
    const rpc = await mcp.call('strict_rpc', {}).catch((e: unknown) => e)
    expect(rpc).not.toBeInstanceOf(ToolRuntimeError)
    expect(String(rpc)).toContain('strict_rpc({}) failed: strict_rpc wants nothing (JSON-RPC error -32602)')
  })

  it('a server that dies mid-call errors the call with its stderr, scrubbed; the next call starts it again', async () => {
    const err = await expectRuntimeError(mcp.call('crash', {}))
    expect(err.message).toContain('MCP server "weather": the server failed during tools/call crash')
    expect(err.message).toContain('fatal: lost the token ***')
    expect(err.message).not.toContain(TOKEN)
    expect(err.reason).toBe('MCP server "weather": the server failed during tools/call')
    expect((await mcp.call('get_weather', { city: 'Rome' })).content).toBe('{"city":"Rome","temp":21}')
  })

  it('a hung call times out, the hung server is dropped and the next call works', async () => {
    const started = Date.now()
    const err = await expectRuntimeError(mcp.call('hang', {}))
    expect(err.message).toBe('MCP server "weather": tools/call hang timed out after 1500 ms')
    expect(Date.now() - started).toBeLessThan(5000)
    expect((await mcp.call('get_weather', { city: 'Oslo' })).content).toBe('{"city":"Oslo","temp":21}')
  })

  it('a server that cannot start is a runtime error naming it', async () => {
    const broken = mcpTools({ command: join(dir, 'no-such-server') }, { mode: 'live', timeoutMs: 2000 })
    const err = await expectRuntimeError(broken.list())
    expect(err.message).toMatch(/^MCP server "no-such-server": could not connect: .*ENOENT/)
    // The failure is kept: every sample fails fast with it instead of trying to start the server again.
    expect(await broken.list().catch((e: unknown) => e)).toBe(err)
    await broken.close()
  })

  /** Calls the tool named in the last user message, then answers with the last tool result. */
  const scripted: ModelProvider = {
    id: 'scripted',
    async generate(sample) {
      const last = sample.messages[sample.messages.length - 1]
      if (last?.role === 'tool') return { text: `done: ${String(last.content)}` }
      const [name, city] = String(last?.content).split(' ')
      return { calls: [{ name: name as string, arguments: city ? { city } : {}, argumentsValid: true } as ToolCall] }
    },
  }

  // On this describe's server (no second server process to start): last, since its crash ends that server.
  it('the agent loop over the server: tool errors go back to the model; a dying server errors the run', async () => {
    const env = await mcp.environment()
    const sample = (content: string) => ({ id: content, messages: [{ role: 'user' as const, content }], expected: [] })
    const ok = await runAgent(scripted, sample('get_weather Paris'), env, { maxSteps: 3 })
    expect(ok.trajectory.answer).toBe('done: {"city":"Paris","temp":21}')
    const bad = await runAgent(scripted, sample('get_weather Atlantis'), env, { maxSteps: 3 })
    expect(bad.trajectory.toolErrors).toBe(1)
    expect(bad.trajectory.answer).toBe('done: Error during execution: no weather for Atlantis')
    const unknown = await runAgent(scripted, sample('nope'), env, { maxSteps: 3 })
    expect(unknown.trajectory.steps[0]?.results[0]?.error).toMatch(/^unknown tool "nope"/)
    const died = await runAgent(scripted, sample('crash'), env, { maxSteps: 3 }).catch((e: unknown) => e as Error)
    expect((died as Error).message).toMatch(/^agent step 1 \(turn 1\): MCP server "weather": the server failed during tools\/call crash/)
  })
})

describe('mcpTools over streamable HTTP on 127.0.0.1', () => {
  let server: HttpMcpServer
  let mcp: McpTools
  beforeAll(async () => {
    server = await startHttpServer(script)
    mcp = mcpTools({ url: server.url }, { name: 'weather-http', mode: 'live', timeoutMs: 1500 })
  })
  afterAll(async () => {
    await mcp.close()
    server.stop()
  })

  it('lists and calls', async () => {
    expect((await mcp.definitions()).map((d) => d.function.name)).toContain('get_weather')
    expect((await mcp.call('get_weather', { city: 'Lima' })).content).toBe('{"city":"Lima","temp":21}')
    await expect(mcp.call('get_weather', { city: 'Atlantis' })).rejects.toThrow('no weather for Atlantis')
  })

  it('a hung call times out', async () => {
    const err = await expectRuntimeError(mcp.call('hang', {}))
    expect(err.message).toContain('tools/call hang timed out after 1500 ms')
    expect(err.message).toContain('(http://127.0.0.1:')
  })

  it('a server that dies mid-call errors the call, and later calls too (nothing listens any more)', async () => {
    const err = await expectRuntimeError(mcp.call('crash', {}))
    expect(err.message).toContain('the server failed during tools/call crash')
    await expectRuntimeError(mcp.call('get_weather', { city: 'Lima' }))
  })
})

describe('answers are bounded by maxResultBytes', () => {
  const LIMIT = 256 * 1024
  let hostile: HostileHttpServer
  let http: McpTools
  beforeAll(async () => {
    hostile = await startHostileHttpServer()
    http = mcpTools({ url: hostile.url }, { name: 'hostile', mode: 'live', timeoutMs: 10_000, maxResultBytes: LIMIT })
  })
  afterAll(async () => {
    await http.close()
    await hostile.close()
  })

  it('over HTTP, a result larger than the limit errors its call, naming the size; the next call works', async () => {
    expect((await http.call('huge', { bytes: LIMIT / 2 })).content).toHaveLength(LIMIT / 2)
    const err = await expectRuntimeError(http.call('huge', { bytes: 2 * 1024 * 1024 }))
    expect(err.message).toMatch(/: the answer to tools\/call huge is larger than maxResultBytes \(262144 bytes\): the response reached \d+ bytes and was cut off/)
    expect(err.reason).toBe(`MCP server "hostile" (${hostile.url}): the answer to tools/call is larger than maxResultBytes`)
    expect((await http.call('small', {})).content).toBe('ok')
  })

  it('over HTTP, an SSE event that never ends is cut at the limit, not read until memory runs out', async () => {
    const err = await expectRuntimeError(http.call('endless', {}))
    expect(err.message).toMatch(/the answer to tools\/call endless is larger than maxResultBytes \(262144 bytes\): one server-sent event reached 262145 bytes/)
    // The server stopped writing soon after the client went away.
    await new Promise((r) => setTimeout(r, 50))
    expect(hostile.endlessBytes()).toBeLessThan(16 * 1024 * 1024)
  })

  it('over stdio, a message over the limit says so (the SDK itself says only "Connection closed"); the next call starts the server again', async () => {
    const mcp = mcpTools({ command: process.execPath, args: [writeHostileStdioScript(dir)] }, { mode: 'live', timeoutMs: 10_000, maxResultBytes: LIMIT })
    try {
      const err = await expectRuntimeError(mcp.call('huge', { bytes: 2 * LIMIT }))
      expect(err.message).toContain(
        `MCP server "hostile-server": the answer to tools/call huge is larger than maxResultBytes (262144 bytes): the SDK's stdio transport stops reading a message over that size and closes the connection`,
      )
      expect((await mcp.call('small', {})).content).toBe('ok')
    } finally {
      await mcp.close()
    }
  })

  it('the option is checked', () => {
    expect(() => mcpPlan({ command: 'a' }, { maxResultBytes: 10 })).toThrow('`maxResultBytes` must be an integer from 1024 to 536870912 (512 MiB), not 10')
    expect(mcpPlan({ command: 'a' }).maxResultBytes).toBe(10 * 1024 * 1024)
  })
})

describe('record and replay', () => {
  it('records tool lists and call results, then replays them with the server gone', async () => {
    const recording = join(dir, 'weather.mcp.jsonl')
    const live = stdio({ mode: 'record', recording })
    const list = await live.list()
    const paris = await live.call('get_weather', { city: 'Paris' })
    await expect(live.call('get_weather', { city: 'Atlantis' })).rejects.toThrow('no weather for Atlantis')
    await expect(live.call('strict_rpc', {})).rejects.toThrow('JSON-RPC error -32602')
    await live.close()

    const text = readFileSync(recording, 'utf8')
    expect(text).not.toContain(TOKEN)
    expect(text.trim().split('\n').map((l) => JSON.parse(l).method)).toEqual(['tools/call', 'tools/call', 'tools/call', 'tools/list'])

    // The server is gone: a command that does not exist, with the same name.
    const replayed = mcpTools({ command: join(dir, 'gone') }, { name: 'weather', recording })
    expect(replayed.mode).toBe('replay')
    expect(await replayed.list()).toEqual(list)
    expect(await replayed.call('get_weather', { city: 'Paris' })).toEqual(paris)
    await expect(replayed.call('get_weather', { city: 'Atlantis' })).rejects.toThrow('no weather for Atlantis')
    await expect(replayed.call('strict_rpc', {})).rejects.toThrow('strict_rpc wants nothing')
    const missing = await expectRuntimeError(replayed.call('get_weather', { city: 'Oslo' }))
    expect(missing.message).toBe(
      `MCP recording ${recording} has no answer of server "weather" to get_weather({"city":"Oslo"}): record it again with TOOL_EVALS_MCP=record`,
    )
    expect(missing.reason).toBe('not in the MCP recording: tools/call get_weather')
  })

  it('keys are content addresses: argument order does not matter, the server and method do', () => {
    const a = mcpKey('weather', 'tools/call', { name: 'f', arguments: { a: 1, b: 2 } })
    expect(mcpKey('weather', 'tools/call', { arguments: { b: 2, a: 1 }, name: 'f' })).toBe(a)
    expect(mcpKey('other', 'tools/call', { name: 'f', arguments: { a: 1, b: 2 } })).not.toBe(a)
    expect(mcpKey('weather', 'tools/call', { name: 'f', arguments: { a: 1, b: 3 } })).not.toBe(a)
  })

  it('a recording is sorted and round-trips; a bad line is named', () => {
    const entries = [
      recordEntry('s', 'tools/list', {}, { result: { tools: [] } }),
      recordEntry('s', 'tools/call', { name: 'z' }, { error: { code: -1, message: 'x' } }),
    ]
    const text = composeRecording(entries)
    expect(JSON.parse(text.split('\n')[0]!).method).toBe('tools/call')
    expect([...parseRecording(text, 'f').keys()].sort()).toEqual(entries.map((e) => e.key).sort())
    expect(() => parseRecording('{"key":"a"}\n', 'f.jsonl')).toThrow('f.jsonl:1: not an MCP recording entry')
  })

  describe('a recording can be trusted: each answer is bound to its request', () => {
    const paris = recordEntry('weather', 'tools/call', { name: 'get_weather', arguments: { city: 'Paris' } }, { result: { content: [{ type: 'text', text: 'Paris 21' }] } })
    const lima = recordEntry('weather', 'tools/call', { name: 'get_weather', arguments: { city: 'Lima' } }, { result: { content: [{ type: 'text', text: 'Lima 30' }] } })
    const replayOf = (name: string, lines: unknown[]) => {
      const file = join(dir, `${name}.mcp.jsonl`)
      writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n')
      return { file, mcp: mcpTools({ command: 'gone' }, { name: 'weather', recording: file }) }
    }
    const replayError = async (name: string, lines: unknown[]) => {
      const { file, mcp } = replayOf(name, lines)
      return { file, message: (await expectRuntimeError(mcp.call('get_weather', { city: 'Paris' }))).message }
    }

    it('an intact recording replays', async () => {
      expect((await replayOf('intact', [paris, lima]).mcp.call('get_weather', { city: 'Paris' })).content).toBe('Paris 21')
    })

    it('results swapped between entries are refused, naming the file and line', async () => {
      const { file, message } = await replayError('swapped', [{ ...paris, result: lima.result }, { ...lima, result: paris.result }])
      expect(message).toBe(`MCP recording ${file} is unreadable: ${file}:1: "sha256" does not match the entry (was the answer edited or moved from another entry?): record it again with TOOL_EVALS_MCP=record`)
    })

    it('edited params are refused (the key is no longer theirs)', async () => {
      const { file, message } = await replayError('edited', [paris, { ...lima, params: { name: 'get_weather', arguments: { city: 'Oslo' } } }])
      expect(message).toContain(`${file}:2: "key" is not the key of the entry's server, method and params (was the request edited?)`)
    })

    it('a duplicated key is refused with both lines', async () => {
      const { file, message } = await replayError('duplicate', [paris, lima, paris])
      expect(message).toContain(`${file}:3: the key ${paris.key.slice(0, 12)}… is also on line 1: a request has one answer`)
    })

    it('a recording made before answers were hashed gives the migration, not a replay', async () => {
      const { sha256: _, ...legacy } = paris
      const { file, message } = await replayError('legacy', [legacy])
      expect(message).toContain(`${file}:1: the entry has no "sha256" (a recording made before answers were bound to their requests): record it again with TOOL_EVALS_MCP=record`)
    })

    it('a recording of another server name says which name it holds', async () => {
      const file = join(dir, 'renamed.mcp.jsonl')
      writeFileSync(file, composeRecording([recordEntry('stdio', 'tools/list', {}, { result: { tools: [] } })]))
      const err = await expectRuntimeError(mcpTools({ command: 'node', args: ['dist/index.js', 'stdio'] }, { recording: file }).list())
      expect(err.message).toContain(`has no answer of server "index" to tools/list`)
      expect(err.message).toContain(`it holds answers of server "stdio" only: give mcpTools the option \`name\` it was recorded under, e.g. name: 'stdio'`)
    })
  })

  it('a missing recording file errors each request with how to make it', async () => {
    const mcp = mcpTools({ command: 'x' }, { recording: join(dir, 'none.jsonl'), mode: 'replay' })
    const err = await expectRuntimeError(mcp.list())
    expect(err.message).toContain('MCP recording not found')
    expect(err.message).toContain('TOOL_EVALS_MCP=record')
  })
})

describe('options and pure parts', () => {
  it('checks the server and mode; names default from the script or URL', () => {
    expect(mcpPlan({ command: 'node', args: ['servers/weather.mjs'] }).name).toBe('weather')
    // The script, not the last argument; without a script, the last argument that is not a flag.
    expect(mcpPlan({ command: 'node', args: ['dist/index.js', 'stdio'] }).name).toBe('index')
    expect(mcpPlan({ command: 'node', args: ['server.mjs', '--port', '3000'] }).name).toBe('server')
    expect(mcpPlan({ command: 'npx', args: ['-y', '@acme/files-server', '/srv/data'] }).name).toBe('files-server')
    expect(mcpPlan({ command: 'uvx', args: ['mcp-server-time'] }).name).toBe('mcp-server-time')
    expect(mcpPlan({ command: 'weather-mcp' }).name).toBe('weather-mcp')
    expect(mcpPlan({ url: 'https://tools.example.com/mcp?key=abcdefgh' }).name).toBe('tools.example.com-mcp')
    expect(mcpPlan({ url: 'https://tools.example.com/mcp?key=abcdefgh' }).secrets).toEqual(['key=abcdefgh'])
    expect(() => mcpPlan({ command: 'a', url: 'http://x' } as never)).toThrow('either `command` (stdio) or `url`')
    expect(() => mcpPlan({ command: 'a' }, { mode: 'replay' })).toThrow('mode `replay` needs a `recording` file')
    expect(mcpPlan({ command: 'a' }, { recording: 'r.jsonl' }).mode).toBe('replay')
    expect(mcpPlan({ command: 'a' }, { recording: 'r.jsonl' }, { TOOL_EVALS_MCP: 'record' }).mode).toBe('record')
    expect(() => mcpPlan({ command: 'a' }, {}, { TOOL_EVALS_MCP: 'bogus' })).toThrow('TOOL_EVALS_MCP=bogus is not one of live, record, replay')
    expect(scrubSecrets('Bearer abcdefgh and abcdefgh', ['abcdefgh'])).toBe('*** and ***')
  })

  it('an unknown tool among 10,000 gives the model the closest few names and the count, not the list', async () => {
    const tools = Array.from({ length: 10_000 }, (_, i) => ({ name: `tool_${String(i).padStart(5, '0')}_action`, inputSchema: { type: 'object' } }))
    tools.push({ name: 'get_weather', inputSchema: { type: 'object' } })
    const file = join(dir, 'many.mcp.jsonl')
    writeFileSync(file, composeRecording([recordEntry('many', 'tools/list', {}, { result: { tools } })]))
    const env = await mcpTools({ command: 'gone' }, { name: 'many', recording: file }).environment()
    const err = await Promise.resolve(env.call('get_wether', {}, {} as never)).then(() => undefined, (e: Error) => e)
    expect(err?.message).toMatch(/^unknown tool "get_wether" \(closest of 10001 tools: get_weather, tool_\d{5}_action, /)
    expect(err!.message.length).toBeLessThan(300)
    // A name the model made up of a megabyte is not echoed whole either.
    expect(unknownToolMessage('x'.repeat(1_000_000), ['a', 'b']).length).toBeLessThan(200)
  })

  it('results: text parts joined, structured content as the value, isError thrown', () => {
    const result = { content: [{ type: 'text', text: 'a' }, { type: 'image', data: 'AA==', mimeType: 'image/png' }], structuredContent: { t: 1 } }
    expect(callOutcome({ result }, 'f()')).toEqual({ content: 'a\n{"type":"image","data":"AA==","mimeType":"image/png"}', value: { t: 1 } })
    expect(() => callOutcome({ result: { content: [], isError: true } }, 'f()')).toThrow('f() returned an error without a message')
  })

  it('the schema snapshot text is sorted by name and keeps each tool whole', () => {
    const text = schemaSnapshotText([{ name: 'b', inputSchema: { type: 'object' } }, { name: 'a', inputSchema: {}, annotations: { readOnlyHint: true } }])
    expect(JSON.parse(text).map((t: { name: string }) => t.name)).toEqual(['a', 'b'])
    expect(text).toContain('"readOnlyHint": true')
  })
})
