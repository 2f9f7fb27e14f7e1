/**
 * The generation engine of one loaded model: a queue of tokenized prompts, served in batches through
 * transformers.js `generate()`, with the shared-prefix KV cache.
 *
 * Requests that arrive together (the eval runner keeps several samples in flight) are grouped into one padded batch
 * when they share the same decoding settings. The batch layout is `[shared prefix][padding][own suffix]` per row:
 * the prefix comes from the prefix cache (its KV handed to `generate` as `past_key_values`), the padding is masked
 * out by the attention mask (position ids follow the mask, so each row's positions stay contiguous), and every row's
 * last prompt token sits at the same column, where generation starts.
 *
 * transformers.js stops a batch only when every row's *latest* token is an end token, and keeps sampling for rows
 * that already finished; a stopping criterion that remembers finished rows ends the batch as soon as all are done,
 * and each row's tokens are cut at its first end token.
 */
import type { LoadedModel, TensorLike } from './runtime.js'
import { attentionKv, MIN_REUSE, PrefixCache, commonPrefix, mapKv, repeatBatch, type Kv } from './prefix-cache.js'

export interface DecodeSettings {
  maxNewTokens: number
  doSample: boolean
  temperature?: number
  topK?: number
  topP?: number
  /** Further transformers.js generation options (e.g. `repetition_penalty`), passed as they are. */
  extra?: Record<string, unknown>
  batchSize: number
  prefixCache: boolean
}

export interface Generated {
  /** Generated token ids before the end token (the end token itself is not included). */
  tokens: number[]
  /** Tokens generated, the end token included. */
  count: number
}

interface Request {
  ids: number[]
  settings: DecodeSettings
  key: string
  signal?: AbortSignal
  resolve(g: Generated): void
  reject(e: unknown): void
}

export interface EngineStats {
  batches: number
  rows: number
  largestBatch: number
  prefixHits: number
  reusedTokens: number
  promptTokens: number
  generatedTokens: number
}

export class Engine {
  private queue: Request[] = []
  private running = false
  private readonly prefixes = new PrefixCache()
  readonly stats: EngineStats = {
    batches: 0,
    rows: 0,
    largestBatch: 0,
    prefixHits: 0,
    reusedTokens: 0,
    promptTokens: 0,
    generatedTokens: 0,
  }

  constructor(private readonly loaded: LoadedModel) {}

  /** Generate for one tokenized prompt; joins a batch with other requests that arrive meanwhile. */
  submit(ids: number[], settings: DecodeSettings, signal?: AbortSignal): Promise<Generated> {
    if (signal?.aborted) return Promise.reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'))
    return new Promise((resolve, reject) => {
      const request: Request = { ids, settings, key: JSON.stringify(settings), resolve, reject }
      if (signal) request.signal = signal
      this.queue.push(request)
      if (!this.running) {
        this.running = true
        // Let every request issued in this turn of the event loop join the first batch.
        setImmediate(() => void this.drain())
      }
    })
  }

