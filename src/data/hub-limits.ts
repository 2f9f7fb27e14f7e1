/**
 * The bounds on what one Hub dataset may cost to load. A server or a file can be hostile or broken (an endless body, a
 * Parquet file that decompresses a thousandfold, a footer of a million row groups, a `Link: next` that loops), and
 * what it costs must end in a clear error on that data source, never a worker dead of an out-of-memory abort.
 */

/** Bounds on loading one `hf://` dataset; each has a generous default. */
export interface HubLimits {
  /** Bytes downloaded in one response: a data file, a page of the file list, a Parquet range (default 512 MiB). */
  maxBytes?: number
  /** Rows of one Parquet file read: with `limit`, the rows it asks of the file; without, all its footer lists (default 1,000,000). */
  maxRows?: number
  /** Row groups a Parquet file's footer may list (default 10,000). */
  maxRowGroups?: number
  /** Bytes the pages of one Parquet file read may decompress to, summed (default 512 MiB). */
  maxDecompressedBytes?: number
  /** Pages of the Hub's file list followed (default 1,000). */
  maxPages?: number
}

export type ResolvedHubLimits = Required<HubLimits>

export const DEFAULT_HUB_LIMITS: ResolvedHubLimits = {
  maxBytes: 512 * 1024 * 1024,
  maxRows: 1_000_000,
  maxRowGroups: 10_000,
  maxDecompressedBytes: 512 * 1024 * 1024,
  maxPages: 1_000,
}

const LIMIT_KEYS = Object.keys(DEFAULT_HUB_LIMITS) as (keyof HubLimits)[]

/** The limits with defaults filled in; throws on a key that is not one or a value that is not a whole number >= 1. */
export function resolveHubLimits(given: HubLimits | undefined): ResolvedHubLimits {
  const out = { ...DEFAULT_HUB_LIMITS }
  if (given === undefined) return out
  if (given === null || typeof given !== 'object') throw new Error('describeEval: `hub` must be an object of limits')
  for (const [key, value] of Object.entries(given)) {
    if (!LIMIT_KEYS.includes(key as keyof HubLimits)) throw new Error(`describeEval: \`hub.${key}\` is not a Hub limit (${LIMIT_KEYS.join(', ')})`)
    if (value === undefined) continue
    if (!(Number.isSafeInteger(value) && (value as number) >= 1)) {
      throw new Error(`describeEval: \`hub.${key}\` must be a whole number >= 1 (got ${String(value)})`)
    }
    out[key as keyof HubLimits] = value as number
  }
  return out
}

/** A bound passed: its message names what passed it, the limit, and how to raise it. */
export class HubLimitError extends Error {
  constructor(what: string, key: keyof HubLimits, limit: number) {
    const shown = key === 'maxBytes' || key === 'maxDecompressedBytes' ? formatBytes(limit) : limit.toLocaleString('en-US')
    super(`${what}, over ${key} (${shown}); if the dataset is trusted, raise it with the eval's option \`hub: { ${key}: ... }\``)
  }
}

/** `32 MB` for whole mebibytes, `256 KB` for whole kibibytes, otherwise bytes. */
export function formatBytes(n: number): string {
  if (n >= 1 << 20 && n % (1 << 20) === 0) return `${n / (1 << 20)} MB`
  if (n >= 1 << 10 && n % (1 << 10) === 0) return `${n / (1 << 10)} KB`
  return `${n} bytes`
}
