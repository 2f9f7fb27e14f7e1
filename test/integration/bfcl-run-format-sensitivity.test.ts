// `tool-evals bfcl run --mode prompting --categories format_sensitivity` sends, under each of BFCL's 26 prompt
// formats, the request bodies BFCL's own handler sends (scripts/bfcl-oracle/record-format-sensitivity.py), through a
// real server on 127.0.0.1, and scores the replies as BFCL's own evaluate does: per-format accuracy, max delta,
// variance and standard deviation, failing ids and error types.
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, test } from 'vitest'
import { bfclRunCommand } from '../../src/bfcl/cli/run.js'
import { formatSensitivityEntries } from '../../src/bfcl/protocol/format-sensitivity.js'
import { FORMAT_SENSITIVITY_CONFIGS, formulateSystemPrompt, parsePromptFormat } from '../../src/bfcl/data/prompt-formats.js'
import { parseJsonLines } from '../../src/bfcl/checker/files.js'
import { PyFloat, pyJsonDumps, pyRepr, type PyValue } from '../../src/python/operations.js'
import { bfclPromptingSystemPrompt } from '../../src/bfcl/data/request.js'
import { round2, varianceAndStd } from '../../src/bfcl/checker/format-sensitivity.js'
import { bfclDir } from '../helpers/bfcl-dir.js'
import { bodyHash, replyBody } from '../helpers/bfcl-requests.js'
import { startOpenAIServer } from '../helpers/openai-server.js'
import { runCommand, withoutProgressLines } from '../helpers/cli-run.js'

withoutProgressLines()

