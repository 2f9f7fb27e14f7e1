// Names and text from data or model output (sample ids, suite names, tool names, calls, error messages) are inert in
// every view: in Markdown (the step summary, the pull-request comment) they open no heading, quote, list, link, image,
// HTML or mention; on the terminal and in CI logs they run no escape sequence and start no line, so no workflow
// command. Each view is fed the same hostile names and compared, line by line, with the same run under plain names.
import { describe, expect, it } from 'vitest'
import { printable } from '../../../src/calls/printable.js'
import type { ToolCall } from '../../../src/calls/types.js'
import { sampleAnnotation } from '../../../src/eval/annotate.js'
import { storedCalls, type EvalMeta } from '../../../src/eval/meta.js'
import { RunCollector } from '../../../src/reporter/collect.js'
import { compareRuns } from '../../../src/reporter/compare/compare.js'
import type { SampleOutcome } from '../../../src/reporter/compare/outcomes.js'
import { renderComparisonMarkdown, renderComparisonText } from '../../../src/reporter/compare/render.js'
import { applyGate } from '../../../src/reporter/gate.js'
import { githubError } from '../../../src/reporter/github.js'
import { renderMarkdown } from '../../../src/reporter/markdown.js'
import { mdCode, mdText } from '../../../src/reporter/markdown-text.js'
import { buildReport } from '../../../src/reporter/report.js'
import { snapshotMarkdown, snapshotSection } from '../../../src/reporter/snapshots.js'
import { renderSummary } from '../../../src/reporter/terminal.js'
import { checkThresholds } from '../../../src/reporter/thresholds.js'
import { trialsLine } from '../../../src/reporter/trials.js'
import { scoreSample } from '../../../src/score/nemo.js'
import { Chalk } from 'chalk'

const WORKFLOW = 'x\n::stop-commands::abc123\n::notice title=tool-evals::all thresholds passed'
const HOSTILE = [
  'x\r## ✅ no regression\r@org/admins',
  WORKFLOW,
  '<img src=x onerror=alert(1)>',
  '[x](http://evil)',
  '![i](http://evil/p.png)',
  '@org/admins',
  '# heading',
  '\u001b[31mred',
  '\r## ✅ no regression',
  'a\u2028> quote\u2029- item\u0085+ plus\r\n1. one',
  '`code` ``` `` x | y',
  '> quote',
  '1) ordered',
  '  ::warning::indented',
  '##[error]legacy',
  'see www.evil.example and mail me@evil.example',
  '&#64;org/team &lt;b&gt;',
  'fixes #123',
  '$\\href{http://evil}{x}$ ~~s~~ *e* _f_',
]
/** The same run under plain names: what each view must look like, line for line. */
const PLAIN = HOSTILE.map((_, i) => `plain${i}`)

// Any character a terminal or a Markdown renderer treats as a line break or acts on.
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/
const LINE_BREAKS = /\r\n|\r|\n|\u2028|\u2029|\u0085/

const call = (name: string, args: Record<string, unknown>): ToolCall => ({ name, arguments: args, argumentsValid: true, format: 'hermes' })

/** One suite per name: a wrong call named after it, an errored sample whose reason is it, a tool threshold on it. */
function metasFor(names: readonly string[]): EvalMeta[] {
  return names.flatMap((n, i): EvalMeta[] => {
    const expected = [{ name: 'get_weather', arguments: { city: n } }]
    const calls = [call(n, { city: n })]
    return [
      { v: 1, record: { id: n, suite: n, score: scoreSample(calls, expected) }, expected, calls: storedCalls(calls) },
      { v: 1, record: { id: `e${i}`, suite: n, error: n, score: scoreSample([], expected) }, expected, detail: n },
    ]
  })
}

function reportFor(names: readonly string[]) {
  const c = new RunCollector(names.length)
  for (const m of metasFor(names)) c.add(m)
  const overall = c.overallAggregate()
  const suites = c.suiteAggregates()
  const config = { name_correct: 0.9, suites: Object.fromEntries(names.map((n) => [n, { name_correct: 0.9 }])), tools: Object.fromEntries(names.map((n) => [n, { name_correct: 0.9 }])) }
  const report = applyGate(buildReport(c, overall, suites, checkThresholds(config, overall, suites), true))
  report.snapshots = {
    changed: names.map((n) => `${n} > ${n}`),
    added: [],
    obsolete: names.map((n) => `${n} > old`),
    unchanged: 0,
    diffs: names.map((n) => ({ id: `${n} > ${n}`, before: JSON.stringify({ calls: [{ name: n }] }).replace(/\\n/g, '\n'), after: n })),
    files: [],
  }
  report.trials = { samples: names.length, count: 3, unstable: names.length, unstableShare: 1, meanFlipRate: 0.3, flipRates: Object.fromEntries(names.map((n) => [n, 0.3])) }
  return report
}

