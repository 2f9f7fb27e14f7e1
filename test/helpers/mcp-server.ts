/**
 * A small MCP server for the tests, built on the SDK's server side: written to a temporary file by the test, run
 * over stdio (`node server.mjs`) or streamable HTTP on 127.0.0.1 (`node server.mjs --http`, which prints its port).
 * Its tools behave well or badly on purpose:
 *
 * - `get_weather({ city })`: `{"city","temp":21}` as text; city "Atlantis" is an `isError` result;
 * - `crash()`: writes `MCP_TOKEN` to stderr and exits mid-call (a server that dies);
 * - `hang()`: never answers;
 * - `strict_rpc()`: a JSON-RPC error (-32602).
 *
 * `MCP_VARIANT=v2` gives `get_weather` a new required parameter `units` (a changed tool, for the schema snapshot).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { REPO } from './eval-project.js'

const sdk = (path: string) => pathToFileURL(join(REPO, 'node_modules/@modelcontextprotocol/sdk/dist/esm', path)).href

export const SERVER_SOURCE = `
import { createServer } from 'node:http'
import { Server } from '${sdk('server/index.js')}'
import { StdioServerTransport } from '${sdk('server/stdio.js')}'
import { StreamableHTTPServerTransport } from '${sdk('server/streamableHttp.js')}'
import { CallToolRequestSchema, ListToolsRequestSchema, McpError } from '${sdk('types.js')}'

const v2 = process.env.MCP_VARIANT === 'v2'
const city = { type: 'string', description: 'City name, e.g. "Paris"' }
const TOOLS = [
  { name: 'get_weather', description: 'Current weather of a city',
    inputSchema: v2
      ? { type: 'object', properties: { city, units: { type: 'string', enum: ['C', 'F'] } }, required: ['city', 'units'], additionalProperties: false }
      : { type: 'object', properties: { city }, required: ['city'], additionalProperties: false } },
  { name: 'crash', description: 'Dies mid-call', inputSchema: { type: 'object', properties: {} } },
  { name: 'hang', description: 'Never answers', inputSchema: { type: 'object', properties: {} } },
  { name: 'strict_rpc', description: 'Answers with a JSON-RPC error', inputSchema: { type: 'object', properties: {} } },
]

function makeServer() {
  const server = new Server({ name: 'test-weather', version: '1.0.0' }, { capabilities: { tools: {} } })
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }))
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: args = {} } = request.params
    if (name === 'get_weather') {
      if (args.city === 'Atlantis') return { content: [{ type: 'text', text: 'no weather for Atlantis' }], isError: true }
      return { content: [{ type: 'text', text: JSON.stringify({ city: args.city, temp: 21 }) }] }
    }
    if (name === 'crash') {
      process.stderr.write('fatal: lost the token ' + (process.env.MCP_TOKEN ?? '') + '\\n', () => process.exit(3))
      return new Promise(() => {})
    }
    if (name === 'hang') return new Promise(() => {})
    if (name === 'strict_rpc') throw new McpError(-32602, 'strict_rpc wants nothing')
    throw new McpError(-32602, 'Tool ' + name + ' not found')
  })
  return server
}

if (process.argv.includes('--http')) {
  const http = createServer(async (req, res) => {
    // Stateless: a server and transport per request, as the SDK's stateless example does.
    const server = makeServer()
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined })
    res.on('close', () => { transport.close(); server.close() })
    await server.connect(transport)
    await transport.handleRequest(req, res)
  })
  http.listen(0, '127.0.0.1', () => process.stdout.write('LISTENING ' + http.address().port + '\\n'))
} else {
  await makeServer().connect(new StdioServerTransport())
}
`

/** Write the server script into a fresh temporary folder; returns its path. */
export function writeServerScript(dir = mkdtempSync(join(tmpdir(), 'mcp-server-'))): string {
  const path = join(dir, 'weather-server.mjs')
  writeFileSync(path, SERVER_SOURCE)
  return path
}

export interface HttpMcpServer {
  url: string
  child: ChildProcess
  stop(): void
}

/** Start the script as an HTTP server on 127.0.0.1 (a random port) and wait until it listens. */
export function startHttpServer(script: string, env: Record<string, string> = {}): Promise<HttpMcpServer> {
  const child = spawn(process.execPath, [script, '--http'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  return new Promise((resolve, reject) => {
    let out = ''
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`the HTTP MCP server did not start: ${out}`))
    }, 15_000)
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const m = /LISTENING (\d+)/.exec(out)
      if (!m) return
      clearTimeout(timer)
      resolve({ url: `http://127.0.0.1:${m[1]}/mcp`, child, stop: () => child.kill('SIGKILL') })
    })
    child.on('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`the HTTP MCP server exited (${String(code)}) before listening: ${out}`))
    })
  })
}
