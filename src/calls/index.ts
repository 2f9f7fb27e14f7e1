/**
 * `parseToolCalls`: the tool calls in a model's raw output, whatever the chat template's wire format.
 * See `formats/index.ts` for the detection order and the rule for which format wins.
 */
import { FORMATS } from './formats/index.js'
import { inDetectionRun } from './detection-pass.js'
import { mayHoldReasoning, probeMasks, probesIn } from './markers.js'
import { stripReasoning } from './reasoning.js'
import type { FormatParser, ParseOptions, ToolCall } from './types.js'

export type { FormatParser, JsonSchema, JsonValue, ParseOptions, ToolCall, ToolDefinition } from './types.js'
export { FORMATS } from './formats/index.js'
export { MAX_ARGUMENT_DEPTH } from './call-object.js'
export { stripReasoning } from './reasoning.js'
export { bigIntsIn, exactInteger } from './big-ints.js'

const byName = new Map<string, FormatParser>()
for (const f of FORMATS) {
  byName.set(f.name, f)
  for (const a of f.aliases ?? []) byName.set(a, f)
}

/** The format parser for a name or alias, if any. */
export function getFormat(name: string): FormatParser | undefined {
  return byName.get(name)
}

/** Names of every supported format, in detection order. */
export function formatNames(): string[] {
  return FORMATS.map((f) => f.name)
}

/** Why `name` is not a format hint (listing the known names), or undefined when it names a format or an alias. */
export function unknownFormatError(name: string): string | undefined {
  if (byName.has(name)) return undefined
  return `unknown format "${name}"; known formats: ${formatNames().join(', ')}`
}

/** Throws a TypeError for a format hint that names no format (a programming error, not model output). */
export function assertKnownFormat(name: string, where = 'format'): void {
  const problem = unknownFormatError(name)
  if (problem !== undefined) throw new TypeError(`${where}: ${problem}`)
}

/** Per format (same index as FORMATS): the tag openings one of which its markers need (see markers.ts). */
const PROBE_MASKS = probeMasks(FORMATS)

function runFormat(f: FormatParser, text: string, stripped: string, options: ParseOptions): ToolCall[] {
  try {
    return f.parse(f.reasoning === 'keep' ? text : stripped, options)
  } catch {
    // A parser bug must not crash an eval run: treat it as "this format found nothing".
    return []
  }
}

/**
 * Extract the tool calls from `text`. Never throws on model output; runs in time linear in `text.length`. Formats
 * are detected (see FORMATS). With `options.format` (a format name or alias) the hinted format's calls are returned
 * unless detection finds more calls on the same text: a hint can add calls (a format detection would not pick, or
 * would pick later), never lose them. A `format` that names no format is a programming error, not a property of the output: it throws a
 * TypeError listing the known names (rather than silently detecting).
 */
export function parseToolCalls(text: string, options: ParseOptions = {}): ToolCall[] {
  if (options.format !== undefined) assertKnownFormat(options.format, 'parseToolCalls: options.format')
  if (typeof text !== 'string' || text.length === 0) return []
  const hinted = options.format === undefined ? undefined : byName.get(options.format)
  const detected = inDetectionRun(() => detect(text, options))
  if (!hinted || detected[0]?.format === hinted.name) return detected
  // A hint never finds fewer calls than detection: the hinted format's calls unless detection finds more.
  const calls = runFormat(hinted, text, stripReasoning(text), options)
  return detected.length > calls.length ? detected : calls
}

/** The calls of the first format, in detection order, that finds any. */
function detect(text: string, options: ParseOptions): ToolCall[] {
  // One pre-scan of the text's tags lets most formats, and reasoning removal, skip their own search (markers.ts).
  const rawProbes = probesIn(text)
  const stripped = mayHoldReasoning(rawProbes) ? stripReasoning(text) : text
  let strippedProbes = stripped === text ? rawProbes : -1
  for (let k = 0; k < FORMATS.length; k++) {
    const f = FORMATS[k]!
    const keep = f.reasoning === 'keep'
    const need = PROBE_MASKS[k]!
    if (need !== 0) {
      if (!keep && strippedProbes < 0) strippedProbes = probesIn(stripped)
      if (((keep ? rawProbes : strippedProbes) & need) === 0) continue
    }
    const input = keep ? text : stripped
    if (!f.detect(input)) continue
    const calls = runFormat(f, text, stripped, options)
    if (calls.length > 0) return calls
  }
  return []
}

/** The name of the format `parseToolCalls` would use for `text`, or undefined when no calls are found. */
export function detectFormat(text: string, options: ParseOptions = {}): string | undefined {
  return parseToolCalls(text, options)[0]?.format
}
