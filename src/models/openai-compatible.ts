/**
 * A model behind an OpenAI-compatible chat completions endpoint (vLLM, SGLang, llama.cpp server, Ollama, OpenAI).
 *
 * Transport is Node's own `http`/`https` with a keep-alive agent, not the `openai` package and not `fetch`: the
 * provider has to own retries (which statuses, Retry-After, a sample that still fails becomes an errored sample with
 * a readable reason) and a concurrency limit shared by every provider instance in the process, which the official
 * client would duplicate with its own retry loop and a dependency; and `fetch` (undici) costs several milliseconds
 * more per request than `http.request` on a busy machine (bench/endpoint.js: about 1.22× the ideal wall time at
 * concurrency 32 with fetch, 1.07× with `http.request`).
 *
 * The API key is read from the environment variable the user names, sent only in the Authorization header, and
 * scrubbed from every error message and from every successful reply as it is decoded (so no output holds it); it is
 * never part of `id`, `settings`, or any field of the provider object.
 */
import { createHash } from 'node:crypto'
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import { parseJson } from '../calls/json.js'
import { checkOptionKeys, type OptionKeys } from '../calls/options.js'
import { isPlainObject } from '../calls/call-object.js'
import type { ToolCall } from '../calls/types.js'
import { formatBytes } from '../data/hub-limits.js'
import { templateCalls } from './template-calls.js'
import { endpointUrl, notFoundHint } from './endpoint-url.js'
import { clip, scrub, scrubbedError, scrubDeep } from '../data/secrets.js'
import type { ChatMessage, Sample } from '../data/types.js'

// The scrubber lives with the data layer (HF_TOKEN needs it too); re-exported where it was first published.
export { scrub, scrubCutTail, secretForms } from '../data/secrets.js'
export { formatBytes } from '../data/hub-limits.js'
import { Limiter, shared, sleep } from './concurrency.js'
import { callsFromOpenAI } from './replay.js'
import { roundMs } from '../score/usage.js'
import { retriesOf, type GenerateOptions, type ModelOutput, type ModelProvider } from './types.js'

export interface OpenAICompatibleOptions {
  /** The API root, e.g. `http://127.0.0.1:8000/v1` (vLLM), `http://localhost:11434/v1` (Ollama). */
  baseURL: string
  /** The model name the server expects in the request. */
  model: string
  /** Name of the environment variable that holds the API key (e.g. `OPENAI_API_KEY`); none: no Authorization. */
  apiKeyEnv?: string
  /** Requests in flight at once, shared by every provider with the same endpoint, model and concurrency. Default 8. */
  concurrency?: number
  /** Retries after the first attempt on 408/409/429, 5xx, timeouts, dropped connections, malformed bodies. Default 4. */
  maxRetries?: number
  /** Time limit of one attempt (response headers and body), in ms. Default 120000. */
  timeoutMs?: number
  /**
   * Largest response body accepted, in bytes; a longer one is abandoned as it arrives (never buffered past this) and
   * the sample errors with "response body exceeded …". Default 32 MiB, far above any real completion.
   */
  maxResponseBytes?: number
  /**
   * 'tools' (default): native `tool_calls` in the reply become the calls; a reply without them has its text parsed.
   * 'text': the tools are still sent (so the server's chat template shows them to the model) with `tool_choice:
   * "none"`, and the raw text content is parsed by this library, whatever the server's own tool parser would do.
   */
  mode?: 'tools' | 'text'
  /** Sampling temperature. Default 0 (greedy on servers that honour it). */
  temperature?: number
  /** `max_tokens` of the request; absent: the server's default. */
  maxTokens?: number
  /** Wire-format hint for parsing text content (the model's chat template format, e.g. 'hermes'). */
  format?: string
  /**
   * The model's chat template (Jinja source, as in its tokenizer_config.json): text content is parsed with the
   * format derived from it (see `deriveFormat`), unless `format` is given. Needs `@huggingface/jinja`.
   */
  chatTemplate?: string
  /**
   * 'bfcl': requests shaped as BFCL's OpenAI-compatible handler shapes them (`messages`, `model`, `temperature`,
   * `store: false`, `tools` when there are any; no `stream`, no `tool_choice`, messages sent as given), and each
   * output carries the reply's message verbatim (`message`), which the agent loop then appends to the conversation
   * as the OpenAI SDK echoes it; native calls only, never parsed from text. Default 'default'.
   */
  wire?: 'default' | 'bfcl'
  /** Extra request fields, merged last (e.g. `{ seed: 1, chat_template_kwargs: { enable_thinking: false } }`). */
  body?: Record<string, unknown>
  /** Extra request headers (not part of the provider's identity). */
  headers?: Record<string, string>
  /** First retry delay in ms, doubled on each retry, with jitter. Default 500. */
  retryDelayMs?: number
  /** Upper bound of one retry delay, Retry-After included, in ms. Default 60000. */
  maxRetryDelayMs?: number
}

