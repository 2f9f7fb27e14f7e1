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

function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')
}

function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C')
}