const BFCL = bfclDir()
const FILE = fileURLToPath(new URL('../../fixtures/bfcl-agentic-requests/format_sensitivity.prompting.json', import.meta.url))
const tmp = mkdtempSync(join(tmpdir(), 'bfcl-run-fs-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

interface Fixture {
  model: string
  limit: number
  entries: { id: string; requests: string[] }[]
  score: Record<string, unknown> & { failing: [string, string][] }
}

/**
 * A server answering `replies` in order that hashes each request body as it arrives (`bodyHash`) and keeps only the
 * hash (5,200 bodies). `bodyHashes()` is every body's in arrival order: the server's `hits` counts every request, the
 * responder sees only chat completions.
 */
async function startHashingServer(replies: string[]) {
  const hashes: string[] = []
  let next = 0
  const server = await startOpenAIServer(
    (req) => {
      hashes.push(bodyHash(req.body))
      return { json: replyBody({ role: 'assistant', content: replies[next++] ?? '' }) }
    },
    { keepRequests: false },
  )
  const bodyHashes = () => {
    expect(hashes).toHaveLength(server.hits)
    return hashes
  }
  return { baseURL: server.baseURL, bodyHashes, close: () => server.close() }
}

describe('format sensitivity: the prompt formats', () => {
  test("26 configurations; the default one is the prompting system prompt every request uses", () => {
    expect(FORMAT_SENSITIVITY_CONFIGS).toHaveLength(26)
    expect(new Set(FORMAT_SENSITIVITY_CONFIGS).size).toBe(26)
    const fn = new Map<string, never>([['name', 'f' as never], ['description', 'd' as never], ['parameters', new Map() as never]])
    expect(formulateSystemPrompt('ret_fmt=python&tool_call_tag=False&func_doc_fmt=json&prompt_fmt=plaintext&style=classic', [fn])).toBe(bfclPromptingSystemPrompt([fn]))
    expect(() => formulateSystemPrompt('ret_fmt=yaml', [fn])).toThrow(/Invalid query format/)
  })

  test("Python's round(x, 2) and statistics' exact variance and stdev", () => {
    expect(round2(0.125)).toBe(0.12)
    expect(round2(0.375)).toBe(0.38)
    expect(round2(2.675)).toBe(2.67) // 2.675 is 2.67499999... as a double
    expect(round2(-1.005)).toBe(-1) // likewise below the tie
    const v = varianceAndStd([0.5, 0.25, 0.25, 0.75])
    // Python 3.11: statistics.variance / stdev of the same values.
    expect(v.variance).toBe(0.057291666666666664)
    expect(v.std).toBe(0.23935677693908453)
    expect(varianceAndStd([0.1, 0.2, 0.4])).toEqual({ variance: 0.023333333333333334, std: 0.15275252316519466 })
  })
})

describe.skipIf(BFCL === undefined)('bfcl run format_sensitivity: BFCL handler\'s bodies and evaluate\'s numbers', () => {
  test('the first entries under the 26 formats', async () => {
    const fx = JSON.parse(readFileSync(FILE, 'utf8')) as Fixture
    // The replies are built from ../shared's possible answers (see `reply` below), as the oracle built them.
    const truth = answers(BFCL!)
    const replies = fx.entries.map((e, i) => reply(truth.get(e.id.split(':')[2]!)!, e.id.split(':')[1]!, Math.floor(i / 26) + i))
    const server = await startHashingServer(replies)
    try {
      const out = join(tmp, 'fs')
      const r = await runCommand([bfclRunCommand], ['bfcl run', '--base-url', server.baseURL, '--model', fx.model, '--data', BFCL!, '--categories', 'format_sensitivity', '--output-dir', out, '--mode', 'prompting', '--limit', String(fx.limit), '--concurrency', '1'])
      expect(r.stderr).toBe('')
      expect(server.bodyHashes()).toEqual(fx.entries.flatMap((e) => e.requests))
      const lines = readFileSync(join(out, 'result', fx.model, 'format_sensitivity', 'BFCL_v4_format_sensitivity_result.json'), 'utf8').trim().split('\n')
      expect(lines.map((l) => JSON.parse(l) as { id: string; result: string }).map((l) => [l.id, l.result])).toEqual(fx.entries.map((e, i) => [e.id, replies[i]]))
      const scoreFile = readdirSync(join(out, 'score'), { recursive: true, encoding: 'utf8' }).find((f) => f.endsWith('BFCL_v4_format_sensitivity_score.json'))!
      // BFCL's layout: score/<model>/format_sensitivity/.
      expect(scoreFile).toBe(join(fx.model, 'format_sensitivity', 'BFCL_v4_format_sensitivity_score.json'))
      const [head, ...failing] = readFileSync(join(out, 'score', scoreFile), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)
      const { failing: expected, ...header } = fx.score
      expect(head).toEqual(header)
      expect(failing.map((f) => [f['id'], f['error_type']])).toEqual(expected)
      const line = JSON.parse(r.stdout.split('\n')[0]!) as Record<string, unknown>
      expect(line).toMatchObject({ category: 'format_sensitivity', accuracy: header['accuracy'], accuracy_std: header['accuracy_std'], accuracy_max_delta: header['accuracy_max_delta'] })
      expect(r.code).toBe(0)
    } finally {
      await server.close()
    }
  })
})

// Every entry under every format: the replies are built here as scripts/bfcl-oracle/record-format-sensitivity.py
// builds them (from the first possible answer; varied by entry), so the fixture keeps only hashes and BFCL's numbers.
const ALL = fileURLToPath(new URL('../../fixtures/bfcl-agentic-requests/format_sensitivity.all.json', import.meta.url))

/** Every possible answer's ground truth by id (read once: both runs build their replies from it). */
let answersRead: Map<string, PyValue[]> | undefined
function answers(dir: string): Map<string, PyValue[]> {
  if (answersRead !== undefined) return answersRead
  const out = (answersRead = new Map<string, PyValue[]>())
  for (const f of readdirSync(join(dir, 'possible_answer'))) {
    const parsed = parseJsonLines(readFileSync(join(dir, 'possible_answer', f), 'utf8'), f)
    for (const l of parsed.lines) if (l.py instanceof Map) out.set(String(l.py.get('id')), l.py.get('ground_truth') as PyValue[])
  }
  return out
}

const pyStr = (v: PyValue) => (typeof v === 'string' ? v : pyRepr(v))
const xmlType = (v: PyValue) => (typeof v === 'boolean' ? 'boolean' : typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'float') : v instanceof PyFloat ? 'float' : Array.isArray(v) ? 'array' : v instanceof Map ? 'dict' : 'string')
const xmlValue = (v: PyValue) => (typeof v === 'boolean' ? (v ? 'true' : 'false') : Array.isArray(v) || v instanceof Map ? pyRepr(v) : pyStr(v))
const esc = (s: string, attr: boolean) => {
  const t = s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')
  return attr ? t.replaceAll('"', '&quot;') : t
}

function reply(truth: PyValue[], config: string, k: number): string {
  const f = parsePromptFormat(config)!
  const calls: [string, Map<string, PyValue>][] = []
  for (const call of truth) {
    for (const [name, params] of call as Map<string, Map<string, PyValue[]>>) {
      const args = new Map<string, PyValue>()
      for (const [p, vs] of params) {
        const first = (Array.isArray(vs) ? vs : []).find((v) => v !== '')
        if (first !== undefined && first !== null) args.set(p, first)
      }
      if (k % 5 === 1 && args.size > 0) {
        const [p0, v0] = [...args][0]!
        args.set(p0, typeof v0 === 'string' ? v0 + ' x' : 'WRONG')
      }
      calls.push([String(name), args])
    }
  }
  if (k % 5 === 2) return 'I cannot call any function for this.'
  let text: string
  if (f.returnFormat === 'python') text = '[' + calls.map(([n, a]) => `${n}(${[...a].map(([p, v]) => `${p}=${pyRepr(v)}`).join(', ')})`).join(', ') + ']'
  else if (f.returnFormat === 'json') text = '```json\n' + pyJsonDumps(calls.map(([n, a]) => new Map<string, PyValue>([['function', n], ['parameters', a]])), { ensureAscii: true }) + '\n```'
  else if (f.returnFormat === 'verbose_xml') text = '<functions>' + calls.map(([n, a]) => `<function name="${n}"><params>` + [...a].map(([p, v]) => `<param name="${p}" value="${esc(xmlValue(v), true)}" type="${xmlType(v)}"/>`).join('') + '</params></function>').join('') + '</functions>'
  else text = '<functions>' + calls.map(([n, a]) => `<function name="${n}">` + [...a].map(([p, v]) => `<param name="${p}" type="${xmlType(v)}">${esc(xmlValue(v), false)}</param>`).join('') + '</function>').join('') + '</functions>'
  if (f.toolCallTag && k % 5 !== 3) text = '<TOOLCALL>' + text + '</TOOLCALL>'
  return text
}

describe.skipIf(BFCL === undefined)('bfcl run format_sensitivity: all 200 entries under the 26 formats', () => {
  test("BFCL handler's bodies (a hash per entry's 26) and evaluate's numbers", async () => {
    const fx = JSON.parse(readFileSync(ALL, 'utf8')) as { model: string; limit: number; groups: string[]; score: Record<string, unknown>; failing: { count: number; by_type: Record<string, number>; sha256: string } }
    const truth = answers(BFCL!)
    const entries = formatSensitivityEntries(BFCL!, fx.limit)
    const replies = entries.map((e, i) => reply(truth.get(e.id.split(':')[2]!)!, e.config, Math.floor(i / 26) + i))
    const server = await startHashingServer(replies)
    try {
      const out = join(tmp, 'fs-all')
      const r = await runCommand([bfclRunCommand], ['bfcl run', '--base-url', server.baseURL, '--model', fx.model, '--data', BFCL!, '--categories', 'format_sensitivity', '--output-dir', out, '--mode', 'prompting', '--limit', String(fx.limit), '--concurrency', '1'])
      expect(r.stderr).toBe('')
      const hashes = server.bodyHashes()
      const groups = fx.groups.map((_, g) => createHash('sha256').update(hashes.slice(g * 26, g * 26 + 26).join('\n')).digest('hex'))
      expect(groups).toEqual(fx.groups)
      const scoreFile = readdirSync(join(out, 'score'), { recursive: true, encoding: 'utf8' }).find((f) => f.endsWith('BFCL_v4_format_sensitivity_score.json'))!
      const [head, ...failing] = readFileSync(join(out, 'score', scoreFile), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)
      expect(head).toEqual(fx.score)
      const byType: Record<string, number> = {}
      for (const f of failing) byType[String(f['error_type'])] = (byType[String(f['error_type'])] ?? 0) + 1
      expect({ count: failing.length, by_type: byType }).toEqual({ count: fx.failing.count, by_type: fx.failing.by_type })
      expect(createHash('sha256').update(failing.map((f) => `${String(f['id'])}\t${String(f['error_type'])}`).join('\n')).digest('hex')).toBe(fx.failing.sha256)
      expect(r.code).toBe(0)
    } finally {
      await server.close()
    }
  }, 120_000)
})
