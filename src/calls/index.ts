/**
 * `parseToolCalls`: the tool calls in a model's raw output, whatever the chat template's wire format.
 * See `formats/index.ts` for the detection order and the rule for which format wins.
 */
import { FORMATS } from './formats/index.js'
import { inDetectionRun } from './detection-pass.js'
import { MarkerScan, detectsMarkersOnly } from './marker-scan.js'
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

/**
 * The single scan (marker-scan.ts): every format's markers and the reasoning markers in one automaton. Reasoning
 * markers: `stripReasoning` changes a text only when one of these occurs.
 */
const REASONING_MARKERS = ['<think>', '</think>', '<|channel|>analysis<|message|>']
const SCAN = new MarkerScan([...FORMATS.flatMap((f) => f.markers ?? []), ...REASONING_MARKERS])
/** By marker id: the formats (indices into FORMATS) that declare it. */
const FORMATS_OF: number[][] = SCAN.markers.map((m) => FORMATS.flatMap((f, k) => (f.markers?.includes(m) ? [k] : [])))
const IS_REASONING: boolean[] = SCAN.markers.map((m) => REASONING_MARKERS.includes(m))
/** By format: whether it has markers (else it is always tried), and whether its `detect` must still run. */
const HAS_MARKERS: boolean[] = FORMATS.map((f) => (f.markers?.length ?? 0) > 0)
const RUN_DETECT: boolean[] = FORMATS.map((f, k) => !HAS_MARKERS[k] || !detectsMarkersOnly(f.detect))
/** By format: its markers the scan does not look for (searched when detection reaches the format). */
const UNANCHORED: string[][] = FORMATS.map((f) => (f.markers ?? []).filter((m) => SCAN.unanchored.includes(m)))
/** Formats tried whatever the scan finds (no markers, or a marker the scan does not look for), in order. */
const ALWAYS: number[] = FORMATS.flatMap((f, k) => (!HAS_MARKERS[k] || UNANCHORED[k]!.length > 0 ? [k] : []))
/** By format: whether it reads reasoning itself (`reasoning: 'keep'`). */
const KEEPS_REASONING: boolean[] = FORMATS.map((f) => f.reasoning === 'keep')

/**
 * A candidate format and where its first marker is, packed into one number that sorts in detection order:
 * `index * 2^32 + position` (position `NOT_FOUND` when the scan gave none). Outputs are far shorter than 2^32.
 */
const SLOT = 2 ** 32
const NOT_FOUND = SLOT - 1

function formatOf(entry: number): number {
  return Math.floor(entry / SLOT)
}

/** Insertion sort: the lists are a handful of found markers plus ALWAYS, so this beats `Array.prototype.sort`. */
function sortSmall(list: number[]): void {
  for (let i = 1; i < list.length; i++) {
    const c = list[i]!
    let j = i - 1
    while (j >= 0 && list[j]! > c) {
      list[j + 1] = list[j]!
      j--
    }
    list[j + 1] = c
  }
}

/**
 * The formats to try on `text`, in detection order: those with a marker the scan found, each with the position of
 * its first marker, and the formats in ALWAYS; plus whether a reasoning marker occurs.
 */
function candidatesIn(text: string): { candidates: number[]; reasoning: boolean } {
  const candidates: number[] = []
  let reasoning = false
  const found = SCAN.scan(text)
  for (let m = 0; m < found; m++) {
    const id = SCAN.foundIds[m]!
    if (IS_REASONING[id]) reasoning = true
    const formats = FORMATS_OF[id]!
    for (let i = 0; i < formats.length; i++) candidates.push(formats[i]! * SLOT + SCAN.foundAt[m]!)
  }
  for (let i = 0; i < ALWAYS.length; i++) candidates.push(ALWAYS[i]! * SLOT + NOT_FOUND)
  sortSmall(candidates)
  return { candidates, reasoning }
}

function runFormat(f: FormatParser, text: string, options: ParseOptions, at?: number): ToolCall[] {
  try {
    return f.parse(text, options, at)
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
  const calls = runFormat(hinted, hinted.reasoning === 'keep' ? text : stripReasoning(text), options)
  return detected.length > calls.length ? detected : calls
}

/** The calls of the first format, in detection order, that finds any. */
function detect(text: string, options: ParseOptions): ToolCall[] {
  // One scan finds every format's markers (marker-scan.ts): only formats whose markers occur, and the bare shapes,
  // are tried, each told where its first marker is. Reasoning is removed only when its markers occur, and then the
  // formats that parse the stripped text are placed by a scan of that text.
  const raw = candidatesIn(text)
  let stripped = text
  let candidates = raw.candidates
  if (raw.reasoning) {
    stripped = stripReasoning(text)
    if (stripped !== text) {
      // Formats that keep reasoning are placed in the raw text, the others in the stripped text.
      const clean = candidatesIn(stripped).candidates
      candidates = raw.candidates.filter((e) => KEEPS_REASONING[formatOf(e)]!)
      for (const e of clean) if (!KEEPS_REASONING[formatOf(e)]!) candidates.push(e)
      sortSmall(candidates)
    }
  }
  let last = -1
  for (let i = 0; i < candidates.length; i++) {
    const entry = candidates[i]!
    const k = formatOf(entry)
    if (k === last) continue // a later marker of a format already tried
    last = k
    const input = KEEPS_REASONING[k] ? text : stripped
    let at = entry - k * SLOT
    if (at === NOT_FOUND) at = -1
    const unanchored = UNANCHORED[k]!
    for (let u = 0; u < unanchored.length; u++) {
      const p = input.indexOf(unanchored[u]!)
      if (p >= 0 && (at < 0 || p < at)) at = p
    }
    if (HAS_MARKERS[k] && at < 0) continue
    const f = FORMATS[k]!
    if (RUN_DETECT[k] && !f.detect(input)) continue
    const calls = runFormat(f, input, options, at < 0 ? undefined : at)
    if (calls.length > 0) return calls
  }
  return []
}

/** The name of the format `parseToolCalls` would use for `text`, or undefined when no calls are found. */
export function detectFormat(text: string, options: ParseOptions = {}): string | undefined {
  return parseToolCalls(text, options)[0]?.format
}
