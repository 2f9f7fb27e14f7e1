/**
 * Reasoning is not output: a tool call written inside it is not a call. It is removed before formats parse (formats
 * with `reasoning: 'keep'` see the text unchanged and handle their own): `<think>` blocks, Seed-OSS's
 * `<seed:think>` and K2 Horizon's `<ifm|think>` blocks by the same rule, Harmony's analysis channel, and Apriel's
 * text before its answer line.
 *
 * `<think>` reasoning is not output: a tool call written inside it is not a call. The opening tag is often part of
 * the prompt (thinking forced open), so text before a lone `</think>` is reasoning too, and an unclosed `<think>`
 * runs to the end of the output. Linear: one left-to-right pass of indexOf calls.
 */
import { ForwardSearch } from './scan.js'

const OPEN = '<think>'
const CLOSE = '</think>'
/** Seed-OSS reasons in its own tags, by the same rule; a call written there is no call for any format. */
const SEED_OPEN = '<seed:think>'
const SEED_CLOSE = '</seed:think>'

/**
 * K2 Horizon (IFM) reasons in `<ifm|think>`, or `<ifm|think_fast>` / `<ifm|think_faster>` at lower effort, each closed
 * by its own tag; its template opens the block in the prompt, so the `<think>` rule applies to each pair.
 */
const IFM_THINK = ['think', 'think_fast', 'think_faster'].map((t) => [`<ifm|${t}>`, `</ifm|${t}>`] as const)

/** Apriel 1.6 reasons first and opens its answer with this line: everything before it is reasoning. */
const FINAL_RESPONSE = '[BEGIN FINAL RESPONSE]'

export function stripReasoning(text: string): string {
  const final = text.indexOf(FINAL_RESPONSE)
  if (final >= 0) text = text.slice(final + FINAL_RESPONSE.length)
  let t = stripThink(stripHarmonyAnalysis(text))
  if (t.includes('ifm|think')) for (const [open, close] of IFM_THINK) t = removeReasoningBlocks(t, open, close)
  return t.includes('seed:think>') ? removeReasoningBlocks(t, SEED_OPEN, SEED_CLOSE) : t
}

/**
 * Harmony (gpt-oss) analysis-channel messages: `<|channel|>analysis<|message|>...` up to `<|end|>`, `<|start|>` or
 * the end of the output. A `<tool_call>` mentioned there must not become a Hermes call. LLM-jp-4.1's tokenizer writes
 * a space after each special token (llama.cpp's `llm-jp-harmony` parser): `<|channel|> analysis<|message|> ...`.
 */
const ANALYSIS = '<|channel|>analysis<|message|>'
const ANALYSIS_SPACED = '<|channel|> analysis<|message|>'

/**
 * The markers without which `stripReasoning` returns its input unchanged. The dispatcher's scan finds those with a
 * `<`; it searches for the others itself.
 */
export const REASONING_MARKERS: readonly string[] = [
  OPEN,
  CLOSE,
  ANALYSIS,
  ANALYSIS_SPACED,
  SEED_OPEN,
  SEED_CLOSE,
  FINAL_RESPONSE,
  ...IFM_THINK.flat(),
]
const HARMONY_ENDS = ['<|end|>', '<|start|>']

function stripHarmonyAnalysis(text: string): string {
  if (!text.includes(ANALYSIS) && !text.includes(ANALYSIS_SPACED)) return text
  // Forward searches only (each token's text is searched once), so the pass stays linear.
  const ends = HARMONY_ENDS.map((m) => new ForwardSearch(text, m))
  const opens = [ANALYSIS, ANALYSIS_SPACED].map((m) => new ForwardSearch(text, m))
  const first = (searches: ForwardSearch[], from: number): [number, number] => {
    let at = -1
    let len = 0
    for (const f of searches) {
      const p = f.next(from)
      if (p >= 0 && (at < 0 || p < at)) [at, len] = [p, f.token.length]
    }
    return [at, len]
  }
  let out = ''
  let i = 0
  while (i < text.length) {
    const [a, len] = first(opens, i)
    if (a < 0) {
      out += text.slice(i)
      break
    }
    out += text.slice(i, a)
    const [e] = first(ends, a + len)
    i = e < 0 ? text.length : e
  }
  return out
}

function stripThink(text: string): string {
  // `think>` ends both tags: one search tells most outputs apart.
  if (!text.includes('think>')) return text
  return removeReasoningBlocks(text, OPEN, CLOSE)
}

/**
 * `text` without the reasoning spans between `open` and `close`, by the rule `<think>` follows: text before a close
 * tag with no open tag before it is reasoning started in the prompt, and an unclosed open tag runs to the end of the
 * output. One left-to-right pass of indexOf calls. Formats with their own reasoning tags (`<seed:think>`, Mistral's
 * `[THINK]`, Command R7B's thinking block) use it too.
 */
export function removeReasoningBlocks(text: string, open: string, close: string): string {
  const firstOpen = text.indexOf(open)
  const firstClose = text.indexOf(close)
  if (firstOpen < 0 && firstClose < 0) return text
  let i = firstClose >= 0 && (firstOpen < 0 || firstClose < firstOpen) ? firstClose + close.length : 0
  let out = ''
  while (i < text.length) {
    const o = text.indexOf(open, i)
    if (o < 0) {
      out += text.slice(i)
      break
    }
    out += text.slice(i, o)
    const c = text.indexOf(close, o + open.length)
    if (c < 0) break
    i = c + close.length
  }
  return out
}
