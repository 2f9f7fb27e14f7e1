/**
 * Chat templates are code from a model's repository: rendering one is bounded in time and memory (a worker thread,
 * src/calls/derive/jinja.ts), and a template that does not compile is an error naming the construct, through the
 * API (`deriveFormat`, `parseToolCalls`) and `tool-evals parse --chat-template` (in process here; the built bin in
 * cli.test.ts). Budgets are small so each hostile template costs a fraction of a second.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseCommand } from '../../../src/cli/parse.js'
import { deriveFormat, parseToolCalls, renderTemplateBounded } from '../../../src/calls/index.js'
import { runCommand } from '../../helpers/cli-run.js'
import { INVENTED_NAME_JSON } from '../../helpers/chat-templates.js'

export const HOSTILE = {
  // Builds a list of a billion numbers: a V8 fatal "invalid size" on the main thread.
  range: '{% for i in range(10**9) %}{% endfor %}{{ messages[0].content }}',
  // 10^10 iterations of nothing: minutes.
  nested: '{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}',
  // A list that doubles 40 times: gigabytes (in a namespace: a plain `set` in a loop lasts one iteration, in Python as here).
  doubling: '{% set ns = namespace(a=["xxxxxxxxxxxxxxxx"]) %}{% for i in range(40) %}{% set ns.a = ns.a + ns.a %}{% endfor %}{{ ns.a | length }}',
}
const BUDGET = { timeMs: 400, memoryMb: 32 }
// Generous on a loaded 2-core machine: the point is seconds, not the minutes (or the crash) of an unbounded render.
const WITHIN_MS = BUDGET.timeMs + 2500

function timed<T>(f: () => T): { value: T; ms: number } {
  const t0 = performance.now()
  const value = f()
  return { value, ms: performance.now() - t0 }
}

describe('a hostile chat template fails within its budget', () => {
  // The doubling list gets time enough to show that memory is what stops it.
  it.each([
    ['range(10**9)', HOSTILE.range, BUDGET, /memory budget of 32 MB|time budget of 400 ms/],
    ['nested loops', HOSTILE.nested, BUDGET, /took longer than its time budget of 400 ms/],
    ['a doubling list', HOSTILE.doubling, { timeMs: 3000, memoryMb: 32 }, /went over its memory budget of 32 MB/],
  ])('%s: deriveFormat says which budget, and the failure is cached', (_name, template, budget, why) => {
    const first = timed(() => deriveFormat(template, { budget }))
    expect(first.value).toMatchObject({ invalid: 'budget', error: expect.stringMatching(why) })
    expect(first.ms).toBeLessThan(budget.timeMs + 2500)
    // Paid once: the same answer at once.
    const again = timed(() => deriveFormat(template, { budget }))
    expect(again.value).toBe(first.value)
    expect(again.ms).toBeLessThan(20)
  })

  it('parseToolCalls({ chatTemplate }) throws the budget error instead of hanging; the worker serves the next template', () => {
    const { ms } = timed(() => {
      expect(() => parseToolCalls('<tool_call>{"name":"f","arguments":{}}</tool_call>', { chatTemplate: HOSTILE.nested + ' ', templateBudget: BUDGET })).toThrow(
        /parseToolCalls: options\.chatTemplate cannot be used: .*time budget of 400 ms/,
      )
    })
    expect(ms).toBeLessThan(WITHIN_MS)
    // A good template right after a killed renderer still derives (a fresh renderer is started).
    expect(parseToolCalls('[[CALL]]f :: {"a": 1}[[/CALL]]', { chatTemplate: INVENTED_NAME_JSON, templateBudget: BUDGET })).toMatchObject([{ name: 'f', arguments: { a: 1 } }])
  })

  it('budgets are checked', () => {
    expect(() => deriveFormat(INVENTED_NAME_JSON, { budget: { timeMs: 0 } })).toThrow(/timeMs must be an integer from 1/)
    expect(() => deriveFormat(INVENTED_NAME_JSON, { budget: { memoryMb: 4 } })).toThrow(/memoryMb must be an integer from 16/)
    expect(() => deriveFormat(INVENTED_NAME_JSON, { budget: { timeMS: 5 } as never })).toThrow(/unknown key "timeMS"/)
  })
})

describe('the renderer stops itself at its budget, so a hostile template never aborts the process', () => {
  // V8 aborts the whole process when a worker is stopped near its heap limit, or when one step (a `tojson` of a huge
  // list) allocates past it: the renderer checks its own budget as it runs, and the supervisor's stop is the backstop.
  // What the renderer saw is in the message; a stop by the supervisor says "without bound?" instead.
  const SMALL = { timeMs: 5000, memoryMb: 16 }
  const wide = (n: number, item: string) => `{% set ns = namespace(a=[${item}]) %}{% for i in range(${n}) %}{% set ns.a = ns.a + ns.a %}{% endfor %}`
  const V100 = `"${'v'.repeat(100)}"`
  it.each([
    ['a string doubled by ~', '{% set ns = namespace(s="xxxxxxxxxxxxxxxx") %}{% for i in range(60) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s }}', /\(a string of \d+ characters, more than the 1048576 it allows\)/],
    ['a list doubled by +', HOSTILE.doubling, /\(a list of \d+ items, more than the 262144 it allows\)/],
    ['a list doubled by extend', '{% set ns = namespace(a=["x"]) %}{% for i in range(40) %}{% do ns.a.extend(ns.a) %}{% endfor %}', /\(a list of \d+ items, more than the 262144 it allows\)/],
    ['range(10**9)', HOSTILE.range, /\(range\(\) of 1000000000 items, more than the 262144 it allows\)/],
    ['a macro recursing on a doubling string', '{% macro f(n, acc) %}{{ f(n + 1, acc ~ acc) }}{% endmacro %}{{ f(0, "xxxxxxxx") }}', /\(a string of \d+ characters/],
    ['tojson of a list of long strings', `${wide(18, `{"k": ${V100}}`)}{{ ns.a | tojson }}`, /\(the JSON of a value of more than the 1048576 characters it allows\)/],
    ['join of a list of long strings', `${wide(18, V100)}{{ ns.a | join }}`, /\(the text of a join of more than the 1048576 characters it allows\)/],
    ['str() of a list of long strings', `${wide(18, V100)}{{ ns.a }}`, /\(the text of a value of more than the 1048576 characters it allows\)/],
    ['a width in %', `{{ '%400000000s' % 'x' }}`, /\(a formatted field of 400000000 characters/],
    ['a width in str.format()', `{{ '{:>400000000}'.format('x') }}`, /\(a formatted field of 400000000 characters/],
    ['tojson(indent=) of a small list', `{{ [[1, 2], [3, 4]] | tojson(indent=100000000) }}`, /\(the JSON of a value of more than the 1048576 characters it allows\)/],
    ['indent() of a few lines', `{{ 'a\nb\nc' | indent(400000000) }}`, /\(the output of indent of 1200000005 characters/],
    ['dicts appended in nested loops', '{% set a = [] %}{% for i in range(100000) %}{% for j in range(100000) %}{% do a.append({"k": i ~ "xxxxxxxx" ~ j, "l": [i, j]}) %}{% endfor %}{% endfor %}', /\(its values took 60% of it\)/],
  ])('%s: a memory budget error saying what grew', (_name, template, why) => {
    const { value, ms } = timed(() => renderTemplateBounded(template, { messages: [] }, SMALL))
    expect(value.error).toMatch(/^rendering the chat template went over its memory budget of 16 MB \(/)
    expect(value.error).toMatch(why)
    expect(ms).toBeLessThan(WITHIN_MS)
  })

  it('loops of nothing: a time budget error from the renderer itself, at its deadline', () => {
    const { value, ms } = timed(() => renderTemplateBounded(HOSTILE.nested, {}, { timeMs: 150, memoryMb: 16 }))
    expect(value.error).toMatch(/^rendering the chat template took longer than its time budget of 150 ms \(still running after \d+ steps: a template looping without bound\?\)$/)
    expect(ms).toBeGreaterThanOrEqual(150)
    expect(ms).toBeLessThan(150 + 2500)
  })

  it('a real template renders under the smallest budget', () => {
    const messages = Array.from({ length: 200 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `message ${i} `.repeat(40) }))
    const r = renderTemplateBounded('{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}{{ messages | tojson }}', { messages }, SMALL)
    expect(r).toEqual({ text: expect.stringContaining('<|assistant|>message 199 ') })
  })
})

describe('a chat template that does not compile is an error', () => {
  const broken = '{% for m in messages %}{{ m.content }}{% endfor %}\n{% for x in %}{% endfor %}'

  it('deriveFormat names the line and the tag; parseToolCalls throws it', () => {
    expect(deriveFormat(broken)).toMatchObject({ invalid: 'syntax', error: 'the chat template does not compile at line 2, "{% for x in %}": Unexpected token: CloseStatement' })
    expect(() => parseToolCalls('<tool_call>{"name":"f","arguments":{}}</tool_call>', { chatTemplate: broken })).toThrow(/line 2, "\{% for x in %\}"/)
  })

  it('tool-evals parse --chat-template exits 2 naming the file and the construct, for syntax and budget alike', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'template-budget-'))
    const file = join(dir, 'broken.jinja')
    writeFileSync(file, broken)
    const r = await runCommand([parseCommand], ['parse', '--chat-template', file], '{"text":"hi"}\n')
    expect(r).toMatchObject({ code: 2, stdout: '' })
    expect(r.stderr).toContain(`--chat-template ${file}: the chat template does not compile at line 2, "{% for x in %}"`)

    const doubling = join(dir, 'doubling.jinja')
    writeFileSync(doubling, HOSTILE.doubling)
    const d = await runCommand([parseCommand], ['parse', '--chat-template', doubling, '--template-memory', '32', '--template-timeout', '3000'], '{"text":"hi"}\n')
    expect(d.code).toBe(2)
    expect(d.stderr).toMatch(/doubling\.jinja: rendering the chat template went over its memory budget of 32 MB/)

    const bad = await runCommand([parseCommand], ['parse', '--chat-template', doubling, '--template-memory', '8'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/--template-memory needs MB, an integer from 16/)
  })
})
