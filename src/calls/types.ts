/** JSON-compatible value as decoded from a model's output. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue }

/** One tool call extracted from a model's output, whatever the wire format. */
export interface ToolCall {
  /** The function name as the model wrote it ('' when the call was recognised but its name could not be read). */
  name: string
  /** Decoded arguments; `{}` when they could not be decoded (see `argumentsValid`). */
  arguments: Record<string, unknown>
  /** True when the arguments were a well-formed object in the format's own syntax (NeMo's `args_json_valid`). */
  argumentsValid: boolean
  /**
   * Why the arguments are invalid, where a format says (`argumentsValid` false): e.g. text in the call's block that
   * the format could not read, which may have held an argument. Absent on valid calls.
   */
  argumentsError?: string
  /** Wire format the call came from, e.g. `hermes`, `pythonic` (see FORMATS in `src/calls/index.ts`). */
  format: string
  /** The raw text of the call as it appeared in the output. */
  raw?: string
  /** Call id when the format carries one (Kimi K2 `functions.x:0`, Mistral v11 `[CALL_ID]`, OpenAI `id`). */
  id?: string
  /**
   * JSON Pointer paths (RFC 6901, relative to `arguments`) of numbers written in float form (`3.0`, `1e3`) whose
   * JavaScript value is an integer. JS numbers lose that distinction and the BFCL checker needs it (`3.0` is not an
   * integer there). Absent when there are none.
   */
  floatPaths?: string[]
  /**
   * Integers beyond 2^53 (which a JavaScript number cannot hold exactly) as written: decimal digits by JSON Pointer
   * (relative to `arguments`). Scoring compares these digits exactly. Absent when there are none.
   */
  bigInts?: Record<string, string>
}

/** A call as a provider may give it (ModelOutput.calls): a ToolCall whose `format` and `argumentsValid` may be left out. */
export type ProviderCall = Omit<ToolCall, 'format' | 'argumentsValid'> & { format?: string; argumentsValid?: boolean }

/** A ground-truth call; arguments may be an object or a JSON string (as in NeMo's data). */
export interface ExpectedCall {
  name: string
  arguments?: Record<string, unknown> | string
}

/** A chat message, OpenAI style. Extra fields are kept as they are (they may matter to a chat template). */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool' | string
  content?: string | null
  tool_calls?: { id?: string; type?: string; function: { name: string; arguments: string | Record<string, unknown> } }[]
  tool_call_id?: string
  name?: string
  [key: string]: unknown
}

/** A tool as offered to the model, OpenAI style. */
export interface ToolDefinition {
  type?: 'function' | string
  function: {
    name: string
    description?: string
    parameters?: JsonSchema
    [key: string]: unknown
  }
}

/** The subset of JSON Schema the project reads; anything else is passed through to ajv. */
export interface JsonSchema {
  type?: string | string[]
  properties?: Record<string, JsonSchema>
  items?: JsonSchema
  required?: string[]
  enum?: unknown[]
  [key: string]: unknown
}

export interface ParseOptions {
  /**
   * Wire-format hint (the caller knows the chat template): the hinted format's calls are returned, unless
   * detection finds more calls on the same text, whose calls are then returned (a hint never finds fewer calls than
   * detection). An unknown name is a TypeError (see `parseToolCalls`).
   */
  format?: string
  /** Tools offered to the model; XML-style formats (Qwen3-Coder, GLM, ...) use their schemas to type values. */
  tools?: ToolDefinition[]
  /**
   * The model's chat template (Jinja source): the wire format is derived from it (`deriveFormat`) and used like a
   * hint. When the template shows no format, a warning says so once and the format is detected. A template that
   * does not compile, or goes over `templateBudget` when rendered, is an Error (it names the construct or the
   * budget). Ignored when `format` is given. Needs the package `@huggingface/jinja`.
   */
  chatTemplate?: string
  /** Time and memory for rendering `chatTemplate` (default 5000 ms, 256 MB; see `deriveFormat`). */
  templateBudget?: { timeMs?: number; memoryMb?: number }
  /**
   * The most calls one output may give (default `DEFAULT_MAX_CALLS`, 10,000; `Infinity` for no cap). An output
   * with more gives its first `maxCalls` calls and then one call that marks it as over the cap: name `''`,
   * arguments `{}` and invalid, `argumentsError` starting with `TOO_MANY_CALLS`. Scoring never counts such an
   * output as right. Formats that can write a call every few bytes (pythonic lists) stop building calls past the cap
   * but still read the whole text. Not a positive integer or Infinity: a TypeError.
   */
  maxCalls?: number
}

/**
 * One wire format. `parse` receives the output with reasoning already handled by the dispatcher (see
 * `reasoning` below) and returns the calls it finds, or [] when the format is not present. It must never throw and
 * must run in time linear in `text.length`.
 */
export interface FormatParser {
  /** Stable name, reported in `ToolCall.format`. */
  name: string
  /** Other names accepted as a `format` hint (e.g. `qwen` for `hermes`). */
  aliases?: string[]
  /**
   * The format's marker strings: in a text where none of them occurs, `detect` is false or `parse` finds no call
   * (Harmony's detect looks for `to=functions.`, but its arguments need `<|message|>`, its marker). The dispatcher
   * compiles every format's markers into one scan (`marker-scan.ts`) and tries only the formats whose markers occur.
   * A marker should hold a `<` (the scan stops at each `<` found natively); one without is searched on its own.
   * Absent for the shapes without any marker (pythonic lists, Functionary v3.2), which are always tried.
   */
  markers?: readonly string[]
  /**
   * Cheap test that the format is present (a substring search). During detection `parse` is called only when it
   * is true; a `format` hint bypasses it. When the markers alone decide, spread `...markedBy(...markers)` into the
   * format for both fields: the dispatcher, whose scan already knows, then does not search again.
   */
  detect(text: string): boolean
  /**
   * `at`, when the dispatcher gives it, is where the first of this format's `markers` occurs in `text` (its scan
   * found it): a format that searches for its markers may start there. Absent when the format is called directly
   * or by a hint.
   */
  parse(text: string, options: ParseOptions, at?: number): ToolCall[]
  /**
   * How `<think>` reasoning is treated before this format parses: 'strip' (default) removes reasoning so calls
   * written inside it are not calls; 'keep' hands the text over unchanged (Kimi-K2-Thinking calls from inside an
   * unclosed `<think>`).
   */
  reasoning?: 'strip' | 'keep'
  /**
   * Write calls in this format as a model would emit them (used by the round-trip property tests, and handy for
   * building recorded outputs). `parse(render(calls))` must give the calls back.
   */
  render?(calls: readonly { name: string; arguments: Record<string, unknown> }[]): string
}
