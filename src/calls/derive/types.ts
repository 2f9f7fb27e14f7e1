/** What `deriveFormat` infers from a chat template: plain data, so a user can print it and see what was inferred. */

/**
 * A call id the template writes in the name's place (Kimi K2: `functions.NAME:IDX`): `prefix`, the name, `separator`
 * and the call's index in the turn. The whole id becomes `ToolCall.id`; a name written without it is no call.
 */
export interface CallIdForm {
  prefix: string
  separator: string
}

/**
 * A type written between an argument's key and its value: `open WORD close`. 'string-flag': WORD is `stringWord`
 * for a string written as it is, another word for a JSON value (DeepSeek V3.2's `string="true"`); 'json-type': WORD
 * is the value's JSON Schema type (K2 Horizon's `<ifm|arg_type>integer</ifm|arg_type>`), which types the value.
 */
export interface ValueTypeTag {
  open: string
  close: string
  kind: 'string-flag' | 'json-type'
  stringWord?: string
}

/** How one call is written between its `callOpen` and `callClose`. */
export type CallShape =
  /** One JSON object holding the name and the arguments (Hermes, Llama 3.1): `{"name": ..., "arguments": {...}}`. */
  | { kind: 'json-object'; nameKey: string; argumentsKey: string; /** arguments written as a JSON string */ argumentsAsString: boolean }
  /** The name, a literal, then the arguments as a JSON object (DeepSeek V3: NAME, "\n```json\n", {...}). */
  | { kind: 'name-json'; between: string; id?: CallIdForm }
  /**
   * The name, a literal, then one key/value pair of tags per argument (GLM's `<arg_key>`, Qwen3-Coder's
   * `<parameter=`). `values`: 'raw' writes strings as they are and other values as JSON (typed by the tool schema
   * when parsing); 'json' writes every value as JSON.
   */
  | {
      kind: 'xml-pairs'
      between: string
      keyOpen: string
      keyClose: string
      valueOpen: string
      valueClose: string
      values: 'raw' | 'json'
      /** A type tag between each key and its value, when the template writes one. */
      types?: ValueTypeTag
      id?: CallIdForm
    }
  /** Python call syntax: `name(key=value, ...)`. */
  | { kind: 'python' }
  /**
   * None of the shapes above, but the hand-written format named in `DerivedFormat.matches` reads every probe
   * rendering back exactly (Apertus's `[{"NAME": {...}}]`, Functionary v3.2's `>>>NAME` turns with `>>>all` text):
   * calls are read with that format. The markers are then empty.
   */
  | { kind: 'format' }

/**
 * A wire format read off a chat template. The markers are as the template writes them (whitespace included); the
 * parser searches for them trimmed and tolerates any whitespace around them.
 */
export interface DerivedFormat {
  /** Before the first call of a turn ('' when the template writes no block around the calls). */
  blockOpen: string
  /** After the last call ('' when none). */
  blockClose: string
  /** Before each call. */
  callOpen: string
  /** After each call. */
  callClose: string
  /** Between one call's `callClose` and the next call's `callOpen`. */
  separator: string
  shape: CallShape
  /**
   * The hand-written format (a `FORMATS` name) that reads every probe rendering back exactly, if any: parsing then
   * uses it as the format hint, since it also knows the format's variants the template does not show.
   */
  matches?: string
  /**
   * The generation prompt already ends with `callOpen` (Functionary v2's `<|from|>assistant\n<|recipient|>`): the
   * model's output starts inside its first call, with the name, so a call is also read at the output's start.
   */
  openedByPrompt?: boolean
  /** The probes rendered and read back exactly. */
  verified: string[]
  /** What the derivation noticed and worked around (probes the template cannot render, input variants used). */
  notes: string[]
  /** The two-call probe as the template renders the assistant turn: what the markers above were read from. */
  example: string
}

/** Why no format could be derived, and what was tried. */
export interface DeriveError {
  error: string
  /**
   * Set when the template itself cannot be used (not merely shows no tool calls): `syntax`, it does not compile;
   * `budget`, rendering it went over its time or memory budget; `engine`, @huggingface/jinja is not installed.
   */
  invalid?: 'syntax' | 'budget' | 'engine'
}
