/**
 * Loading models with transformers.js (on onnxruntime-node, CPU), once per process.
 *
 * Loaded models live in the process-wide registry of `concurrency.ts`, keyed by the model's location and the
 * options that change what is loaded, so every provider, test file and suite of a Vitest worker that names the same
 * model shares one tokenizer and one ONNX session. transformers.js itself is imported lazily: runs that only replay
 * or call an endpoint never pay for it.
 */
import { existsSync, statSync } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'
import { forgetShared, shared, sharedKeys } from '../concurrency.js'

// The few pieces of transformers.js this provider uses, typed here rather than through its large declaration files.

export interface TensorLike {
  type: string
  data: ArrayLike<number | bigint> & { length: number }
  dims: number[]
  tolist(): unknown[]
}

export type TensorCtor = new (type: string, data: unknown, dims: number[]) => TensorLike

export interface Tokenizer {
  apply_chat_template(messages: unknown[], options: Record<string, unknown>): unknown
  get_chat_template(options: { chat_template?: string | null; tools?: unknown }): string
  encode(text: string, options?: { add_special_tokens?: boolean }): number[]
  decode(ids: number[], options?: { skip_special_tokens?: boolean }): string
  pad_token_id?: number | null
  eos_token_id?: number | null
}

export interface CausalLM {
  config: Record<string, unknown>
  generation_config?: Record<string, unknown> | null
  sessions: Record<string, { inputNames: string[]; outputNames: string[] }>
  generate(options: Record<string, unknown>): Promise<unknown>
  dispose(): Promise<unknown>
}

export interface Transformers {
  env: { allowRemoteModels: boolean; allowLocalModels: boolean; localModelPath: string }
  AutoTokenizer: { from_pretrained(id: string, options?: Record<string, unknown>): Promise<Tokenizer> }
  AutoModelForCausalLM: { from_pretrained(id: string, options?: Record<string, unknown>): Promise<CausalLM> }
  Tensor: TensorCtor
  DynamicCache: new (entries?: Record<string, TensorLike>) => Record<string, TensorLike>
  StoppingCriteria: new () => object
}

export interface LoadOptions {
  dtype?: string
  revision?: string
  /** onnxruntime intra-op threads; default: onnxruntime's own (the machine's cores). */
  threads?: number
  /** Sets transformers.js `env.localModelPath` (a process-wide setting) before loading a hub-style id. */
  localModelPath?: string
  /** Sets transformers.js `env.allowRemoteModels` (a process-wide setting) before loading. */
  allowRemoteModels?: boolean
}

export interface LoadedModel {
  /** The name given by the user (model id or path as written). */
  name: string
  transformers: Transformers
  tokenizer: Tokenizer
  model: CausalLM
  /** Token ids that end a generation. */
  eosIds: Set<number>
  /** Token id used for padding (masked out, so any id works). */
  padId: number
  /** The model takes an attention mask, so padded batches are possible. */
  canBatch: boolean
  /** Its cache is plain attention KV (`past_key_values.N.key/value`, sequence on axis 2), so prefixes can be sliced. */
  canSlicePrefix: boolean
}

const PREFIX = 'local-model:'

let transformersModule: Promise<Transformers> | undefined

/** The optional peer dependencies `local()` needs; only its runs import them (replay and endpoint users skip ~500 MB). */
export const LOCAL_RUNTIME_PACKAGES = ['@huggingface/transformers', 'onnxruntime-node'] as const

export function importTransformers(): Promise<Transformers> {
  transformersModule ??= (import('@huggingface/transformers') as unknown as Promise<Transformers>).catch((err: unknown) => {
    transformersModule = undefined // installing them mid-session (watch mode) makes the next load work
    throw missingRuntimeError(err) ?? err
  })
  return transformersModule
}

/** A clear error naming what to install when the cause is one of the optional local-runtime packages being absent. */
export function missingRuntimeError(err: unknown): Error | undefined {
  const code = (err as { code?: unknown } | null)?.code
  const message = err instanceof Error ? err.message : String(err)
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND' && !/Cannot find (module|package)/.test(message)) return undefined
  const missing = LOCAL_RUNTIME_PACKAGES.filter((name) => message.includes(`'${name}'`) || message.includes(`"${name}"`))
  if (missing.length === 0) return undefined
  return new Error(
    `local() needs the optional peer dependencies ${LOCAL_RUNTIME_PACKAGES.join(' and ')} (missing: ${missing.join(', ')}). ` +
      `Install them with \`npm i -D ${LOCAL_RUNTIME_PACKAGES.join(' ')}\` (set ONNXRUNTIME_NODE_INSTALL=skip in the ` +
      `environment of the install to skip onnxruntime-node's download of GPU binaries from outside the npm registry).`,
    { cause: err },
  )
}

