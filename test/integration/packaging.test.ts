// The package as a user installs it, from its built dist/: the local runtime's optional peer dependencies stay
// unloaded unless local() is used (and their absence is a clear error), and the matcher types reach a test file that
// does not import the package. Real subprocesses (node, tsc) against copies of dist/ in temp projects.
import { execFile } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ensureBuilt, REPO, runVitest } from '../helpers/eval-project.js'

const OPTIONAL = ['@huggingface/transformers', 'onnxruntime-node', '@modelcontextprotocol/sdk', 'ai']

/**
 * A temp project whose node_modules holds a *copy* of the package (dist/ and package.json), so bare imports from
 * dist/ resolve from the temp project only: the optional packages are absent there, the listed ones are linked in.
 */
function installedCopy(linked: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'tool-evals-installed-'))
  const pkg = join(dir, 'node_modules/vitest-tool-evals')
  mkdirSync(pkg, { recursive: true })
  cpSync(join(REPO, 'dist'), join(pkg, 'dist'), { recursive: true })
  cpSync(join(REPO, 'package.json'), join(pkg, 'package.json'))
  for (const name of linked) {
    mkdirSync(join(dir, 'node_modules', name, '..'), { recursive: true })
    symlinkSync(join(REPO, 'node_modules', name), join(dir, 'node_modules', name), 'dir')
  }
  return dir
}

function run(cwd: string, args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: stdout + stderr })
    })
  })
}

function jsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.js'))
    .map((e) => join(e.parentPath, e.name))
}

/** What an install of the package brings: its dependencies, and Vitest (the one required peer). */
const RUNTIME_PACKAGES = [...Object.keys(JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).dependencies as object), 'vitest']

describe('optional local runtime', () => {
  let dir: string
  beforeAll(() => {
    ensureBuilt()
    dir = installedCopy(RUNTIME_PACKAGES)
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('package.json lists them as optional peer dependencies, not dependencies', () => {
    const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'))
    for (const name of OPTIONAL) {
      expect(pkg.dependencies?.[name]).toBeUndefined()
      expect(pkg.peerDependencies?.[name]).toBeTypeOf('string')
      expect(pkg.peerDependenciesMeta?.[name]).toEqual({ optional: true })
      expect(pkg.devDependencies?.[name]).toBeTypeOf('string')
    }
  })

  it('no file in dist/ imports them statically', () => {
    const staticImport = new RegExp(`(?:from|import)\\s*['"](?:${OPTIONAL.join('|')})['"]`)
    const offenders = jsFiles(join(REPO, 'dist')).filter((f) => staticImport.test(readFileSync(f, 'utf8')))
    expect(offenders).toEqual([])
  })

  // A CommonJS script, as a user's `require` runs: every entry point by `import()`, then by `require` (Node >= 20.19
  // loads ES modules through require; the package's exports answer the `require` condition).
  it('every entry point loads without them, imported or required, and local() names exactly what to install', async () => {
    const entries = Object.keys(JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).exports as object)
      .filter((e) => e !== './package.json')
      .map((e) => `vitest-tool-evals${e.slice(1)}`)
    expect(entries).toHaveLength(9)
    const script = `(async () => {
      for (const entry of ${JSON.stringify(entries)}) await import(entry)
      for (const entry of ${JSON.stringify(entries)}) console.log('required', entry, Object.keys(require(entry)).length > 0)
      const { loadBfclCategory, scoreCategory } = await import('vitest-tool-evals/bfcl')
      const { schemaMetrics } = await import('vitest-tool-evals/scorers')
      console.log('entries', typeof loadBfclCategory, typeof scoreCategory, typeof schemaMetrics)
      const { local, replay } = await import('vitest-tool-evals')
      console.log('loaded', typeof replay)
      try {
        await local('org/some-model').generate({ id: 'a', messages: [{ role: 'user', content: 'hi' }] })
      } catch (e) { console.log('ERROR ' + e.message) }
      const { mcpTools } = await import('vitest-tool-evals')
      try {
        await mcpTools({ command: 'node', args: ['server.mjs'] }, { mode: 'live' }).list()
      } catch (e) { console.log('MCP ' + e.message) }
      const { aiSdkTask } = await import('vitest-tool-evals/ai-sdk')
      try {
        await aiSdkTask({ model: 'some-model' })({ id: 'a', messages: [] }, { signal: new AbortController().signal })
      } catch (e) { console.log('AI ' + e.message) }
    })()`
    writeFileSync(join(dir, 'check.cjs'), script)
    const { code, out } = await run(dir, ['check.cjs'])
    for (const entry of entries) expect(out).toContain(`required ${entry} true`)
    expect(out).toContain('loaded function')
    expect(out).toContain('entries function function function')
    expect(code).toBe(0)
    expect(out).toMatch(/ERROR local\(\) needs the optional peer dependencies/)
    expect(out).toContain('missing: @huggingface/transformers')
    expect(out).toContain('`npm i -D @huggingface/transformers onnxruntime-node`')
    expect(out).toContain('ONNXRUNTIME_NODE_INSTALL=skip')
    expect(out).toContain('AI vitest-tool-evals/ai-sdk needs the `ai` package (v7): npm install ai')
    expect(out).toMatch(/MCP mcpTools needs @modelcontextprotocol\/sdk to talk to a server \(replaying a recording does not\): npm i -D @modelcontextprotocol\/sdk/)
  })
})

describe('installed without its sources', () => {
  let dir: string
  beforeAll(() => {
    ensureBuilt()
    dir = installedCopy(RUNTIME_PACKAGES)
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  // A CommonJS package (\`"type": "commonjs"\`, what \`npm init -y\` writes) with a \`vitest.config.ts\`: Vite bundles it
  // as CommonJS and requires the plugin, which works because the package's exports answer \`require\` too.
  it('a vitest run loading the setup entry through the plugin from a CommonJS package\'s vitest.config.ts prints no sourcemap warning (the maps carry their sources)', async () => {
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'user-project', type: 'commonjs' }))
    writeFileSync(
      join(dir, 'vitest.config.ts'),
      `import { defineConfig } from 'vitest/config'\nimport { toolEvals } from 'vitest-tool-evals/plugin'\nexport default defineConfig({ plugins: [toolEvals({ markdownFile: false })], test: { include: ['a.test.mjs'] } })\n`,
    )
    writeFileSync(join(dir, 'a.test.mjs'), `import { expect, test } from 'vitest'\ntest('t', () => expect('No call.').toHaveNoToolCall())\n`)
    const { code, stdout, stderr } = await runVitest(dir, ['run'])
    // The user's test, and the plugin's `tool-evals gate` test case.
    expect(stdout + stderr).toContain('a.test.mjs (1 test)')
    expect(stdout + stderr).toContain('2 passed')
    expect(code).toBe(0)
    expect(stdout + stderr).not.toContain('Sourcemap')
  })
})

