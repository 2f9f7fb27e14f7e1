/**
 * The reporter's edge with Vitest: the facts of a finished run that are not in task meta (its errors, the files
 * that did not finish, the failed tests), which other reporters write to stdout, and the gate's verdict put where
 * Vitest's own reporters read results (a failed test case), so JUnit, JSON and the default summary count it.
 */
import { relative } from 'node:path'
import type { SerializedError, TestCase, TestModule, Vitest } from 'vitest/node'
import { printable } from '../calls/printable.js'
import type { ToolEvalsReport } from './report.js'

/** One line for an error Vitest reported (its message and its causes' messages). */
export function errorLine(error: SerializedError | unknown): string {
  const parts: string[] = []
  let e = error as { message?: unknown; name?: unknown; cause?: unknown } | undefined
  for (let depth = 0; e && depth < 4; depth++) {
    const message = (typeof e.message === "string" ? e.message : String(e)).replace(/[.\s]+$/, "")
    if (message && !parts.includes(message)) parts.push(message)
    e = typeof e.cause === 'object' && e.cause !== null ? (e.cause as typeof e) : undefined
  }
  return (parts.join(': ') || 'unknown error').replace(/\s+/g, ' ').slice(0, 500)
}

/** Test files that were to run and did not finish: a worker that died leaves its module pending or queued. */
export function unfinishedFiles(root: string, modules: ReadonlyArray<TestModule>): string[] {
  const out: string[] = []
  for (const m of modules) {
    const state = typeof m.state === 'function' ? m.state() : 'passed'
    if (state === 'pending' || state === 'queued') out.push(relative(root, m.moduleId) || m.moduleId)
  }
  return out.sort()
}

/** Errors of test files themselves (a file that failed to load, a failing hook), as `file: message`. */
export function moduleErrors(root: string, modules: ReadonlyArray<TestModule>): string[] {
  const out: string[] = []
  for (const m of modules) {
    if (typeof m.errors !== 'function') continue
    for (const e of m.errors()) out.push(`${relative(root, m.moduleId) || m.moduleId}: ${errorLine(e)}`)
  }
  return out
}

export function failedTests(tests: readonly TestCase[]): number {
  let n = 0
  for (const t of tests) if (typeof t.result === 'function' && t.result().state === 'failed') n++
  return n
}

const STDOUT_REPORTERS = new Set(['junit', 'json', 'tap', 'tap-flat'])

function reporterName(entry: unknown): { name: string; options: Record<string, unknown> } | undefined {
  if (typeof entry === 'string') return { name: entry, options: {} }
  if (Array.isArray(entry) && typeof entry[0] === 'string') return { name: entry[0], options: (entry[1] ?? {}) as Record<string, unknown> }
  if (typeof entry === 'object' && entry !== null) {
    const name = entry.constructor?.name ?? ''
    const options = ((entry as { options?: unknown }).options ?? {}) as Record<string, unknown>
    if (name === 'JUnitReporter') return { name: 'junit', options }
    if (name === 'JsonReporter') return { name: 'json', options }
    if (name === 'TapReporter') return { name: 'tap', options }
    if (name === 'TapFlatReporter') return { name: 'tap-flat', options }
    if (name === 'BlobReporter') return { name: 'blob', options }
  }
  return undefined
}

function configuredReporters(vitest: Vitest): { name: string; options: Record<string, unknown> }[] {
  const list = (vitest.config.reporters ?? []) as unknown[]
  return list.map(reporterName).filter((r): r is { name: string; options: Record<string, unknown> } => r !== undefined)
}

/**
 * Whether a reporter writes a machine-readable document to stdout (JUnit, JSON or TAP without an output file):
 * human text printed there would corrupt it, so the tool-evals summary goes to stderr instead.
 */
export function stdoutIsMachineReadable(vitest: Vitest): boolean {
  const outputFile = vitest.config.outputFile as string | Record<string, string> | undefined
  return configuredReporters(vitest).some(({ name, options }) => {
    if (!STDOUT_REPORTERS.has(name)) return false
    if (typeof options['outputFile'] === 'string') return false
    if (typeof outputFile === 'string') return false
    return !(outputFile && typeof outputFile[name] === 'string')
  })
}

/** A blob run (`--reporter=blob`, a shard) is decided when the blobs are merged, not here. */
export function writesBlob(vitest: Vitest): boolean {
  return configuredReporters(vitest).some((r) => r.name === 'blob')
}

/** The name of the test case that carries a failed gate into Vitest's results. */
export const GATE_TEST_NAME = 'tool-evals gate'

/**
 * Put a failed gate into Vitest's results as one failed test case (in the first test module) when it fails for more
 * than failed tests (a threshold, a regression, a crashed file, an error), so every reporter that
 * runs after this one counts it: JUnit's `failures`, the JSON reporter's `success`, the default summary. Called
 * synchronously at the start of `onTestRunEnd` by a hook placed before the other reporters (see ToolEvalsReporter).
 */
export function addGateTestCase(modules: ReadonlyArray<TestModule>, report: ToolEvalsReport): boolean {
  // Failed tests are in Vitest's results already: the gate's own test case is for what they do not show.
  if (report.gate.reasons.every((r) => r.kind === 'tests_failed') || modules.length === 0) return false
  const first = [...modules].sort((a, b) => (a.moduleId < b.moduleId ? -1 : 1))[0] as TestModule
  const file = (first as unknown as { task?: { tasks?: unknown[]; id?: string; name?: string } }).task
  if (!file || !Array.isArray(file.tasks)) return false
  const message = `the run fails its gate: ${report.gate.reasons.map((r) => printable(r.message)).join('; ')}`
  file.tasks.push({
    id: `${file.id ?? 'file'}_tool_evals_gate`,
    type: 'test',
    name: GATE_TEST_NAME,
    fullName: GATE_TEST_NAME,
    fullTestName: GATE_TEST_NAME,
    mode: 'run',
    file,
    suite: file,
    meta: {},
    context: null,
    timeout: 0,
    annotations: [],
    artifacts: [],
    result: { state: 'fail', duration: 0, errors: [{ name: 'ToolEvalsGateFailure', message, stack: '' }] },
  })
  return true
}
