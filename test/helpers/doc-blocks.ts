/**
 * The fenced code blocks of the Markdown docs, read one way for every test that checks or runs them
 * (test/integration/docs-examples.test.ts type-checks them; test/integration/task.test.ts runs the "Testing your app"
 * example as it is written), so an example and its test cannot drift apart.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const REPO = fileURLToPath(new URL('../..', import.meta.url))

export interface Block {
  file: string // relative to the repository
  line: number // line of the block's first content line in the Markdown file
  lang: string
  code: string
  mark?: string // the `docs-test:` mark before the block
}

/** Every fenced block of a Markdown file (`file` relative to the repository), with the `docs-test:` mark before it. */
export function blocksOf(file: string): Block[] {
  const lines = readFileSync(join(REPO, file), 'utf8').split('\n')
  const out: Block[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(\w*)\s*$/.exec(lines[i]!)
    if (!open) continue
    const indent = open[1]!.length
    const body: string[] = []
    let j = i + 1
    for (; j < lines.length && !/^\s*```\s*$/.test(lines[j]!); j++) body.push(lines[j]!.slice(indent))
    let k = i - 1
    while (k >= 0 && lines[k]!.trim() === '') k--
    const mark = k >= 0 ? /<!--\s*docs-test:\s*(.+?)\s*-->/.exec(lines[k]!)?.[1] : undefined
    out.push({ file, line: i + 2, lang: open[2]!, code: body.join('\n'), ...(mark ? { mark } : {}) })
    i = j
  }
  return out
}

/** One file of a block that shows several. */
export interface BlockFile {
  path: string
  code: string
  /** The index of its first line (the one after its header) in the block. */
  start: number
}

// `// lib/chat.ts` or `// evals/chat.eval.ts: what it is`, a whole line at the block's top level.
const FILE_HEADER = /^\/\/ ((?:[\w@.-]+\/)*[\w@-][\w@.-]*\.(?:ts|tsx|mts|js|mjs|json|jsonl))(?::.*)?$/

/**
 * The files of a block that shows several, each starting at a header line `// <path>` (the block's first line is
 * one); undefined for a block of one file. A header's path is relative to the project, and never leaves it.
 */
export function blockFiles(code: string): BlockFile[] | undefined {
  const lines = code.split('\n')
  const heads = lines.flatMap((l, i) => {
    const m = FILE_HEADER.exec(l)
    return m && !m[1]!.split('/').includes('..') ? [{ i, path: m[1]! }] : []
  })
  if (heads.length < 2 || heads[0]!.i !== 0) return undefined
  return heads.map((h, n) => {
    const end = n + 1 < heads.length ? heads[n + 1]!.i : lines.length
    return { path: h.path, code: `${lines.slice(h.i + 1, end).join('\n').trimEnd()}\n`, start: h.i + 1 }
  })
}
