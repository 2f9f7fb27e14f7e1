/**
 * The local provider (the embedded default): a model run in process by transformers.js on onnxruntime-node, on CPU.
 *
 * Each sample is rendered with the tokenizer's own chat template and the sample's tools (with the generation
 * prompt), generated greedily unless sampling is asked for, and decoded with special tokens kept (several formats
 * carry tool calls in special tokens). The output text is read with the format derived from that same template
 * (`deriveFormat`; see `template-calls.ts`).
 *
 * Loading happens once per process per model (see `local/runtime.ts`); samples in flight together are batched and
 * the KV cache of the prompt prefix they share is reused (see `local/engine.ts`).
 */
import { checkOptionKeys, type OptionKeys } from '../calls/options.js'
import type { Sample } from '../data/types.js'
import { Engine, type DecodeSettings, type EngineStats } from './local/engine.js'
import { chatTemplateText, renderPrompt, templateFormat, type RenderOptions } from './local/prompt.js'
import { loadModel, type LoadOptions, type LoadedModel } from './local/runtime.js'
import { templateCalls } from './template-calls.js'
import type { ModelOutput, ModelProvider } from './types.js'
import { roundMs } from '../score/usage.js'

export { localModelStats, unloadLocalModels } from './local/runtime.js'

export interface LocalOptions extends LoadOptions, RenderOptions {
  /** Most tokens generated per sample. Default 512. */
  maxNewTokens?: number
  /** Sample instead of greedy decoding. Default false. */
  doSample?: boolean
  /** Sampling temperature (with `doSample`). */
  temperature?: number
  topK?: number
  topP?: number
  /** Further transformers.js generation options, e.g. `{ repetition_penalty: 1.0 }`. */
  generation?: Record<string, unknown>
  /** Prompts longer than this (in tokens) are skipped by policy, not generated. */
  maxPromptTokens?: number
  /** Samples generated together in one padded batch (when the model takes an attention mask). Default 4. */
  batchSize?: number
  /** Reuse the KV cache of the prompt prefix samples share. Default true. */
  prefixCache?: boolean
  /**
   * Wire-format hint for the parser; default: derived from the model's chat template (`deriveFormat`: 'hermes' for
   * Qwen templates), or the template's markers when no format can be derived (a warning says why).
   */
  format?: string
}

export interface LocalProvider extends ModelProvider {
  /** Batching and prefix-cache counters of this model's engine (shared by every provider of the same model). */
  stats(): Promise<EngineStats>
  /** The prompt text a sample renders to (for debugging templates). */
  renderPrompt(sample: Sample): Promise<string>
  /** Forget the cached prompt prefixes of this model (benchmarks start cold with it). */
  clearPrefixCache(): Promise<void>
}

/** Loading a model, a first download of its weights included. */
const LOAD_ALLOWANCE_MS = 5 * 60_000
/** One decoding step of a batch on a slow CPU (a few tokens a second). */
const STEP_ALLOWANCE_MS = 500

/**
 * The longest a sample of a working local model takes: loading, then the batch ahead of it and its own, each up to
 * `maxNewTokens` steps (about 9 minutes at the default 512).
 */
export function localGenerationTimeoutMs(maxNewTokens: number): number {
  return LOAD_ALLOWANCE_MS + 2 * maxNewTokens * STEP_ALLOWANCE_MS
}

/**
 * A model run locally: a hub model id (downloaded by transformers.js when remote models are allowed) or a local
 * folder in transformers.js layout (`config.json`, tokenizer files, `onnx/model*.onnx`).
 */
const LOCAL_KEYS: OptionKeys<LocalOptions> = {
  maxNewTokens: true, doSample: true, temperature: true, topK: true, topP: true, generation: true, maxPromptTokens: true,
  batchSize: true, prefixCache: true, format: true, dtype: true, revision: true, threads: true, localModelPath: true,
  allowRemoteModels: true, chatTemplate: true, templateKwargs: true, templateBudget: true,
}

