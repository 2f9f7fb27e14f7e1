/**
 * Requests to the Hub, each bounded: a body is read as a stream and abandoned past `maxBytes`, the file list's pages
 * stop at `maxPages`, and a Parquet file read with `limit` is fetched by HTTP ranges (footer first, then only the row
 * groups it needs). Every message built from a response is scrubbed of the token whole, before it is cut.
 */
import type { AsyncBuffer } from 'hyparquet'
import { repoFileOf, type RepoFile } from './hf-splits.js'
import { formatBytes, HubLimitError, type ResolvedHubLimits } from './hub-limits.js'
import { clip } from './secrets.js'

/** Where the Hub is and how to reach it; `hubConfigFromEnv` (hf.ts) reads the usual variables. */
export interface HubConfig {
  /** The Hub's base URL (`HF_ENDPOINT`, default https://huggingface.co). */
  endpoint: string
  /** `HF_TOKEN`: sent as `Authorization: Bearer`, never shown. */
  token?: string
  /** `HF_HUB_OFFLINE`: read the cache only. */
  offline: boolean
  /** The cache folder (`TOOL_EVALS_HF_CACHE`, default `.tool-evals-cache/hf` in the working directory). */
  cacheDir: string
  /** Per-request timeout in ms (default 60 s). */
  timeoutMs?: number
}

/** A failure to reach or read the Hub, its message already free of the token. */
export class HubError extends Error {}

const DEFAULT_TIMEOUT_MS = 60_000
/** Characters of the server's own error message kept. */
const SERVER_MESSAGE_CHARS = 300
/** The last bytes of a Parquet file asked for first: its footer usually fits. */
const TAIL_BYTES = 64 * 1024

export async function hubGet(hub: HubConfig, url: string, what: string, headers: Record<string, string> = {}): Promise<Response> {
  const all: Record<string, string> = { 'user-agent': 'vitest-tool-evals', ...headers }
  if (hub.token) all['authorization'] = `Bearer ${hub.token}`
  let res: Response
  try {
    res = await fetch(url, { headers: all, redirect: 'follow', signal: AbortSignal.timeout(hub.timeoutMs ?? DEFAULT_TIMEOUT_MS) })
  } catch (err) {
    const cause = (err as Error & { cause?: Error }).cause?.message ?? (err as Error).message
    throw new HubError(`cannot reach the Hub at ${hub.endpoint} for ${what} (${clip(cause, SERVER_MESSAGE_CHARS, hub.token)}); with the dataset cached, HF_HUB_OFFLINE=1 reads the cache`)
  }
  if (res.ok) return res
  const said = res.headers.get('x-error-message')
  // Scrubbed whole, then cut: a cut could split the token and leave most of it.
  const detail = said ? `: ${clip(said, SERVER_MESSAGE_CHARS, hub.token)}` : ''
  await res.body?.cancel().catch(() => undefined)
  if (res.status === 401 || res.status === 403) {
    const hint = hub.token ? 'HF_TOKEN does not grant access to it' : 'the dataset is private or gated: set HF_TOKEN'
    throw new HubError(`${what}: HTTP ${res.status}${detail} (${hint})`)
  }
  if (res.status === 404) throw new HubError(`${what}: HTTP 404${detail} (check the dataset name and revision; a private dataset answers 404 without HF_TOKEN)`)
  throw new HubError(`${what}: HTTP ${res.status}${detail}`)
}

/** A response's body, read as a stream and abandoned once it passes `maxBytes` (an endless body ends here). */
export async function readCapped(res: Response, maxBytes: number, what: string, token: string | undefined): Promise<Uint8Array> {
  const declared = Number(res.headers.get('content-length'))
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel().catch(() => undefined)
    throw new HubLimitError(`${what} is ${formatBytes(declared)}`, 'maxBytes', maxBytes)
  }
  const chunks: Uint8Array[] = []
  let total = 0
  const reader = res.body?.getReader()
  try {
    for (;;) {
      const next = await reader?.read()
      if (next === undefined || next.done) break
      total += next.value.byteLength
      if (total > maxBytes) throw new HubLimitError(`${what} grew past the limit while downloading`, 'maxBytes', maxBytes)
      chunks.push(next.value)
    }
  } catch (err) {
    await reader?.cancel().catch(() => undefined)
    if (err instanceof HubLimitError) throw err
    throw new HubError(`downloading ${what} failed: ${clip((err as Error).message, SERVER_MESSAGE_CHARS, token)}`)
  }
  const out = new Uint8Array(total)
  let at = 0
  for (const c of chunks) {
    out.set(c, at)
    at += c.byteLength
  }
  return out
}

