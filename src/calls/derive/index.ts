/**
 * `deriveFormat`: a wire format read off a chat template. The template renders probe conversations (known calls:
 * see probes.ts) with `@huggingface/jinja`, the engine transformers.js uses; the assistant turn of each rendering
 * is what a model would write, and `inferFormat` reads the markers and the call shape from it. The result is
 * checked against every probe, and against the hand-written formats (`matches`); where no call shape fits, a
 * hand-written format that reads every probe back is taken (`shape.kind: 'format'`). Any failure is an error that
 * says why: callers then fall back to detection, saying so.
 */
import { FORMATS } from '../formats/index.js'
import type { ChatMessage } from '../types.js'
import { inferFormat, commonPrefix, commonSuffix, probeId, type Rendered } from './infer.js'
import { DEFAULT_TEMPLATE_BUDGET, renderBounded, templateBudget, type Rendering, type TemplateBudget, explainEngineError } from './jinja.js'
import { PLAIN_ANSWER, PROBES, PROBE_TOOLS, USER_TEXT, sameCalls, type Probe } from './probes.js'
import type { DerivedFormat, DeriveError } from './types.js'

export type { CallIdForm, CallShape, DerivedFormat, DeriveError, ValueTypeTag } from './types.js'
export type { TemplateBudget } from './jinja.js'
export { DEFAULT_TEMPLATE_BUDGET } from './jinja.js'
export { parseDerived, DERIVED } from './parse.js'

export interface DeriveOptions {
  /** Further template variables (`bos_token`, `enable_thinking`, ...); the special tokens default to ''. */
  context?: Record<string, unknown>
  /**
   * How long and how much memory rendering the template may take (default 5000 ms, 256 MB): templates are code from
   * a model's repository, rendered in a worker thread under this budget. Going over it is a `DeriveError` with
   * `invalid: 'budget'`.
   */
  budget?: TemplateBudget
}

/**
 * How the probes' messages are written. Templates differ in what they accept: most apply `tojson` to arguments
 * given as objects, some concatenate them as strings (DeepSeek V3); some render calls only when `content` is null.
 */
const VARIANTS: { stringArguments: boolean; nullContent: boolean; callIds?: boolean; note?: string }[] = [
  { stringArguments: false, nullContent: false },
  { stringArguments: true, nullContent: false, note: 'arguments were passed as JSON strings' },
  { stringArguments: false, nullContent: true, note: 'content was passed as null' },
  { stringArguments: true, nullContent: true, note: 'arguments were passed as JSON strings, content as null' },
  // Templates that write the call id where others write the name (Kimi K2) show no name with ids like `call0abcd`.
  { stringArguments: false, nullContent: false, callIds: true, note: 'call ids were passed as functions.NAME:IDX' },
  { stringArguments: true, nullContent: false, callIds: true, note: 'call ids were passed as functions.NAME:IDX, arguments as JSON strings' },
]

/**
 * The variables Python-side renderers (transformers, vLLM, the model's own serving code) give templates beyond
 * `messages` and `tools`: the special tokens (''), FireFunction's `functions` (the offered functions as JSON text) and
 * `datetime`, Llama 3.1's `date_string`, and thinking switches off (`enable_thinking`, `thinking`), so that an assistant
 * turn renders as the model writes it without reasoning. A fixed date keeps derivation deterministic. `strftime_now`
 * (python-values.ts) gives the current time, as in Python: it is written in system prompts, never in the calls.
 */
const TEMPLATE_VARIABLES: Record<string, unknown> = {
  bos_token: '',
  eos_token: '',
  pad_token: '',
  unk_token: '',
  functions: JSON.stringify(PROBE_TOOLS.map((t) => t.function)),
  datetime: '2026-01-01 00:00:00',
  date_string: '01 Jan 2026',
  enable_thinking: false,
  thinking: false,
}

