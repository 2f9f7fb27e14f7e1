/**
 * What a suite ran against, for run metadata in the report: the provider's id, a hash of its settings (never the
 * settings: they must hold no secret, but a hash is safe either way), a hash of each local input file (the data, a
 * replay recording) and of the tool schemas its samples offer. Kept once per suite in the describe block's task
 * meta (not per sample: task meta of every test stays small), which reaches the reporter with the collected tasks.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { relative } from 'node:path'
import type { Sample } from '../data/types.js'
import type { ModelProvider } from '../models/types.js'
import { stableJson } from '../models/cache.js'

export const RUN_INFO_KEY = 'toolEvalsRun'

export interface SuiteRunInfo {
  provider: string
  /** sha256 (16 hex digits) of the provider's settings in stable JSON; absent when it has none. */
  settings?: string
  /** Input files (relative to the working directory) and their sha256 (16 hex digits); `null`: unreadable. */
  files: Record<string, string | null>
  /** sha256 of the distinct tool schemas the samples offer (sorted), absent when none offers tools. */
  tools?: string
}

function sha(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16)
}

function fileHash(path: string): string | null {
  try {
    return sha(readFileSync(path))
  } catch {
    return null
  }
}

export function suiteRunInfo(model: ModelProvider, files: readonly string[], samples: readonly Sample[]): SuiteRunInfo {
  const info: SuiteRunInfo = { provider: model.id, files: {} }
  if (model.settings !== undefined) info.settings = sha(safeStable(model.settings))
  for (const f of files) info.files[relative(process.cwd(), f) || f] = fileHash(f)
  const schemas = new Set<string>()
  for (const s of samples) for (const t of s.tools ?? []) schemas.add(safeStable(t))
  if (schemas.size > 0) info.tools = sha([...schemas].sort().join('\n'))
  return info
}

function safeStable(value: unknown): string {
  try {
    return stableJson(value)
  } catch {
    return String(value)
  }
}

/** The run info a suite's task meta carries, if it is one. */
export function readSuiteRunInfo(taskMeta: unknown): SuiteRunInfo | undefined {
  if (typeof taskMeta !== 'object' || taskMeta === null) return undefined
  const v = (taskMeta as Record<string, unknown>)[RUN_INFO_KEY]
  if (typeof v !== 'object' || v === null || typeof (v as SuiteRunInfo).provider !== 'string') return undefined
  return v as SuiteRunInfo
}