  /** Forget cached prefixes. */
  clearPrefixCache(): void {
    this.prefixes.clear()
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.nextBatch()
        if (batch.length > 0) await this.runBatch(batch)
        // Callers answered just now usually send their next sample right away: let those join the next batch.
        await new Promise((r) => setImmediate(r))
      }
    } finally {
      this.running = false
    }
  }

  /** The oldest request and up to batchSize - 1 later ones with the same settings; aborted ones are rejected. */
  private nextBatch(): Request[] {
    const live: Request[] = []
    for (const r of this.queue) {
      if (r.signal?.aborted) r.reject(r.signal.reason instanceof Error ? r.signal.reason : new Error('aborted'))
      else live.push(r)
    }
    this.queue = live
    const first = live[0]
    if (!first) return []
    const size = this.loaded.canBatch ? Math.max(1, first.settings.batchSize) : 1
    const batch = live.filter((r) => r.key === first.key).slice(0, size)
    this.queue = live.filter((r) => !batch.includes(r))
    return batch
  }

  private async runBatch(batch: Request[]): Promise<void> {
    try {
      const results = await this.generateBatch(
        batch.map((r) => r.ids),
        (batch[0] as Request).settings,
      )
      batch.forEach((r, i) => {
        if (r.signal?.aborted) r.reject(r.signal.reason instanceof Error ? r.signal.reason : new Error('aborted'))
        else r.resolve(results[i] as Generated)
      })
    } catch (err) {
      const error = new Error(`local model ${this.loaded.name}: generation failed: ${err instanceof Error ? err.message : String(err)}`)
      for (const r of batch) r.reject(error)
    }
  }

  private async generateBatch(rows: number[][], s: DecodeSettings): Promise<Generated[]> {
    const { transformers: t, model, eosIds, padId } = this.loaded
    const usePrefix = s.prefixCache && this.loaded.canSlicePrefix
    if (usePrefix && rows.length > 1) await this.warmSharedPrefix(rows)
    const prefix = usePrefix ? this.prefixes.lookup(rows, t.Tensor) : undefined
    const p = prefix?.length ?? 0

    // [prefix][padding][suffix] per row; all rows end at the same column.
    const width = p + Math.max(...rows.map((r) => r.length - p))
    const inputIds = new BigInt64Array(rows.length * width)
    const mask = new BigInt64Array(rows.length * width)
    rows.forEach((row, b) => {
      const pad = width - row.length
      for (let j = 0; j < width; j++) {
        const inPrefix = j < p
        const src = inPrefix ? j : j - pad
        const real = inPrefix || j >= p + pad
        inputIds[b * width + j] = BigInt(real ? (row[src] as number) : padId)
        mask[b * width + j] = real ? 1n : 0n
      }
    })

    const options: Record<string, unknown> = {
      ...s.extra,
      input_ids: new t.Tensor('int64', inputIds, [rows.length, width]),
      attention_mask: new t.Tensor('int64', mask, [rows.length, width]),
      max_new_tokens: s.maxNewTokens,
      do_sample: s.doSample,
      return_dict_in_generate: true,
      stopping_criteria: [stopWhenAllDone(t.StoppingCriteria, eosIds, rows.length)],
    }
    if (s.doSample && s.temperature !== undefined) options['temperature'] = s.temperature
    if (s.topK !== undefined) options['top_k'] = s.topK
    if (s.topP !== undefined) options['top_p'] = s.topP
    if (prefix) {
      options['past_key_values'] = new t.DynamicCache(mapKv(prefix.kv, (x) => repeatBatch(x, rows.length, t.Tensor)))
    }

    const out = (await model.generate(options)) as { sequences: TensorLike; past_key_values?: Record<string, unknown> }

    this.stats.batches++
    this.stats.rows += rows.length
    this.stats.largestBatch = Math.max(this.stats.largestBatch, rows.length)
    if (prefix) {
      this.stats.prefixHits++
      this.stats.reusedTokens += p * rows.length
    }
    for (const r of rows) this.stats.promptTokens += r.length

    if (usePrefix && out.past_key_values) this.remember(rows, attentionKv(out.past_key_values))

    const sequences = out.sequences.tolist() as bigint[][]
    return sequences.map((seq) => {
      const tokens: number[] = []
      let count = 0
      for (let j = width; j < seq.length; j++) {
        const id = Number(seq[j])
        count++
        if (eosIds.has(id)) break
        tokens.push(id)
      }
      this.stats.generatedTokens += count
      return { tokens, count }
    })
  }

  /**
   * Before a batch whose rows share a prefix the cache does not hold yet (the first batch of a run), process that
   * prefix once on its own, so the batch computes it once instead of once per row.
   */
  private async warmSharedPrefix(rows: number[][]): Promise<void> {
    const { transformers: t, model } = this.loaded
    const first = rows[0] as number[]
    let shared = Math.min(...rows.map((r) => r.length - 1))
    for (const r of rows) shared = Math.min(shared, commonPrefix(first, r))
    const cached = this.prefixes.peek(rows)
    if (shared - cached < 4 * MIN_REUSE) return
    const ids = first.slice(0, shared)
    const options: Record<string, unknown> = {
      input_ids: new t.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, shared]),
      attention_mask: new t.Tensor('int64', new BigInt64Array(shared).fill(1n), [1, shared]),
      max_new_tokens: 1,
      do_sample: false,
      return_dict_in_generate: true,
    }
    const prefix = cached > 0 ? this.prefixes.lookup([ids], t.Tensor) : undefined
    if (prefix) options['past_key_values'] = new t.DynamicCache(prefix.kv)
    const out = (await model.generate(options)) as { past_key_values?: Record<string, unknown> }
    if (out.past_key_values) this.prefixes.store(ids, attentionKv(out.past_key_values), t.Tensor)
  }

  /**
   * Keep the prompt KV for later samples: a lone row's whole prompt (the next sample shares some prefix of it, and
   * the next turn of a dialogue all of it), or what a batch's rows have in common (columns after that differ per row).
   */
  private remember(rows: number[][], kv: Kv): void {
    const first = rows[0] as number[]
    let length = first.length
    for (const r of rows) length = Math.min(length, commonPrefix(first, r))
    if (length >= MIN_REUSE) this.prefixes.store(first.slice(0, length), kv, this.loaded.transformers.Tensor)
  }
}

/** A stopping criterion that ends the batch once every row has produced an end token, at any step. */
function stopWhenAllDone(Base: new () => object, eosIds: Set<number>, rows: number): object {
  const done = new Array<boolean>(rows).fill(false)
  class StickyEos extends (Base as new () => { _call?(ids: bigint[][]): boolean[] }) {
    override _call(ids: bigint[][]): boolean[] {
      ids.forEach((row, b) => {
        if (!done[b] && eosIds.has(Number(row[row.length - 1]))) done[b] = true
      })
      return done.slice()
    }
  }
  return new StickyEos()
}
