/**
 * The reporter's edge with Vitest: the facts of a finished run that are not in task meta (its errors, the files
 * that did not finish, the failed tests) and which other reporters write to stdout. It only reads: Vitest's results
 * are Vitest's; the gate's verdict reaches them as a real test case (gate-test.ts) and the exit code.
 */
import { relative } from 'node:path'
import type { SerializedError, TestCase, TestModule, Vitest } from 'vitest/node'

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
  }
  return undefined
}

function configuredReporters(vitest: Vitest): { name: string; options: Record<string, unknown> }[] {
  const list = (vitest.config.reporters ?? []) as unknown[]
  return list.map(reporterName).filter((r): r is { name: string; options: Record<string, unknown> } => r !== undefined)
}

/** Whether this Vitest writes a blob report (a shard of a run whose whole is decided when the blobs are merged). */
export function writesBlob(vitest: Vitest): boolean {
  return configuredReporters(vitest).some((r) => r.name === 'blob')
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
