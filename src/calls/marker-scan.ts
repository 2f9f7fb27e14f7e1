/**
 * The parser's single scan. Every format declares its markers (`FormatParser.markers`); they are compiled once into
 * one automaton, and one pass over an output finds where each marker first occurs. The dispatcher then tries only
 * the formats whose markers occur, each from the position found, so a typical output is read once however many
 * formats there are.
 *
 * Nearly every marker holds a `<` (`<tool_call>`, `<|python_tag|>`, `<｜tool▁sep｜>`). The pass lets the engine's
 * native search find each `<` (vectorised, far faster than reading characters one by one in JavaScript) and, at each
 * one found, walks a trie of the markers' text from their first `<` on as far as the text follows it: one table read
 * per character and at most the longest marker's length per stop, so the pass is linear whatever the text. Text a marker has before its `<` (`function call` before
 * `<|role_sep|>`) is compared at the stop. The few markers without a `<` (`[TOOL_CALLS]`, `Action:`) belong to
 * formats late in the detection order: they are searched whole, and only when detection gets that far.
 */

const LT = 60 // <

/** A marker split at its anchor: its first `<`. */
interface Anchored {
  id: number
  /** Text before the anchor, compared backwards from the stop. */
  before: string
  /** Text from the anchor on, walked in the trie. */
  from: string
}

export class MarkerScan {
  /** The markers, by id (the order given, duplicates removed). */
  readonly markers: readonly string[]
  /**
   * Markers without a `<`: `scan` does not look for them. The caller searches for one only when it needs to know
   * (the dispatcher, when it reaches a format that declares one; most outputs are decided before).
   */
  readonly unanchored: string[] = []
  /** After `scan`: how many distinct markers it found, their ids, and where each first occurs. */
  found = 0
  readonly foundIds: Int32Array
  readonly foundAt: Int32Array

  /** Trie column of each UTF-16 code unit (0: a unit in no anchored marker's text from its `<` on). */
  private readonly column = new Uint8Array(65536)
  private readonly width: number
  /** Trie edges: the child of state `s` by column `col` is `child[s * width + col]`, 0 when none (0 is the root). */
  private readonly child: Int32Array
  /** The markers whose anchored part ends at state `s`: `ending[endStart[s] .. endStart[s + 1])`. */
  private readonly endStart: Int32Array
  private readonly ending: Anchored[]
  /** Scan generation when each marker was last found (a marker is found in this scan iff it equals `generation`). */
  private readonly seenIn: Int32Array
  private generation = 0

  constructor(markers: readonly string[]) {
    const unique: string[] = []
    for (const m of markers) {
      if (m.length === 0) throw new Error('marker-scan: an empty marker would match everywhere')
      if (!unique.includes(m)) unique.push(m)
    }
    this.markers = unique
    this.foundIds = new Int32Array(unique.length)
    this.foundAt = new Int32Array(unique.length)
    this.seenIn = new Int32Array(unique.length)

    const anchored: Anchored[] = []
    unique.forEach((m, id) => {
      const a = anchorOf(m)
      if (a >= 0) anchored.push({ id, before: m.slice(0, a), from: m.slice(a) })
      else this.unanchored.push(m)
    })
    let columns = 1
    for (const { from } of anchored) {
      for (let i = 0; i < from.length; i++) {
        const c = from.charCodeAt(i)
        if (this.column[c] !== 0) continue
        if (columns === 256) throw new Error('marker-scan: markers use more than 255 distinct characters')
        this.column[c] = columns++
      }
    }
    this.width = columns
    const edges: number[] = new Array<number>(columns).fill(0)
    const endsAt: Anchored[][] = [[]]
    for (const a of anchored) {
      let s = 0
      for (let i = 0; i < a.from.length; i++) {
        const at = s * columns + this.column[a.from.charCodeAt(i)]!
        if (edges[at] === 0) {
          edges[at] = endsAt.length
          endsAt.push([])
          for (let k = 0; k < columns; k++) edges.push(0)
        }
        s = edges[at]!
      }
      endsAt[s]!.push(a)
    }
    this.child = Int32Array.from(edges)
    this.endStart = new Int32Array(endsAt.length + 1)
    this.ending = []
    endsAt.forEach((list, s) => {
      this.endStart[s] = this.ending.length
      this.ending.push(...list)
    })
    this.endStart[endsAt.length] = this.ending.length
  }

  /**
   * Find every marker's first occurrence in `text`. The result is in `found`, `foundIds` and `foundAt` (in the order
   * found, not by position), and is overwritten by the next scan: read it before scanning again.
   */
  scan(text: string): number {
    this.found = 0
    this.generation = (this.generation + 1) | 0
    if (this.generation === 0) {
      this.seenIn.fill(0)
      this.generation = 1
    }
    const { column, child, endStart, width } = this
    const n = text.length
    // Each `<`, found by the native search; from each, the trie as far as the text follows it.
    for (let i = text.indexOf('<'); i >= 0; i = text.indexOf('<', i + 1)) {
      let s = 0
      for (let j = i; j < n; j++) {
        s = child[s * width + column[text.charCodeAt(j)]!]!
        if (s === 0) break
        const e = endStart[s + 1]!
        for (let k = endStart[s]!; k < e; k++) this.reached(text, i, this.ending[k]!)
      }
    }
    return this.found
  }

  /** A marker's anchored part ends here: record it unless already found, once the text before the anchor agrees. */
  private reached(text: string, i: number, a: Anchored): void {
    if (this.seenIn[a.id] === this.generation) return
    if (a.before.length === 0 || (i >= a.before.length && text.startsWith(a.before, i - a.before.length))) {
      this.record(a.id, i - a.before.length)
    }
  }

  private record(id: number, at: number): void {
    this.seenIn[id] = this.generation
    this.foundIds[this.found] = id
    this.foundAt[this.found++] = at
  }
}

/** Index of a marker's anchor (its first `<`), or -1. */
function anchorOf(marker: string): number {
  for (let i = 0; i < marker.length; i++) {
    const c = marker.charCodeAt(i)
    if (c === LT) return i
  }
  return -1
}

/** `detect` functions that test nothing but their format's markers (see `detectMarkers`). */
const MARKERS_ONLY = new WeakSet<(text: string) => boolean>()

/**
 * A `detect` that is true when any of `markers` occurs. The dispatcher knows which markers occur from its scan, so
 * it does not call a detect made here again; a format whose detect needs more (two strings, a shape at the start)
 * writes its own.
 */
export function detectMarkers(markers: readonly string[]): (text: string) => boolean {
  const detect = markers.length === 1 ? (text: string) => text.includes(markers[0]!) : (text: string) => markers.some((m) => text.includes(m))
  MARKERS_ONLY.add(detect)
  return detect
}

/**
 * A format's `markers` and the `detect` made from them, for a format whose markers alone decide (spread it into the
 * format: `...markedBy(OPEN)`), so the two cannot disagree.
 */
export function markedBy(...markers: string[]): { markers: readonly string[]; detect: (text: string) => boolean } {
  return { markers, detect: detectMarkers(markers) }
}

/** Whether `detect` was made by `detectMarkers` (so the scan has already answered it). */
export function detectsMarkersOnly(detect: (text: string) => boolean): boolean {
  return MARKERS_ONLY.has(detect)
}
