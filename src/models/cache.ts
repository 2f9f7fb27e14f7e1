/**
 * A content-addressed on-disk cache of generations. The key is the sha256 of the provider's identity (`id` and its
 * output-changing `settings`), the sample's messages and its tools, so a re-run over the same data with the same
 * model and settings calls no model at all.
 *
 * Each entry is two lines: a header `{"key", "sha256", "bytes", "nonFinite"?}` and the output's JSON. A truncated or
 * corrupt entry (bad header, wrong length or checksum, a different key, an unreadable path such as a directory) is
 * never trusted: the sample is generated again (counted in `stats.regenerated` and marked on the output) and the
 * entry rewritten. Entries are written to a temporary file and renamed into place, so a crash leaves no half entry
 * under the final name; a write that fails removes its temporary file and leaves the output uncached, never errored.
 * Failed generations are not cached.
 *
 * Non-finite numbers: JSON has none, yet a model's `1e999` decodes to Infinity. The cache keeps them exactly: the
 * body holds `null` in their place and the header lists each one's path and value, so a cached output is the very
 * output the provider returned and scores the same.
 */
import { createHash } from 'node:crypto'
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { resolveInput } from '../data/input-root.js'
import { checkOptionKeys, type OptionKeys } from '../calls/options.js'
import type { Sample } from '../data/types.js'
import type { GenerateOptions, ModelOutput, ModelProvider } from './types.js'

export interface CacheOptions {
  /** Folder of the cache; default `.tool-evals-cache` (a relative path is resolved from Vitest's root). */
  dir?: string
}

export interface CacheStats {
  /** Samples answered from the cache. */
  hits: number
  /** Samples generated (not in the cache, or in it but unusable). */
  misses: number
  /** Entries found truncated, corrupt or unreadable. */
  corrupt: number
  /** Such entries whose sample was generated again (each output marked `cacheRegenerated`). */
  regenerated: number
  /** Outputs that could not be written to the cache (returned all the same). */
  unwritable: number
}

export interface CachedProvider extends ModelProvider {
  readonly stats: Readonly<CacheStats>
  /** The entry file a sample's output is (or would be) stored in. */
  entryPath(sample: Sample): string
}

// 2: non-finite numbers listed in the header (entries of version 1 may have lost them, so they are regenerated).
const FORMAT_VERSION = 2

/** Wrap a provider with the on-disk generation cache. */
const CACHE_KEYS: OptionKeys<CacheOptions> = { dir: true }

export function cached(provider: ModelProvider, options: CacheOptions = {}): CachedProvider {
  checkOptionKeys(options, CACHE_KEYS, 'cached')
  // Resolved on first use: by then the test worker has adopted Vitest's root (data/input-root.ts).
  let dirAt: string | undefined
  const dir = () => (dirAt ??= resolveInput(options.dir ?? '.tool-evals-cache'))
  const stats: CacheStats = { hits: 0, misses: 0, corrupt: 0, regenerated: 0, unwritable: 0 }
  // Concurrent requests for the same key share one generation.
  const pending = new Map<string, Promise<ModelOutput>>()

  const entryPath = (sample: Sample) => {
    const key = generationKey(provider, sample)
    return join(dir(), key.slice(0, 2), `${key}.json`)
  }

  async function lookupOrGenerate(sample: Sample, key: string, opts?: GenerateOptions): Promise<ModelOutput> {
    const path = join(dir(), key.slice(0, 2), `${key}.json`)
    const found = await readEntry(path, key)
    if (found.output) {
      stats.hits++
      return { ...found.output, cached: true }
    }
    if (found.corrupt !== undefined) stats.corrupt++
    stats.misses++
    const output = await provider.generate(sample, opts)
    const written = await writeEntry(path, key, output)
    if (written !== undefined) stats.unwritable++
    if (found.corrupt === undefined) return output
    stats.regenerated++
    const why = written === undefined ? found.corrupt : `${found.corrupt}; not rewritten: ${written}`
    return { ...output, cacheRegenerated: why }
  }

  const wrapper: CachedProvider = {
    id: provider.id,
    stats,
    entryPath,
    generate(sample, opts) {
      const key = generationKey(provider, sample)
      const running = pending.get(key)
      if (running) return running
      const p = lookupOrGenerate(sample, key, opts).finally(() => pending.delete(key))
      pending.set(key, p)
      return p
    },
  }
  if (provider.settings !== undefined) Object.assign(wrapper, { settings: provider.settings })
  if (provider.concurrency !== undefined) Object.assign(wrapper, { concurrency: provider.concurrency })
  // Not `resumable`: the cache keeps every output already, so a journal would only duplicate it.
  if (provider.generationTimeoutMs !== undefined) Object.assign(wrapper, { generationTimeoutMs: provider.generationTimeoutMs })
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
  // Repeated trials are distinct generations; trial 0 shares the key of an untrialled run (its cache stays warm).
  if (sample.trial !== undefined && sample.trial > 0) Object.assign(material, { trial: sample.trial })
  return createHash('sha256').update(stableJson(material)).digest('hex')
}

