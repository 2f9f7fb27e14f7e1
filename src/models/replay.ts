/**
 * Replay: a "model" that answers with outputs recorded earlier, looked up by sample id. Makes CI runs deterministic
 * and free, and is how the project's own example evals run.
 *
 * Recorded lines (JSONL):
 *   {"id": "w1", "output": "<raw generated text>"}             parsed like any model output
 *   {"id": "w1", "tool_calls": [<OpenAI-style tool calls>]}    used as they are (arguments strings decoded)
 *   {"id": "w1", "skipped": "<reason>"}                        a sample skipped by policy when recorded
 *   {"id": "w1", "error": "<reason>"}                          a generation that failed when recorded
 * A line may also carry `"format"` (a wire-format hint for the parser). When an id appears twice, the later line
 * wins (appending to a recording updates it).
 *
 * Repeated trials (describeEval's `trials`) ask for trial t of a sample: the line of that id whose `"trial"` field is
 * t, else the t-th line of that id without one (0-based, in file order). So a recording may hold k lines per id,
 * tagged (`{"id": "w1", "trial": 2, ...}`, as `record()` writes them) or simply in order.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { decodeArguments, isPlainObject, makeCall } from '../calls/call-object.js'
import { assertKnownFormat, unknownFormatError } from '../calls/index.js'
import { checkOptionKeys, type OptionKeys } from '../calls/options.js'
import type { ToolCall } from '../calls/types.js'
import { decodeJsonLine, forEachJsonlLine } from '../calls/jsonl.js'
import { resolveInput } from '../data/input-root.js'
import type { Sample } from '../data/types.js'
import type { ModelOutput, ModelProvider } from './types.js'

/** What a recording holds for one id: an output, or why that line is unusable. */
type Recorded = { output: ModelOutput; error?: undefined } | { error: string; output?: undefined }

export interface Recording {
  byId: Map<string, Recorded>
  /** Every line of each id in file order, with its `trial` field when it has one (repeated trials). */
  lines: Map<string, { trial?: number; recorded: Recorded }[]>
  /** Lines that could not be read at all (no id to file them under): `file:line: what`. */
  unreadable: string[]
  /** Why the file itself could not be read (`recording file not found: <path>`): every lookup fails with it. */
  fileError?: string
}

export interface ReplayOptions {
  /** Wire-format hint for outputs recorded as raw text, unless a line names its own `format`. */
  format?: string
}

const REPLAY_KEYS: OptionKeys<ReplayOptions> = { format: true }

/** The format name given to calls replayed from OpenAI-style `tool_calls`. */
export const OPENAI_FORMAT = 'openai'

/**
 * A provider that answers each sample with its recorded output. A sample with nothing recorded is an error (the
 * sample is reported as errored, never dropped). The file is read once, on the first request.
 */
export function replay(path: string | URL, options: ReplayOptions = {}): ModelProvider {
  const file = typeof path === 'string' ? path : path.protocol === 'file:' ? fileURLToPath(path) : path.href
  checkOptionKeys(options, REPLAY_KEYS, `replay(${file})`)
  if (options.format !== undefined) assertKnownFormat(options.format, `replay(${file}): option \`format\``)
  let recording: Recording | undefined
  return {
    id: `replay:${file}`,
    inputFiles: typeof path === 'string' || path.protocol === 'file:' ? [file] : [],
    async generate(sample: Sample): Promise<ModelOutput> {
      recording ??= readRecording(typeof path === 'string' ? resolveInput(path) : path, file)
      const hit = sample.trial === undefined ? recording.byId.get(sample.id) : trialLine(recording, sample.id, sample.trial)
      if (hit?.output) {
        // Marked: no model ran now, so an answer without usage records none (a skip records none anyway).
        if (hit.output.skipped !== undefined) return hit.output
        if (options.format !== undefined && hit.output.format === undefined && hit.output.text !== undefined) {
          return { ...hit.output, format: options.format, replayed: true }
        }
        return { ...hit.output, replayed: true }
      }
      if (hit?.error) throw new Error(hit.error)
      if (recording.fileError !== undefined) throw Object.assign(new Error(recording.fileError), { reason: recording.fileError })
      const trial = sample.trial === undefined ? '' : ` trial ${sample.trial} (${recording.lines.get(sample.id)?.length ?? 0} line(s) recorded for it)`
      let message = `no recorded output for sample "${sample.id}"${trial} in ${file}`
      if (recording.unreadable.length > 0) {
        message += ` (${recording.unreadable.length} unreadable line(s) there, first: ${recording.unreadable[0]})`
      }
      // `reason` groups these errors in the report without the per-sample detail.
      throw Object.assign(new Error(message), { reason: `no recorded output in ${file}` })
    },
  }
}

