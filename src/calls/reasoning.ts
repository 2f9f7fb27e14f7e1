/**
 * `<think>` reasoning is not output: a tool call written inside it is not a call. The opening tag is often part of
 * the prompt (thinking forced open), so text before a lone `</think>` is reasoning too, and an unclosed `<think>`
 * runs to the end of the output. Linear: one left-to-right pass of indexOf calls.
 */
const OPEN = '<think>'
const CLOSE = '</think>'

export function stripReasoning(text: string): string {
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