/**
 * JSON with object keys sorted, so equal content gives equal text whatever the key order. Every own enumerable key
 * is written as it is, `__proto__` and `constructor` included (a replacer building a new object would lose
 * `__proto__`: assigning it sets the prototype). Non-finite numbers are written as JSON.stringify does (`null`).
 */
export function stableJson(value: unknown): string {
  const parts: string[] = []
  // An explicit stack, not recursion: arguments thousands of levels deep must not overflow the call stack.
  const stack: (Token | { value: unknown })[] = [{ value }]
  const open = new Set<object>()
  while (stack.length > 0) {
    const item = stack.pop() as Token | { value: unknown }
    if (item instanceof Token) {
      parts.push(item.text)
      if (item.closes) open.delete(item.closes)
      continue
    }
    const v = toJsonValue(item.value)
    if (v === null || typeof v !== 'object') {
      parts.push(v === undefined ? 'null' : JSON.stringify(v))
      continue
    }
    if (open.has(v)) throw new TypeError('stableJson: cyclic structure')
    open.add(v)
    const pending: (Token | { value: unknown })[] = []
    if (Array.isArray(v)) {
      pending.push(new Token('['))
      v.forEach((x: unknown, i) => pending.push(...(i > 0 ? [new Token(',')] : []), { value: x }))
      pending.push(new Token(']', v))
    } else {
      const obj = v as Record<string, unknown>
      pending.push(new Token('{'))
      const keys = Object.keys(obj).filter((k) => toJsonValue(obj[k]) !== undefined).sort()
      keys.forEach((k, i) => pending.push(new Token(`${i > 0 ? ',' : ''}${JSON.stringify(k)}:`), { value: obj[k] }))
      pending.push(new Token('}', obj))
    }
    for (let i = pending.length - 1; i >= 0; i--) stack.push(pending[i] as Token | { value: unknown })
  }
  return parts.join('')
}

/** Literal JSON text in stableJson's work stack; `closes`: the object or array it ends. */
class Token {
  constructor(
    readonly text: string,
    readonly closes?: object,
  ) {}
}

/** What JSON.stringify would serialise for `v` (undefined: left out of objects, `null` in arrays). */
function toJsonValue(v: unknown): unknown {
  if (typeof v === 'object' && v !== null && typeof (v as { toJSON?: unknown }).toJSON === 'function') {
    return (v as { toJSON: () => unknown }).toJSON()
  }
  if (typeof v === 'function' || typeof v === 'symbol' || v === undefined) return undefined
  if (typeof v === 'bigint') return String(v)
  return v
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}

/** A non-finite number inside an output: where (keys and indices from the root) and which. */
type NonFinite = [path: (string | number)[], value: 'Infinity' | '-Infinity' | 'NaN']

/** Every non-finite number in `value`, with its path (an explicit stack: any depth; paths built only when found). */
export function nonFiniteNumbers(value: unknown): NonFinite[] {
  interface Node {
    v: unknown
    key?: string | number
    parent?: Node
  }
  const found: NonFinite[] = []
  const stack: Node[] = [{ v: value }]
  while (stack.length > 0) {
    const node = stack.pop() as Node
    const { v } = node
    if (typeof v === 'number' && !Number.isFinite(v)) {
      const path: (string | number)[] = []
      for (let n: Node | undefined = node; n?.key !== undefined; n = n.parent) path.unshift(n.key)
      found.push([path, String(v) as NonFinite[1]])
    } else if (Array.isArray(v)) v.forEach((x: unknown, i) => stack.push({ v: x, key: i, parent: node }))
    else if (typeof v === 'object' && v !== null) {
      for (const k of Object.keys(v)) stack.push({ v: (v as Record<string, unknown>)[k], key: k, parent: node })
    }
  }
  return found
}