function comparisonFor(names: readonly string[]) {
  const outcome = (n: string, right: boolean): SampleOutcome => ({
    suite: n,
    id: n,
    values: { name_correct: right ? 1 : 0 },
    failures: right ? [] : [n],
    expected: `${n}({"city":"${n}"})`,
    calls: `${right ? n : `${n}\``}({})`,
  })
  const base = names.map((n) => outcome(n, true))
  const head = names.map((n, i) => outcome(n, i % 2 === 1))
  return compareRuns(
    { outcomes: base, file: names[0], meta: { time: new Date().toISOString(), version: '1', git: { commit: 'abcdef0123456789', branch: names[1] ?? '' }, suites: {} } },
    { outcomes: head },
    {},
    names.slice(0, 3),
  )
}

/** What kind of block a Markdown line opens, by its start: what escaping must never change. */
function blockKind(line: string): string {
  const m = /^\s*(#{1,6}(?=\s|$)|>|[-+*](?=\s|$)|\d+[.)](?=\s|$)|\||<\/?[a-z]+|`{3,}|~{3,}|=+\s*$|-{3,}\s*$)/.exec(line)
  return m ? m[1]!.replace(/\d+/, '1') : line === '' ? 'blank' : 'text'
}

/** The Markdown of the hostile run has the block structure of the plain run, and no syntax opened by the data. */
function expectInertMarkdown(hostile: string, plain: string): void {
  expect(hostile).not.toMatch(CONTROL)
  const lines = hostile.split('\n')
  const plainLines = plain.split('\n')
  expect(lines.map(blockKind)).toEqual(plainLines.map(blockKind))
  let fenced = false
  for (const line of lines) {
    // A fenced block (the snapshot diffs) shows its lines as code: nothing in it is Markdown.
    if (/^\s*`{3,}/.test(line)) fenced = !fenced
    if (fenced) continue
    // Raw HTML: only the page's own <details> and <summary>.
    for (const m of line.matchAll(/(?<!\\)<(?!\/?(details|summary)[ >])/g)) throw new Error(`unescaped < at ${m.index} in ${JSON.stringify(line)}`)
    expect(line, 'link or image').not.toMatch(/(?<!\\)\]\(|(?<!\\)!\[|(?<!\\)\[[^\]]*(?<!\\)\]\(/)
    expect(line, 'mention or e-mail').not.toMatch(/@(?!\u200b)/)
    expect(line, 'autolink').not.toMatch(/:\/\/|www\./i)
    expect(line, 'issue reference').not.toMatch(/#\d/)
    expect(line, 'entity').not.toMatch(/(?<!\\)&/)
    expect(line, 'math').not.toMatch(/(?<!\\)\$/)
  }
}

describe('printable', () => {
  it('turns control characters into visible escapes and keeps Unicode text', () => {
    expect(printable('Zürich 東京 🌧 — naïve')).toBe('Zürich 東京 🌧 — naïve')
    expect(printable('\u001b[31mred\u001b[0m')).toBe('\\x1b[31mred\\x1b[0m')
    expect(printable('a\r\nb\tc\u0000d\u007fe\u0085f\u009bg')).toBe('a\\r\\nb\\tc\\x00d\\x7fe\\x85f\\x9bg')
    expect(printable('a\u2028b\u2029c\u202ed\u2066e')).toBe('a\\u2028b\\u2029c\\u202ed\\u2066e')
    expect(printable(WORKFLOW)).toBe('x\\n::stop-commands::abc123\\n::notice title=tool-evals::all thresholds passed')
  })

  it('never starts a workflow command, even where it is put at the start of a line', () => {
    expect(printable('::notice::hi')).toBe('\\x3a:notice::hi')
    expect(printable('  ::warning::hi')).toBe('  \\x3a:warning::hi')
    expect(printable('##[error]hi')).toBe('\\x23#[error]hi')
    expect(printable('a::b ## c')).toBe('a::b ## c')
    for (const h of HOSTILE) {
      const out = printable(h)
      expect(out).not.toMatch(CONTROL)
      expect(out).not.toMatch(LINE_BREAKS)
      expect(out.trimStart()).not.toMatch(/^(::|##\[)/)
    }
  })
})

describe('mdText and mdCode', () => {
  it('mdText leaves no Markdown syntax, line break, mention or autolink from the text', () => {
    for (const h of HOSTILE) {
      const out = mdText(h)
      expect(out).not.toMatch(CONTROL)
      expect(blockKind(out), h).toBe('text')
      // Every character that opens inline syntax is backslash-escaped.
      for (const m of out.matchAll(/[`*_~[\]<>&|$!]/g)) expect(out[m.index - 1], `${JSON.stringify(h)} at ${m.index}`).toBe('\\')
      expect(out).not.toMatch(/@(?!\u200b)|:\/\/|www\.|#\d/i)
    }
    expect(mdText('weather > w1: get_weather')).toBe('weather \\> w1: get\\_weather')
    expect(mdText('# heading')).toBe('\\# heading')
    expect(mdText('1. one')).toBe('1\\. one')
    expect(mdText('@org/admins')).toBe('@\u200borg/admins')
  })

  it('mdCode is one code span that nothing inside can close', () => {
    for (const h of [...HOSTILE, '', ' ', '`', 'a``b```c', '` x `']) {
      const out = mdCode(h)
      expect(out).not.toMatch(CONTROL)
      const fence = /^`+/.exec(out)![0]
      expect(out.endsWith(fence)).toBe(true)
      const inner = out.slice(fence.length, out.length - fence.length)
      // No run of the fence's length inside, so the span ends only where it was meant to.
      for (const run of inner.match(/`+/g) ?? []) expect(run.length).not.toBe(fence.length)
      // CommonMark strips one space each side where both are there: what is left is the text, printable.
      const shown = inner.startsWith(' ') && inner.endsWith(' ') && inner.trim() !== '' ? inner.slice(1, -1) : inner
      expect(shown).toBe(h === '' ? ' ' : printable(h))
    }
  })
})