const OPENAI_COMPATIBLE_KEYS: OptionKeys<OpenAICompatibleOptions> = {
  baseURL: true, model: true, apiKeyEnv: true, concurrency: true, maxRetries: true, timeoutMs: true, maxResponseBytes: true,
  mode: true, temperature: true, maxTokens: true, format: true, chatTemplate: true, wire: true, body: true, headers: true,
  retryDelayMs: true, maxRetryDelayMs: true,
}

/** Where chat completions are, under the base URL. */
const CHAT_PATH = 'chat/completions'

/** One failed attempt: why, whether another attempt may succeed, and how long the server asked us to wait. */
interface Failure {
  reason: string
  retryable: boolean
  retryAfterMs?: number
}

type Attempt = { ok: true; json: unknown } | { ok: false; failure: Failure }

/** A provider for an OpenAI-compatible chat completions endpoint. */
export function openaiCompatible(options: OpenAICompatibleOptions): ModelProvider {
  checkOptionKeys(options, OPENAI_COMPATIBLE_KEYS, 'openaiCompatible')
  const publicBase = publicUrl(options.baseURL)
  const endpoint = endpointUrl(options.baseURL, CHAT_PATH)
  const concurrency = options.concurrency ?? 8
  const maxRetries = options.maxRetries ?? 4
  const timeoutMs = options.timeoutMs ?? 120_000
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES
  // 0, a negative number or NaN would silently turn the cap off: a programming error, said where it is made.
  if (!(Number.isFinite(maxResponseBytes) && maxResponseBytes > 0)) {
    throw new TypeError(`openaiCompatible: maxResponseBytes must be a positive, finite number of bytes, got ${String(maxResponseBytes)}`)
  }
  const mode = options.mode ?? 'tools'
  const id = `openai:${options.model}@${publicBase}`
  const settings: Record<string, unknown> = { mode, temperature: options.temperature ?? 0 }
  if (options.maxTokens !== undefined) settings['maxTokens'] = options.maxTokens
  if (options.body !== undefined) settings['body'] = options.body
  // Part of the cache key (outputs may carry calls read with it), as a digest: a template is long.
  if (options.chatTemplate !== undefined) settings['chatTemplate'] = createHash('sha256').update(options.chatTemplate).digest('hex').slice(0, 16)
  if (options.wire === 'bfcl') settings['wire'] = 'bfcl'
  const limiter = shared(`endpoint-limiter:${id}|${concurrency}`, () => new Limiter(concurrency))

  const readKey = (): string | undefined => {
    if (options.apiKeyEnv === undefined) return undefined
    const key = process.env[options.apiKeyEnv]
    if (key === undefined || key === '') {
      throw new Error(`environment variable ${options.apiKeyEnv} (apiKeyEnv) is not set`)
    }
    return key
  }

  const agent = shared(`endpoint-agent:${id}|${concurrency}`, () => {
    const agentOptions = { keepAlive: true, maxSockets: concurrency }
    return endpoint.protocol === 'https:' ? new HttpsAgent(agentOptions) : new HttpAgent(agentOptions)
  })

  async function attempt(body: string, key: string | undefined, signal?: AbortSignal): Promise<Attempt> {
    const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers }
    if (key !== undefined) headers['authorization'] = `Bearer ${key}`
    // Every server text is scrubbed whole before it is cut to a snippet: a cut could split the key.
    const clean = (text: string) => scrub(text, key)
    const cut = (text: string) => clip(text, SNIPPET_CHARS, key)
    try {
      const res = await post(endpoint, headers, body, agent, { timeoutMs, maxResponseBytes }, signal)
      if (res.status >= 200 && res.status < 300) {
        const decoded = parseJson(res.text)
        if (!decoded.ok) return fail(`malformed JSON in the response body (HTTP ${res.status}): ${cut(res.text)}`, true)
        // A reply without a first choice's message (`choices: []` included) is malformed: retried like bad JSON.
        if (firstMessage(decoded.value) === undefined) {
          return fail(`response has no choices[0].message: ${cut(res.text)}`, true)
        }
        // The reply is scrubbed whole before anything reads it: a server that echoes the key (in text, in call
        // arguments) must not put it into outputs, caches, reports or BFCL files. A call argument that held the key
        // is parsed and scored with `***` in its place.
        return { ok: true, json: scrubDeep(decoded.value, key) }
      }
      const retryable = res.status === 408 || res.status === 409 || res.status === 429 || res.status >= 500
      const hint = res.status === 404 ? notFoundHint(endpoint, CHAT_PATH) : ''
      return fail(`HTTP ${res.status}: ${errorMessage(clean(res.text), key)}${hint}`, retryable, retryAfter(res.headers))
    } catch (err) {
      if (signal?.aborted) throw err
      if (err instanceof TimeoutError) return fail(`request timed out after ${timeoutMs} ms`, true)
      // The same reply would be as large next time: not retried.
      if (err instanceof TooLargeError) return fail(`response body exceeded ${formatBytes(maxResponseBytes)}`, false)
      return fail(`connection failed: ${networkReason(err)}`, true)
    }
  }

  async function generate(sample: Sample, opts?: GenerateOptions): Promise<ModelOutput> {
    const signal = opts?.signal
    const deadline = opts?.deadline
    const key = readKey()
    const body = JSON.stringify(requestBody(sample, options, mode))
    try {
      for (let n = 0; ; n++) {
        const release = await limiter.acquire(signal)
        let result: Attempt
        // The answering attempt's round trip (not the wait for a slot, nor earlier attempts and back-off).
        const started = performance.now()
        try {
          result = await attempt(body, key, signal)
        } finally {
          release()
        }
        if (result.ok) {
          const output = options.wire === 'bfcl' ? bfclOutput(result.json) : outputFromResponse(result.json, mode, options.format)
          if (options.wire !== 'bfcl' && output.calls === undefined && options.format === undefined && options.chatTemplate !== undefined) {
            Object.assign(output, templateCalls(options.chatTemplate, output.text ?? '', sample.tools, id))
          }
          return withLatency(output, performance.now() - started, n)
        }
        const { failure } = result
        if (!failure.retryable || n >= maxRetries) throw gaveUp(`${id}: ${failure.reason}`, n, '')
        const delay = retryDelay(n, failure.retryAfterMs, options)
        // A retry that would end past the deadline (the sample's test timeout) only hides this error behind a timeout.
        if (deadline !== undefined && Date.now() + delay + MIN_ATTEMPT_MS >= deadline) {
          throw gaveUp(`${id}: ${failure.reason}`, n, ": no time for another before the sample's timeout")
        }
        // Back off without holding a slot, so samples that are not being throttled keep going.
        await sleep(delay, signal)
      }
    } catch (err) {
      throw scrubbedError(err, key)
    }
  }

  // Every attempt to its time limit, and the longest back-off (Retry-After included) between them.
  const generationTimeoutMs = (maxRetries + 1) * timeoutMs + maxRetries * (options.maxRetryDelayMs ?? 60_000)
  return { id, settings, concurrency, resumable: true, generationTimeoutMs, generate }
}