/** Read a recording file; a file that cannot be read makes every lookup fail with that reason. */
export function readRecording(path: string | URL, file: string): Recording {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === 'ENOENT'
    const fileError = missing ? `recording file not found: ${file}` : `cannot read the recording ${file}: ${(err as Error).message}`
    return { byId: new Map(), lines: new Map(), unreadable: [], fileError }
  }
  return parseRecording(text, file)
}

/** The recorded outputs in a JSONL text (`file` names it in messages). Never throws. */
export function parseRecording(text: string, file: string): Recording {
  const byId = new Map<string, Recorded>()
  const lines: Recording['lines'] = new Map()
  const unreadable: string[] = []
  forEachJsonlLine(text, (content, line) => {
    const where = `${file}:${line}`
    const decoded = decodeJsonLine(content.trim())
    if (!decoded.ok) {
      unreadable.push(`${where}: not valid JSON (${decoded.error})`)
      return
    }
    const obj = decoded.value
    const id = isPlainObject(obj) ? obj['id'] : undefined
    if (!isPlainObject(obj) || !(typeof id === 'string' || typeof id === 'number')) {
      unreadable.push(`${where}: field \`id\`: missing (a recorded line needs the sample id)`)
      return
    }
    const trial = obj['trial']
    const badTrial = trial !== undefined && !(typeof trial === 'number' && Number.isInteger(trial) && trial >= 0)
    const recorded: Recorded = badTrial ? { error: `${where}: field \`trial\`: must be a whole number >= 0` } : recordedFromObject(obj, where)
    byId.set(String(id), recorded)
    let list = lines.get(String(id))
    if (!list) lines.set(String(id), (list = []))
    list.push(typeof trial === 'number' && !badTrial ? { trial, recorded } : { recorded })
  })
  return { byId, lines, unreadable }
}

/** Trial `t` of a sample: its line tagged `"trial": t`, else its t-th untagged line (see the module comment). */
function trialLine(recording: Recording, id: string, t: number): Recorded | undefined {
  const list = recording.lines.get(id) ?? []
  const tagged = list.find((l) => l.trial === t)
  if (tagged) return tagged.recorded
  return list.filter((l) => l.trial === undefined)[t]?.recorded
}

function recordedFromObject(obj: Record<string, unknown>, where: string): Recorded {
  const format = typeof obj['format'] === 'string' ? obj['format'] : undefined
  if (typeof obj['error'] === 'string') return { error: `recorded generation error (${where}): ${obj['error']}` }
  if (typeof obj['skipped'] === 'string') return { output: { skipped: obj['skipped'] } }
  const output: ModelOutput = {}
  // A hint only matters for raw text (recorded tool_calls are not parsed, whatever format they name).
  const formatProblem = format !== undefined && typeof obj['output'] === 'string' ? unknownFormatError(format) : undefined
  if (formatProblem !== undefined) return { error: `${where}: field \`format\`: ${formatProblem}` }
  if (format !== undefined) output.format = format
  if (obj['tool_calls'] !== undefined && obj['tool_calls'] !== null) {
    const calls = callsFromOpenAI(obj['tool_calls'])
    if (typeof calls === 'string') return { error: `${where}: field \`tool_calls\`: ${calls}` }
    output.calls = calls
  }
  if (typeof obj['output'] === 'string') output.text = obj['output']
  else if (obj['output'] !== undefined && obj['output'] !== null) {
    return { error: `${where}: field \`output\`: must be a string (the raw generated text)` }
  }
  if (output.calls === undefined && output.text === undefined) {
    return { error: `${where}: has neither \`output\` nor \`tool_calls\`` }
  }
  return { output }
}

/**
 * ToolCalls from OpenAI-style `tool_calls` (`{"id", "type", "function": {"name", "arguments"}}`, or bare
 * `{"name", "arguments"}`). Arguments strings are decoded and their validity kept (a model that wrote broken JSON
 * arguments is scored as such); a call without a readable name gets name ''. A string result says what is wrong.
 */
export function callsFromOpenAI(value: unknown): ToolCall[] | string {
  if (!Array.isArray(value)) return 'must be an array'
  const calls: ToolCall[] = []
  for (let i = 0; i < value.length; i++) {
    const tc: unknown = value[i]
    if (!isPlainObject(tc)) return `[${i}] must be an object`
    const fn = isPlainObject(tc['function']) ? tc['function'] : tc
    const name = typeof fn['name'] === 'string' ? fn['name'] : ''
    const raw = fn['arguments'] === undefined ? fn['parameters'] : fn['arguments']
    // No arguments at all is a call of a function without parameters ({} and valid, as NeMo has it).
    const args = raw === undefined ? { arguments: {}, argumentsValid: true } : decodeArguments(raw)
    calls.push(makeCall(name, args, OPENAI_FORMAT, undefined, typeof tc['id'] === 'string' ? tc['id'] : undefined))
  }
  return calls
}
