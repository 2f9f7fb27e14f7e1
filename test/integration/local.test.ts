import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { parseToolCalls } from '../../src/calls/index.js'
import type { ToolDefinition } from '../../src/calls/types.js'
import type { Sample } from '../../src/data/types.js'
import { local, localModelStats } from '../../src/models/local.js'
import { templateFormat } from '../../src/models/local/prompt.js'
import { buildModel, ensureFixtureModel, FIXTURE_MODELS_DIR, SCRIPTED_SCENARIOS } from '../../fixtures/build-models.mjs'

const tools: ToolDefinition[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Current weather in a city',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
        required: ['city'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'get_time',
      description: 'Local time in a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
]

function ask(id: string, question: string, extra: Partial<Sample> = {}): Sample {
  return { id, messages: [{ role: 'user', content: question }], tools, expected: [], ...extra }
}

const reply = (scenario: string) => SCRIPTED_SCENARIOS.find((s) => s.scenario === scenario)?.reply

let scripted = ''
beforeAll(async () => {
  scripted = await ensureFixtureModel('scripted')
})

describe('local provider on the scripted fixture model', () => {
  it('renders with the Qwen3 template and tools, and returns the scripted text with the hermes hint', async () => {
    const model = local(scripted)
    const out = await model.generate(ask('w1', 'What is the weather in Paris?'))
    expect(out.text).toBe(reply('right-call'))
    expect(out.format).toBe('hermes')
    expect(out.usage?.completionTokens).toBeGreaterThan(10)
    const prompt = await model.renderPrompt(ask('w1', 'What is the weather in Paris?'))
    expect(prompt).toContain('<tools>\n{"type": "function", "function": {"name": "get_weather"')
    expect(prompt.endsWith('<|im_start|>user\nWhat is the weather in Paris?<|im_end|>\n<|im_start|>assistant\n')).toBe(true)
    expect(out.usage?.promptTokens).toBeGreaterThan(100)
  })

  it('answers each scenario by the words of its prompt, batched, exactly as one at a time', async () => {
    const questions: [string, string][] = [
      ['Weather in Paris?', 'right-call'],
      ['What time is it in London?', 'wrong-tool'],
      ['Is it cold in Tokyo today?', 'missing-argument'],
      ['Weather in Madrid please', 'wrong-value'],
      ['Weather in Berlin?', 'malformed-json'],
      ['Weather and time in Rome?', 'parallel-calls'],
      ['Weather in Oslo?', 'thinking-then-call'],
      ['Tell me a joke', 'no-call'],
    ]
    const model = local(scripted, { batchSize: 8 })
    const before = await model.stats()
    const outs = await Promise.all(questions.map(([q], i) => model.generate(ask(`s${i}`, q))))
    const after = await model.stats()
    expect(outs.map((o) => o.text)).toEqual(questions.map(([, s]) => reply(s)))
    expect(after.largestBatch).toBeGreaterThan(1)
    expect(after.batches - before.batches).toBeLessThan(questions.length)

    const oneByOne = local(scripted, { batchSize: 1, prefixCache: false })
    for (const [i, [q]] of questions.entries()) {
      expect((await oneByOne.generate(ask(`s${i}`, q))).text).toBe(outs[i]?.text)
    }
  })

  it('reuses the KV cache of the prefix samples share', async () => {
    const model = local(scripted, { batchSize: 1 })
    const before = await model.stats()
    await model.generate(ask('p1', 'Weather in Paris?'))
    const out = await model.generate(ask('p2', 'What time is it in London?'))
    const after = await model.stats()
    expect(out.text).toBe(reply('wrong-tool'))
    expect(after.prefixHits).toBeGreaterThan(before.prefixHits)
    expect(after.reusedTokens - before.reusedTokens).toBeGreaterThan(100)
  })

  it('stops at maxNewTokens', async () => {
    const out = await local(scripted, { maxNewTokens: 3 }).generate(ask('t', 'Weather in Paris?'))
    expect(out.text).toBe('<tool_call>\n{"')
    expect(out.usage?.completionTokens).toBe(3)
    // The generation's wall time rides along (batched decoding: no first-token time).
    expect(out.usage?.latencyMs).toBeGreaterThan(0)
    expect(out.usage).not.toHaveProperty('firstTokenMs')
  })

  it('skips prompts over maxPromptTokens, with the reason', async () => {
    const out = await local(scripted, { maxPromptTokens: 50 }).generate(ask('long', 'Weather in Paris?'))
    expect(out.text).toBeUndefined()
    expect(out.skipped).toMatch(/^prompt of \d+ tokens is over maxPromptTokens \(50\)$/)
    expect(out.usage?.promptTokens).toBeGreaterThan(50)
  })

  it('renders dialogues: earlier tool calls (object or string arguments) and tool results', async () => {
    const model = local(scripted)
    const s = ask('d#2', '', {
      messages: [
        { role: 'system', content: 'You are a weather bot.' },
        { role: 'user', content: 'Weather in Rome?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Rome"}' } },
            { id: 'c2', type: 'function', function: { name: 'get_time', arguments: { city: 'Rome' } } },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: '{"temp": 21}' },
        { role: 'tool', tool_call_id: 'c2', content: '{"time": "10:00"}' },
      ],
    })
    const prompt = await model.renderPrompt(s)
    expect(prompt).toContain('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Rome"}}\n</tool_call>')
    expect(prompt).toContain('<tool_response>\n{"temp": 21}\n</tool_response>')
    expect((await model.generate(s)).text).toBe(reply('parallel-calls'))
  })

  it("renders an agent loop's conversation: tool messages carrying the tool's `name` do not hide the tools", async () => {
    // Before the fix, the names of the tool messages (which Qwen's template does not print) counted as the
    // messages' own mentions, and a conversation calling every tool was refused as "does not render tools".
    const s = ask('agent', '', {
      messages: [
        { role: 'user', content: 'Weather and time in Rome?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: { city: 'Rome' } } }] },
        { role: 'tool', tool_call_id: 'c1', name: 'get_weather', content: '21' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c2', type: 'function', function: { name: 'get_time', arguments: { city: 'Rome' } } }] },
        { role: 'tool', tool_call_id: 'c2', name: 'get_time', content: '10:00' },
      ],
    })
    expect(await local(scripted).renderPrompt(s)).toContain('<tool_response>\n10:00\n</tool_response>')
  })

  it('throws a clear error when the chat template leaves the tools out or fails', async () => {
    const noTools =
      "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}{{ '<|im_start|>assistant\\n' }}"
    await expect(local(scripted, { chatTemplate: noTools }).generate(ask('x', 'Weather in Paris?'))).rejects.toThrow(
      /chat template of .* does not render tools: none of sample "x"'s tool names appears in the prompt/,
    )
    const raising = "{{ raise_exception('tools are not supported') }}"
    await expect(local(scripted, { chatTemplate: raising }).generate(ask('y', 'Weather in Paris?'))).rejects.toThrow(
      /cannot render sample "y" with its 2 tool\(s\): .*tools are not supported/,
    )
    // Without tools the same template is fine.
    const out = await local(scripted, { chatTemplate: noTools }).generate({ ...ask('z', 'Weather in Paris?'), tools: [] })
    expect(out.text).toBe(reply('right-call'))
  })

  it('a hostile or broken chat template errors the sample within its budget, before the tokenizer renders it', async () => {
    // The model is loaded here (once per process), so the time below is the template's alone.
    await expect(local(scripted, { chatTemplate: '{% if %}' }).renderPrompt(ask('s', 'hi'))).rejects.toThrow(
      /the chat template of .* cannot be used: the chat template does not compile at line 1, "\{% if %\}"/,
    )
    const nested = '{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}{{ messages[0].content }}'
    const t0 = performance.now()
    await expect(local(scripted, { chatTemplate: nested, templateBudget: { timeMs: 300 } }).generate(ask('h', 'Weather in Paris?'))).rejects.toThrow(
      /the chat template of .* cannot be used: rendering the chat template took longer than its time budget of 300 ms/,
    )
    expect(performance.now() - t0).toBeLessThan(3000)
    // Harmless on the probe conversations, endless on one sample's: that sample's own prompt is rendered under the
    // budget too, so it errors instead of hanging the process in the tokenizer.
    const onParis = `{% if 'Paris' in messages[0].content %}${nested}{% endif %}{% for t in tools %}{{ t.function.name }}{% endfor %}{{ messages[0].content }}`
    const t1 = performance.now()
    await expect(local(scripted, { chatTemplate: onParis, templateBudget: { timeMs: 300 } }).generate(ask('p', 'Weather in Paris?'))).rejects.toThrow(
      /the chat template of .* cannot render sample "p": rendering the chat template took longer than its time budget of 300 ms/,
    )
    expect(performance.now() - t1).toBeLessThan(3000)
    expect((await local(scripted, { chatTemplate: onParis, templateBudget: { timeMs: 300 } }).generate(ask('o', 'Weather in Oslo?'))).text).toBeTypeOf('string')
  })

  it('loads a model once per process, shared by providers, and by relative path or localModelPath id', async () => {
    await local(scripted).generate(ask('a', 'hi'))
    const loads = localModelStats().loads
    await local(scripted, { maxNewTokens: 5 }).generate(ask('b', 'hi'))
    await local(scripted, { batchSize: 2 }).generate(ask('c', 'hi'))
    expect(localModelStats().loads).toBe(loads)

    const rel = local(relative(process.cwd(), scripted))
    expect(rel.id).toBe(`local:${relative(process.cwd(), scripted)}`)
    expect((await rel.generate(ask('d', 'Weather in Paris?'))).text).toBe(reply('right-call'))

    const byId = local('scripted', { localModelPath: FIXTURE_MODELS_DIR, allowRemoteModels: false })
    expect((await byId.generate(ask('e', 'Weather in Paris?'))).text).toBe(reply('right-call'))
  })

  it('fails with a clear message for a missing folder or an unavailable hub model', async () => {
    await expect(local('./no/such/model').generate(ask('a', 'hi'))).rejects.toThrow(/local model folder not found: .*no\/such\/model/)
    await expect(
      local('example-org/not-downloaded', { allowRemoteModels: false, localModelPath: FIXTURE_MODELS_DIR }).generate(ask('a', 'hi')),
    ).rejects.toThrow(/cannot load local model example-org\/not-downloaded/)
  })

  it('carries output settings for cache keys', () => {
    const a = local(scripted, { maxNewTokens: 64, templateKwargs: { enable_thinking: false } })
    expect(a.settings).toEqual({ maxNewTokens: 64, doSample: false, templateKwargs: { enable_thinking: false } })
    expect(a.concurrency).toBe(4)
  })

  it('builds custom scripted models (one scenario per model) from a spec', async () => {
    const dir = await buildModel(join(mkdtempSync(join(tmpdir(), 'te-model-')), 'm'), {
      kind: 'scripted',
      rules: [{ reply: '[{"name": "get_time", "arguments": {"city": "Lima"}}]' }],
    })
    const out = await local(dir).generate(ask('a', 'anything'))
    expect(out.text).toBe('[{"name": "get_time", "arguments": {"city": "Lima"}}]')
  })
})

// The Hermes parser is written by another part of the project; until it parses, these checks are skipped visibly.
const parserReady = parseToolCalls('<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>', { format: 'hermes' }).length > 0
if (!parserReady) console.warn('local.test: the hermes parser does not parse yet; skipping the end-to-end parse checks')

describe.skipIf(!parserReady)('local provider through the parser', () => {
  it('yields the exact tool calls through template, tokenizer, generate loop and parser', async () => {
    const model = local(scripted)
    const parse = async (q: string) => {
      const out = await model.generate(ask('q', q))
      return parseToolCalls(out.text ?? '', { format: out.format, tools }).map((c) => [c.name, c.arguments, c.argumentsValid])
    }
    expect(await parse('Weather in Paris?')).toEqual([['get_weather', { city: 'Paris' }, true]])
    expect(await parse('Time in London?')).toEqual([['get_time', { city: 'London' }, true]])
    expect(await parse('Weather in Rome?')).toEqual([
      ['get_weather', { city: 'Rome' }, true],
      ['get_time', { city: 'Rome' }, true],
    ])
    expect(await parse('Weather in Oslo?')).toEqual([['get_weather', { city: 'Oslo' }, true]])
    expect(await parse('A joke please')).toEqual([])
  })
})

describe('local provider on the random-weight fixture model', () => {
  let random = ''
  beforeAll(async () => {
    random = await ensureFixtureModel('random-tiny')
  })

  it('gives the same greedy tokens batched with a reused prefix as one at a time without it', async () => {
    // A long shared tools prompt, then different questions.
    const manyTools: ToolDefinition[] = Array.from({ length: 12 }, (_, i) => ({
      type: 'function',
      function: { name: `tool_${i}`, description: `Tool number ${i} does thing ${i}.`, parameters: { type: 'object', properties: { x: { type: 'integer' } } } },
    }))
    const samples = ['a', 'bb cc', 'ddd eee fff', 'g', 'hh ii jj kk ll'].map((q, i) => ask(`r${i}`, `Question: ${q}`, { tools: manyTools }))
    // One intra-op thread for both (this model is loaded for this test only): ONNX Runtime's default pool spins on
    // a 2-core machine, near twice the CPU time for the same greedy tokens.
    const plain = local(random, { batchSize: 1, prefixCache: false, maxNewTokens: 12, threads: 1 })
    const expected: (string | undefined)[] = []
    for (const s of samples) expected.push((await plain.generate(s)).text)

    const fast = local(random, { batchSize: 3, maxNewTokens: 12, threads: 1 })
    for (const round of ['cold', 'warm']) {
      // Cold: the first batch finds no cached prefix and processes the shared one first; warm: it is cached.
      if (round === 'cold') await fast.clearPrefixCache()
      const before = await fast.stats()
      const outs = await Promise.all(samples.map((s) => fast.generate(s)))
      const after = await fast.stats()
      expect(outs.map((o) => o.text), round).toEqual(expected)
      expect(after.prefixHits - before.prefixHits, round).toBe(2)
      expect(after.largestBatch).toBe(3)
      expect(outs.every((o) => o.usage?.completionTokens === 12)).toBe(true)
    }
  })
})

describe('templateFormat', () => {
  it('reads the wire format from unambiguous template markers, and nothing from others', () => {
    expect(templateFormat('{{- "<tool_call>\\n{\\"name\\": <function-name>, ...}\\n</tool_call>" }}')).toBe('hermes')
    expect(templateFormat('<tool_call>\n<function={{ name }}>\n<parameter=x>')).toBe('qwen3_coder')
    expect(templateFormat('{{ "[TOOL_CALLS]" }}{{ tool_calls | tojson }}')).toBe('mistral')
    expect(templateFormat('<|start|>assistant<|channel|>commentary to=functions.x')).toBe('harmony')
    expect(templateFormat('{% for m in messages %}{{ m.content }}{% endfor %}')).toBeUndefined()
    expect(templateFormat(undefined)).toBeUndefined()
  })
})