describe('the Markdown views with hostile names', () => {
  it('the step summary: every name is text, in the structure of the same run under plain names', () => {
    const md = renderMarkdown(reportFor(HOSTILE))
    expectInertMarkdown(md, renderMarkdown(reportFor(PLAIN)))
    // The names are there, visible: escaped, not dropped.
    expect(md).toContain('x\\\\r## ✅ no regression\\\\r@\u200borg/admins')
    expect(md).toContain('\\<img src=x onerror=alert(1)\\>')
    // Today's `cell` left a lone \r, which Markdown reads as a line break: the heading and the mention came out.
    expect(md.split(LINE_BREAKS).some((l) => /^\s*## ✅ no regression/.test(l))).toBe(false)
  })

  it('the snapshot section: ids as text, diffs one printable line each inside the fence', () => {
    const lines = snapshotMarkdown(reportFor(HOSTILE))
    expectInertMarkdown(lines.join('\n'), snapshotMarkdown(reportFor(PLAIN)).join('\n'))
  })

  it('the pull-request comment: the same, and calls in code spans nothing can close', () => {
    const hostile = renderComparisonMarkdown(comparisonFor(HOSTILE), { now: new Date() })
    const plain = renderComparisonMarkdown(comparisonFor(PLAIN), { now: new Date() })
    expect(hostile.split('\n')[0]).toBe(plain.split('\n')[0])
    // Code spans hold model text as is; check the text around them.
    const outsideCode = (md: string) => md.replace(/(`+).*?\1(?!`)/g, 'CODE')
    expectInertMarkdown(outsideCode(hostile), outsideCode(plain))
    expect(hostile).not.toMatch(CONTROL)
    expect(hostile).toContain(`- head: \`\`${printable(HOSTILE[0]!)}\`({})\`\``)
  })
})

describe('the terminal and CI log with hostile names', () => {
  const noCommandLines = (text: string) => {
    expect(text).not.toMatch(/[\r\u2028\u2029\u0085]/)
    for (const line of text.split('\n')) expect(line.trimStart(), line).not.toMatch(/^(::|##\[)/)
  }

  it('the summary: no escape sequence, no line from the data; names shown escaped', () => {
    const report = reportFor(HOSTILE)
    const plain = renderSummary(reportFor(PLAIN), { colorLevel: 0 })
    const text = renderSummary(report, { colorLevel: 0 })
    expect(text).not.toMatch(CONTROL)
    noCommandLines(text)
    expect(text.split('\n')).toHaveLength(plain.split('\n').length)
    expect(text).toContain('x\\r## ✅ no regression\\r@org/admins')
    expect(text).toContain('\\x1b[31mred')
    // With colour on, the only escapes are chalk's own SGR sequences.
    const coloured = renderSummary(report, { colorLevel: 1 })
    for (const m of coloured.matchAll(/\u001b/g)) expect(coloured.slice(m.index, m.index + 6)).toMatch(/^\u001b\[\d+m/)
    noCommandLines(coloured)
    const c = new Chalk({ level: 0 })
    for (const part of [snapshotSection(report, c), trialsLine(report, c)]) {
      expect(part.join('\n')).not.toMatch(CONTROL)
      noCommandLines(part.join('\n'))
    }
  })

  it('the comparison lines', () => {
    const text = renderComparisonText(comparisonFor(HOSTILE))
    expect(text).not.toMatch(CONTROL)
    noCommandLines(text)
    expect(text.split('\n')).toHaveLength(renderComparisonText(comparisonFor(PLAIN)).split('\n').length)
  })

  it('a GitHub annotation is one command, whatever its title and message hold', () => {
    for (const h of HOSTILE) {
      const line = githubError(h, `threshold on tool ${h} failed`)
      expect(line.startsWith('::error title=')).toBe(true)
      expect(line).not.toMatch(CONTROL)
      expect(line).not.toMatch(/[\r\n]/)
      // Properties end at the first `::`: the title cannot hold one.
      expect(line.indexOf('::', 2)).toBe(line.indexOf('::', '::error title='.length))
    }
  })

  it("a sample's annotation message is one printable line", () => {
    for (const h of HOSTILE) {
      const meta = metasFor([h])
      for (const m of meta) {
        const a = sampleAnnotation(m, true)
        expect(a).toBeDefined()
        expect(a!.message).not.toMatch(CONTROL)
        expect(a!.message.trimStart()).not.toMatch(/^(::|##\[)/)
      }
    }
  })
})
