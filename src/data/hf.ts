/**
 * Hugging Face Hub datasets as eval data: `data: 'hf://datasets/<owner>/<name>'` with a split (and a revision, and a
 * config when the dataset has several). The file list comes from the Hub's tree API
 * (`GET {endpoint}/api/datasets/{repo}/tree/{revision}?recursive=true`, paged by `Link: <...>; rel="next"`), the files
 * from their resolve URLs (`GET {endpoint}/datasets/{repo}/resolve/{revision}/{path}`), as `huggingface_hub` reads
 * them. Files are cached on disk per repository, revision and path, and fetched again only when the tree says their
 * content changed; `HF_HUB_OFFLINE=1` reads the cache alone. `HF_TOKEN` is sent as a bearer token to the endpoint
 * (fetch drops it on a redirect to another origin, such as the Hub's CDN) and never appears in a message.
 *
 * What a load may cost is bounded (`hub` limits, hub-limits.ts): bytes per response, pages of the file list, and per
 * Parquet file its row groups, rows and decompressed bytes, checked on the footer before anything is decoded. With
 * `limit`, a Parquet file that is not cached is read by ranges, only the row groups that `limit` needs (and is not
 * cached, being read in part).
 *
 * Every problem is an entry error (the run goes on and shows it as a failing test), never a throw.
 */
import { join } from 'node:path'
import { resolveInput } from './input-root.js'
import type { AsyncBuffer } from 'hyparquet'
import { capSamples, checkUniqueIds, pushJsonlEntries, pushObjectEntries } from './entries.js'
import { chooseSplitFiles, dataFormatOf, type RepoFile } from './hf-splits.js'
import { RepoCache } from './hub-cache.js'
import { downloadFile, fetchTree, HubError, openRanged, resolveUrl, type HubConfig } from './hub-http.js'
import { HubLimitError, resolveHubLimits, type ResolvedHubLimits } from './hub-limits.js'
import { scrub, scrubDeep } from './secrets.js'
import type { DataEntry, DataOptions } from './types.js'

export type { HubConfig } from './hub-http.js'

export interface HfDataset {
  /** `owner/name` */
  repo: string
}

const HF_PREFIX = 'hf://datasets/'
const REPO_PART = /^[A-Za-z0-9][A-Za-z0-9._-]*$/

