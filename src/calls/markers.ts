/**
 * The dispatcher's pre-scan. Most formats' markers are tags (`<tool_call>`, `<|python_tag|>`, `<｜tool▁sep｜>`), and
 * calling ~30 `detect` functions, each a search of the whole text, costs more than parsing a typical output. One
 * walk over the text's `<` characters instead records which tag openings occur (the two characters after each `<`),
 * and a format none of whose tag openings occurs is skipped without its `detect`. The same walk tells whether the
 * text may hold reasoning tags, so most outputs skip `stripReasoning`'s searches.
 *
 * The tag openings ("probes") are derived from the markers each format declares (`FormatParser.markers`): a
 * marker's probe is its first `<` with the two characters after it (`function call<|role_sep|>` → `<|r`). A format
 * with no markers, or with a marker that holds no such opening, is never filtered. This is only a filter: a format
 * that passes it still runs its own `detect`, so detection decides exactly as before.
 */
import type { FormatParser } from './types.js'

/** The tag opening a marker implies (`<` and two characters, not a closing `</`), or undefined when it has none. */
export function probeOf(marker: string): string | undefined {
  for (let i = marker.indexOf('<'); i >= 0 && i + 3 <= marker.length; i = marker.indexOf('<', i + 1)) {
    if (marker[i + 1] !== '/') return marker.slice(i, i + 3)
  }
  return undefined
}

/** A format's probes, or undefined when it cannot be filtered (no markers, or a marker without a probe). */
function probesOf(format: FormatParser): string[] | undefined {
  if (!format.markers || format.markers.length === 0) return undefined
  const out: string[] = []
  for (const m of format.markers) {
    const p = probeOf(m)
    if (p === undefined) return undefined
    if (!out.includes(p)) out.push(p)
  }
  return out
}

/** Bits for reasoning markers, which `stripReasoning` removes: `<think>` / `</think>`, and Harmony's `<|channel|>`. */
const THINK = 1 << 29
const CHANNEL = 1 << 30

/** Probe bits by the two characters after `<`, for ASCII characters (index c1 * 128 + c2). */
const ASCII_PROBES = new Int32Array(128 * 128)
/** Probe bits of probes with other characters, by c1 * 65536 + c2. */
const WIDE_PROBES = new Map<number, number>()
/** Bit of each distinct probe, by its text. */
const probeBits = new Map<string, number>()

function addProbe(c1: number, c2: number, bit: number): void {
  if (c1 < 128 && c2 < 128) ASCII_PROBES[c1 * 128 + c2]! |= bit
  else WIDE_PROBES.set(c1 * 65536 + c2, (WIDE_PROBES.get(c1 * 65536 + c2) ?? 0) | bit)
}

function bitOf(p: string): number {
  let bit = probeBits.get(p)
  if (bit === undefined) {
    if (probeBits.size === 29) throw new Error('markers.ts: too many distinct probes for one bit mask')
    bit = 1 << probeBits.size
    probeBits.set(p, bit)
    addProbe(p.charCodeAt(1), p.charCodeAt(2), bit)
  }
  return bit
}

addProbe(116, 104, THINK) // <th
addProbe(124, 99, CHANNEL) // <|c

/**
 * Per format (same order as `formats`): the probe bits one of which `detect` needs, or 0 when the format is never
 * filtered. Registers the formats' probes with `probesIn`.
 */
export function probeMasks(formats: readonly FormatParser[]): number[] {
  return formats.map((f) => {
    let mask = 0
    for (const p of probesOf(f) ?? []) mask |= bitOf(p)
    return mask
  })
}

/** Whether text with these probe bits may hold reasoning that `stripReasoning` would remove. */
export function mayHoldReasoning(probes: number): boolean {
  return (probes & (THINK | CHANNEL)) !== 0
}

/** The probe bits whose tag openings occur in `text`: one pass of `indexOf('<')`. */
export function probesIn(text: string): number {
  let mask = 0
  const last = text.length - 2 // a probe needs two characters after its `<`
  let i = text.indexOf('<')
  while (i >= 0 && i < last) {
    const c1 = text.charCodeAt(i + 1)
    const c2 = text.charCodeAt(i + 2)
    if (c1 === 47 /* / */) {
      if (c2 === 116 && text.charCodeAt(i + 3) === 104) mask |= THINK // </th
    } else if (c1 < 128 && c2 < 128) mask |= ASCII_PROBES[c1 * 128 + c2]!
    else mask |= WIDE_PROBES.get(c1 * 65536 + c2) ?? 0
    i = text.indexOf('<', i + 1)
  }
  return mask
}