/** The repository's files at `revision`, following the tree API's pages (at most `maxPages`). */
export async function fetchTree(hub: HubConfig, repo: string, revision: string, limits: ResolvedHubLimits): Promise<RepoFile[]> {
  const files: RepoFile[] = []
  const what = `the file list of ${repo}@${revision}`
  let url: string | undefined = `${hub.endpoint}/api/datasets/${repo}/tree/${encodeURIComponent(revision)}?recursive=true&expand=false`
  const origin = new URL(hub.endpoint).origin
  for (let page = 1; url !== undefined; page++) {
    if (page > limits.maxPages) throw new HubLimitError(`${what} kept paging (Link: rel="next")`, 'maxPages', limits.maxPages)
    const res = await hubGet(hub, url, what)
    const bytes = await readCapped(res, limits.maxBytes, `a page of ${what}`, hub.token)
    let body: unknown
    try {
      body = JSON.parse(new TextDecoder().decode(bytes))
    } catch {
      throw new HubError(`${what} is not JSON`)
    }
    if (!Array.isArray(body)) throw new HubError(`${what} is not a JSON array`)
    for (const item of body) {
      const file = repoFileOf(item)
      if (file) files.push(file)
    }
    const next = nextPage(res.headers.get('link'))
    // The token goes to the endpoint only: a next page elsewhere is not followed.
    url = next !== undefined && new URL(next, url).origin === origin ? new URL(next, url).href : undefined
  }
  return files
}

/** The `rel="next"` URL of a `Link` header. */
function nextPage(link: string | null): string | undefined {
  if (!link) return undefined
  for (const part of link.split(',')) {
    const m = /<([^>]*)>\s*;\s*rel="?next"?/.exec(part)
    if (m) return m[1]
  }
  return undefined
}

/** A file's resolve URL. */
export function resolveUrl(hub: HubConfig, repo: string, revision: string, path: string): string {
  return `${hub.endpoint}/datasets/${repo}/resolve/${encodeURIComponent(revision)}/${path.split('/').map(encodeURIComponent).join('/')}`
}

/** A file downloaded whole, at most `maxBytes`. */
export async function downloadFile(hub: HubConfig, url: string, path: string, maxBytes: number): Promise<Uint8Array> {
  const res = await hubGet(hub, url, path)
  return readCapped(res, maxBytes, path, hub.token)
}

/**
 * A remote file read by ranges: its last bytes first (the `Content-Range` gives its size), then each range hyparquet
 * asks for, all of them together at most `maxBytes`. A server that ignores `Range` sends the whole file: that is
 * returned instead (still capped), to be read and cached like a download.
 */
export async function openRanged(hub: HubConfig, url: string, path: string, maxBytes: number): Promise<{ whole: Uint8Array } | { ranged: AsyncBuffer }> {
  const first = await hubGet(hub, url, path, { range: `bytes=-${TAIL_BYTES}` })
  if (first.status !== 206) return { whole: await readCapped(first, maxBytes, path, hub.token) }
  const size = totalSize(first.headers.get('content-range'))
  const tail = await readCapped(first, maxBytes, path, hub.token)
  if (size === undefined || tail.byteLength > size) throw new HubError(`${path}: the server's Content-Range is not one this reader understands`)
  let fetched = tail.byteLength
  const tailStart = size - tail.byteLength
  const slice = async (start: number, end = size): Promise<ArrayBuffer> => {
    if (start >= tailStart) return tail.slice(start - tailStart, end - tailStart).buffer
    if (end <= start) return new ArrayBuffer(0)
    const left = maxBytes - fetched
    const what = `${path} (${formatBytes(fetched)} read in ranges, ${formatBytes(end - start)} more asked)`
    if (end - start > left) throw new HubLimitError(what, 'maxBytes', maxBytes)
    const res = await hubGet(hub, url, path, { range: `bytes=${start}-${end - 1}` })
    const bytes = await readCapped(res, left, path, hub.token)
    if (res.status !== 206 || bytes.byteLength !== end - start) throw new HubError(`${path}: the server did not answer the byte range ${start}-${end - 1}`)
    fetched += bytes.byteLength
    return bytes.buffer as ArrayBuffer
  }
  return { ranged: { byteLength: size, slice } }
}

/** The total of `Content-Range: bytes a-b/total`. */
function totalSize(header: string | null): number | undefined {
  const m = header ? /^bytes \d+-\d+\/(\d+)$/.exec(header.trim()) : null
  return m ? Number(m[1]) : undefined
}
