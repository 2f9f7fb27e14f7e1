/**
 * A content-addressed on-disk cache of generations. The key is the sha256 of the provider's identity (`id` and its
 * output-changing `settings`), the sample's messages and its tools, so a re-run over the same data with the same
 * model and settings calls no model at all.
 *
 * Each entry is two lines: a header `{"key", "sha256", "bytes"}` and the output's JSON. A truncated or corrupt entry
 * (bad header, wrong length or checksum, a different key) is never trusted: the sample is generated again and the
 * entry rewritten. Entries are written to a temporary file and renamed into place, so a crash leaves no half entry
 * under the final name. Failed generations are not cached.
 */
import { createHash } from 'node:crypto'
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import type { Sample } from '../data/types.js'
import type { ModelOutput, ModelProvider } from './types.js'

export interface CacheOptions {
  /** Folder of the cache; default `.tool-evals-cache` in the working directory. */
  dir?: string
}

export interface CacheStats {
  /** Samples answered from the cache. */
  hits: number
  /** Samples generated (not in the cache, or in it but unusable). */
  misses: number
  /** Entries found truncated or corrupt (and regenerated). */
  corrupt: number
}

export interface CachedProvider extends ModelProvider {
  readonly stats: Readonly<CacheStats>
  /** The entry file a sample's output is (or would be) stored in. */
  entryPath(sample: Sample): string
}

const FORMAT_VERSION = 1

/** Wrap a provider with the on-disk generation cache. */
export function cached(provider: ModelProvider, options: CacheOptions = {}): CachedProvider {
  const dir = resolve(options.dir ?? '.tool-evals-cache')
  const stats: CacheStats = { hits: 0, misses: 0, corrupt: 0 }
  // Concurrent requests for the same key share one generation.
  const pending = new Map<string, Promise<ModelOutput>>()

  const entryPath = (sample: Sample) => {
    const key = generationKey(provider, sample)
    return join(dir, key.slice(0, 2), `${key}.json`)
  }

  async function lookupOrGenerate(sample: Sample, key: string, signal?: AbortSignal): Promise<ModelOutput> {
    const path = join(dir, key.slice(0, 2), `${key}.json`)
    const found = await readEntry(path, key)
    if (found.output) {
      stats.hits++
      return found.output
    }
    if (found.corrupt) stats.corrupt++
    stats.misses++
    const output = await provider.generate(sample, signal ? { signal } : undefined)
    await writeEntry(path, key, output)
    return output
  }

  const wrapper: CachedProvider = {
    id: provider.id,
    stats,
    entryPath,
    generate(sample, opts) {
      const key = generationKey(provider, sample)
      const running = pending.get(key)
      if (running) return running
      const p = lookupOrGenerate(sample, key, opts?.signal).finally(() => pending.delete(key))
      pending.set(key, p)
      return p
    },
  }
  if (provider.settings !== undefined) Object.assign(wrapper, { settings: provider.settings })
  if (provider.concurrency !== undefined) Object.assign(wrapper, { concurrency: provider.concurrency })
  if (provider.close) Object.assign(wrapper, { close: () => provider.close?.() })
  return wrapper
}

/** The cache key of a sample's generation by a provider: sha256 over identity, settings, messages and tools. */
export function generationKey(provider: Pick<ModelProvider, 'id' | 'settings'>, sample: Sample): string {
  const material = {
    v: FORMAT_VERSION,
    model: provider.id,
    settings: provider.settings ?? {},
    messages: sample.messages,
    tools: sample.tools ?? [],
  }
  return createHash('sha256').update(stableJson(material)).digest('hex')
}

/** JSON with object keys sorted, so equal content gives equal text whatever the key order. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v
    const sorted: Record<string, unknown> = {}
    for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k]
    return sorted
  })
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}

type Read = { output: ModelOutput; corrupt?: undefined } | { output?: undefined; corrupt: boolean }

/** The entry's output when the entry is whole and belongs to `key`; otherwise whether it existed but was bad. */
async function readEntry(path: string, key: string): Promise<Read> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch {
    return { corrupt: false }
  }
  const bad: Read = { corrupt: true }
  const newline = text.indexOf('\n')
  if (newline < 0) return bad
  let header: unknown
  try {
    header = JSON.parse(text.slice(0, newline))
  } catch {
    return bad
  }
  const h = header as { v?: unknown; key?: unknown; sha256?: unknown; bytes?: unknown }
  const body = text.slice(newline + 1).replace(/\n$/, '')
  if (h.v !== FORMAT_VERSION || h.key !== key || h.bytes !== Buffer.byteLength(body) || h.sha256 !== sha256(body)) {
    return bad
  }
  try {
    const output: unknown = JSON.parse(body)
    if (output === null || typeof output !== 'object' || Array.isArray(output)) return bad
    return { output: output as ModelOutput }
  } catch {
    return bad
  }
}

async function writeEntry(path: string, key: string, output: ModelOutput): Promise<void> {
  const body = JSON.stringify(output)
  const header = JSON.stringify({ v: FORMAT_VERSION, key, sha256: sha256(body), bytes: Buffer.byteLength(body) })
  await mkdir(dirname(path), { recursive: true })
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`
  await writeFile(tmp, `${header}\n${body}\n`)
  await rename(tmp, path)
}
