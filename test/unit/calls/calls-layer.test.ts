/**
 * `calls` stands on the Python layer alone: nothing in src/calls imports from another folder of src/ but src/python
 * (Python call syntax and values, which BFCL shares), src/python imports nothing outside itself, and format files
 * import no other format file (shared helpers live in src/calls/). Read from the sources' import statements.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const CALLS = fileURLToPath(new URL('../../../src/calls', import.meta.url))

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  )
}

/** Each relative import of a file, resolved to a path relative to src/calls. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  return [...text.matchAll(/^(?:import|export)[^'"\n]*(?:\n[^'"\n]*)*?from '(\.[^']+)'/gm)].map((m) =>
    relative(CALLS, resolve(dirname(file), m[1]!)),
  )
}

describe('src/calls layering', () => {
  const files = sources(CALLS)
  it('reads the imports', () => {
    expect(importsOf(join(CALLS, 'formats/hermes.ts'))).toContain('json-calls.js')
    expect(importsOf(join(CALLS, 'index.ts'))).toContain('formats/index.js')
  })
  it('imports nothing outside src/calls but src/python', () => {
    const outside = files.flatMap((f) =>
      importsOf(f)
        .filter((i) => i.startsWith('..') && !i.startsWith(`..${sep}python${sep}`))
        .map((i) => `${relative(CALLS, f)} -> ${i}`),
    )
    expect(outside).toEqual([])
    expect(importsOf(join(CALLS, 'pythonic-calls.ts'))).toContain(`..${sep}python${sep}index.js`)
  })
  it('src/python imports nothing outside itself', () => {
    const python = join(CALLS, '..', 'python')
    const outside = sources(python).flatMap((f) =>
      importsOf(f)
        .filter((i) => !i.startsWith(`..${sep}python${sep}`))
        .map((i) => `${relative(python, f)} -> ${i}`),
    )
    expect(sources(python).length).toBeGreaterThan(10)
    expect(outside).toEqual([])
  })
  it('format files import no other format file (index.ts lists them)', () => {
    const crossing = files
      .filter((f) => relative(CALLS, f).startsWith('formats/') && !f.endsWith('index.ts'))
      .flatMap((f) => importsOf(f).filter((i) => i.startsWith('formats/')).map((i) => `${relative(CALLS, f)} -> ${i}`))
    expect(crossing).toEqual([])
  })
  it('no file is over 500 lines', () => {
    const long = files.filter((f) => readFileSync(f, 'utf8').split('\n').length > 500).map((f) => relative(CALLS, f))
    expect(long).toEqual([])
  })
})
