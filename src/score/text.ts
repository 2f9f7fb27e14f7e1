/** `text` cut to `max` characters, the cut marked with how much was left out (keeps task meta small). */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text
  return `${text.slice(0, max)}… [${text.length - max} more chars]`
}
