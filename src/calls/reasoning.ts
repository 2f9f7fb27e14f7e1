/**
 * Reasoning is not output: a tool call written inside it is not a call. Two kinds are removed before formats parse
 * (formats with `reasoning: 'keep'` see the text unchanged and handle their own):
 *
 * `<think>` reasoning is not output: a tool call written inside it is not a call. The opening tag is often part of
 * the prompt (thinking forced open), so text before a lone `</think>` is reasoning too, and an unclosed `<think>`
 * runs to the end of the output. Linear: one left-to-right pass of indexOf calls.
 */
const OPEN = '<think>'
const CLOSE = '</think>'

export function stripReasoning(text: string): string {
  return stripThink(stripHarmonyAnalysis(text))
}

/**
 * Harmony (gpt-oss) analysis-channel messages: `<|channel|>analysis<|message|>...` up to `<|end|>`, `<|start|>` or
 * the end of the output. A `<tool_call>` mentioned there must not become a Hermes call.
 */
const ANALYSIS = '<|channel|>analysis<|message|>'
const HARMONY_ENDS = ['<|end|>', '<|start|>']

function stripHarmonyAnalysis(text: string): string {
  if (!text.includes(ANALYSIS)) return text
  // Next known position of each end marker; searches only move forward, so the pass stays linear.
  const next = HARMONY_ENDS.map(() => -1)
  const nextEnd = (from: number): number => {
    let end = text.length
    HARMONY_ENDS.forEach((marker, k) => {
      if (next[k]! !== Infinity && next[k]! < from) {
        const e = text.indexOf(marker, from)
        next[k] = e < 0 ? Infinity : e
      }
      end = Math.min(end, next[k]!)
    })
    return end
  }
  let out = ''
  let i = 0
  while (i < text.length) {
    const a = text.indexOf(ANALYSIS, i)
    if (a < 0) {
      out += text.slice(i)
      break
    }
    out += text.slice(i, a)
    i = nextEnd(a + ANALYSIS.length)
  }
  return out
}

function stripThink(text: string): string {
  if (!text.includes(OPEN) && !text.includes(CLOSE)) return text
  let out = ''
  let i = 0
  const firstOpen = text.indexOf(OPEN)
  const firstClose = text.indexOf(CLOSE)
  // A close tag before any open tag: everything before it was reasoning started in the prompt.
  if (firstClose >= 0 && (firstOpen < 0 || firstClose < firstOpen)) i = firstClose + CLOSE.length
  while (i < text.length) {
    const open = text.indexOf(OPEN, i)
    if (open < 0) {
      out += text.slice(i)
      break
    }
    out += text.slice(i, open)
    const close = text.indexOf(CLOSE, open + OPEN.length)
    if (close < 0) break
    i = close + CLOSE.length
  }
  return out
}
