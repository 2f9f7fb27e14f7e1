/**
 * A live connection to an MCP server through `@modelcontextprotocol/sdk`, loaded only when a live or recording run
 * first asks the server something (replay needs no SDK and no server), so projects that never use MCP never load it.
 *
 * The server's answers (a result, or a JSON-RPC error it sent) come back as an `McpAnswer`; a failure of the server
 * itself (it could not start, it exited, it hung past the timeout, the HTTP connection broke) throws a
 * `ToolRuntimeError`, which errors the sample instead of going back to the model. After such a failure the connection
 * is dropped (a hung server is killed), and the next request starts the server again: one bad sample stays one.
 *
 * Answers are bounded by `maxResultBytes`: over HTTP by a counting `fetch` (bounded-fetch.ts), over stdio by the
 * SDK's read buffer, set to the same size. Either way the SDK reports only a broken or closed connection: the size
 * seen here turns that into an error that says the answer was too large.
 */
import { ToolRuntimeError } from '../environment.js'
import { boundedFetch, type Oversize } from './bounded-fetch.js'
import { describeServer, isStdio, scrubSecrets, type McpPlan } from './server.js'
import { scrubDeep } from '../../data/secrets.js'

export type McpMethod = 'tools/list' | 'tools/call'

/** What the server answered: its result, or the JSON-RPC error it sent. */
export type McpAnswer = { result: Record<string, unknown>; error?: undefined } | { error: { code: number; message: string }; result?: undefined }

export interface McpWire {
  request(method: McpMethod, params: Record<string, unknown>): Promise<McpAnswer>
  close(): Promise<void>
}

/** The parts of the SDK used here (typed structurally, so the package compiles without it). */
interface SdkClient {
  connect(transport: unknown, options?: { timeout?: number }): Promise<void>
  listTools(params?: Record<string, unknown>, options?: { timeout?: number }): Promise<Record<string, unknown>>
  callTool(params: Record<string, unknown>, schema?: unknown, options?: { timeout?: number }): Promise<Record<string, unknown>>
  close(): Promise<void>
  onclose?: () => void
}
interface Sdk {
  Client: new (info: { name: string; version: string }) => SdkClient
  StdioClientTransport: new (params: Record<string, unknown>) => { stderr: NodeJS.ReadableStream | null }
  StreamableHTTPClientTransport: new (url: URL, options?: Record<string, unknown>) => unknown
}

const SDK = '@modelcontextprotocol/sdk'
// The SDK's own codes for a request that never got an answer (not errors the server sent).
const CONNECTION_CLOSED = -32000
const REQUEST_TIMEOUT = -32001
const STDERR_TAIL = 1000

let sdk: Promise<Sdk> | undefined

function loadSdk(): Promise<Sdk> {
  sdk ??= Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js') as Promise<unknown> as Promise<{ Client: Sdk['Client'] }>,
    import('@modelcontextprotocol/sdk/client/stdio.js') as Promise<unknown> as Promise<{ StdioClientTransport: Sdk['StdioClientTransport'] }>,
    import('@modelcontextprotocol/sdk/client/streamableHttp.js') as Promise<unknown> as Promise<{
      StreamableHTTPClientTransport: Sdk['StreamableHTTPClientTransport']
    }>,
  ]).then(
    ([client, stdio, http]) => ({
      Client: client.Client,
      StdioClientTransport: stdio.StdioClientTransport,
      StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
    }),
    (err: unknown) => {
      sdk = undefined
      throw new ToolRuntimeError(
        `mcpTools needs ${SDK} to talk to a server (replaying a recording does not): npm i -D ${SDK} (${err instanceof Error ? err.message : String(err)})`,
        `${SDK} is not installed`,
      )
    },
  )
  return sdk
}

interface Live {
  client: SdkClient
  closed: boolean
  stderr: string
  /** Rejects the requests in flight when the HTTP transport breaks (the SDK only reports that to `onerror`). */
  broken: Set<(err: unknown) => void>
  /** Set when an answer was cut for its size: the next failure is explained by it. */
  oversize?: Oversize
}

// The SDK's stdio read buffer, when a message outgrows it (its only report of that, before "Connection closed").
const STDIO_OVERSIZE = /ReadBuffer exceeded maximum size of (\d+) bytes/