// ---------------------------------------------------------------------------------------------------------------
// Request and response

function requestBody(sample: Sample, options: OpenAICompatibleOptions, mode: 'tools' | 'text'): Record<string, unknown> {
  if (options.wire === 'bfcl') return bfclRequestBody(sample, options)
  const body: Record<string, unknown> = {
    model: options.model,
    messages: sample.messages.map(wireMessage),
    temperature: options.temperature ?? 0,
    stream: false,
  }
  if (sample.tools && sample.tools.length > 0) {
    body['tools'] = sample.tools.map((t) => ({ ...t, type: t.type ?? 'function' }))
    if (mode === 'text') body['tool_choice'] = 'none'
  }
  if (options.maxTokens !== undefined) body['max_tokens'] = options.maxTokens
  return { ...body, ...options.body }
}

/** BFCL's `_query_FC` / `_query_prompting` keyword arguments, as the OpenAI SDK sends them. */
function bfclRequestBody(sample: Sample, options: OpenAICompatibleOptions): Record<string, unknown> {
  const body: Record<string, unknown> = { messages: sample.messages, model: options.model, temperature: options.temperature ?? 0, store: false }
  if (sample.tools && sample.tools.length > 0) body['tools'] = sample.tools
  return { ...body, ...options.body }
}

/** BFCL wire: the reply's message as is, its native calls (an empty list is no call), its text, usage. */
function bfclOutput(json: unknown): ModelOutput {
  const message = firstMessage(json)
  if (message === undefined) throw new Error('response has no choices[0].message')
  const output: ModelOutput = { text: contentText(message['content']), message, calls: [] }
  const toolCalls = message['tool_calls']
  if (Array.isArray(toolCalls) && toolCalls.length > 0) output.calls = nativeCalls(toolCalls)
  const usage = isPlainObject(json) ? json['usage'] : undefined
  if (isPlainObject(usage)) {
    output.usage = {}
    if (typeof usage['prompt_tokens'] === 'number') output.usage.promptTokens = usage['prompt_tokens']
    if (typeof usage['completion_tokens'] === 'number') output.usage.completionTokens = usage['completion_tokens']
  }
  return output
}