// Per template: the budget it was derived under, and the result. Keyed by the template itself, so a hit costs a
// lookup of a string whose hash V8 keeps, not the hashing of a new key built from it.
const cache = new Map<string, { budget: string; result: DerivedFormat | DeriveError }>()
const CACHE_SIZE = 32
const DEFAULT_KEY = `${DEFAULT_TEMPLATE_BUDGET.timeMs}:${DEFAULT_TEMPLATE_BUDGET.memoryMb}`

/**
 * The wire format a chat template writes tool calls in, or `{ error }` saying why none could be derived (the
 * template does not render assistant tool calls, renders them in no shape known here, or ambiguously; `invalid`
 * when the template cannot be used at all). Cached per template and budget (without `options.context`), failures of
 * the budget included: a hostile template costs its budget once.
 */
export function deriveFormat(chatTemplate: string, options: DeriveOptions = {}): DerivedFormat | DeriveError {
  // The default budget needs no checking and no key built: a cached template costs one lookup.
  const budget = options.budget === undefined ? DEFAULT_TEMPLATE_BUDGET : templateBudget(options.budget, 'deriveFormat: options.budget')
  const cacheable = options.context === undefined
  const budgetKey = budget === DEFAULT_TEMPLATE_BUDGET ? DEFAULT_KEY : `${budget.timeMs}:${budget.memoryMb}`
  const hit = cacheable ? cache.get(chatTemplate) : undefined
  if (hit !== undefined && hit.budget === budgetKey) return hit.result
  let result: DerivedFormat | DeriveError
  try {
    result = derive(chatTemplate, options, budget)
  } catch (err) {
    result = { error: `deriving the format failed: ${err instanceof Error ? err.message : String(err)}` }
  }
  if (cacheable) {
    if (!cache.has(chatTemplate) && cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!)
    cache.set(chatTemplate, { budget: budgetKey, result })
  }
  return result
}

