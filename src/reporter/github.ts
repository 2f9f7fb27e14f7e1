/**
 * GitHub Actions workflow commands (`::error title=...::message` on stdout) for a failed gate, so a threshold
 * under its minimum shows as an error annotation on the run and the pull request, whichever reporters run beside.
 */
import { printable } from '../calls/printable.js'

/** True when running as a GitHub Actions step. */
export function inGitHubActions(env: NodeJS.ProcessEnv = process.env): boolean {
  return env['GITHUB_ACTIONS'] === 'true'
}

/**
 * `::error title=<title>::<message>`, escaped as GitHub's workflow command format requires. Both are made printable
 * first: one line, no control character, so the annotation is the only command the line can hold.
 */
export function githubError(title: string, message: string): string {
  return `::error title=${escapeProperty(printable(title))}::${escapeData(printable(message))}`
}

/** `::notice title=<title>::<message>`, escaped likewise. */
export function githubNotice(title: string, message: string): string {
  return `::notice title=${escapeProperty(title)}::${escapeData(message)}`
}

/** GitHub shows at most this many annotations of one kind (error, warning, notice) per step; the rest are dropped. */
export const GITHUB_ANNOTATIONS_SHOWN = 10

/** What annotationCounts reads of a Vitest TestCase. */
export interface AnnotatedTest {
  annotations(): ReadonlyArray<{ type: string; location?: unknown }>
  result(): { state: string; errors?: ReadonlyArray<unknown> }
}

/**
 * The workflow annotations Vitest's github-actions reporter makes of these tests, by kind: one per test annotation
 * with a location (a custom type is a notice), one error per error of a failed test.
 */
export function annotationCounts(tests: Iterable<AnnotatedTest>): Record<'error' | 'warning' | 'notice', number> {
  const counts = { error: 0, warning: 0, notice: 0 }
  for (const test of tests) {
    for (const a of test.annotations()) {
      if (a.location === undefined) continue // Vitest prints no workflow command without one
      counts[a.type === 'error' || a.type === 'warning' ? a.type : 'notice']++
    }
    const result = test.result()
    if (result.state === 'failed') counts.error += result.errors?.length ?? 0
  }
  return counts
}

/**
 * One `::notice` when some kind has more annotations than GitHub shows, saying how many and where the rest are
 * (the step log keeps every workflow command); undefined when nothing was cut.
 */
export function annotationOverflowNotice(counts: Readonly<Record<string, number>>): string | undefined {
  const cut = Object.entries(counts).filter(([, n]) => n > GITHUB_ANNOTATIONS_SHOWN)
  if (cut.length === 0) return undefined
  const what = cut.map(([kind, n]) => `${n} ${kind}`).join(' and ')
  return githubNotice(
    'tool-evals annotations',
    `${what} annotations; GitHub shows the first ${GITHUB_ANNOTATIONS_SHOWN} of each kind per step. ` +
      'Every one is in this step\'s log; the job summary has the failure counts and the worst samples.',
  )
}

function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')
}

function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C')
}
