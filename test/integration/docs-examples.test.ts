/**
 * Every example in README.md and docs/*.md holds against the code:
 * - each ```ts block type-checks against the package's types (src/, through the repository's path mapping);
 * - each ```sh block names real `tool-evals` commands with their real options, and real `npm run` scripts;
 * - every relative link leads to a file, and every anchor to a heading there;
 * - the docs' tables of contents match their headings, and reference.md holds each command's `--help` text.
 *
 * A block that cannot stand alone is marked just before it with `<!-- docs-test: fragment -->` (or another reason);
 * it is listed as a skipped test with that reason. A block that shows several files, each from a line `// <path>`
 * (see helpers/doc-blocks.ts), is checked as those files in a folder of its own, so they import each other.
 * TypeScript blocks without an import of their own get the package's usual imports and a few declared names
 * (`data`, `model`, `output`, ...), as a reader assumes them.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Command } from '../../src/cli/command.js'
import { blockFiles, blocksOf, type Block } from '../helpers/doc-blocks.js'
// @ts-expect-error: a plain .mjs script without types
import { headings, withToc } from '../../scripts/docs-toc.mjs'

const root = fileURLToPath(new URL('../..', import.meta.url))
const outDir = join(root, '.docs-examples') // gitignored; kept after the run to read a failing block

const markdownFiles = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
]

const blocks = markdownFiles.flatMap(blocksOf)
const tsBlocks = blocks.filter((b) => b.lang === 'ts' || b.lang === 'typescript')
const shBlocks = blocks.filter((b) => b.lang === 'sh' || b.lang === 'bash' || b.lang === 'shell')
const name = (b: Block) => `${b.file}:${b.line}`

// What a snippet without imports assumes: the package's entry points, and values a reader already has.
const PRELUDE = [
  "import { expect } from 'vitest'",
  "import { defineConfig } from 'vitest/config'",
  "import { cached, defineScorer, describeEval, local, mcpTools, openaiCompatible, parseToolCalls, record, replay } from 'vitest-tool-evals'",
  "import { bfclEnvironment, bfclMultiTurn, loadBfclCategory } from 'vitest-tool-evals/bfcl'",
  "import { ToolEvalsReporter } from 'vitest-tool-evals/reporter'",
  "import { toolEvals } from 'vitest-tool-evals/plugin'",
]
const GLOBALS = `import type { EvalResult, ModelProvider, Sample, ToolCall } from 'vitest-tool-evals'
declare global {
  const data: Sample[]
  const model: ModelProvider
  const output: string
  const text: string
  const calls: ToolCall[]
  const result: EvalResult
  const sample: Sample
  const tools: NonNullable<Sample['tools']>
  const baseURL: string
}
export {}
`

describe('TypeScript examples type-check', () => {
  const diagnostics = new Map<string, string[]>()

  beforeAll(() => {
    rmSync(outDir, { recursive: true, force: true })
    mkdirSync(outDir, { recursive: true })
    writeFileSync(join(outDir, 'globals.d.ts'), GLOBALS)
    const files = new Map<string, { block: Block; offset: number }>()
    const write = (path: string, code: string, block: Block, start: number) => {
      const hasImport = /^\s*import\s/m.test(code)
      const header = hasImport ? ['export {}'] : [...PRELUDE, 'export {}']
      mkdirSync(dirname(path), { recursive: true })
      writeFileSync(path, `${header.join('\n')}\n${code}\n`)
      files.set(resolve(path), { block, offset: header.length - start })
    }
    for (const [i, b] of tsBlocks.entries()) {
      if (b.mark) continue
      const base = `${String(i).padStart(3, '0')}-${b.file.replace(/[/.]/g, '_')}-${b.line}`
      const parts = blockFiles(b.code)
      if (!parts) write(join(outDir, `${base}.ts`), b.code, b, 0)
      else for (const f of parts) if (/\.(ts|tsx|mts)$/.test(f.path)) write(join(outDir, base, f.path), f.code, b, f.start)
    }
    // The compiler's own command (TypeScript 7 has no stable JS API): a tsconfig beside the blocks, paths relative to it.
    const config = {
      compilerOptions: {
        target: 'ES2022',
        module: 'ESNext',
        moduleResolution: 'Bundler',
        lib: ['ES2023'],
        types: ['node'],
        strict: true,
        esModuleInterop: true,
        skipLibCheck: true,
        resolveJsonModule: true,
        noEmit: true,
        paths: {
          'vitest-tool-evals': [relative(outDir, join(root, 'src/index.ts'))],
          'vitest-tool-evals/*': [relative(outDir, join(root, 'src/*.ts')), relative(outDir, join(root, 'src/*/index.ts'))],
        },
      },
      files: [...[...files.keys()].map((f) => relative(outDir, f)), 'globals.d.ts'],
    }
    writeFileSync(join(outDir, 'tsconfig.json'), JSON.stringify(config, null, 2))
    const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json', '--pretty', 'false'], { cwd: outDir, encoding: 'utf8' })
    if (tsc.error) throw tsc.error
    for (const b of files.values()) diagnostics.set(name(b.block), [])
    // `file(line,col): error TSnnnn: message`, a chained message's further lines indented below it. An error
    // outside the blocks (the options, the package's own source) is a broken check, never a pass.
    const elsewhere: string[] = []
    let last: string[] | undefined
    for (const line of tsc.stdout.split('\n')) {
      const m = /^(.+?)\((\d+),\d+\): error TS\d+: (.*)$/.exec(line)
      if (!m) {
        if (last && /^\s+\S/.test(line)) last[last.length - 1] += `\n${line.trim()}`
        else if (/error TS\d+/.test(line)) elsewhere.push(line)
        continue
      }
      const entry = files.get(resolve(outDir, m[1]!))
      last = entry ? diagnostics.get(name(entry.block)) : elsewhere
      last!.push(entry ? `${entry.block.file}:${entry.block.line + Number(m[2]) - 1 - entry.offset}: ${m[3]}` : line)
    }
    if (elsewhere.length > 0 || (tsc.status !== 0 && !/error TS\d+/.test(tsc.stdout))) throw new Error(`tsc failed outside the blocks:\n${elsewhere.join('\n')}${tsc.stderr}`)
  }, 180_000)

  for (const b of tsBlocks) {
    if (b.mark) it.skip(`${name(b)} (${b.mark})`, () => {})
    else it(name(b), () => expect(diagnostics.get(name(b))).toEqual([]))
  }
})

