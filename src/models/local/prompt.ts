/**
 * Rendering a sample into the model's prompt with the tokenizer's own chat template, and reading the template's
 * tool-call wire format (the parser hint).
 */
import { deriveFormat, getFormat, renderTemplateBounded, type TemplateBudget } from '../../calls/index.js'
import { parseJson } from '../../calls/json.js'
import { isPlainObject } from '../../calls/call-object.js'
import type { ChatMessage, Sample } from '../../data/types.js'
import type { Tokenizer } from './runtime.js'

export interface RenderOptions {
  /** A Jinja chat template (or the name of one of the tokenizer's templates) used instead of the default. */
  chatTemplate?: string
  /** Extra template variables, e.g. `{ enable_thinking: false }` for Qwen3. */
  templateKwargs?: Record<string, unknown>
  /**
   * Time and memory for rendering the chat template's probe conversations in a worker (default 5000 ms, 256 MB):
   * a template from a model's repository that loops or allocates without bound errors the sample instead of
   * hanging or crashing the process. Checked once per template.
   */
  templateBudget?: TemplateBudget
}

/**
 * The prompt text of a sample: its messages and tools through the chat template, with the generation prompt.
 * Throws a readable error when the template fails, or when the sample has tools and the template leaves them out.
 */
export function renderPrompt(tokenizer: Tokenizer, sample: Sample, modelName: string, options: RenderOptions = {}): string {
  const messages = sample.messages.map(templateMessage)
  const tools = sample.tools && sample.tools.length > 0 ? sample.tools : null
  assertTemplateUsable(tokenizer, modelName, options, sample, messages, tools)
  let text: unknown
  try {
    text = tokenizer.apply_chat_template(messages, {
      ...options.templateKwargs,
      tools,
      add_generation_prompt: true,
      tokenize: false,
      chat_template: options.chatTemplate ?? null,
    })
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err)
    const withTools = tools ? ` with its ${tools.length} tool(s)` : ''
    throw new Error(`the chat template of ${modelName} cannot render sample "${sample.id}"${withTools}: ${detail}`)
  }
  if (typeof text !== 'string') throw new Error(`the chat template of ${modelName} did not render text`)
  if (tools && !rendersTools(text, messages, tools.map((t) => t.function.name))) {
    throw new Error(
      `the chat template of ${modelName} does not render tools: none of sample "${sample.id}"'s tool names ` +
        `appears in the prompt (pass a template that supports tools with the chatTemplate option)`,
    )
  }
  return text
}

/**
 * The template is first rendered under its budget, in a worker: its probe conversations (`deriveFormat`, cached per
 * template), then this sample's own prompt (a template can be harmless on the probes and loop on one conversation).
 * One that does not compile or goes over the budget there is never given to the tokenizer, which renders on this
 * thread unbounded. The worker renders with the same engine (`@huggingface/jinja`) and empty special tokens: only
 * the budget is read from it, the prompt itself is the tokenizer's.
 */
function assertTemplateUsable(tokenizer: Tokenizer, modelName: string, options: RenderOptions, sample: Sample, messages: ChatMessage[], tools: Sample['tools'] | null): void {
  const template = chatTemplateText(tokenizer, options, tools !== null)
  if (template === undefined) return
  const budget = options.templateBudget === undefined ? {} : { budget: options.templateBudget }
  const derived = deriveFormat(template, budget)
  if ('error' in derived && (derived.invalid === 'syntax' || derived.invalid === 'budget')) {
    throw new Error(`the chat template of ${modelName} cannot be used: ${derived.error}`)
  }
  const context = { bos_token: '', eos_token: '', pad_token: '', unk_token: '', ...options.templateKwargs, messages, tools, add_generation_prompt: true }
  const own = renderTemplateBounded(template, context, options.templateBudget)
  if ('invalid' in own && (own.invalid === 'syntax' || own.invalid === 'budget')) {
    throw new Error(`the chat template of ${modelName} cannot render sample "${sample.id}": ${own.error}`)
  }
}

/**
 * A message as chat templates expect it: content never null (templates call string methods on it), tool call
 * arguments as objects (most templates apply `tojson` to them; a string would be encoded twice).
 */
function templateMessage(m: ChatMessage): ChatMessage {
  const out: ChatMessage = { ...m, content: m.content ?? '' }
  if (m.tool_calls) {
    out.tool_calls = m.tool_calls.map((tc) => {
      const args = tc.function.arguments
      if (typeof args !== 'string') return tc
      const decoded = parseJson(args)
      return decoded.ok && isPlainObject(decoded.value) ? { ...tc, function: { ...tc.function, arguments: decoded.value } } : tc
    })
  }
  return out
}

/** Some tool name occurs more often in the prompt than in the messages themselves: the template wrote the tools. */
function rendersTools(text: string, messages: ChatMessage[], names: string[]): boolean {
  // A tool message's `name` is left out: most templates do not render it (an agent loop's conversation has many).
  const own = messages.map((m) => JSON.stringify(m.role === 'tool' ? { ...m, name: undefined } : m)).join('\n')
  return names.some((name) => name.length > 0 && occurrences(text, name) > occurrences(own, name))
}

function occurrences(text: string, needle: string): number {
  let n = 0
  for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + needle.length)) n++
  return n
}

/** Markers in a chat template that name the tool-call format its model writes, most specific first. */
const TEMPLATE_MARKERS: [marker: string, also: string | undefined, format: string][] = [
  ['<|channel|>', undefined, 'harmony'],
  ['<|tool_calls_section_begin|>', undefined, 'kimi_k2'],
  ['<start_function_call>', undefined, 'functiongemma'],
  ['<tool_call>', '<arg_key>', 'glm45'],
  ['<tool_call>', '<function=', 'qwen3_coder'],
  ['<tool_call>', undefined, 'hermes'],
  ['[TOOL_CALLS]', undefined, 'mistral'],
]

/**
 * The wire format a chat template's model writes tool calls in, when the template shows it unambiguously and the
 * parser knows that format (e.g. 'hermes' for Qwen2.5/Qwen3 templates); undefined lets the parser detect it.
 */
export function templateFormat(template: string | undefined): string | undefined {
  if (!template) return undefined
  for (const [marker, also, format] of TEMPLATE_MARKERS) {
    if (template.includes(marker) && (also === undefined || template.includes(also))) {
      return getFormat(format) ? format : undefined
    }
  }
  return undefined
}

/** The template text used for a sample's rendering, when the tokenizer can tell. */
export function chatTemplateText(tokenizer: Tokenizer, options: RenderOptions, withTools: boolean): string | undefined {
  try {
    return tokenizer.get_chat_template({ chat_template: options.chatTemplate ?? null, tools: withTools ? [] : null })
  } catch {
    return undefined
  }
}
