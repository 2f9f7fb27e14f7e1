/**
 * Vitest test annotations for samples that are not fully right, so Vitest's own tools show misses: `vitest --ui`,
 * the html reporter, JUnit `<property>`s, TAP comments, and (with a location) the github-actions reporter's
 * workflow annotations. A recorded miss (the test passes) is a 'warning', a failed test an 'error'; the message is
 * one line naming the sample (`weather > w12: `, since every annotation of a suite sits on its describeEval line),
 * then the failure categories and a compact call diff, or the error's reason. Reporters escape the text for their
 * format (Vitest's github-actions reporter escapes `%`, `\r`, `\n`), so it is kept raw here.
 */
import { printable } from '../calls/printable.js'
import type { ExpectedCall } from '../score/types.js'
import type { EvalMeta, StoredCall } from './meta.js'

const MAX_MESSAGE = 500
const MAX_ARG = 40

export interface SampleAnnotation {
  type: 'warning' | 'error'
  message: string
}

/** The annotation a finished sample gets, or undefined when it is fully right (or skipped by policy). */
export function sampleAnnotation(meta: EvalMeta, failed: boolean): SampleAnnotation | undefined {
  const { record } = meta
  if (record.skipped !== undefined) return undefined
  const type = failed ? 'error' : 'warning'
  const who = sampleName(record.suite, record.id)
  if (record.error !== undefined) return { type, message: oneLine(`${who}: errored: ${record.error}`) }
  const failures = record.score?.failures ?? []
  if (failures.length === 0 && !failed) return undefined
  const head = failures.length > 0 ? failures.join(', ') : 'assertion failed'
  return { type, message: oneLine(`${who}: ${head}: ${callDiff(meta.expected ?? [], meta.calls ?? [])}`) }
}

/** `weather > w12`, as the reports name a sample. */
function sampleName(suite: string | undefined, id: string): string {
  return suite ? `${suite} > ${id}` : id
}

/** `expected get_weather(city="Rome") · got get_weather(city="rome")`; calls that agree are not repeated. */
export function callDiff(expected: readonly ExpectedCall[], actual: readonly StoredCall[]): string {
  const want = expected.map((c) => compactCall(c.name, c.arguments))
  const got = actual.map((c) => (c.argumentsValid === false ? `${c.name}(<malformed arguments>)` : compactCall(c.name, c.arguments)))
  return `expected ${want.join(', ') || 'no call'} · got ${got.join(', ') || 'no call'}`
}

function compactCall(name: string, args: unknown): string {
  if (typeof args === 'string') return `${name}(${cut(args)})`
  if (typeof args !== 'object' || args === null) return `${name}()`
  const parts = Object.entries(args as Record<string, unknown>).map(([k, v]) => `${k}=${cut(JSON.stringify(v) ?? String(v))}`)
  return `${name}(${parts.join(', ')})`
}

function cut(text: string): string {
  return text.length > MAX_ARG ? `${text.slice(0, MAX_ARG)}…` : text
}

/** One printable line (Vitest's github-actions reporter turns it into a workflow command). */
function oneLine(text: string): string {
  const flat = printable(text.replace(/\s*\n\s*/g, ' '))
  return flat.length > MAX_MESSAGE ? `${flat.slice(0, MAX_MESSAGE)}…` : flat
}

/** The stack where describeEval was called: its frame in the eval file becomes the annotations' location. */
export function definitionStack(): string {
  return new Error('describeEval').stack ?? ''
}

/** `/abs/evals/weather.eval.ts:12:1`: the first frame of `stack` in `file`, as Vitest's stack parser reads it. */
export function frameIn(stack: string, file: string): string | undefined {
  for (const line of stack.split('\n')) {
    const at = line.indexOf(file)
    if (at === -1) continue
    const match = /^:(\d+):(\d+)/.exec(line.slice(at + file.length))
    if (match) return `${file}:${match[1]}:${match[2]}`
  }
  return undefined
}

interface AnnotatingContext {
  task: { file: { filepath: string } }
  annotate(message: string, type?: string): Promise<unknown>
}

/**
 * Annotate the running test. Vitest locates an annotation by the first stack frame in the test file, but a sample's
 * test body lives in this package, so the frame of the describeEval call is appended to the stack Vitest reads
 * (synchronously, for that one call). Never throws: an annotation is extra information, not the sample's verdict.
 */
export async function annotateSample(ctx: AnnotatingContext, annotation: SampleAnnotation, stack: string): Promise<void> {
  const site = frameIn(stack, ctx.task.file.filepath)
  const original = Error.prepareStackTrace
  try {
    if (site !== undefined) {
      Error.prepareStackTrace = (error, frames) => {
        const text = original ? String(original(error, frames)) : [String(error), ...frames.map((f) => `    at ${String(f)}`)].join('\n')
        return `${text}\n    at ${site}`
      }
    }
    const pending = ctx.annotate(annotation.message, annotation.type)
    Error.prepareStackTrace = original
    await pending
  } catch {
    // an annotation that cannot be recorded (an old runner) leaves the sample's result as it is
  } finally {
    Error.prepareStackTrace = original
  }
}
