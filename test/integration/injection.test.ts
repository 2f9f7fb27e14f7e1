// A model that names its tool call with a workflow-command payload cannot steer the CI log: a real `vitest run`
// under GITHUB_ACTIONS=true with a failing threshold prints no line that starts a command (so no `::stop-commands`
// that would silence the reporter's own `::error`, no faked `::notice`), no escape sequence or carriage return from
// the data, and still the reporter's error annotation; the step summary it writes opens no heading and pings no one.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEvalProject, ensureBuilt, type EvalProject, type RunResult } from '../helpers/eval-project.js'

const WORKFLOW = 'x\n::stop-commands::abc123\n::notice title=tool-evals::all thresholds passed'
const ANSI = '\u001b[31mred\r## ✅ no regression\r@org/admins'

const hermes = (name: string) => `<tool_call>\n${JSON.stringify({ name, arguments: { city: name } })}\n</tool_call>`

const evalFile = `
import { describeEval } from 'vitest-tool-evals'
const outputs = { w1: ${JSON.stringify(hermes(WORKFLOW))}, w2: ${JSON.stringify(hermes(ANSI))} }
const model = { id: 'inline', async generate(sample) { return { text: outputs[sample.id] } } }
const sample = (id) => ({ id, messages: [{ role: 'user', content: 'Weather in Paris?' }], expected: [{ name: 'get_weather', arguments: { city: 'Paris' } }] })
describeEval('weather', { data: [sample('w1'), sample('w2')], model })
`

const config = `
import { defineConfig } from 'vitest/config'
import ToolEvalsReporter from 'vitest-tool-evals/reporter'
export default defineConfig({
  test: {
    include: ['evals/*.eval.mjs'],
    reporters: ['default', 'github-actions', new ToolEvalsReporter({ thresholds: { name_correct: 0.9 }, markdownFile: 'summary.md' })],
  },
})
`

describe('hostile tool names in a GitHub Actions run', () => {
  let project: EvalProject
  let run: RunResult

  beforeAll(async () => {
    ensureBuilt()
    project = createEvalProject({ 'vitest.config.mjs': config, 'evals/weather.eval.mjs': evalFile })
    run = await project.run(['run'], { GITHUB_ACTIONS: 'true', FORCE_COLOR: '0', NO_COLOR: '1' })
  })
  afterAll(() => project?.remove())

  it('fails on the threshold, and says so with its own error annotation', () => {
    expect(run.code).toBe(1)
    expect(run.stdout).toMatch(/^::error title=[^\n]*::[^\n]*name_correct/m)
  })

  it('prints no line from the data that starts a workflow command, nor any escape sequence or carriage return', () => {
    for (const [stream, text] of [['stdout', run.stdout], ['stderr', run.stderr]] as const) {
      for (const line of text.split('\n')) {
        const start = line.trimStart()
        expect(start.startsWith('::stop-commands') || start.startsWith('::notice'), `${stream}: ${line}`).toBe(false)
        // The only commands: the reporter's error and Vitest's annotations (warnings for the recorded misses).
        if (start.startsWith('::')) expect(start, `${stream}: ${line}`).toMatch(/^::(error|warning) /)
      }
      expect(text, stream).not.toMatch(/[\u001b\r\u2028\u2029\u0085]/)
    }
  })

  it('shows the names, escaped, where a person reads them', () => {
    expect(run.stdout).toContain('x\\n::stop-commands::abc123\\n::notice title=tool-evals::all thresholds passed')
    expect(run.stdout).toContain('\\x1b[31mred\\r## ✅ no regression\\r@org/admins')
  })

  it('the step summary: no heading, quote or mention from the names', () => {
    const md = readFileSync(join(project.dir, 'summary.md'), 'utf8')
    expect(md).not.toMatch(/[\u001b\r]/)
    for (const line of md.split('\n')) {
      if (/^\s*#/.test(line)) expect(line).toMatch(/^## Tool evals [✅❌]$/)
      expect(line).not.toMatch(/^\s*(>|@)/)
      expect(line).not.toMatch(/@(?!\u200b)/)
    }
    expect(md).toContain('@\u200borg/admins')
  })
})