export function hubConfigFromEnv(env: NodeJS.ProcessEnv = process.env): HubConfig {
  const config: HubConfig = {
    endpoint: (env['HF_ENDPOINT'] || 'https://huggingface.co').replace(/\/+$/, ''),
    offline: /^(1|on|yes|true)$/i.test(env['HF_HUB_OFFLINE'] ?? ''),
    // Relative: from Vitest's root, as the generation cache (data/input-root.ts).
    cacheDir: resolveInput(env['TOOL_EVALS_HF_CACHE'] || join('.tool-evals-cache', 'hf')),
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

/** One load's fixed context: where files come from and what they may cost. */
interface LoadContext {
  hub: HubConfig
  cache: RepoCache
  repo: string
  revision: string
  limits: ResolvedHubLimits
  /** Whether `limit` was given: Parquet files are then read by ranges. */
  limited: boolean
}

/** The entries of a Hub dataset's split. */
export async function loadHfDataset(uri: string, options: DataOptions = {}, hub: HubConfig = hubConfigFromEnv()): Promise<DataEntry[]> {
  const fail = (field: string, message: string): DataEntry[] => [{ error: { where: uri, field, message: scrub(message, hub.token) } }]
  let limits: ResolvedHubLimits
  try {
    limits = resolveHubLimits(options.hub)
  } catch (err) {
    return fail('hub', (err as Error).message)
  }
  const parsed = parseHfUri(uri)
  if (!parsed.ok) return fail('data', parsed.message)
  const { repo } = parsed.value
  const revision = options.revision ?? 'main'
  // The revision names a cache folder too: nothing that would step out of it.
  if (revision === '' || revision === '.' || revision === '..' || revision.includes('\0')) return fail('revision', `not a revision: "${revision}"`)
  const cache = new RepoCache(hub.cacheDir, repo, revision)
  let tree: RepoFile[]
  try {
    tree = hub.offline ? cache.readTree(uri) : await fetchTree(hub, repo, revision, limits)
    if (!hub.offline) cache.writeTree(tree)
  } catch (err) {
    return fail('', (err as Error).message)
  }
  const choice = chooseSplitFiles(tree, options.split, options.config)
  if (!choice.ok) return fail(choice.field, choice.message)

  const context: LoadContext = { hub, cache, repo, revision, limits, limited: options.limit !== undefined }
  const base = revision === 'main' ? `hf://datasets/${repo}` : `hf://datasets/${repo}@${revision}`
  const entries: DataEntry[] = []
  const wheres: string[] = []
  let budget = options.limit ?? Infinity
  for (const file of choice.value.files) {
    if (budget <= 0) break
    const name = `${base}/${file.path}`
    try {
      budget -= await pushFileEntries(entries, wheres, context, file, name, budget)
    } catch (err) {
      // The file is one errored entry naming it (and, for a limit, the limit and how to raise it); the others load.
      const decoding = !(err instanceof HubLimitError || err instanceof HubError) && dataFormatOf(file.path) === 'parquet'
      const prefix = decoding ? 'cannot read the Parquet file: ' : ''
      entries.push({ error: { where: name, field: '', message: scrub(`${prefix}${(err as Error).message}`, hub.token) } })
      wheres.push(name)
      budget -= 1
    }
  }
  // A Hub (or a mirror at HF_ENDPOINT) that echoes the token into the rows it serves must not pass it on to prompts,
  // outputs and reports: the samples are scrubbed of it here, where the token is known.
  if (hub.token) for (const e of entries) if (e.sample) scrubDeep(e.sample, hub.token)
  return capSamples(checkUniqueIds(entries, wheres), options.maxSamples)
}

/** Appends one file's entries (at most `budget` rows or lines); returns how many it read. Throws on a failed read. */
async function pushFileEntries(entries: DataEntry[], wheres: string[], context: LoadContext, file: RepoFile, name: string, budget: number): Promise<number> {
  if (dataFormatOf(file.path) !== 'parquet') {
    const bytes = await fileBytes(context, file)
    return pushJsonlEntries(entries, wheres, new TextDecoder().decode(bytes), name, budget)
  }
  const source = await parquetSource(context, file)
  // Loaded on first use: the Parquet reader and its codecs are a fifth of the package's modules, and most runs read
  // no Parquet file.
  const { readParquetRows } = await import('./parquet.js')
  const rows = await readParquetRows(source, budget, context.limits)
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

/** A file's bytes: from the cache (offline, or unchanged since it was cached), else downloaded whole and cached. */
async function fileBytes(context: LoadContext, file: RepoFile): Promise<Uint8Array> {
  const { hub, cache } = context
  if (hub.offline) return cache.readFile(file, `hf://datasets/${context.repo}`)
  const cached = cache.readFileIfCurrent(file)
  if (cached) return cached
  const bytes = await downloadFile(hub, resolveUrl(hub, context.repo, context.revision, file.path), file.path, context.limits.maxBytes)
  cache.writeFile(file, bytes)
  return bytes
}

/** A Parquet file to read: its bytes, or (with `limit`, not cached) a reader of its ranges. */
async function parquetSource(context: LoadContext, file: RepoFile): Promise<Uint8Array | AsyncBuffer> {
  const { hub, cache } = context
  if (hub.offline || !context.limited) return fileBytes(context, file)
  const cached = cache.readFileIfCurrent(file)
  if (cached) return cached
  const opened = await openRanged(hub, resolveUrl(hub, context.repo, context.revision, file.path), file.path, context.limits.maxBytes)
  if ('ranged' in opened) return opened.ranged
  cache.writeFile(file, opened.whole)
  return opened.whole
}
