/**
 * The layering rule of docs/ARCHITECTURE.md, checked on the sources: data flows one way, so a folder may import
 * from its own layer and the layers below it, never from a layer above. Reads every import and re-export
 * (static and dynamic) of every file under src/.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const SRC = fileURLToPath(new URL('../../../src/', import.meta.url))

/**
 * Lowest first. `python` is the Python semantics the parser and BFCL share. `cli` sits beside `reporter` and may use
 * it (`tool-evals compare` renders what the reporter renders); the reporter never imports the command. Root files
 * are the package's entries. BFCL is one folder whose parts stand on the floors they serve (`bfcl/<part>`): its
 * checker, simulated APIs, agentic checker and scorer beside `score`, its data beside `data`, its protocol (the agent
 * loop driven as BFCL's handler drives it) beside `eval`, its commands beside `cli`, its entry (`bfcl/index.ts`)
 * with the package's entries.
 */
const LAYERS: Record<string, number> = {
  python: 0,
  calls: 1,
  score: 2,
  'bfcl/checker': 2,
  'bfcl/multi-turn': 2,
  'bfcl/agentic': 2,
  'bfcl/scorer': 2,
  data: 3,
  'bfcl/data': 3,
  models: 4,
  matchers: 5,
  eval: 6,
  'bfcl/protocol': 6,
  reporter: 7,
  cli: 8,
  'bfcl/cli': 8,
  bfcl: 9,
  '(root)': 9,
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sourceFiles(path)
    return /\.(ts|mts)$/.test(name) && !name.endsWith('.d.ts') ? [path] : []
  })
}

/**
 * The layer of a file under src/: its first folder (`bfcl/<part>` inside bfcl/, `bfcl` for the files directly in
 * it), or '(root)' for src/index.ts, src/cli.ts, src/setup.ts, ...
 */
function layerOf(file: string): string {
  const parts = relative(SRC, file).split(sep)
  if (parts.length === 1) return '(root)'
  if (parts[0] === 'bfcl') return parts.length === 2 ? 'bfcl' : `bfcl/${parts[1]}`
  return parts[0]!
}

/** Relative module specifiers a file imports or re-exports, with their line numbers. */
export function importsOf(text: string): { spec: string; line: number }[] {
  const out: { spec: string; line: number }[] = []
  const re = /(?:^|[\s;])(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm
  for (const m of text.matchAll(re)) {
    const spec = m[1] ?? m[2] ?? m[3]
    if (spec === undefined) continue
    out.push({ spec, line: text.slice(0, m.index + m[0].search(/\S/)).split('\n').length })
  }
  return out
}

const files = sourceFiles(SRC)

/** The files under src/ a file imports (static, dynamic, re-export, side effect, type-only), resolved to their paths. */
function importedFiles(file: string): { target: string; spec: string; line: number }[] {
  const known = new Set(files)
  return importsOf(readFileSync(file, 'utf8')).flatMap(({ spec, line }) => {
    if (!spec.startsWith('.')) return []
    const base = resolve(dirname(file), spec)
    const target = [base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts'), base, join(base, 'index.ts')].find((f) => known.has(f))
    return target === undefined ? [] : [{ target, spec, line }]
  })
}

/**
 * The import circles among files: every strongly connected set of more than one file (Tarjan's algorithm), and each
 * file that imports itself. Each circle is listed by its files, sorted, relative to src/.
 */
export function importCircles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const circles: string[][] = []
  let next = 0
  const visit = (v: string): void => {
    index.set(v, next)
    low.set(v, next)
    next++
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) !== index.get(v)) return
    const members: string[] = []
    let w: string
    do {
      w = stack.pop()!
      onStack.delete(w)
      members.push(w)
    } while (w !== v)
    if (members.length > 1 || (graph.get(v) ?? []).includes(v)) circles.push(members.sort())
  }
  for (const v of graph.keys()) if (!index.has(v)) visit(v)
  return circles.sort((a, b) => a[0]!.localeCompare(b[0]!))
}

