/**
 * MCP servers that misbehave on purpose, speaking just enough of the protocol by hand (no SDK: the point is what the
 * SDK's client does with their answers):
 *
 * - over streamable HTTP on 127.0.0.1 (in the test's process): `huge({ bytes })` answers a result of that many
 *   bytes as JSON, streamed in chunks without a Content-Length; `endless()` opens an SSE stream and writes one
 *   event that never ends; `small()` answers "ok". Requests are counted.
 * - over stdio (a script for `node`): `huge({ bytes })` writes one JSON-RPC message of that size; `small()` "ok".
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const TOOLS = [
  { name: 'huge', inputSchema: { type: 'object', properties: { bytes: { type: 'integer' } } } },
  { name: 'endless', inputSchema: { type: 'object', properties: {} } },
  { name: 'small', inputSchema: { type: 'object', properties: {} } },
]
const INIT = { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'hostile', version: '1' } }
const CHUNK = 64 * 1024

export interface HostileHttpServer {
  url: string
  /** Bytes written for `endless` so far (it stops when the client goes away). */
  endlessBytes(): number
  close(): Promise<void>
}

export async function startHostileHttpServer(): Promise<HostileHttpServer> {
  let endless = 0
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST') return void res.writeHead(405).end()
    let body = ''
    req.on('data', (c: Buffer) => (body += c.toString()))
    req.on('end', () => {
      const msg = JSON.parse(body) as { id?: number; method: string; params?: { name?: string; arguments?: { bytes?: number } } }
      if (msg.id === undefined) return void res.writeHead(202).end()
      const reply = (result: unknown) => {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }))
      }
      if (msg.method === 'initialize') return reply(INIT)
      if (msg.method === 'tools/list') return reply({ tools: TOOLS })
      const tool = msg.params?.name
      if (tool === 'small') return reply({ content: [{ type: 'text', text: 'ok' }] })
      if (tool === 'huge') {
        // Chunked, no Content-Length: only counting the body as it is read can stop it.
        res.writeHead(200, { 'content-type': 'application/json' })
        const head = `{"jsonrpc":"2.0","id":${msg.id},"result":{"content":[{"type":"text","text":"`
        let left = msg.params?.arguments?.bytes ?? 0
        res.write(head)
        const pump = () => {
          while (left > 0) {
            const n = Math.min(CHUNK, left)
            left -= n
            if (!res.write('x'.repeat(n))) return void res.once('drain', pump)
          }
          res.end('"}]}}')
        }
        res.on('close', () => (left = 0))
        return pump()
      }
      if (tool === 'endless') {
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        res.write('event: message\ndata: ')
        let open = true
        res.on('close', () => (open = false))
        // One event that never ends (no blank line), until the client goes away or 200 MB, whichever first.
        const pump = () => {
          while (open && endless < 200 * 1024 * 1024) {
            endless += CHUNK
            if (!res.write('x'.repeat(CHUNK))) return void res.once('drain', pump)
          }
        }
        return pump()
      }
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: { code: -32602, message: `no tool ${String(tool)}` } }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    endlessBytes: () => endless,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

const STDIO_SOURCE = `
import { createInterface } from 'node:readline'
const TOOLS = ${JSON.stringify(TOOLS)}
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n')
createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line)
  if (msg.id === undefined) return
  if (msg.method === 'initialize') return send({ id: msg.id, result: ${JSON.stringify(INIT)} })
  if (msg.method === 'tools/list') return send({ id: msg.id, result: { tools: TOOLS } })
  if (msg.params.name === 'huge') return send({ id: msg.id, result: { content: [{ type: 'text', text: 'x'.repeat(msg.params.arguments.bytes) }] } })
  send({ id: msg.id, result: { content: [{ type: 'text', text: 'ok' }] } })
})
`

/** The stdio server as a script in a fresh temporary folder; returns its path. */
export function writeHostileStdioScript(dir = mkdtempSync(join(tmpdir(), 'mcp-hostile-'))): string {
  const path = join(dir, 'hostile-server.mjs')
  writeFileSync(path, STDIO_SOURCE)
  return path
}