export function local(modelIdOrPath: string, options: LocalOptions = {}): LocalProvider {
  checkOptionKeys(options, LOCAL_KEYS, `local(${JSON.stringify(modelIdOrPath)})`)
  const settings: DecodeSettings = {
    maxNewTokens: options.maxNewTokens ?? 512,
    doSample: options.doSample ?? false,
    batchSize: options.batchSize ?? 4,
    prefixCache: options.prefixCache ?? true,
  }
  if (options.temperature !== undefined) settings.temperature = options.temperature
  if (options.topK !== undefined) settings.topK = options.topK
  if (options.topP !== undefined) settings.topP = options.topP
  if (options.generation !== undefined) settings.extra = options.generation

  const loadOptions: LoadOptions = {}
  for (const k of ['dtype', 'revision', 'threads', 'localModelPath', 'allowRemoteModels'] as const) {
    if (options[k] !== undefined) Object.assign(loadOptions, { [k]: options[k] })
  }
  const renderOptions: RenderOptions = {}
  if (options.chatTemplate !== undefined) renderOptions.chatTemplate = options.chatTemplate
  if (options.templateKwargs !== undefined) renderOptions.templateKwargs = options.templateKwargs
  if (options.templateBudget !== undefined) renderOptions.templateBudget = options.templateBudget

  const ready = async (): Promise<{ loaded: LoadedModel; engine: Engine }> => {
    const loaded = await loadModel(modelIdOrPath, loadOptions)
    // One engine per loaded model, kept on the (process-wide) loaded model itself.
    const holder = loaded as LoadedModel & { engine?: Engine }
    holder.engine ??= new Engine(loaded)
    return { loaded, engine: holder.engine }
  }

  // What changes outputs, for cache keys: decoding, template, dtype (batching and prefix reuse do not, by design).
  const outputSettings: Record<string, unknown> = {
    maxNewTokens: settings.maxNewTokens,
    doSample: settings.doSample,
    ...(settings.temperature !== undefined && { temperature: settings.temperature }),
    ...(settings.topK !== undefined && { topK: settings.topK }),
    ...(settings.topP !== undefined && { topP: settings.topP }),
    ...(settings.extra !== undefined && { generation: settings.extra }),
    ...(options.dtype !== undefined && { dtype: options.dtype }),
    ...(options.revision !== undefined && { revision: options.revision }),
    ...(options.chatTemplate !== undefined && { chatTemplate: options.chatTemplate }),
    ...(options.templateKwargs !== undefined && { templateKwargs: options.templateKwargs }),
    ...(options.maxPromptTokens !== undefined && { maxPromptTokens: options.maxPromptTokens }),
  }

  async function generate(sample: Sample, opts?: { signal?: AbortSignal }): Promise<ModelOutput> {
    const { loaded, engine } = await ready()
    const prompt = renderPrompt(loaded.tokenizer, sample, modelIdOrPath, renderOptions)
    const ids = loaded.tokenizer.encode(prompt, { add_special_tokens: false })
    if (options.maxPromptTokens !== undefined && ids.length > options.maxPromptTokens) {
      return {
        skipped: `prompt of ${ids.length} tokens is over maxPromptTokens (${options.maxPromptTokens})`,
        usage: { promptTokens: ids.length },
      }
    }
    // From submission (waiting for a batch included: what the sample waits) to the whole generation; batched decoding
    // yields no token before the batch ends, so there is no first-token time to give.
    const started = performance.now()
    const generated = await engine.submit(ids, settings, opts?.signal)
    const latencyMs = roundMs(performance.now() - started)
    const output: ModelOutput = {
      // Special tokens stay: Mistral's [TOOL_CALLS], Llama's <|python_tag|> and others carry the calls.
      text: loaded.tokenizer.decode(generated.tokens, { skip_special_tokens: false }),
      usage: { promptTokens: ids.length, completionTokens: generated.count, latencyMs },
    }
    if (options.format !== undefined) output.format = options.format
    else {
      // The model's own template decides how its output is read (derived format); the marker guess is the fallback.
      const template = chatTemplateText(loaded.tokenizer, renderOptions, Boolean(sample.tools?.length))
      const read = template === undefined ? {} : templateCalls(template, output.text ?? '', sample.tools, `local:${modelIdOrPath}`, options.templateBudget)
      if (read.calls !== undefined) output.calls = read.calls
      const format = read.format ?? (read.calls === undefined ? templateFormat(template) : undefined)
      if (format !== undefined) output.format = format
    }
    return output
  }

  return {
    id: `local:${modelIdOrPath}`,
    settings: outputSettings,
    concurrency: settings.batchSize,
    resumable: true,
    generationTimeoutMs: localGenerationTimeoutMs(settings.maxNewTokens),
    generate,
    async stats() {
      return { ...(await ready()).engine.stats }
    },
    async clearPrefixCache() {
      ;(await ready()).engine.clearPrefixCache()
    },
    async renderPrompt(sample) {
      const { loaded } = await ready()
      return renderPrompt(loaded.tokenizer, sample, modelIdOrPath, renderOptions)
    },
    // The loaded model is shared by every provider of the process; `unloadLocalModels()` releases it.
    async close() {},
  }
}
