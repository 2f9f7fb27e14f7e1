/**
 * `parseToolCalls`: the tool calls in a model's raw output, whatever the chat template's wire format.
 * See `formats/index.ts` for the detection order and the rule for which format wins.
 */
import { FORMATS } from './formats/index.js'
import { inDetectionRun } from './detection-pass.js'
import { deriveFormat, parseDerived } from './derive/index.js'
import { MarkerScan, detectsMarkersOnly } from './marker-scan.js'
import { REASONING_MARKERS, stripReasoning } from './reasoning.js'
import type { FormatParser, ParseOptions, ToolCall } from './types.js'
import { capCalls, maxCallsOf } from './call-limit.js'

export type { FormatParser, JsonSchema, JsonValue, ParseOptions, ToolCall, ToolDefinition } from './types.js'
export { FORMATS } from './formats/index.js'
export { MAX_ARGUMENT_DEPTH } from './call-object.js'
export { DEFAULT_MAX_CALLS, TOO_MANY_CALLS } from './call-limit.js'
export { stripReasoning } from './reasoning.js'
export { bigIntsIn, exactInteger } from './big-ints.js'
export { chatTemplateOf, deriveFormat, parseDerived, renderTemplateBounded, DERIVED, DEFAULT_TEMPLATE_BUDGET } from './derive/index.js'
export type { CallShape, DerivedFormat, DeriveError, DeriveOptions, TemplateBudget } from './derive/index.js'

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
const SCAN = new MarkerScan([...FORMATS.flatMap((f) => f.markers ?? []), ...REASONING_MARKERS])
/** By marker id: the formats (indices into FORMATS) that declare it. */
const FORMATS_OF: number[][] = SCAN.markers.map((m) => FORMATS.flatMap((f, k) => (f.markers?.includes(m) ? [k] : [])))
const IS_REASONING: boolean[] = SCAN.markers.map((m) => REASONING_MARKERS.includes(m))
/** Reasoning markers the scan does not look for (no `<`): searched in every output. */
const REASONING_UNANCHORED = REASONING_MARKERS.filter((m) => SCAN.unanchored.includes(m))
/** By format: whether it has markers (else it is always tried), and whether its `detect` must still run. */
const HAS_MARKERS: boolean[] = FORMATS.map((f) => (f.markers?.length ?? 0) > 0)
const RUN_DETECT: boolean[] = FORMATS.map((f, k) => !HAS_MARKERS[k] || !detectsMarkersOnly(f.detect))
/** By format: its markers the scan does not look for (searched when detection reaches the format). */
const UNANCHORED: string[][] = FORMATS.map((f) => (f.markers ?? []).filter((m) => SCAN.unanchored.includes(m)))
/** By format: whether it reads reasoning itself (`reasoning: 'keep'`). */
const KEEPS_REASONING: boolean[] = FORMATS.map((f) => f.reasoning === 'keep')

// Candidate formats are bits of two 32-bit words (formats 0-31, 32-63), so choosing them allocates nothing.
if (FORMATS.length > 64) throw new Error('calls/index.ts: more than 64 formats need a wider candidate set')
const bitsOf = (pick: (k: number) => boolean, word: number): number =>
  FORMATS.reduce((bits, _f, k) => (pick(k) && k >> 5 === word ? bits | (1 << (k & 31)) : bits), 0)
/** Formats tried whatever the scan finds (no markers, or a marker the scan does not look for). */
const ALWAYS_LO = bitsOf((k) => !HAS_MARKERS[k] || UNANCHORED[k]!.length > 0, 0)
const ALWAYS_HI = bitsOf((k) => !HAS_MARKERS[k] || UNANCHORED[k]!.length > 0, 1)
const KEEP_LO = bitsOf((k) => KEEPS_REASONING[k]!, 0)
const KEEP_HI = bitsOf((k) => KEEPS_REASONING[k]!, 1)

/**
 * One scan's result, kept in module state rather than a fresh object per output: the formats with a found marker
 * as bits, where each one's first marker is, and whether reasoning markers occur. The position arrays are reused by
 * the outermost detection run only, so a parse that somehow started another could not overwrite them.
 */
let foundLo = 0
let foundHi = 0
let foundReasoning = false
const AT_RAW = new Int32Array(FORMATS.length)
const AT_STRIPPED = new Int32Array(FORMATS.length)

