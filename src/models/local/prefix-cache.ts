/**
 * Reusing the KV cache of a shared prompt prefix. Eval samples usually share most of their prompt (system prompt and
 * tool definitions, and in expanded dialogues the earlier turns), so the attention keys and values of that prefix
 * are kept after a generation and handed to the next one, which then only processes its own suffix.
 *
 * Entries are the KV tensors (batch 1, `[1, heads, length, head_dim]`, sequence on axis 2) of a token sequence;
 * a lookup finds the entry with the longest common prefix with the new prompts and slices it to that length, which
 * is valid because a causal model's keys and values at position i depend only on tokens 0..i.
 */
import type { TensorCtor, TensorLike } from './runtime.js'

export type Kv = Record<string, TensorLike>

interface Entry {
  ids: number[]
  kv: Kv
}

/** Fewer shared tokens than this are not worth the copying. */
export const MIN_REUSE = 8

/** Length of the longest common prefix of two token sequences. */
export function commonPrefix(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length)
  let i = 0
  while (i < n && a[i] === b[i]) i++
  return i
}

/** A small most-recently-used set of prefix entries. */
export class PrefixCache {
  private entries: Entry[] = []
  hits = 0
  reusedTokens = 0

  constructor(private readonly capacity = 4) {}

  /**
   * The longest prefix shared by every row and some entry, capped so each row keeps at least one token to process;
   * with its KV sliced to that length. Undefined when shorter than MIN_REUSE.
   */
  lookup(rows: readonly number[][], Tensor: TensorCtor): { length: number; kv: Kv } | undefined {
    const { entry: best, length: bestLength } = this.best(rows)
    if (!best || bestLength < MIN_REUSE) return undefined
    this.touch(best)
    this.hits++
    this.reusedTokens += bestLength * rows.length
    return { length: bestLength, kv: mapKv(best.kv, (t) => sliceSequence(t, 0, bestLength, Tensor)) }
  }

  /** How many leading tokens of every row a lookup would reuse now (0 when none). */
  peek(rows: readonly number[][]): number {
    const { length } = this.best(rows)
    return length >= MIN_REUSE ? length : 0
  }

  private best(rows: readonly number[][]): { entry?: Entry; length: number } {
    const cap = Math.min(...rows.map((r) => r.length - 1))
    let entry: Entry | undefined
    let best = 0
    for (const e of this.entries) {
      let length = Math.min(cap, e.ids.length)
      for (const r of rows) length = Math.min(length, commonPrefix(e.ids, r))
      if (length > best) {
        entry = e
        best = length
      }
    }
    return entry ? { entry, length: best } : { length: 0 }
  }

  /** Remember the KV of `ids` (batch row 0 of `kv`, positions 0..ids.length). */
  store(ids: number[], kv: Kv, Tensor: TensorCtor): void {
    if (ids.length < MIN_REUSE) return
    const same = this.entries.find((e) => e.ids.length >= ids.length && commonPrefix(e.ids, ids) === ids.length)
    if (same) {
      this.touch(same)
      return
    }
    // An entry that is a prefix of the new one is superseded by it.
    this.entries = this.entries.filter((e) => !(e.ids.length <= ids.length && commonPrefix(e.ids, ids) === e.ids.length))
    this.entries.unshift({ ids: ids.slice(), kv: mapKv(kv, (t) => sliceSequence(t, 0, ids.length, Tensor)) })
    if (this.entries.length > this.capacity) this.entries.length = this.capacity
  }

  clear(): void {
    this.entries = []
  }

  private touch(e: Entry): void {
    this.entries = [e, ...this.entries.filter((x) => x !== e)]
  }
}

export function mapKv(kv: Kv, f: (t: TensorLike) => TensorLike): Kv {
  const out: Kv = {}
  for (const [name, t] of Object.entries(kv)) out[name] = f(t)
  return out
}

/** Only the attention KV entries of a generate() cache object. */
export function attentionKv(cache: Record<string, unknown>): Kv {
  const out: Kv = {}
  for (const [name, t] of Object.entries(cache)) {
    if (name.startsWith('past_key_values.')) out[name] = t as TensorLike
  }
  return out
}

type Typed = { length: number; subarray(a: number, b: number): Typed; set(src: Typed, offset: number): void }
type TypedCtor = new (n: number) => Typed

/** Batch row 0 of a `[B, H, T, D]` tensor, positions start..end of axis 2, as a `[1, H, end-start, D]` tensor. */
export function sliceSequence(t: TensorLike, start: number, end: number, Tensor: TensorCtor): TensorLike {
  const [, heads = 1, total = 0, dim = 1] = t.dims
  const length = end - start
  const src = t.data as unknown as Typed
  const out = new (src.constructor as TypedCtor)(heads * length * dim)
  for (let h = 0; h < heads; h++) {
    const from = (h * total + start) * dim
    out.set(src.subarray(from, from + length * dim), h * length * dim)
  }
  return new Tensor(t.type, out, [1, heads, length, dim])
}

/** A `[1, H, T, D]` tensor repeated `batch` times along axis 0. */
export function repeatBatch(t: TensorLike, batch: number, Tensor: TensorCtor): TensorLike {
  if (batch === 1) return t
  const src = t.data as unknown as Typed
  const out = new (src.constructor as TypedCtor)(src.length * batch)
  for (let b = 0; b < batch; b++) out.set(src, b * src.length)
  return new Tensor(t.type, out, [batch, ...t.dims.slice(1)])
}