describe('matcher types without an import', () => {
  const TSC = join(REPO, 'node_modules/typescript/bin/tsc')
  // A test file that uses the matchers and imports nothing from the package.
  const testFile = `import { expect, test } from 'vitest'
test('weather', () => {
  const output = { calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] }
  expect(output).toCallTool('get_weather')
  expect(output).not.toHaveArgs({ city: 'Rome' })
  expect(output).toMatchToolCalls([{ name: 'get_weather' }])
  expect(output).toMatchBfclAnswer([{ get_weather: { city: ['Paris'] } }])
})
`
  let dir: string
  beforeAll(() => {
    ensureBuilt()
    // Linked, as the integration projects are: the types resolve through package.json "exports" into dist/.
    dir = mkdtempSync(join(tmpdir(), 'tool-evals-types-'))
    mkdirSync(join(dir, 'node_modules'))
    mkdirSync(join(dir, 'test'))
    symlinkSync(REPO, join(dir, 'node_modules/vitest-tool-evals'), 'dir')
    symlinkSync(join(REPO, 'node_modules/vitest'), join(dir, 'node_modules/vitest'), 'dir')
    writeFileSync(join(dir, 'test/weather.test.ts'), testFile)
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  const typecheck = (name: string, resolution: 'NodeNext' | 'Bundler', types: string[]) => {
    const config = {
      compilerOptions: {
        strict: true,
        target: 'ES2022',
        module: resolution === 'NodeNext' ? 'NodeNext' : 'ESNext',
        moduleResolution: resolution,
        noEmit: true,
        skipLibCheck: true,
        types,
      },
      include: ['test'],
    }
    writeFileSync(join(dir, `${name}.json`), JSON.stringify(config))
    return run(dir, [TSC, '-p', `${name}.json`])
  }

  it.each([
    ['NodeNext', 'vitest-tool-evals/matchers'],
    ['Bundler', 'vitest-tool-evals/setup'],
  ] as const)('tsc --noEmit (%s) accepts toCallTool & co. with "types": ["%s"]', async (resolution, entry) => {
    const { code, out } = await typecheck(`tsconfig.${resolution}.${entry.split('/')[1]}`, resolution, [entry])
    expect(out).toBe('')
    expect(code).toBe(0)
  })

  it('without the types entry the same file does not typecheck (the check above can fail)', async () => {
    const { code, out } = await typecheck('tsconfig.none', 'NodeNext', [])
    expect(code).not.toBe(0)
    expect(out).toContain("Property 'toCallTool' does not exist")
  })
})
