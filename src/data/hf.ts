/**
 * Hugging Face Hub datasets as eval data: `data: 'hf://datasets/<owner>/<name>'` with a split (and a revision, and a
 * config when the dataset has several). The file list comes from the Hub's tree API
 * (`GET {endpoint}/api/datasets/{repo}/tree/{revision}?recursive=true`, paged by `Link: <...>; rel="next"`), the files
 * from their resolve URLs (`GET {endpoint}/datasets/{repo}/resolve/{revision}/{path}`), as `huggingface_hub` reads
 * them. Files are cached on disk per repository, revision and path, and fetched again only when the tree says their
 * content changed; `HF_HUB_OFFLINE=1` reads the cache alone. `HF_TOKEN` is sent as a bearer token to the endpoint
 * (fetch drops it on a redirect to another origin, such as the Hub's CDN) and never appears in a message.
 *
 * Every problem is an entry error (the run goes on and shows it as a failing test), never a throw.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { capSamples, checkUniqueIds, pushJsonlEntries, pushObjectEntries } from './entries.js'
import { chooseSplitFiles, dataFormatOf, type RepoFile } from './hf-splits.js'
import { readParquetRows } from './parquet.js'
import type { DataEntry, DataOptions } from './types.js'

/** Where the Hub is and how to reach it; `hubConfigFromEnv` reads the usual variables. */
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

export interface HfDataset {
  /** `owner/name` */
  repo: string
}

const HF_PREFIX = 'hf://datasets/'
const REPO_PART = /^[A-Za-z0-9][A-Za-z0-9._-]*$/
const DEFAULT_TIMEOUT_MS = 60_000

export function hubConfigFromEnv(env: NodeJS.ProcessEnv = process.env): HubConfig {
  const config: HubConfig = {
    endpoint: (env['HF_ENDPOINT'] || 'https://huggingface.co').replace(/\/+$/, ''),
    offline: /^(1|on|yes|true)$/i.test(env['HF_HUB_OFFLINE'] ?? ''),
    cacheDir: resolve(env['TOOL_EVALS_HF_CACHE'] || join('.tool-evals-cache', 'hf')),
  }
  const token = env['HF_TOKEN']?.trim()
  if (token) config.token = token
  return config
}

/** Whether a data source names a Hub dataset. */
export function isHfSource(source: unknown): source is string | URL {
  if (typeof source === 'string') return source.startsWith('hf://')
  return source instanceof URL && source.protocol === 'hf:'
}

/** `hf://datasets/owner/name` as its repository id, or why it is not one. */
export function parseHfUri(uri: string): { ok: true; value: HfDataset } | { ok: false; message: string } {
  const bad = `not a Hub dataset: write \`hf://datasets/<owner>/<name>\` (revision, split and config are options)`
  if (!uri.startsWith(HF_PREFIX)) return { ok: false, message: bad }
  const parts = uri.slice(HF_PREFIX.length).replace(/\/+$/, '').split('/')
  if (parts.length !== 2 || !parts.every((p) => REPO_PART.test(p) && !p.includes('..'))) return { ok: false, message: bad }
  return { ok: true, value: { repo: parts.join('/') } }
}

/** A failure to reach or read the Hub, its message already free of the token. */
class HubError extends Error {}

/** The entries of a Hub dataset's split. */
export async function loadHfDataset(uri: string, options: DataOptions = {}, hub: HubConfig = hubConfigFromEnv()): Promise<DataEntry[]> {
  const fail = (field: string, message: string): DataEntry[] => [{ error: { where: uri, field, message: scrub(message, hub.token) } }]
  const parsed = parseHfUri(uri)
  if (!parsed.ok) return fail('data', parsed.message)
  const { repo } = parsed.value
  const revision = options.revision ?? 'main'
  // The revision names a cache folder too: nothing that would step out of it.
  if (revision === '' || revision === '.' || revision === '..' || revision.includes('\0')) return fail('revision', `not a revision: "${revision}"`)
  const cache = new RepoCache(hub.cacheDir, repo, revision)
  let tree: RepoFile[]
  try {
    tree = hub.offline ? cache.readTree(uri) : await fetchTree(hub, repo, revision)
    if (!hub.offline) cache.writeTree(tree)
  } catch (err) {
    return fail('', (err as Error).message)
  }
  const choice = chooseSplitFiles(tree, options.split, options.config)
  if (!choice.ok) return fail(choice.field, choice.message)

  const base = revision === 'main' ? `hf://datasets/${repo}` : `hf://datasets/${repo}@${revision}`
  const entries: DataEntry[] = []
  const wheres: string[] = []
  let budget = options.limit ?? Infinity
  for (const file of choice.value.files) {
    if (budget <= 0) break
    const name = `${base}/${file.path}`
    let bytes: Uint8Array
    try {
      bytes = hub.offline ? cache.readFile(file, uri) : await cachedDownload(hub, cache, repo, revision, file)
    } catch (err) {
      entries.push({ error: { where: name, field: '', message: scrub((err as Error).message, hub.token) } })
      wheres.push(name)
      continue
    }
    budget -= await pushFileEntries(entries, wheres, bytes, name, dataFormatOf(file.path) ?? 'jsonl', budget)
  }
  return capSamples(checkUniqueIds(entries, wheres), options.maxSamples)
}