/** A connection that starts the server on first use and again after it failed. */
export function liveWire(plan: McpPlan): McpWire {
  let current: Promise<Live> | undefined
  const who = describeServer(plan)
  const fail = (what: string, reason: string, live?: Live) => {
    const tail = live?.stderr.trim() ? `; its stderr ends: ${live.stderr.trim().slice(-300)}` : ''
    return new ToolRuntimeError(scrubSecrets(`${who}: ${what}${tail}`, plan.secrets), scrubSecrets(`${who}: ${reason}`, plan.secrets))
  }

  async function open(): Promise<Live> {
    const { Client, StdioClientTransport, StreamableHTTPClientTransport } = await loadSdk()
    const client = new Client({ name: 'vitest-tool-evals', version: '1' })
    const live: Live = { client, closed: false, stderr: '', broken: new Set() }
    let transport: unknown
    if (isStdio(plan.server)) {
      const s = plan.server
      const stdio = new StdioClientTransport({
        command: s.command,
        args: s.args ?? [],
        env: s.env,
        cwd: s.cwd,
        stderr: 'pipe',
        maxBufferSize: plan.maxResultBytes,
      })
      // Kept for the error message when the server dies; never printed as it comes.
      stdio.stderr?.on('data', (chunk: Buffer) => {
        live.stderr = (live.stderr + chunk.toString()).slice(-STDERR_TAIL)
      })
      transport = stdio
    } else {
      const fetch = boundedFetch(plan.maxResultBytes, (o) => (live.oversize = o))
      const init = plan.server.headers ? { requestInit: { headers: plan.server.headers }, fetch } : { fetch }
      transport = new StreamableHTTPClientTransport(new URL(String(plan.server.url)), init)
    }
    client.onclose = () => {
      live.closed = true
    }
    ;(client as SdkClient & { onerror?: (err: unknown) => void }).onerror = (err) => {
      const over = STDIO_OVERSIZE.exec(errorText(err))
      if (over) live.oversize = { limit: Number(over[1]), bytes: Number(over[1]) + 1, what: 'response' }
      // A server gone mid-response breaks the HTTP stream; without this the request would wait for its timeout.
      if (!isStdio(plan.server) || over) for (const reject of live.broken) reject(err)
    }
    try {
      await client.connect(transport, { timeout: plan.startTimeoutMs })
    } catch (err) {
      await client.close().catch(() => {})
      throw fail(`could not connect: ${errorText(err)}`, 'could not connect', live)
    }
    return live
  }

  async function connection(): Promise<Live> {
    if (current) {
      const live = await current.catch(() => undefined)
      if (live && !live.closed) return live
      current = undefined
    }
    const opening = open()
    current = opening
    return opening
  }

  async function drop(live: Live): Promise<void> {
    live.closed = true
    if (current) current = undefined
    await live.client.close().catch(() => {})
  }

  return {
    async request(method, params) {
      const live = await connection()
      const options = { timeout: plan.timeoutMs }
      let reject: ((err: unknown) => void) | undefined
      const broke = new Promise<never>((_, r) => (reject = r))
      live.broken.add(reject as (err: unknown) => void)
      try {
        const asked = method === 'tools/list' ? live.client.listTools(params, options) : live.client.callTool(params, undefined, options)
        // A result that echoes a secret of the plan (an env value, a header) is scrubbed as error text is: what the
        // model, the recording and the report see never holds it.
        return { result: scrubDeep(await Promise.race([asked, broke]), plan.secrets) }
      } catch (err) {
        const code = (err as { code?: unknown }).code
        const what = method === 'tools/call' ? `tools/call ${String(params['name'])}` : method
        if (live.oversize) {
          const o = live.oversize
          await drop(live)
          throw fail(oversizeText(what, o, isStdio(plan.server)), `the answer to ${method} is larger than maxResultBytes`)
        }
        if (code === REQUEST_TIMEOUT) {
          // A hung server may never answer anything again: kill it, the next request starts a fresh one.
          await drop(live)
          throw fail(`${what} timed out after ${plan.timeoutMs} ms`, `${method} timed out`)
        }
        if (typeof code === 'number' && code !== CONNECTION_CLOSED && !live.closed) {
          return { error: { code, message: scrubSecrets(serverMessage(err), plan.secrets) } }
        }
        await drop(live)
        // Give the process a moment to flush its last words to stderr before they are quoted.
        await new Promise((r) => setTimeout(r, 20))
        throw fail(`the server failed during ${what}: ${errorText(err)}`, `the server failed during ${method}`, live)
      } finally {
        live.broken.delete(reject as (err: unknown) => void)
      }
    },
    async close() {
      const opened = current
      current = undefined
      const live = await opened?.catch(() => undefined)
      if (live) await drop(live)
    },
  }
}

function oversizeText(what: string, o: Oversize, stdio: boolean): string {
  const limit = `maxResultBytes (${o.limit} bytes)`
  if (stdio) {
    return `the answer to ${what} is larger than ${limit}: the SDK's stdio transport stops reading a message over that size and closes the connection (raise maxResultBytes if the tool's answers are this large)`
  }
  const got = o.what === 'event' ? `one server-sent event reached ${o.bytes} bytes` : `the response reached ${o.bytes} bytes`
  return `the answer to ${what} is larger than ${limit}: ${got} and was cut off (raise maxResultBytes if the tool's answers are this large)`
}

function errorText(err: unknown): string {
  const e = err as { message?: unknown; cause?: { message?: unknown } }
  const message = typeof e?.message === 'string' ? e.message : String(err)
  const cause = typeof e?.cause?.message === 'string' ? ` (${e.cause.message})` : ''
  return message + cause
}

/** The message the server sent, without the SDK's `MCP error <code>: ` prefix (the code is kept beside it). */
function serverMessage(err: unknown): string {
  return errorText(err).replace(/^(MCP error -?\d+: )+/, '')
}