/** The OpenAI wire shape of a message: tool call arguments are JSON strings there. */
function wireMessage(m: ChatMessage): ChatMessage {
  if (!m.tool_calls) return m
  return {
    ...m,
    tool_calls: m.tool_calls.map((tc) => ({
      ...tc,
      type: tc.type ?? 'function',
      function: {
        ...tc.function,
        arguments: typeof tc.function.arguments === 'string' ? tc.function.arguments : JSON.stringify(tc.function.arguments),
      },
    })),
  }
}

/** `choices[0].message` of a completion body, when it is an object. */
function firstMessage(json: unknown): Record<string, unknown> | undefined {
  const choices = isPlainObject(json) ? json['choices'] : undefined
  const choice: unknown = Array.isArray(choices) ? choices[0] : undefined
  const message = isPlainObject(choice) ? choice['message'] : undefined
  return isPlainObject(message) ? message : undefined
}

/** The output of a completion body that `attempt` has checked has a first message. */
function outputFromResponse(json: unknown, mode: 'tools' | 'text', format: string | undefined): ModelOutput {
  const message = firstMessage(json)
  if (message === undefined) throw new Error('response has no choices[0].message')

  const output: ModelOutput = { text: contentText(message['content']) }
  if (format !== undefined) output.format = format
  const usage = isPlainObject(json) ? json['usage'] : undefined
  if (isPlainObject(usage)) {
    const u: NonNullable<ModelOutput['usage']> = {}
    if (typeof usage['prompt_tokens'] === 'number') u.promptTokens = usage['prompt_tokens']
    if (typeof usage['completion_tokens'] === 'number') u.completionTokens = usage['completion_tokens']
    output.usage = u
  }
  const toolCalls = message['tool_calls']
  if (mode === 'tools' && Array.isArray(toolCalls) && toolCalls.length > 0) {
    output.calls = nativeCalls(toolCalls)
  }
  return output
}

/** The request's latency (non-streaming: no first-token time) and the retries before it on the output's usage. */
function withLatency(output: ModelOutput, ms: number, retries: number): ModelOutput {
  output.usage = { ...output.usage, latencyMs: roundMs(ms) }
  if (retries > 0) output.usage.retries = retries
  return output
}

/** ToolCalls from native `tool_calls`, each keeping its wire object as `raw` (a recording writes it back as is). */
function nativeCalls(toolCalls: unknown[]): ToolCall[] {
  const calls = callsFromOpenAI(toolCalls)
  if (typeof calls === 'string') throw new Error(`response tool_calls: ${calls}`)
  calls.forEach((c, i) => {
    c.raw = JSON.stringify(toolCalls[i])
  })
  return calls
}

/** Message content as text: a string, or the text parts of a content array (some servers send parts). */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) {
    return content.map((p) => (isPlainObject(p) && typeof p['text'] === 'string' ? p['text'] : '')).join('')
  }
  return ''
}

// ---------------------------------------------------------------------------------------------------------------
// Failures and retries

/** Time a retry needs at the least to be worth making before a deadline (connect, send, a quick answer). */
const MIN_ATTEMPT_MS = 50

/** The error a sample fails with after `retries` retries: the last attempt's reason, the attempts, and why it stopped. */
function gaveUp(reason: string, retries: number, why: string): Error & { retries: number } {
  const tries = retries + 1
  const error = new Error(`${reason}${tries > 1 || why ? ` (gave up after ${tries} attempt${tries > 1 ? 's' : ''}${why})` : ''}`)
  return Object.assign(error, { retries })
}

function fail(reason: string, retryable: boolean, retryAfterMs?: number): Attempt {
  const failure: Failure = { reason, retryable }
  if (retryAfterMs !== undefined) failure.retryAfterMs = retryAfterMs
  return { ok: false, failure }
}

/** Exponential backoff with equal jitter, never shorter than the server's Retry-After, capped. */
function retryDelay(n: number, retryAfterMs: number | undefined, options: OpenAICompatibleOptions): number {
  const base = options.retryDelayMs ?? 500
  const cap = options.maxRetryDelayMs ?? 60_000
  const exp = Math.min(cap, base * 2 ** n)
  const jittered = exp / 2 + Math.random() * (exp / 2)
  return Math.min(cap, Math.max(jittered, retryAfterMs ?? 0))
}