/** Appends one file's entries (at most `budget` rows or lines); returns how many it read. */
async function pushFileEntries(
  entries: DataEntry[],
  wheres: string[],
  bytes: Uint8Array,
  name: string,
  format: 'jsonl' | 'parquet',
  budget: number,
): Promise<number> {
  if (format === 'jsonl') return pushJsonlEntries(entries, wheres, new TextDecoder().decode(bytes), name, budget)
  let rows
  try {
    rows = await readParquetRows(bytes, budget)
  } catch (err) {
    entries.push({ error: { where: name, field: '', message: `cannot read the Parquet file: ${(err as Error).message}` } })
    wheres.push(name)
    return 1
  }
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i] as (typeof rows)[number]
    // Rows count from 0, as `datasets` indexes them (`ds[3]`).
    const where = `${name} row ${i}`
    if (row.value) pushObjectEntries(entries, wheres, row.value, where, undefined)
    else {
      entries.push({ error: { where, field: row.field, message: row.message } })
      wheres.push(where)
    }
  }
  return rows.length
}

/** The repository's files at `revision`, following the tree API's pages. */
async function fetchTree(hub: HubConfig, repo: string, revision: string): Promise<RepoFile[]> {
  const files: RepoFile[] = []
  let url: string | undefined = `${hub.endpoint}/api/datasets/${repo}/tree/${encodeURIComponent(revision)}?recursive=true&expand=false`
  const origin = new URL(hub.endpoint).origin
  for (let page = 0; url !== undefined; page++) {
    if (page > 10_000) throw new HubError('the tree API kept paging: giving up')
    const res = await hubGet(hub, url, `the file list of ${repo}@${revision}`)
    let body: unknown
    try {
      body = await res.json()
    } catch {
      throw new HubError(`the file list of ${repo}@${revision} is not JSON`)
    }
    if (!Array.isArray(body)) throw new HubError(`the file list of ${repo}@${revision} is not a JSON array`)
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

function repoFileOf(item: unknown): RepoFile | undefined {
  if (item === null || typeof item !== 'object') return undefined
  const o = item as Record<string, unknown>
  if (o['type'] !== 'file' || typeof o['path'] !== 'string' || !isSafeRepoPath(o['path'])) return undefined
  const lfs = o['lfs'] as Record<string, unknown> | undefined
  const oid = typeof lfs?.['oid'] === 'string' ? lfs['oid'] : typeof o['oid'] === 'string' ? o['oid'] : ''
  return { path: o['path'], size: typeof o['size'] === 'number' ? o['size'] : 0, oid }
}

/** A path that stays inside the cache folder when joined to it. */
function isSafeRepoPath(path: string): boolean {
  if (path.length === 0 || path.length > 1000 || path.includes('\\') || path.includes('\0')) return false
  return path.split('/').every((seg) => seg !== '' && seg !== '.' && seg !== '..')
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

async function cachedDownload(hub: HubConfig, cache: RepoCache, repo: string, revision: string, file: RepoFile): Promise<Uint8Array> {
  const cached = cache.readFileIfCurrent(file)
  if (cached) return cached
  const path = file.path.split('/').map(encodeURIComponent).join('/')
  const url = `${hub.endpoint}/datasets/${repo}/resolve/${encodeURIComponent(revision)}/${path}`
  const res = await hubGet(hub, url, file.path)
  let bytes: Uint8Array
  try {
    bytes = new Uint8Array(await res.arrayBuffer())
  } catch (err) {
    throw new HubError(`downloading ${file.path} failed: ${(err as Error).message}`)
  }
  cache.writeFile(file, bytes)
  return bytes
}

async function hubGet(hub: HubConfig, url: string, what: string): Promise<Response> {
  const headers: Record<string, string> = { 'user-agent': 'vitest-tool-evals' }
  if (hub.token) headers['authorization'] = `Bearer ${hub.token}`
  let res: Response
  try {
    res = await fetch(url, { headers, redirect: 'follow', signal: AbortSignal.timeout(hub.timeoutMs ?? DEFAULT_TIMEOUT_MS) })
  } catch (err) {
    const cause = (err as Error & { cause?: Error }).cause?.message ?? (err as Error).message
    throw new HubError(`cannot reach the Hub at ${hub.endpoint} for ${what} (${cause}); with the dataset cached, HF_HUB_OFFLINE=1 reads the cache`)
  }
  if (res.ok) return res
  const said = res.headers.get('x-error-message')
  const detail = said ? `: ${said.slice(0, 300)}` : ''
  await res.body?.cancel().catch(() => undefined)
  if (res.status === 401 || res.status === 403) {
    const hint = hub.token ? 'HF_TOKEN does not grant access to it' : 'the dataset is private or gated: set HF_TOKEN'
    throw new HubError(`${what}: HTTP ${res.status}${detail} (${hint})`)
  }
  if (res.status === 404) throw new HubError(`${what}: HTTP 404${detail} (check the dataset name and revision; a private dataset answers 404 without HF_TOKEN)`)
  throw new HubError(`${what}: HTTP ${res.status}${detail}`)
}

/** The token, wherever it may have been echoed (a server's message, an error's text), replaced. */
export function scrub(text: string, token: string | undefined): string {
  return token ? text.split(token).join('***') : text
}

/**
 * The disk cache of one repository at one revision: `tree.json` (the file list as last fetched), `files/<path>` and
 * `oids/<path>` (the content id the cached file has, so a changed file is fetched again).
 */
class RepoCache {
  readonly dir: string

  constructor(root: string, repo: string, revision: string) {
    this.dir = join(root, 'datasets', ...repo.split('/'), encodeURIComponent(revision))
  }

  readTree(uri: string): RepoFile[] {
    let text: string
    try {
      text = readFileSync(join(this.dir, 'tree.json'), 'utf8')
    } catch {
      throw new HubError(`HF_HUB_OFFLINE is set and ${uri} at this revision is not in the cache (${this.dir}): run once online first`)
    }
    try {
      return (JSON.parse(text) as unknown[]).map(repoFileOf).filter((f): f is RepoFile => f !== undefined)
    } catch {
      throw new HubError(`the cached file list ${join(this.dir, 'tree.json')} is corrupt: run once online to refresh it`)
    }
  }

  writeTree(files: RepoFile[]): void {
    writeAtomic(join(this.dir, 'tree.json'), JSON.stringify(files.map((f) => ({ type: 'file', ...f }))))
  }

  readFile(file: RepoFile, uri: string): Uint8Array {
    try {
      return readFileSync(join(this.dir, 'files', file.path))
    } catch {
      throw new HubError(`HF_HUB_OFFLINE is set and ${file.path} of ${uri} is not in the cache (${this.dir}): run once online first`)
    }
  }

  readFileIfCurrent(file: RepoFile): Uint8Array | undefined {
    try {
      if (!file.oid || readFileSync(join(this.dir, 'oids', file.path), 'utf8') !== file.oid) return undefined
      return readFileSync(join(this.dir, 'files', file.path))
    } catch {
      return undefined
    }
  }

  writeFile(file: RepoFile, bytes: Uint8Array): void {
    // A cache that cannot be written costs a download next time, nothing more.
    try {
      writeAtomic(join(this.dir, 'files', file.path), bytes)
      writeAtomic(join(this.dir, 'oids', file.path), file.oid)
    } catch {
      /* keep going */
    }
  }
}

/** Write then rename: eval files in parallel workers may fill the same cache at once. */
function writeAtomic(path: string, data: string | Uint8Array): void {
  mkdirSync(dirname(path), { recursive: true })
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`
  writeFileSync(tmp, data)
  renameSync(tmp, path)
}
