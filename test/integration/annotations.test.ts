// Misses visible in Vitest's own tools: every sample that is not fully right carries a test annotation (a warning
// for a recorded miss, an error for a failed test) with a one-line call diff, which the junit reporter writes as
// <property> elements and the github-actions reporter as workflow annotations at the describeEval call; a failed
// threshold is a GitHub error annotation from the tool-evals reporter. Two real `vitest run`s in one process.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEvalProject, ensureBuilt, type EvalProject, type RunResult } from '../helpers/eval-project.js'

const hermes = (city: string) => `<tool_call>\n${JSON.stringify({ name: 'get_weather', arguments: { city } })}\n</tool_call>`

// right: fully right; miss: wrong argument, recorded (passes); strictMiss: the same miss under strict (fails);
// broken: the provider throws (errored, fails).
const evalFile = `
import { describeEval } from 'vitest-tool-evals'
const outputs = { right: ${JSON.stringify(hermes('Paris'))}, miss: ${JSON.stringify(hermes('rome'))} }
const model = {
  id: 'inline',
  async generate(sample) {
    if (sample.id === 'broken') throw new Error('backend down')
    return { text: outputs[sample.id] ?? outputs.miss }
  },
}
const sample = (id, city) => ({ id, messages: [{ role: 'user', content: 'Weather in ' + city }], expected: [{ name: 'get_weather', arguments: { city } }] })

// Eleven more recorded misses (one id with GitHub's escape character): 12 warnings, over the 10 GitHub shows.
const more = Array.from({ length: 11 }, (_, i) => sample(i === 0 ? 'm%0' : 'm' + i, 'Rome'))
describeEval('recorded', { data: [sample('right', 'Paris'), sample('miss', 'Rome'), ...more], model })
describeEval('strict', { data: [sample('strictMiss', 'Rome'), sample('broken', 'Oslo')], model, strict: true })
`

const config = `
import { defineConfig } from 'vitest/config'
import ToolEvalsReporter from 'vitest-tool-evals/reporter'
export default defineConfig({
  test: {
    include: ['evals/*.eval.mjs'],
    reporters: ['github-actions', new ToolEvalsReporter({ thresholds: { name_correct: 0.99 }, markdownFile: false, summary: false })],
  },
})
`

describe('annotations of samples that are not fully right', () => {
  let project: EvalProject
  let junit: RunResult
  let github: RunResult

  beforeAll(async () => {
    ensureBuilt()
    project = createEvalProject({ 'vitest.config.mjs': config, 'evals/weather.eval.mjs': evalFile })
    // Both runs in one process (project.runs): what is tested is what each reporter writes.
    ;[junit, github] = (await project.runs([
      { args: ['run', '--reporter=junit', '--outputFile=junit.xml'] },
      { args: ['run'], env: { GITHUB_ACTIONS: 'true' } },
    ])) as [RunResult, RunResult]
  })
  afterAll(() => project?.remove())

  it('junit: a warning property for a recorded miss, error properties for failures, none for a right sample', () => {
    expect(junit.code).toBe(1) // the strict samples fail
    const xml = readFileSync(join(project.dir, 'junit.xml'), 'utf8')
    const testcase = (name: string) => {
      const match = new RegExp(`<testcase [^>]*name="[a-z]+ &gt; ${name}"[^>]*>[\\s\\S]*?</testcase>`).exec(xml)
      expect(match, `testcase ${name}`).not.toBeNull()
      return match![0]
    }
    expect(testcase('right')).not.toContain('<property')
    expect(testcase('miss')).toContain(
      '<property name="warning" value="recorded &gt; miss: wrong_arguments: expected get_weather(city=&quot;Rome&quot;) · got get_weather(city=&quot;rome&quot;)">',
    )
    expect(testcase('strictMiss')).toContain('<property name="error" value="strict &gt; strictMiss: wrong_arguments: expected get_weather(city=&quot;Rome&quot;)')
    expect(testcase('broken')).toContain('<property name="error" value="strict &gt; broken: errored: backend down">')
  })

  it('github-actions: workflow annotations located at the describeEval call, and the failed threshold as an error', () => {
    expect(github.code).toBe(1)
    const file = join(project.dir, 'evals/weather.eval.mjs')
    // Located at the describeEval call of the sample's suite (line 15 for 'recorded', 16 for 'strict'), each naming
    // its sample (they all sit on one line); `%` in an id is escaped once, by Vitest.
    expect(github.stdout).toMatch(
      new RegExp(`::warning file=${escape(file)},line=15,column=\\d+::recorded > miss: wrong_arguments: expected get_weather\\(city="Rome"\\) · got get_weather\\(city="rome"\\)`),
    )
    expect(github.stdout).toMatch(new RegExp(`::warning file=${escape(file)},line=15,column=\\d+::recorded > m%250: wrong_arguments: `))
    expect(github.stdout).toMatch(new RegExp(`::error file=${escape(file)},line=16,column=\\d+::strict > broken: errored: backend down`))
    expect(github.stdout).toMatch(/^::error title=tool-evals threshold failed::name_correct: 0\.\d+ < required 0\.990$/m)
  })

  it('github-actions: one notice says how many warnings GitHub cut and where they all are', () => {
    expect(github.stdout.match(/^::warning /gm)).toHaveLength(12)
    const notices = github.stdout.match(/^::notice title=tool-evals annotations::.*$/gm)
    expect(notices).toEqual([
      "::notice title=tool-evals annotations::12 warning annotations; GitHub shows the first 10 of each kind per step. Every one is in this step's log; the job summary has the failure counts and the worst samples.",
    ])
  })

  it('no GitHub threshold annotation or notice outside GitHub Actions', () => {
    expect(junit.stdout).not.toContain('::error')
    expect(junit.stdout).not.toContain('::notice')
  })
})

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