/** Retry-After (seconds or an HTTP date) or OpenAI's retry-after-ms, in ms. */
export function retryAfter(headers: IncomingHttpHeaders): number | undefined {
  const header = (name: string) => {
    const v = headers[name]
    return Array.isArray(v) ? v[0] : v
  }
  const ms = header('retry-after-ms')
  if (ms !== undefined && ms.trim() !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms))
  const value = header('retry-after')
  if (value === undefined || value.trim() === '') return undefined
  const seconds = Number(value)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now())
}

/**
 * The server's own error message from an (already scrubbed) error body (OpenAI `error.message`, FastAPI `detail`),
 * or a snippet. The decoded message is scrubbed again: JSON escapes may have hidden a spelling of the key.
 */
function errorMessage(text: string, key: string | undefined): string {
  const cut = (t: string) => clip(t, SNIPPET_CHARS, key)
  const decoded = parseJson(text)
  if (decoded.ok && isPlainObject(decoded.value)) {
    const v = decoded.value
    const err = v['error']
    if (isPlainObject(err) && typeof err['message'] === 'string') return cut(err['message'])
    if (typeof err === 'string') return cut(err)
    if (typeof v['detail'] === 'string') return cut(v['detail'])
    if (typeof v['message'] === 'string') return cut(v['message'])
  }
  return cut(text) || '(empty body)'
}

function networkReason(err: unknown): string {
  const e = err as { message?: unknown; code?: unknown }
  const message = typeof e.message === 'string' && e.message !== '' ? e.message : String(err)
  return typeof e.code === 'string' && !message.includes(e.code) ? `${message} (${e.code})` : message
}

/** Characters of a server's text kept in an error message. */
const SNIPPET_CHARS = 300

// ---------------------------------------------------------------------------------------------------------------
// Transport

class TimeoutError extends Error {}
/** The body grew past `maxResponseBytes`. */
class TooLargeError extends Error {}

const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024


interface HttpReply {
  status: number
  headers: IncomingHttpHeaders
  text: string
}

/**
 * POST `body` and read the whole reply. Rejects on connection errors, on `signal`, with a TimeoutError when the
 * reply (headers and body) has not fully arrived within `timeoutMs`, and with a TooLargeError as soon as the body
 * (counted as it arrives, or announced by Content-Length) is over `maxResponseBytes`.
 */
function post(
  url: URL,
  headers: Record<string, string>,
  body: string,
  agent: HttpAgent,
  limits: { timeoutMs: number; maxResponseBytes: number },
  signal?: AbortSignal,
): Promise<HttpReply> {
  const { timeoutMs, maxResponseBytes } = limits
  return new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest
    const req = send(url, {
      method: 'POST',
      agent,
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
    })
    let settled = false
    const finish = (err: unknown, reply?: HttpReply) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      if (err !== undefined) {
        req.destroy()
        reject(err)
      } else resolve(reply as HttpReply)
    }
    const timer = setTimeout(() => finish(new TimeoutError('timeout')), timeoutMs)
    const onAbort = () => finish(signal?.reason instanceof Error ? signal.reason : new Error('aborted'))
    signal?.addEventListener('abort', onAbort, { once: true })
    req.on('error', (err) => finish(err))
    req.on('response', (res) => {
      const chunks: Buffer[] = []
      let bytes = 0
      const tooLarge = () => finish(new TooLargeError(`response body over ${maxResponseBytes} bytes`))
      res.on('data', (c: Buffer) => {
        if (settled) return
        bytes += c.length
        if (bytes > maxResponseBytes) tooLarge()
        else chunks.push(c)
      })
      res.on('error', (err) => finish(err))
      res.on('aborted', () => finish(new Error('connection closed before the response ended')))
      res.on('end', () => {
        if (!res.complete) finish(new Error('connection closed before the response ended'))
        else finish(undefined, { status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') })
      })
      // Announced too large: stop before reading any of it (listeners above are attached, so nothing goes unhandled).
      if (Number(res.headers['content-length']) > maxResponseBytes) tooLarge()
    })
    req.end(body)
  })
}

// ---------------------------------------------------------------------------------------------------------------
// URLs

/** The base URL without credentials, query or fragment: safe to show in ids and reports. */
function publicUrl(base: string): string {
  try {
    const u = new URL(base)
    u.username = ''
    u.password = ''
    u.search = ''
    u.hash = ''
    return u.href.endsWith('/') ? u.href.slice(0, -1) : u.href
  } catch {
    throw new Error(`openaiCompatible: baseURL is not a URL: ${JSON.stringify(base)}`)
  }
}
