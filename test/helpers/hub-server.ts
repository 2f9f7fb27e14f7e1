/**
 * A Hugging Face Hub-shaped HTTP server on 127.0.0.1 for the `hf://` data tests: one dataset repository whose files
 * it lists through the tree API (`GET /api/datasets/{repo}/tree/{revision}`, paged with `Link: rel="next"`) and
 * serves through resolve URLs (`GET /datasets/{repo}/resolve/{revision}/{path}`). With `token`, requests without
 * `Authorization: Bearer <token>` get 401, and the 401's `X-Error-Message` echoes the header received (as a careless
 * server might), so the client's scrubbing is tested against a real echo.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { parquetWriteBuffer } from 'hyparquet-writer'

export interface HubRequest {
  path: string
  authorization: string | undefined
  range?: string | undefined
}

export interface HubServer {
  url: string
  requests: HubRequest[]
  /** Bytes of file content sent from resolve URLs (whole files and ranges). */
  fileBytesServed(): number
  close(): Promise<void>
}

export interface HubServerOptions {
  repo: string
  revision?: string
  files: Record<string, string | Uint8Array>
  token?: string
  /** Tree entries per page (default: all on one page). */
  pageSize?: number
  /** Answer resolve URLs with a redirect to `<cdn>/cdn/<path>` (as the Hub sends LFS files to its CDN). */
  cdn?: string
  /** Answer `Range: bytes=a-b` and `bytes=-n` on resolve URLs with 206, as the Hub does (default true). */
  ranges?: boolean
  /** A hostile server's own answer to a request: return true when it answered. */
  intercept?: (req: IncomingMessage, res: ServerResponse) => boolean
}

export async function startHubServer(options: HubServerOptions): Promise<HubServer> {
  const revision = options.revision ?? 'main'
  const requests: HubRequest[] = []
  let served = 0
  const sockets = new Set<Socket>()
  const paths = Object.keys(options.files).sort()
  const treePrefix = `/api/datasets/${options.repo}/tree/${encodeURIComponent(revision)}`
  const resolvePrefix = `/datasets/${options.repo}/resolve/${encodeURIComponent(revision)}/`
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const authorization = req.headers.authorization
    requests.push({ path: url.pathname, authorization, range: req.headers.range })
    if (options.intercept?.(req, res)) return
    // The CDN side: files by path, no authentication (a second server plays it, on another origin).
    if (url.pathname.startsWith('/cdn/')) {
      const content = options.files[decodeURIComponent(url.pathname.slice('/cdn/'.length))]
      res.writeHead(content === undefined ? 404 : 200)
      res.end(content)
      return
    }
    if (options.token && authorization !== `Bearer ${options.token}`) {
      res.writeHead(401, { 'x-error-message': `Invalid credentials in Authorization header (${authorization ?? 'none'})` })
      res.end()
      return
    }
    if (url.pathname === treePrefix) {
      const size = options.pageSize ?? paths.length
      const start = Number(url.searchParams.get('cursor') ?? 0)
      const page = paths.slice(start, start + size).map((path) => {
        const content = options.files[path] as string | Uint8Array
        return { type: 'file', oid: `oid-${path}-${byteLength(content)}`, size: byteLength(content), path }
      })
      const headers: Record<string, string> = { 'content-type': 'application/json' }
      if (start + size < paths.length) headers['link'] = `<${treePrefix}?recursive=true&cursor=${start + size}>; rel="next"`
      res.writeHead(200, headers)
      res.end(JSON.stringify(start === 0 ? [{ type: 'directory', oid: 'd', size: 0, path: 'data' }, ...page] : page))
      return
    }
    if (url.pathname.startsWith(resolvePrefix)) {
      const path = decodeURIComponent(url.pathname.slice(resolvePrefix.length))
      const content = options.files[path]
      if (content !== undefined && options.cdn) {
        res.writeHead(302, { location: `${options.cdn}/cdn/${encodeURI(path)}` })
        res.end()
        return
      }
      if (content !== undefined) {
        const bytes = typeof content === 'string' ? Buffer.from(content) : Buffer.from(content.buffer, content.byteOffset, content.byteLength)
        const range = options.ranges === false ? undefined : byteRange(req.headers.range, bytes.length)
        const body = range ? bytes.subarray(range[0], range[1] + 1) : bytes
        const headers: Record<string, string> = { 'content-type': 'application/octet-stream', 'accept-ranges': 'bytes' }
        if (range) headers['content-range'] = `bytes ${range[0]}-${range[1]}/${bytes.length}`
        res.writeHead(range ? 206 : 200, headers)
        served += body.length
        res.end(body)
        return
      }
    }
    res.writeHead(404, { 'x-error-message': 'Entry not found' })
    res.end()
  })
  server.on('connection', (s) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    fileBytesServed: () => served,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy()
        server.close(() => r())
      }),
  }
}

/** The inclusive range `bytes=a-b`, `bytes=a-` or `bytes=-n` asks of a body of `size` bytes. */
function byteRange(header: string | undefined, size: number): [number, number] | undefined {
  const m = header ? /^bytes=(\d*)-(\d*)$/.exec(header) : null
  if (!m || (m[1] === '' && m[2] === '')) return undefined
  if (m[1] === '') return [Math.max(0, size - Number(m[2])), size - 1]
  return [Number(m[1]), Math.min(size - 1, m[2] === '' ? size - 1 : Number(m[2]))]
}

function byteLength(content: string | Uint8Array): number {
  return typeof content === 'string' ? Buffer.byteLength(content) : content.byteLength
}

/** Sample rows as a Parquet file the way Hub tool-calling datasets store them: the variable parts as JSON text. */
export function sampleParquet(rows: { id: string; messages: unknown; tools?: unknown; expected: unknown }[]): Uint8Array {
  const text = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v))
  const buffer = parquetWriteBuffer({
    columnData: [
      { name: 'id', data: rows.map((r) => r.id), type: 'STRING' },
      { name: 'messages', data: rows.map((r) => r.messages), type: 'JSON' },
      { name: 'tools', data: rows.map((r) => text(r.tools ?? [])), type: 'STRING' },
      { name: 'expected', data: rows.map((r) => text(r.expected)), type: 'STRING' },
      { name: 'difficulty', data: rows.map((_, i) => BigInt(i)), type: 'INT64' },
    ],
  })
  return new Uint8Array(buffer)
}
