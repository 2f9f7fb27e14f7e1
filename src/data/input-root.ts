/**
 * Where an eval's relative input paths are resolved from: its data file, replay and record files, the generation
 * cache, the Hub cache and MCP recordings. In a Vitest run that is Vitest's root (the folder of the config, or `--root`), the
 * folder the reporter writes its files to as well, whatever directory Vitest was started from: the reporter hands
 * it to the test workers (see eval/input-root.ts). Outside a Vitest run, the current directory.
 */
import { isAbsolute, resolve } from 'node:path'

/** The key under which the reporter provides Vitest's root to the workers (Vitest's `provide` / `inject`). */
export const INPUT_ROOT_KEY = 'toolEvalsInputRoot'

// Typed for `vitest.provide` (reporter) and `inject` (eval/input-root.ts); a type only, nothing is imported.
declare module 'vitest' {
  export interface ProvidedContext {
    /** Vitest's root, where relative input paths are resolved from (see data/input-root.ts). */
    toolEvalsInputRoot: string
  }
}

let root: string | undefined

/** Set by the test worker's setup from what the reporter provided; undefined goes back to the current directory. */
export function setInputRoot(dir: string | undefined): void {
  root = dir
}

/** The folder relative input paths are resolved from. */
export function inputRoot(): string {
  return root ?? process.cwd()
}

/** An input path made absolute against `inputRoot()` (an absolute one as is). */
export function resolveInput(path: string): string {
  return isAbsolute(path) ? path : resolve(inputRoot(), path)
}
