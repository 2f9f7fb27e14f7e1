/**
 * Reading a history folder (reporter/history.ts writes it): every `*.json` in it is a run, either a history entry or
 * a plain JSON report copied there (labelled from its `run` metadata). A file that is not a report (bad JSON, another
 * format, a future history version, a rate outside [0, 1]) is skipped with its name and why, never a crash and never
 * a point on a plot. Samples files are not read here: only the checkpoint comparison needs them (history-curves.ts).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { HISTORY_FORMAT, HISTORY_VERSION } from '../reporter/history.js'

/** One run of the history, as the page needs it. */
export interface HistoryRun {
  /** The file's name in the folder. */
  file: string
  time: string
  commit?: string
  branch?: string
  step?: number
  label?: string
  pass: boolean
  /** The gate's reasons, one line each (empty when it passes). */
  reasons: string[]
  /** Why the run is not a whole run (partial, interrupted), when it is not. */
  incomplete?: string
  samples: number
  metrics: Record<string, number | null>
  metricCounts: Record<string, number>
  intervals: Record<string, [number, number] | null>
  /** Overall thresholds on a metric: `min` (the rate must reach it). */
  thresholds: Record<string, number>
  /** Metrics the report's own comparison with its baseline found regressed. */
  regressed: string[]
  /** The report carries trials (per-sample values are means over trials). */
  trials: boolean
  /** The report names a samples file (a paired comparison may be possible). */
  hasSamples: boolean
}

export interface SkippedFile {
  file: string
  reason: string
}

export interface History {
  dir: string
  runs: HistoryRun[]
  skipped: SkippedFile[]
}

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)
const isRate = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= 1

/** The run a report file holds, or why it holds none (the reason never quotes the file's text). */
export function parseHistoryRun(file: string, text: string): HistoryRun | { skipped: string } {
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch {
    return { skipped: 'not valid JSON' }
  }
  if (!isObj(data)) return { skipped: 'not a tool-evals report (not a JSON object)' }
  const label = data['history']
  if (label !== undefined) {
    if (!isObj(label) || label['format'] !== HISTORY_FORMAT) return { skipped: '`history` is not a tool-evals history label' }
    if (label['v'] !== HISTORY_VERSION) return { skipped: `history format version ${JSON.stringify(label['v'])}; this version of tool-evals reads version ${HISTORY_VERSION}` }
  }
  if (typeof data['samples'] !== 'number' || !isObj(data['metrics']) || typeof data['pass'] !== 'boolean' || !isObj(data['gate'])) {
    return { skipped: 'not a tool-evals report (no `samples`, `metrics`, `pass` and `gate`)' }
  }
  const metrics: Record<string, number | null> = {}
  for (const [m, v] of Object.entries(data['metrics'])) {
    if (v !== null && !isRate(v)) return { skipped: `metrics.${m} is not a rate in [0, 1]` }
    metrics[m] = v
  }
  const run = isObj(data['run']) ? data['run'] : {}
  const git = isObj(run['git']) ? run['git'] : {}
  const lab: Obj = isObj(label) ? label : {}
  const time = typeof lab['time'] === 'string' ? lab['time'] : typeof run['time'] === 'string' ? run['time'] : undefined
  if (time === undefined || Number.isNaN(Date.parse(time))) return { skipped: 'no valid run time (`history.time` or `run.time`)' }
  const out: HistoryRun = {
    file,
    time,
    pass: data['pass'],
    reasons: Array.isArray(data['gate']['reasons']) ? data['gate']['reasons'].map((r) => (isObj(r) && typeof r['message'] === 'string' ? r['message'] : String(r))) : [],
    samples: data['samples'],
    metrics,
    metricCounts: countsOf(data['metricCounts']),
    intervals: intervalsOf(data['metricIntervals']),
    thresholds: thresholdsOf(data['thresholds']),
    regressed: regressedOf(data['comparison']),
    trials: data['trials'] !== undefined,
    hasSamples: typeof data['samplesFile'] === 'string',
  }
  const commit = lab['commit'] ?? git['commit']
  if (typeof commit === 'string') out.commit = commit
  const branch = lab['branch'] ?? git['branch']
  if (typeof branch === 'string') out.branch = branch
  if (lab['step'] !== undefined) {
    if (typeof lab['step'] !== 'number' || !Number.isFinite(lab['step']) || lab['step'] < 0) return { skipped: '`history.step` is not a number ≥ 0' }
    out.step = lab['step']
  }
  if (typeof lab['label'] === 'string') out.label = lab['label']
  if (data['interrupted'] === true) out.incomplete = 'interrupted'
  else if (isObj(data['partial'])) out.incomplete = `partial (${String(data['partial']['reason'])})`
  return out
}

function countsOf(v: unknown): Record<string, number> {
  const out: Record<string, number> = {}
  if (isObj(v)) for (const [k, n] of Object.entries(v)) if (typeof n === 'number' && Number.isInteger(n) && n >= 0) out[k] = n
  return out
}

function intervalsOf(v: unknown): Record<string, [number, number] | null> {
  const out: Record<string, [number, number] | null> = {}
  if (!isObj(v)) return out
  for (const [k, i] of Object.entries(v)) {
    if (Array.isArray(i) && i.length === 2 && isRate(i[0]) && isRate(i[1]) && i[0] <= i[1]) out[k] = [i[0], i[1]]
    else out[k] = null
  }
  return out
}

/** The overall `min` thresholds (suite and tool thresholds are not a metric's line on the run's plot). */
function thresholdsOf(v: unknown): Record<string, number> {
  const out: Record<string, number> = {}
  if (!Array.isArray(v)) return out
  for (const t of v) {
    if (!isObj(t) || typeof t['metric'] !== 'string' || !isRate(t['min'])) continue
    if (t['suite'] !== undefined || t['tool'] !== undefined || t['scope'] !== undefined) continue
    out[t['metric']] = t['min']
  }
  return out
}

function regressedOf(v: unknown): string[] {
  if (!isObj(v) || !isObj(v['metrics'])) return []
  return Object.entries(v['metrics'])
    .filter(([, m]) => isObj(m) && m['verdict'] === 'regressed')
    .map(([k]) => k)
    .sort()
}

/** Every report in `dir` (not its subfolders), in file-name order, which is time order for the history's names. */
export function readHistory(dir: string): History {
  const names = readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.json'))
    .map((e) => e.name)
    .sort()
  const runs: HistoryRun[] = []
  const skipped: SkippedFile[] = []
  for (const name of names) {
    let text: string
    try {
      text = readFileSync(join(dir, name), 'utf8')
    } catch (err) {
      skipped.push({ file: name, reason: `cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})` })
      continue
    }
    const parsed = parseHistoryRun(name, text)
    if ('skipped' in parsed) skipped.push({ file: name, reason: parsed.skipped })
    else runs.push(parsed)
  }
  // Time order (names of copied reports need not sort by time); the file name breaks ties.
  runs.sort((a, b) => Date.parse(a.time) - Date.parse(b.time) || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0))
  return { dir, runs, skipped }
}