/** Scan `text` into `at` and the found-* state. `at[k]` is meaningful only where format k's bit is set. */
function scanFormats(text: string, at: Int32Array): void {
  foundLo = 0
  foundHi = 0
  foundReasoning = false
  const found = SCAN.scan(text)
  for (let m = 0; m < found; m++) {
    const id = SCAN.foundIds[m]!
    const pos = SCAN.foundAt[m]!
    if (IS_REASONING[id]) foundReasoning = true
    const formats = FORMATS_OF[id]!
    for (let i = 0; i < formats.length; i++) {
      const k = formats[i]!
      const bit = 1 << (k & 31)
      if (k < 32) {
        if ((foundLo & bit) === 0 || pos < at[k]!) at[k] = pos
        foundLo |= bit
      } else {
        if ((foundHi & bit) === 0 || pos < at[k]!) at[k] = pos
        foundHi |= bit
      }
    }
  }
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
 * unless detection finds more calls on the same text, or as many with more of them readable (named): a hint can add
 * calls (a format detection would not pick, or would pick later), never lose them. A `format` that names no format
 * is a programming error, not a property of the output: it throws a TypeError listing the known names (rather than
 * silently detecting).
 */
export function parseToolCalls(text: string, options: ParseOptions = {}): ToolCall[] {
  if (options.format !== undefined) assertKnownFormat(options.format, 'parseToolCalls: options.format')
  const max = maxCallsOf(options)
  if (typeof text !== 'string' || text.length === 0) return []
  return capCalls(parseUncapped(text, options), max)
}

function parseUncapped(text: string, options: ParseOptions): ToolCall[] {
  if (options.chatTemplate !== undefined && options.format === undefined) return parseWithTemplate(text, options)
  const hinted = options.format === undefined ? undefined : byName.get(options.format)
  // The hinted format runs in detection's run: a reader that found nothing in this text during detection (the bare
  // JSON reader, behind both `hermes` and `json`) is not run again for the hint.
  return inDetectionRun((outermost) => {
    const detected = detect(text, options, outermost)
    if (!hinted || detected[0]?.format === hinted.name) return detected
    // A hint never finds fewer calls than detection: the hinted format's calls unless detection finds more.
    const calls = runFormat(hinted, hinted.reasoning === 'keep' ? text : stripReasoning(text), options)
    // Fewer calls, or as many with fewer readable (a wrong hint reads a block as one unnamed call): detection's.
    const more = detected.length - calls.length
    return more > 0 || (more === 0 && named(detected) > named(calls)) ? detected : calls
  })
}

/** Templates whose failed derivation was already reported (once each, not once per output). */
const warned = new Set<string>()

/**
 * Parsing with the format derived from `options.chatTemplate`: the hand-written format it matches as the hint, else
 * the derived format's own calls under the hint rule (detection's when it finds more). No format derived: said once,
 * then detection.
 */
function parseWithTemplate(text: string, options: ParseOptions): ToolCall[] {
  const { chatTemplate, templateBudget, ...rest } = options
  const derived = deriveFormat(chatTemplate!, templateBudget === undefined ? {} : { budget: templateBudget })
  if ('error' in derived) {
    // A template that cannot be used is the caller's mistake (or a hostile template), not a property of the output.
    if (derived.invalid === 'syntax' || derived.invalid === 'budget') throw new Error(`parseToolCalls: options.chatTemplate cannot be used: ${derived.error}`)
    if (!warned.has(chatTemplate!) && warned.size < 64) {
      warned.add(chatTemplate!)
      console.warn(`parseToolCalls: no wire format derived from the chat template, detecting it instead: ${derived.error}`)
    }
    return parseToolCalls(text, rest)
  }
  if (derived.matches !== undefined) return parseToolCalls(text, { ...rest, format: derived.matches })
  const detected = parseToolCalls(text, rest)
  const calls = parseDerived(stripReasoning(text), derived, rest) // never throws
  const more = detected.length - calls.length
  return more > 0 || (more === 0 && named(detected) > named(calls)) ? detected : calls
}

/** The calls of the first format, in detection order, that finds any. */
function detect(text: string, options: ParseOptions, outermost: boolean): ToolCall[] {
  const atRaw = outermost ? AT_RAW : new Int32Array(FORMATS.length)
  const atStripped = outermost ? AT_STRIPPED : new Int32Array(FORMATS.length)
  // One scan finds every format's markers (marker-scan.ts): only formats whose markers occur, and the bare shapes,
  // are tried, each told where its first marker is. Reasoning is removed only when its markers occur, and then the
  // formats that parse the stripped text are placed by a scan of that text.
  scanFormats(text, atRaw)
  const rawLo = foundLo
  const rawHi = foundHi
  // Formats that keep reasoning are placed by the raw text's scan, the others by the stripped text's.
  let stripped = text
  let cleanLo = rawLo
  let cleanHi = rawHi
  let cleanAt = atRaw
  if (foundReasoning || REASONING_UNANCHORED.some((m) => text.includes(m))) {
    stripped = stripReasoning(text)
    if (stripped !== text) {
      scanFormats(stripped, atStripped)
      cleanLo = foundLo
      cleanHi = foundHi
      cleanAt = atStripped
    }
  }
  let lo = (rawLo & KEEP_LO) | (cleanLo & ~KEEP_LO) | ALWAYS_LO
  let hi = (rawHi & KEEP_HI) | (cleanHi & ~KEEP_HI) | ALWAYS_HI
  // The set bits in order: detection order.
  while (lo !== 0 || hi !== 0) {
    let k: number
    let bit: number
    let high: boolean
    if (lo !== 0) {
      bit = lo & -lo
      lo ^= bit
      k = 31 - Math.clz32(bit)
      high = false
    } else {
      bit = hi & -hi
      hi ^= bit
      k = 63 - Math.clz32(bit)
      high = true
    }
    const keep = KEEPS_REASONING[k]!
    const input = keep ? text : stripped
    const placed = keep ? (high ? rawHi : rawLo) : high ? cleanHi : cleanLo
    let at = (placed & bit) !== 0 ? (keep ? atRaw : cleanAt)[k]! : -1
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

function named(calls: readonly ToolCall[]): number {
  let n = 0
  for (const c of calls) if (c.name !== '') n++
  return n
}

/** The name of the format `parseToolCalls` would use for `text`, or undefined when no calls are found. */
export function detectFormat(text: string, options: ParseOptions = {}): string | undefined {
  return parseToolCalls(text, options)[0]?.format
}