describe('layers', () => {
  it('reads the sources', () => {
    expect(files.length).toBeGreaterThan(50)
    expect(new Set(files.map(layerOf))).toEqual(new Set(Object.keys(LAYERS)))
  })

  it('finds imports, re-exports and dynamic imports', () => {
    const text = "import a from './a.js'\nimport type { B } from '../b.js'\nexport { c } from './c.js'\nexport * from './d.js'\nconst e = await import('./e.js')\nimport './f.js'"
    expect(importsOf(text).map((i) => i.spec)).toEqual(['./a.js', '../b.js', './c.js', './d.js', './e.js', './f.js'])
  })

  it('no file imports from a higher layer', () => {
    const violations: string[] = []
    for (const file of files) {
      const from = layerOf(file)
      for (const { spec, line } of importsOf(readFileSync(file, 'utf8'))) {
        if (!spec.startsWith('.')) continue
        const target = resolve(dirname(file), spec)
        if (!target.startsWith(SRC)) continue
        const to = layerOf(target)
        if (LAYERS[to]! > LAYERS[from]!) {
          violations.push(`src/${relative(SRC, file)}:${line} (${from}) imports ${spec} (${to})`)
        }
      }
    }
    expect(violations).toEqual([])
  })
})

describe('import circles', () => {
  it('finds a circle, and only the files on it', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
      ['e', ['e']],
    ])
    expect(importCircles(graph)).toEqual([['a', 'b', 'c'], ['e']])
  })

  // Type-only imports count: a circle of types still ties the files into one idea that neither can be read, moved or
  // tested without, and the declaration files the build emits keep those imports.
  it('no files import each other in a circle, type-only imports included', () => {
    const graph = new Map(files.map((f) => [relative(SRC, f), importedFiles(f).map((i) => relative(SRC, i.target))]))
    expect(importCircles(graph).map((c) => c.join(' ↔ '))).toEqual([])
  })
})

describe('BFCL plugs in from above', () => {
  // BFCL's parts stand on the floors they serve, but the floors below know nothing of them: BFCL registers its
  // scorer and matchers in the registries those floors expose. Only the package's entries (rank 9) name it.
  it('no file outside src/bfcl/ imports from it, but the package entries', () => {
    const violations: string[] = []
    for (const file of files) {
      const from = layerOf(file)
      if (from === 'bfcl' || from.startsWith('bfcl/') || LAYERS[from] === 9) continue
      for (const { target, spec, line } of importedFiles(file)) {
        if (layerOf(target).startsWith('bfcl')) violations.push(`src/${relative(SRC, file)}:${line} (${from}) imports ${spec}`)
      }
    }
    expect(violations).toEqual([])
  })
})

describe('file size', () => {
  it('no source file is over 600 lines', () => {
    const long = files
      .map((f) => ({ file: relative(SRC, f), lines: readFileSync(f, 'utf8').split('\n').length }))
      .filter((f) => f.lines > 600)
    expect(long).toEqual([])
  })
})

describe('one matcher set', () => {
  it('the setup entry, the plugin (through the setup entry) and describeEval register the same matchers', async () => {
    await import('../../../src/bfcl/register.js')
    const { allMatchers } = await import('../../../src/matchers/register.js')
    const { toolMatchers } = await import('../../../src/matchers/matchers.js')
    const { bfclMatchers } = await import('../../../src/bfcl/scorer/matchers.js')
    const { trajectoryMatchers } = await import('../../../src/matchers/trajectory.js')
    const every = [toolMatchers, bfclMatchers, trajectoryMatchers].flatMap((m) => Object.keys(m))
    expect(Object.keys(allMatchers).sort()).toEqual(every.sort())
    // Both ways in call the one registration.
    for (const file of ['setup.ts', 'eval/describe-eval.ts']) {
      const text = readFileSync(join(SRC, file), 'utf8')
      expect(text, file).toMatch(/import \{ registerMatchers \} from '\.\.?\/matchers\/register\.js'/)
      expect(text, file).not.toMatch(/expect\.extend/)
    }
  })
})
