// Tables of contents of the docs/ guides: the list between `<!-- toc -->` and `<!-- /toc -->` is generated from
// the headings, so a moved or renamed section cannot leave a dead entry. `node scripts/docs-toc.mjs` rewrites
// them; test/integration/docs-examples.test.ts fails when one is stale.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** GitHub's heading anchor: lowercase, punctuation dropped except `-` and `_`, spaces to `-`. */
export function slug(heading) {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}_\- ]/gu, '').replace(/ /g, '-')
}

/** Headings outside code fences: `{ level, text, slug }`, repeated slugs numbered as GitHub does. */
export function headings(markdown) {
  const out = []
  const seen = new Map()
  let fence = false
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fence = !fence
    const m = fence ? null : /^(#{1,6}) (.*)$/.exec(line)
    if (!m) continue
    const base = slug(m[2])
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    out.push({ level: m[1].length, text: m[2], slug: n ? `${base}-${n}` : base })
  }
  return out
}

const OPEN = '<!-- toc -->'
const CLOSE = '<!-- /toc -->'

/** The file with its table of contents regenerated (levels 2 and 3), or unchanged when it has no marker. */
export function withToc(markdown) {
  const start = markdown.indexOf(OPEN)
  if (start < 0) return markdown
  const end = markdown.indexOf(CLOSE, start)
  const after = end < 0 ? markdown.slice(start + OPEN.length) : markdown.slice(end + CLOSE.length)
  const list = headings(after)
    .filter((h) => h.level === 2 || h.level === 3)
    .map((h) => `${h.level === 3 ? '  ' : ''}- [${h.text.replace(/([[\]])/g, '\\$1')}](#${h.slug})`)
  return `${markdown.slice(0, start)}${OPEN}\n\n${list.join('\n')}\n\n${CLOSE}${after}`
}

export const docsDir = fileURLToPath(new URL('../docs/', import.meta.url))

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const name of readdirSync(docsDir).filter((f) => f.endsWith('.md'))) {
    const path = docsDir + name
    const text = readFileSync(path, 'utf8')
    const next = withToc(text)
    if (next !== text) writeFileSync(path, next)
  }
}
