/**
 * Reading a finished run for comparison: its JSON report (run metadata, the name of its samples sidecar) and the
 * sidecar's per-sample outcomes. Errors name the file and what is missing.
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import type { RunForComparison } from './compare.js'
import { readOutcomes } from './outcomes.js'
import type { RunMeta } from './run-meta.js'

export interface LoadedReport extends RunForComparison {
  file: string
  /** The whole JSON report as read. */
  report: Record<string, unknown>
}

export function loadReport(path: string): LoadedReport {
  const file = resolve(path)
  let report: Record<string, unknown>
  try {
    report = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>
  } catch (err) {
    const e = err as NodeJS.ErrnoException
    throw new Error(e.code === 'ENOENT' ? `${path}: no such report` : `${path}: not a JSON report (${e.message})`)
  }
  if (typeof report !== 'object' || report === null) throw new Error(`${path}: not a tool-evals report`)
  const samplesFile = report['samplesFile']
  if (typeof samplesFile !== 'string') {
    throw new Error(`${path}: the report names no samples file (\`samplesFile\`): it was written by a version without per-sample outcomes, or with samplesFile: false`)
  }
  const sidecar = resolve(dirname(file), samplesFile)
  if (!existsSync(sidecar)) throw new Error(`${path}: its samples file ${sidecar} is missing (keep it beside the report, e.g. in the same artifact)`)
  const out: LoadedReport = { file: path, report, outcomes: readOutcomes(sidecar) }
  const meta = report['run']
  if (typeof meta === 'object' && meta !== null) out.meta = meta as RunMeta
  return out
}