function derive(source: string, options: DeriveOptions, budget: Readonly<Required<TemplateBudget>>): DerivedFormat | DeriveError {
  if (typeof source !== 'string' || source.trim() === '') return { error: 'the chat template is empty' }
  const context = (messages: ChatMessage[], generationPrompt = false): Record<string, unknown> => ({
    ...TEMPLATE_VARIABLES, ...options.context, messages, tools: PROBE_TOOLS, add_generation_prompt: generationPrompt,
  })
  // Every conversation the derivation may look at, rendered in one bounded job (the template is compiled once).
  const conversations = [[{ role: 'user', content: USER_TEXT }, { role: 'assistant', content: PLAIN_ANSWER }] as ChatMessage[]]
  for (const variant of VARIANTS) {
    for (const probe of PROBES) conversations.push([{ role: 'user', content: USER_TEXT }, assistantMessage(probe, variant)])
  }
  // Last, a user turn without and with the generation prompt: whether the prompt opens the first call.
  const user: ChatMessage[] = [{ role: 'user', content: USER_TEXT }]
  const rendered = renderBounded(source, [...conversations.map((c) => context(c)), context(user), context(user, true)], budget)
  if (rendered.error !== undefined) return { error: rendered.error, invalid: rendered.invalid }
  const renders: Rendering[] = rendered.renders
  const supplied = rendered.supplied
  const renderingOf = (variantIndex: number, probeIndex: number): Rendering => renders[1 + variantIndex * PROBES.length + probeIndex]!

  const [withoutPrompt, withPrompt] = renders.slice(conversations.length)
  const plain = renders[0]!
  if (plain.error !== undefined) return { error: `the template cannot render a plain conversation: ${explainEngineError(source, plain.error, supplied)}` }
  const plainText = plain.text
  const userEnd = plainText.lastIndexOf(USER_TEXT)
  const answerAt = userEnd < 0 ? -1 : plainText.indexOf(PLAIN_ANSWER, userEnd + USER_TEXT.length)
  if (answerAt < 0) return { error: 'the template does not render an assistant message after a user message' }
  // The assistant turn: after the text every turn shares (up to the answer), before the end-of-turn text.
  const endOfTurn = plainText.slice(answerAt + PLAIN_ANSWER.length)
  const turn = (text: string, start = headerEnd(text, Math.min(commonPrefix(text, plainText), answerAt), plainText, answerAt)): string => {
    // The end-of-turn text is cut whole, or only its trailing whitespace: a partial match (`｜>` of another token)
    // belongs to the call's own markers.
    let cut = commonSuffix(text, endOfTurn)
    if (cut < endOfTurn.length) cut = Math.min(cut, endOfTurn.length - endOfTurn.trimEnd().length)
    return text.slice(start, text.length - Math.min(cut, text.length - start))
  }
  // What the model writes after the generation prompt, where a rendering begins with it (the prompt may open the turn
  // with text the plain answer shares: Functionary v3.2's `>>>`); else the turn as above.
  const promptText = withPrompt?.text
  const output = (text: string): string => (promptText !== undefined && text.startsWith(promptText) ? turn(text, promptText.length) : turn(text))

  const errors: string[] = []
  // Per input variant, the probes the template rendered: for a hand-written format to read when no shape does.
  const renderedBy: { outputs: Rendered[]; notes: string[]; error?: string }[] = []
  for (const [v, variant] of VARIANTS.entries()) {
    const rendered: Rendered[] = []
    const outputs: Rendered[] = []
    const notes: string[] = []
    for (const [p, probe] of PROBES.entries()) {
      const r = renderingOf(v, p)
      if (r.error !== undefined) {
        notes.push(`probe "${probe.id}" is left out: the template raises ${JSON.stringify(explainEngineError(source, r.error, supplied))}`)
        continue
      }
      const body = turn(r.text)
      if (probe.calls.some((c) => !body.includes(c.name))) {
        notes.push(`probe "${probe.id}" is left out: the template does not render its calls`)
        continue
      }
      rendered.push({ probe, body })
      outputs.push({ probe, body: output(r.text) })
    }
    if (!rendered.some((r) => r.probe.id === 'one call')) {
      errors.push(`${variant.note ?? 'arguments as objects, content as ""'}: ${notes.join('; ') || 'no call is rendered'}`)
      continue
    }
    const f = inferFormat(rendered, turn(plainText), variant.callIds === true)
    if ('error' in f) {
      errors.push(`${variant.note ?? 'arguments as objects'}: ${f.error}`)
      renderedBy.push({ outputs, notes: variant.note ? [...notes, variant.note] : notes, error: f.error })
      continue
    }
    if (variant.note) notes.push(variant.note)
    if (generationPromptEndsWith(withoutPrompt, withPrompt, f.callOpen)) f.openedByPrompt = true
    f.notes.unshift(...notes)
    const matching = matchingFormat(rendered, turn(plainText))
    if (matching) f.matches = matching
    return f
  }
  // No shape reads the calls back; a hand-written format that reads every probe back exactly is as good a witness.
  for (const { outputs, notes, error } of renderedBy) {
    const matching = matchingFormat(outputs, output(plainText))
    if (matching === undefined) continue
    const two = outputs.find((r) => r.probe.id === 'two calls') ?? outputs[0]!
    notes.push(`the hand-written format ${matching} reads every probe back, where ${error}`)
    return { blockOpen: '', blockClose: '', callOpen: '', callClose: '', separator: '', shape: { kind: 'format' }, matches: matching, verified: outputs.map((r) => r.probe.id), notes, example: two.body }
  }
  if (errors.every((e) => e.includes('no call is rendered') || e.includes('left out'))) {
    return { error: `the template does not render assistant tool calls (${errors[0]})` }
  }
  // The variants mostly fail alike: the first one's reason, and how many more were tried.
  return { error: errors[0]! + (errors.length > 1 ? ` (${errors.length - 1} other ways of writing the probes fail too)` : '') }
}

/**
 * Where the assistant's turn starts in `text`: after `start`, the text the plain conversation writes before its answer
 * (up to `answerAt`) is skipped when `text` writes it too, in other whitespace (Llama 4 writes a line break before
 * the header of a turn with calls); else `start`.
 */
