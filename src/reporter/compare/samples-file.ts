/**
 * The samples file (the JSONL sidecar beside a JSON report): a header line, then one line per sample, sorted by
 * suite, id and trial. Format v2's header carries the run id the report also carries and the number of sample
 * lines, and the report keeps a hash of the whole file, so a report and its samples file prove they belong together
 * and a file cut short or edited is seen. Reading checks every line (errors name file:line and field): a value that is
 * not a rate in [0, 1], a repeated sample or a lost line would otherwise turn into a wrong number, not an error.
 * Errors never quote a line's text, only the field that is wrong.
 */
import { createHash, randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { byKey, type SampleOutcome } from './outcomes.js'

export const SAMPLES_FORMAT = 'tool-evals-samples'
export const SAMPLES_VERSION = 2

export interface SamplesHeader {
  format: typeof SAMPLES_FORMAT
  v: typeof SAMPLES_VERSION
  /** The run that wrote the file; its report carries the same `runId`. */
  runId: string
  /** Sample lines after the header (a file cut at a line boundary has fewer). */
  samples: number
  metrics: string[]
}

/** What a report records about the samples file it was written with. */
export interface SamplesFileStamp {
  runId: string
  /** `sha256:<hex>` of the file's bytes. */
  samplesHash: string
}

export function samplesHash(data: string | Buffer): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`
}

/** The file's text: the header, then one line per sample in suite, id, trial order. */
export function serialiseOutcomes(outcomes: readonly SampleOutcome[], runId: string = randomUUID()): string {
  const metricIndex = new Map<string, number>()
  for (const o of outcomes) for (const m of Object.keys(o.values)) if (!metricIndex.has(m)) metricIndex.set(m, metricIndex.size)
  const metrics = [...metricIndex.keys()]
  const header: SamplesHeader = { format: SAMPLES_FORMAT, v: SAMPLES_VERSION, runId, samples: outcomes.length, metrics }
  const lines = [JSON.stringify(header)]
  for (const o of [...outcomes].sort(byKey)) {
    const values = new Array<number | null>(metrics.length).fill(null)
    for (const [m, v] of Object.entries(o.values)) values[metricIndex.get(m) as number] = v
    while (values.length > 0 && values[values.length - 1] === null) values.pop()
    const line: Record<string, unknown> = { s: o.suite, id: o.id, v: values }
    if (o.failures.length > 0) line['f'] = o.failures
    if (o.errored) line['e'] = 1
    if (o.skipped) line['k'] = 1
    if (o.trial !== undefined) line['t'] = o.trial
    if (o.callsHash !== undefined) line['h'] = o.callsHash
    if (o.usage) line['u'] = o.usage
    if (o.cacheHit) line['c'] = 1
    if (o.mustPass) line['mp'] = 1
    if (o.expected !== undefined) line['x'] = o.expected
    if (o.calls !== undefined) line['p'] = o.calls
    lines.push(JSON.stringify(line))
  }
  return lines.join('\n') + '\n'
}

export interface ParsedSamples {
  header: SamplesHeader
  outcomes: SampleOutcome[]
}

/** Parse and check a samples file's text; anything malformed or inconsistent is an error naming file:line. */
export function parseSamplesFile(text: string, file = 'samples file'): ParsedSamples {
  const lines = text.split('\n')
  let header: SamplesHeader | undefined
  const outcomes: SampleOutcome[] = []
  let prev: SampleOutcome | undefined
  let prevLine = 0
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string
    if (line.trim() === '') continue
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch {
      // Never the parser's message: it quotes the text, and the file may not be ours.
      throw new Error(`${file}:${i + 1}: not JSON`)
    }
    if (!header) {
      header = checkHeader(value, file, i + 1)
      continue
    }
    const o = lineOutcome(value, header.metrics, file, i + 1)
    if (prev) checkOrder(prev, o, file, i + 1, prevLine)
    prev = o
    prevLine = i + 1
    outcomes.push(o)
  }
  if (!header) throw new Error(`${file}: empty (no header line)`)
  if (outcomes.length !== header.samples) {
    throw new Error(`${file}: ${outcomes.length} sample line(s), but its header says ${header.samples}: the file was cut short or added to`)
  }
  return { header, outcomes }
}

/** Only the outcomes (see `parseSamplesFile`). */
export function parseOutcomes(text: string, file = 'samples file'): SampleOutcome[] {
  return parseSamplesFile(text, file).outcomes
}

export function readOutcomes(path: string): SampleOutcome[] {
  return parseOutcomes(readFileSync(path, 'utf8'), path)
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x)
/** A value for a message: numbers and short names as they are, anything else by its kind only. */
function shown(x: unknown): string {
  if (typeof x === 'number' || typeof x === 'boolean' || x === null) return String(x)
  if (typeof x === 'string') return x.length <= 40 ? JSON.stringify(x) : 'a long string'
  return Array.isArray(x) ? 'an array' : typeof x === 'object' ? 'an object' : typeof x
}
const sampleName = (o: SampleOutcome) => `${o.suite} > ${o.id}`.slice(0, 120) + (o.trial === undefined ? '' : ` (trial ${o.trial})`)

function checkHeader(value: unknown, file: string, line: number): SamplesHeader {
  const at = `${file}:${line}`
  if (!isObject(value) || value['format'] !== SAMPLES_FORMAT) {
    throw new Error(`${at}: not a tool-evals samples file (expected a header {"format":"${SAMPLES_FORMAT}","v":${SAMPLES_VERSION},...})`)
  }
  const v = value['v']
  if (v === 1) {
    throw new Error(`${at}: samples format v1, written by an older vitest-tool-evals: it has no run id, so it cannot prove it belongs to its report; make the baseline again with this version`)
  }
  if (v !== SAMPLES_VERSION) throw new Error(`${at}: field v: samples format ${shown(v)} is not one this version reads (${SAMPLES_VERSION})`)
  const { runId, samples, metrics } = value
  if (typeof runId !== 'string' || runId === '') throw new Error(`${at}: field runId: must be a non-empty string, got ${shown(runId)}`)
  if (typeof samples !== 'number' || !Number.isSafeInteger(samples) || samples < 0) throw new Error(`${at}: field samples: must be a count, got ${shown(samples)}`)
  if (!Array.isArray(metrics) || !metrics.every((m) => typeof m === 'string') || new Set(metrics).size !== metrics.length) {
    throw new Error(`${at}: field metrics: must list distinct metric names`)
  }
  return { format: SAMPLES_FORMAT, v: SAMPLES_VERSION, runId, samples, metrics: metrics as string[] }
}

/** The writer sorts lines, so a line not after the one before is a repeat (or a file spliced together). */
function checkOrder(prev: SampleOutcome, o: SampleOutcome, file: string, line: number, prevLine: number): void {
  const c = byKey(prev, o)
  if (c < 0) {
    // Trials of one sample all carry "t"; one without would be folded into the others as a trial.
    if (prev.suite === o.suite && prev.id === o.id && (prev.trial === undefined || o.trial === undefined)) {
      throw new Error(`${file}:${line}: sample ${sampleName(o)} repeats line ${prevLine} (only trials, each with "t", may share an id)`)
    }
    return
  }
  if (c === 0) throw new Error(`${file}:${line}: sample ${sampleName(o)} repeats line ${prevLine}: a sample is written once`)
  throw new Error(`${file}:${line}: sample ${sampleName(o)} is out of order (the file is sorted by suite, id and trial): lines were moved or files joined`)
}

function flag(l: Record<string, unknown>, key: string, at: string): boolean {
  const x = l[key]
  if (x === undefined) return false
  if (x === 1 || x === true) return true
  throw new Error(`${at}: field ${key}: must be 1 when present, got ${shown(x)}`)
}

function optionalString(l: Record<string, unknown>, key: string, at: string): string | undefined {
  const x = l[key]
  if (x === undefined || typeof x === 'string') return x
  throw new Error(`${at}: field ${key}: must be a string, got ${shown(x)}`)
}

function lineOutcome(value: unknown, metrics: readonly string[], file: string, line: number): SampleOutcome {
  const at = `${file}:${line}`
  if (!isObject(value) || typeof value['s'] !== 'string' || typeof value['id'] !== 'string' || !Array.isArray(value['v'])) {
    throw new Error(`${at}: a sample line needs "s" (suite), "id" and "v" (values)`)
  }
  const l = value
  const v = l['v'] as unknown[]
  if (v.length > metrics.length) throw new Error(`${at}: field v: ${v.length} values, but the header names ${metrics.length} metric(s)`)
  const values: Record<string, number> = {}
  for (let j = 0; j < v.length; j++) {
    const x = v[j]
    if (x === null) continue // not in this metric's denominator
    if (typeof x !== 'number' || !(x >= 0 && x <= 1)) {
      throw new Error(`${at}: field v[${j}] (${metrics[j]}): a per-sample value must be a number in [0, 1] or null, got ${shown(x)}`)
    }
    values[metrics[j] as string] = x
  }
  const f = l['f']
  if (f !== undefined && !(Array.isArray(f) && f.every((x) => typeof x === 'string'))) throw new Error(`${at}: field f: must be a list of failure categories`)
  const o: SampleOutcome = { suite: l['s'] as string, id: l['id'] as string, values, failures: (f as string[] | undefined) ?? [] }
  const errored = flag(l, 'e', at)
  const skipped = flag(l, 'k', at)
  if (errored && skipped) throw new Error(`${at}: fields e and k: a sample is errored or skipped, not both`)
  if (errored) o.errored = true
  if (skipped) o.skipped = true
  // An evaluated sample always has NeMo's metrics or no_call_accuracy: none means the values were lost.
  if (!errored && !skipped && Object.keys(values).length === 0) throw new Error(`${at}: field v: an evaluated sample with no metric value`)
  const t = l['t']
  if (t !== undefined) {
    if (typeof t !== 'number' || !Number.isSafeInteger(t) || t < 0) throw new Error(`${at}: field t: a trial index must be a whole number ≥ 0, got ${shown(t)}`)
    o.trial = t
  }
  const h = optionalString(l, 'h', at)
  if (h !== undefined) o.callsHash = h
  const u = l['u']
  if (u !== undefined) {
    if (!isObject(u)) throw new Error(`${at}: field u: must be an object of numbers`)
    for (const [k, x] of Object.entries(u)) if (typeof x !== 'number' || !Number.isFinite(x)) throw new Error(`${at}: field u.${k.slice(0, 40)}: must be a finite number, got ${shown(x)}`)
    o.usage = u as Record<string, number>
  }
  if (flag(l, 'c', at)) o.cacheHit = true
  if (flag(l, 'mp', at)) o.mustPass = true
  const x = optionalString(l, 'x', at)
  if (x !== undefined) o.expected = x
  const p = optionalString(l, 'p', at)
  if (p !== undefined) o.calls = p
  return o
}