// The commands and their options, from the command objects themselves.
async function loadCommands(): Promise<Command[]> {
  const out: Command[] = []
  const files = ['src/cli', 'src/bfcl/cli'].flatMap((d) => readdirSync(join(root, d)).filter((f) => f.endsWith('.ts')).map((f) => join(root, d, f)))
  for (const file of files) {
    const mod = (await import(file)) as Record<string, unknown>
    for (const v of Object.values(mod)) {
      const c = v as Partial<Command>
      if (c && typeof c === 'object' && typeof c.name === 'string' && c.options && typeof c.run === 'function') out.push(c as Command)
    }
  }
  return out
}

/** Problems in one shell block: unknown commands, options or npm scripts. */
function checkShell(code: string, commands: Command[], scripts: Record<string, string>): string[] {
  const problems: string[] = []
  const logical = code.replace(/\\\n/g, ' ').split('\n')
  for (const line of logical) {
    const command = line.replace(/(^|\s)#.*$/, '') // a comment, never a `#` inside a word
    for (const segment of command.split(/\|\||&&|[|;]/)) {
      const cli = /(?:^|\s)tool-evals\s+([\w-]+)(.*)$/.exec(segment)
      if (cli) {
        // A command of two words (`bfcl run`) is found before its first word's command.
        const sub = /^\s+([a-z][\w-]*)/.exec(cli[2]!)
        const two = sub ? commands.find((x) => x.name === `${cli[1]} ${sub[1]}`) : undefined
        if (two && sub) cli[2] = cli[2]!.slice(sub[0].length)
        const c = two ?? commands.find((x) => x.name === cli[1])
        if (!c) problems.push(`tool-evals ${cli[1]}: no such command`)
        else
          for (const [, flag] of cli[2]!.matchAll(/(?:^|[\s[])--([a-z][\w-]*)/g))
            if (flag !== 'help' && !(flag! in c.options)) problems.push(`tool-evals ${c.name} --${flag}: no such option`)
      }
      for (const [, script] of segment.matchAll(/\bnpm run ([\w:-]+)/g))
        if (!(script! in scripts)) problems.push(`npm run ${script}: no such script in package.json`)
      if (/\bnpm test\b/.test(segment) && !('test' in scripts)) problems.push('npm test: no test script')
    }
  }
  return problems
}

describe('shell examples name real commands, options and scripts', () => {
  let commands: Command[] = []
  const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts
  beforeAll(async () => {
    commands = await loadCommands()
  })

  it('the command objects are found', () => {
    expect(commands.map((c) => c.name).sort()).toEqual(['bfcl', 'bfcl run', 'compare', 'history', 'parse', 'plan', 'score'])
  })

  it('the checker catches an unknown option, command and script', () => {
    expect(checkShell('npx tool-evals score --sumary < x', commands, scripts)).toEqual(['tool-evals score --sumary: no such option'])
    expect(checkShell('npx tool-evals grade', commands, scripts)).toEqual(['tool-evals grade: no such command'])
    expect(checkShell('npm run eval', commands, scripts)).toEqual(['npm run eval: no such script in package.json'])
  })

  for (const b of shBlocks) {
    if (b.mark) it.skip(`${name(b)} (${b.mark})`, () => {})
    else it(name(b), () => expect(checkShell(b.code, commands, scripts).map((p) => `${name(b)}: ${p}`)).toEqual([]))
  }

  it("reference.md holds each command's --help text", () => {
    const reference = readFileSync(join(root, 'docs/reference.md'), 'utf8')
    for (const c of commands) expect(reference).toContain(`usage: tool-evals ${c.name} ${c.synopsis}\n\n${c.description}`)
  })
})

describe('links and tables of contents', () => {
  const anchors = (file: string): string[] =>
    (headings(readFileSync(file, 'utf8')) as { slug: string }[]).map((h) => h.slug)

  for (const file of markdownFiles) {
    it(`${file}: relative links lead to files and headings`, () => {
      const text = readFileSync(join(root, file), 'utf8').replace(/```[\s\S]*?```/g, '')
      const broken: string[] = []
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target!)) continue // http:, https:, mailto:
        const [path, anchor] = target!.split('#') as [string, string | undefined]
        const abs = path ? resolve(dirname(join(root, file)), path) : join(root, file)
        if (!existsSync(abs)) broken.push(`${target}: no file ${relative(root, abs)}`)
        else if (anchor && abs.endsWith('.md') && !anchors(abs).includes(anchor)) broken.push(`${target}: no heading #${anchor}`)
      }
      expect(broken).toEqual([])
    })
  }

  for (const file of markdownFiles.filter((f) => f.startsWith('docs/'))) {
    const text = readFileSync(join(root, file), 'utf8')
    if (!text.includes('<!-- toc -->')) continue
    it(`${file}: the table of contents matches the headings (node scripts/docs-toc.mjs rewrites it)`, () => {
      expect(withToc(text)).toBe(text)
    })
  }
})
