/**
 * Reading a finished run for comparison: its JSON report (run metadata, the name of its samples file) and the
 * samples file's per-sample outcomes. Fails closed: the samples file must be a plain name in the report's own folder
 * (no path, no link out of it), carry the report's run id, hold as many sample lines as the report counted, and hash
 * to the report's `samplesHash`; a partial or interrupted run is no baseline. Errors name the file and what is wrong,
 * and never quote a file's text (a samples file pointing at /etc/passwd must not print it).
 */
import { readFileSync, realpathSync, statSync } from 'node:fs'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import type { RunForComparison } from './compare.js'
import type { RunMeta } from './run-meta.js'
import { parseSamplesFile, samplesHash } from './samples-file.js'

export interface LoadedReport extends RunForComparison {
  file: string
  /** The whole JSON report as read. */
  report: Record<string, unknown>
}

/** `baseline`: the run compared against (must be whole); `head`: the run compared (may be partial). */
export type ReportRole = 'baseline' | 'head'

const quote = (s: string) => JSON.stringify(s.length > 100 ? `${s.slice(0, 100)}…` : s)

export function loadReport(path: string, role: ReportRole = 'baseline'): LoadedReport {
  const file = resolve(path)
  const report = readReport(path, file)
  refuseIncomplete(report, path, role)
  const { name, real } = samplesFileOf(report, path, file)
  const runId = report['runId']
  const hash = report['samplesHash']
  if (typeof runId !== 'string' || typeof hash !== 'string') {
    throw new Error(`${path}: the report has no runId and samplesHash, so its samples file cannot be checked against it: it was written by an older vitest-tool-evals; make it again with this version`)
  }
  const shownPath = join(dirname(path), name)
  const bytes = readFileSync(real)
  const { header, outcomes } = parseSamplesFile(bytes.toString('utf8'), shownPath)
  if (header.runId !== runId) {
    throw new Error(`${path}: its samples file ${shownPath} belongs to another run (run id ${quote(header.runId)}, the report's is ${quote(runId)}): copy a report together with its own samples file`)
  }
  if (report['samples'] !== outcomes.length) {
    throw new Error(`${path}: the report counts ${typeof report['samples'] === 'number' ? report['samples'] : 'no'} samples, its samples file ${shownPath} has ${outcomes.length}`)
  }
  if (samplesHash(bytes) !== hash) throw new Error(`${path}: its samples file ${shownPath} was changed after the run wrote it (its hash is not the report's samplesHash)`)
  const out: LoadedReport = { file: path, report, outcomes }
  const meta = report['run']
  if (typeof meta === 'object' && meta !== null) out.meta = meta as RunMeta
  return out
}

function readReport(path: string, file: string): Record<string, unknown> {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    const e = err as NodeJS.ErrnoException
    throw new Error(e.code === 'ENOENT' ? `${path}: no such report` : `${path}: cannot be read (${e.code ?? 'error'})`)
  }
  let report: unknown
  try {
    report = JSON.parse(text)
  } catch {
    throw new Error(`${path}: not a JSON report`) // the parser's message would quote the text
  }
  if (typeof report !== 'object' || report === null || Array.isArray(report)) throw new Error(`${path}: not a tool-evals report`)
  return report as Record<string, unknown>
}

/** An interrupted run holds only what finished; a partial baseline would list every other sample as removed. */
function refuseIncomplete(report: Record<string, unknown>, path: string, role: ReportRole): void {
  const what = role === 'baseline' ? 'cannot be a baseline' : 'cannot be compared'
  if (report['interrupted'] !== undefined && report['interrupted'] !== false) {
    throw new Error(`${path}: an interrupted run ("interrupted": true): it holds only the samples that finished, so it ${what}`)
  }
  const partial = report['partial']
  if (role === 'baseline' && partial !== undefined && partial !== null) {
    const reason = typeof partial === 'object' && typeof (partial as Record<string, unknown>)['reason'] === 'string' ? ` (${quote((partial as Record<string, string>)['reason'] as string)})` : ''
    throw new Error(`${path}: a partial run${reason}: a baseline must be a whole run`)
  }
}

/** The samples file: a plain file name, resolved in the report's folder, and (links followed) still in it. */
function samplesFileOf(report: Record<string, unknown>, path: string, file: string): { name: string; real: string } {
  const name = report['samplesFile']
  if (typeof name !== 'string') {
    throw new Error(`${path}: the report names no samples file (\`samplesFile\`): it was written by a version without per-sample outcomes, or with samplesFile: false`)
  }
  if (name === '' || name === '.' || name === '..' || /[/\\\0]/.test(name) || isAbsolute(name)) {
    throw new Error(`${path}: samplesFile must be a file name in the report's folder, got ${quote(name)}`)
  }
  const dir = dirname(file)
  let real: string
  try {
    real = realpathSync(join(dir, name))
  } catch {
    throw new Error(`${path}: its samples file ${join(dirname(path), name)} is missing (keep it beside the report, e.g. in the same artifact)`)
  }
  if (dirname(real) !== realpathSync(dir)) throw new Error(`${path}: its samples file ${quote(name)} is a link to outside the report's folder`)
  if (!statSync(real).isFile()) throw new Error(`${path}: its samples file ${quote(name)} is not a file`)
  return { name, real }
}