/** Put the listed non-finite numbers back (each in place of a `null`); false when the list does not fit the body. */
export function restoreNonFinite(root: unknown, list: unknown): boolean {
  if (list === undefined) return true
  if (!Array.isArray(list)) return false
  for (const entry of list) {
    if (!Array.isArray(entry) || entry.length !== 2 || !Array.isArray(entry[0])) return false
    const [path, name] = entry as [unknown[], unknown]
    const value = name === 'Infinity' ? Infinity : name === '-Infinity' ? -Infinity : name === 'NaN' ? NaN : undefined
    if (value === undefined || path.length === 0) return false
    let parent: unknown = root
    for (const step of path.slice(0, -1)) {
      if (typeof parent !== 'object' || parent === null || !Object.hasOwn(parent, step as PropertyKey)) return false
      parent = (parent as Record<string, unknown>)[step as string]
    }
    const last = path[path.length - 1] as PropertyKey
    if (typeof parent !== 'object' || parent === null || !Object.hasOwn(parent, last)) return false
    if ((parent as Record<PropertyKey, unknown>)[last] !== null) return false
    // defineProperty: a key named `__proto__` stays an own data property.
    Object.defineProperty(parent, last, { value, writable: true, enumerable: true, configurable: true })
  }
  return true
}

/** The entry's output when it is whole and belongs to `key`; otherwise why it is unusable (undefined: absent). */
type Read = { output: ModelOutput; corrupt?: undefined } | { output?: undefined; corrupt: string | undefined }

async function readEntry(path: string, key: string): Promise<Read> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (err) {
    const code = (err as { code?: unknown }).code
    if (code === 'ENOENT') return { corrupt: undefined }
    return { corrupt: `cache entry unreadable (${typeof code === 'string' ? code : String(err)})` }
  }
  const bad: Read = { corrupt: 'cache entry corrupt' }
  const newline = text.indexOf('\n')
  if (newline < 0) return bad
  let header: unknown
  try {
    header = JSON.parse(text.slice(0, newline))
  } catch {
    return bad
  }
  if (header === null || typeof header !== 'object') return bad
  const h = header as { v?: unknown; key?: unknown; sha256?: unknown; bytes?: unknown; nonFinite?: unknown }
  if (h.v !== FORMAT_VERSION) return { corrupt: 'cache entry of an older format' }
  const body = text.slice(newline + 1).replace(/\n$/, '')
  if (h.key !== key || h.bytes !== Buffer.byteLength(body) || h.sha256 !== sha256(body)) return bad
  try {
    const output: unknown = JSON.parse(body)
    if (output === null || typeof output !== 'object' || Array.isArray(output)) return bad
    if (!restoreNonFinite(output, h.nonFinite)) return bad
    return { output: output as ModelOutput }
  } catch {
    return bad
  }
}

/** Write the entry; undefined when written, otherwise why not (the temporary file is removed either way). */
async function writeEntry(path: string, key: string, output: ModelOutput): Promise<string | undefined> {
  const { cacheRegenerated: _marker, cached: _hit, resumed: _resumed, ...stored } = output
  const body = JSON.stringify(stored)
  const header: Record<string, unknown> = { v: FORMAT_VERSION, key, sha256: sha256(body), bytes: Buffer.byteLength(body) }
  const nonFinite = nonFiniteNumbers(stored)
  if (nonFinite.length > 0) header['nonFinite'] = nonFinite
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`
  try {
    await mkdir(dirname(path), { recursive: true })
    await writeFile(tmp, `${JSON.stringify(header)}\n${body}\n`)
    await rename(tmp, path)
    return undefined
  } catch (err) {
    await rm(tmp, { force: true }).catch(() => undefined)
    const code = (err as { code?: unknown }).code
    return `cache entry could not be written (${typeof code === 'string' ? code : String(err)})`
  }
}