function headerEnd(text: string, start: number, plain: string, answerAt: number): number {
  let i = start
  let j = start
  while (j < answerAt) {
    if (text[i] === plain[j]) {
      i++
      j++
    } else if (/\s/.test(text[i] ?? '')) i++
    else if (/\s/.test(plain[j]!)) j++
    else return start
  }
  return i
}

/**
 * Whether the generation prompt (what a user turn renders with `add_generation_prompt`, beyond what it renders
 * without) ends with `callOpen`: then the model's output begins inside its first call.
 */
function generationPromptEndsWith(without: Rendering | undefined, withPrompt: Rendering | undefined, callOpen: string): boolean {
  const open = callOpen.trim()
  if (open === '' || without?.text === undefined || withPrompt?.text === undefined) return false
  return withPrompt.text.startsWith(without.text) && withPrompt.text.slice(without.text.length).trimEnd().endsWith(open)
}

/**
 * The hand-written format (a `FORMATS` name) that is detected in, and reads back exactly, every probe rendering and
 * finds nothing in a plain answer; undefined when none does.
 */
function matchingFormat(rendered: Rendered[], plain: string): string | undefined {
  return FORMATS.find(
    (fmt) => rendered.every((r) => fmt.detect(r.body) && sameCalls(safeParse(fmt, r.body), r.probe.calls)) && safeParse(fmt, plain).length === 0,
  )?.name
}

function safeParse(fmt: (typeof FORMATS)[number], text: string) {
  try {
    return fmt.parse(text, { tools: PROBE_TOOLS })
  } catch {
    return []
  }
}

function assistantMessage(probe: Probe, variant: (typeof VARIANTS)[number]): ChatMessage {
  return {
    role: 'assistant',
    content: probe.content === '' && variant.nullContent ? null : probe.content,
    tool_calls: probe.calls.map((c, i) => ({
      // Nine letters and digits: Mistral's templates refuse any other id.
      id: variant.callIds ? probeId(c.name, i) : `call${i}abcd`,
      type: 'function',
      function: { name: c.name, arguments: variant.stringArguments ? JSON.stringify(c.arguments) : c.arguments },
    })),
  }
}

/**
 * One context rendered under the budget in the bounded worker. For a caller that must then render on its own thread
 * (transformers.js's tokenizer in `local()`): a template that loops or allocates without bound on this input fails
 * here, naming the budget, instead of hanging or crashing the process. `{ text }`, or `{ error, invalid }` when the
 * template cannot be used at all; `{ error }` alone when it raised on this input (the caller's own render says so too).
 */
export function renderTemplateBounded(
  chatTemplate: string,
  context: Record<string, unknown>,
  budget?: TemplateBudget,
): { text: string; error?: undefined } | { error: string; invalid?: 'engine' | 'syntax' | 'budget' } {
  const rendered = renderBounded(chatTemplate, [context], templateBudget(budget))
  if (rendered.error !== undefined) return { error: rendered.error, invalid: rendered.invalid }
  const r = rendered.renders[0]!
  return r.error !== undefined ? { error: r.error } : { text: r.text }
}

/**
 * The tool-use chat template in a tokenizer_config.json or chat_template.json object: `chat_template` as a string,
 * or the list of named templates (`tool_use` first, then `default`). Undefined when there is none.
 */
export function chatTemplateOf(config: unknown): string | undefined {
  if (typeof config !== 'object' || config === null) return undefined
  const t = (config as Record<string, unknown>)['chat_template']
  if (typeof t === 'string') return t
  if (!Array.isArray(t)) return undefined
  const named = (name: string): unknown => t.find((e: unknown) => (e as { name?: unknown } | null)?.name === name)
  const entry = (named('tool_use') ?? named('default') ?? t[0]) as { template?: unknown } | undefined
  return typeof entry?.template === 'string' ? entry.template : undefined
}
