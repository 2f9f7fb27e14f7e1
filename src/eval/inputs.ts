/**
 * The files an eval reads (its dataset, a replay recording), recorded in each sample's task meta so that the
 * `toolEvals()` plugin can rerun the eval in watch mode when one of them changes.
 */
import { resolveInput } from '../data/input-root.js'
import { fileURLToPath } from 'node:url'
import type { DataSource } from '../data/types.js'
import type { ModelProvider } from '../models/types.js'

const INPUTS_KEY = 'toolEvalsInputs'

/** Absolute paths of the local files behind a data source and the providers (URLs other than file: are not files). */
export function inputFiles(data: DataSource, providers: readonly ModelProvider[]): string[] {
  const out = new Set<string>()
  const add = (source: string | URL) => {
    if (source instanceof URL) {
      if (source.protocol === 'file:') out.add(fileURLToPath(source))
    } else if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(source)) {
      out.add(resolveInput(source))
    }
  }
  if (typeof data === 'string' || data instanceof URL) add(data)
  for (const p of providers) for (const file of p.inputFiles ?? []) add(file)
  return [...out]
}

export function writeInputs(taskMeta: object, files: readonly string[]): void {
  if (files.length > 0) (taskMeta as Record<string, unknown>)[INPUTS_KEY] = files
}

export function readInputs(taskMeta: unknown): string[] {
  if (typeof taskMeta !== 'object' || taskMeta === null) return []
  const files = (taskMeta as Record<string, unknown>)[INPUTS_KEY]
  return Array.isArray(files) ? files.filter((f): f is string => typeof f === 'string') : []
}