/** Where to load from: an existing folder becomes an absolute path (local files only); anything else is a hub id. */
export function modelSource(idOrPath: string): { source: string; localFolder: boolean } {
  const path = resolve(idOrPath)
  const looksLikePath = isAbsolute(idOrPath) || idOrPath.startsWith('.') || existsSync(path)
  if (looksLikePath) {
    if (!existsSync(path) || !statSync(path).isDirectory()) {
      throw new Error(`local model folder not found: ${path}`)
    }
    return { source: path, localFolder: true }
  }
  return { source: idOrPath, localFolder: false }
}

/** The loaded model for `idOrPath` and `options`, loading it on first use in this process. */
export function loadModel(idOrPath: string, options: LoadOptions = {}): Promise<LoadedModel> {
  const { source, localFolder } = modelSource(idOrPath)
  const key =
    PREFIX +
    JSON.stringify([source, options.dtype ?? null, options.revision ?? null, options.threads ?? null, options.localModelPath ?? null])
  const promise = shared(key, () => {
    const p = load(idOrPath, source, localFolder, options)
    // A failed load is forgotten so that a later call can try again (and report its own error).
    p.catch(() => forgetShared(key))
    return p
  })
  return promise
}

/** Counters for tests and benchmarks: how many loads this process started. */
export function localModelStats(): { loads: number } {
  return shared(PREFIX + 'stats', () => ({ loads: 0 }))
}

/** Release every loaded model's sessions (the next use loads again). */
export async function unloadLocalModels(): Promise<void> {
  const keys = sharedKeys(PREFIX).filter((k) => k !== PREFIX + 'stats')
  for (const key of keys) {
    const p = shared<Promise<LoadedModel> | undefined>(key, () => undefined)
    forgetShared(key)
    try {
      const loaded = await p
      await loaded?.model.dispose()
    } catch {
      // a failed load holds nothing to release
    }
  }
}

async function load(name: string, source: string, localFolder: boolean, options: LoadOptions): Promise<LoadedModel> {
  localModelStats().loads++
  const t = await importTransformers()
  if (options.localModelPath !== undefined) t.env.localModelPath = options.localModelPath
  if (options.allowRemoteModels !== undefined) t.env.allowRemoteModels = options.allowRemoteModels
  const common: Record<string, unknown> = {}
  if (localFolder || options.allowRemoteModels === false) common['local_files_only'] = true
  if (options.revision !== undefined) common['revision'] = options.revision

  const modelOptions: Record<string, unknown> = { ...common, device: 'cpu' }
  if (options.dtype !== undefined) modelOptions['dtype'] = options.dtype
  if (options.threads !== undefined) modelOptions['session_options'] = { intraOpNumThreads: options.threads }

  let tokenizer: Tokenizer
  let model: CausalLM
  try {
    ;[tokenizer, model] = await Promise.all([
      t.AutoTokenizer.from_pretrained(source, common),
      t.AutoModelForCausalLM.from_pretrained(source, modelOptions),
    ])
  } catch (err) {
    throw new Error(`cannot load local model ${name}: ${err instanceof Error ? err.message : String(err)}`)
  }

  const session = model.sessions['model'] ?? Object.values(model.sessions)[0]
  const inputs = session?.inputNames ?? []
  const cacheInputs = inputs.filter((n) => n.startsWith('past_'))
  return {
    name,
    transformers: t,
    tokenizer,
    model,
    eosIds: eosIds(model, tokenizer),
    padId: tokenizer.pad_token_id ?? tokenizer.eos_token_id ?? 0,
    canBatch: inputs.includes('attention_mask'),
    canSlicePrefix:
      inputs.includes('attention_mask') &&
      cacheInputs.length > 0 &&
      cacheInputs.every((n) => /^past_key_values\.\d+\.(key|value)$/.test(n)),
  }
}

function eosIds(model: CausalLM, tokenizer: Tokenizer): Set<number> {
  const ids = new Set<number>()
  const add = (v: unknown) => {
    if (typeof v === 'number') ids.add(v)
    else if (Array.isArray(v)) for (const x of v) add(x)
  }
  add(model.generation_config?.['eos_token_id'])
  add(model.config['eos_token_id'])
  add(tokenizer.eos_token_id)
  return ids
}
