/**
 * A small OpenAI-API-shaped HTTP server on 127.0.0.1 for tests and benchmarks: POST /v1/chat/completions answers
 * with whatever the test's responder scripts (a reply, a status with headers, latency, or a fault: hang, connection
 * reset, malformed JSON). It counts hits and requests in flight.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

export interface ChatRequest {
  /** 1-based arrival number of this request. */
  hit: number
  path: string
  headers: IncomingHttpHeaders
  /** The decoded JSON body (undefined when it was not JSON). */
  body: any
}

export interface ScriptedReply {
  /** HTTP status; default 200. */
  status?: number
  headers?: Record<string, string>
  /** JSON body; default: a completion built from `content` / `toolCalls`. */
  json?: unknown
  /** Body sent as is (e.g. malformed JSON). */
  raw?: string
  /** Assistant text of the default completion body. */
  content?: string | null
  /** OpenAI-style tool_calls of the default completion body. */
  toolCalls?: unknown[]
  /** Wait this long before answering. */
  delayMs?: number
  /** 'hang': never answer; 'reset': drop the connection without an answer. */
  fault?: 'hang' | 'reset'
  /** Stream this chunk over and over (no Content-Length) until the client goes away: an endless body. */
  endless?: string
}

export type Responder = (req: ChatRequest) => ScriptedReply | Promise<ScriptedReply>

export interface OpenAIServer {
  /** Base URL with the `/v1` prefix, as users give it to `openaiCompatible`. */
  baseURL: string
  /** Requests received so far. */
  readonly hits: number
  /** Requests being answered now, and the most at once. */
  readonly inFlight: number
  readonly peak: number
  /** Every request received, in arrival order (none kept with `keepRequests: false`). */
  readonly requests: ChatRequest[]
  close(): Promise<void>
}

/** A chat completion body with one choice. */
export function completion(content: string | null, toolCalls?: unknown[]): Record<string, unknown> {
  const message: Record<string, unknown> = { role: 'assistant', content }
  if (toolCalls) message['tool_calls'] = toolCalls
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 0,
    model: 'test-model',
    choices: [{ index: 0, message, finish_reason: toolCalls ? 'tool_calls' : 'stop' }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  }
}

/** Write `chunk` whenever the socket drains, until the client closes the connection. */
function streamEndless(res: ServerResponse, chunk: string): void {
  res.writeHead(200, { 'content-type': 'application/json' })
  const pump = () => {
    while (!res.destroyed && res.write(chunk));
    if (!res.destroyed) res.once('drain', pump)
  }
  res.on('close', () => res.removeAllListeners('drain'))
  pump()
}

export interface OpenAIServerOptions {
  /**
   * Keep each request in `requests` (default true). Off for thousands of large bodies that the responder alone
   * reads: kept, they fill the heap the garbage collector walks on every major collection.
   */
  keepRequests?: boolean
}

export async function startOpenAIServer(responder: Responder, options: OpenAIServerOptions = {}): Promise<OpenAIServer> {
  const keepRequests = options.keepRequests ?? true
  const sockets = new Set<Socket>()
  const requests: ChatRequest[] = []
  let hits = 0
  let inFlight = 0
  let peak = 0

  const send = (res: ServerResponse, status: number, headers: Record<string, string>, body: string) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers })
    res.end(body)
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      let body: unknown
      try {
        body = JSON.parse(text)
      } catch {
        body = undefined
      }
      const request: ChatRequest = { hit: ++hits, path: req.url ?? '', headers: req.headers, body }
      if (keepRequests) requests.push(request)
      inFlight++
      peak = Math.max(peak, inFlight)
      let done = false
      const finish = () => {
        if (!done) {
          done = true
          inFlight--
        }
      }
      res.on('finish', finish)
      res.on('close', finish)
      void (async () => {
        if (req.method !== 'POST' || !request.path.split('?')[0]!.endsWith('/chat/completions')) {
          send(res, 404, {}, JSON.stringify({ error: { message: `no route ${req.method} ${request.path}` } }))
          return
        }
        const reply = await responder(request)
        if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs))
        if (reply.fault === 'hang') return
        if (reply.fault === 'reset') {
          const s = req.socket as Socket & { resetAndDestroy?: () => void }
          if (s.resetAndDestroy) s.resetAndDestroy()
          else s.destroy()
          return
        }
        if (reply.endless !== undefined) {
          streamEndless(res, reply.endless)
          return
        }
        const payload =
          reply.raw ?? JSON.stringify(reply.json ?? completion(reply.content === undefined ? '' : reply.content, reply.toolCalls))
        send(res, reply.status ?? 200, reply.headers ?? {}, payload)
      })().catch((err: unknown) => {
        send(res, 500, {}, JSON.stringify({ error: { message: `test server: ${String(err)}` } }))
      })
    })
  })
  server.keepAliveTimeout = 60_000
  server.on('connection', (s: Socket) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    get hits() {
      return hits
    },
    get inFlight() {
      return inFlight
    },
    get peak() {
      return peak
    },
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  }
}
