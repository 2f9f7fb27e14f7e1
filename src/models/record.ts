/**
 * Recording: wrap a provider so that every output is also written as a replay line (the README's recording format), letting a
 * pull-request gate replay the run with `replay(path)` and no model:
 *
 *   {"id": "w1", "output": "<raw text>", "format"?: "hermes"}          text to be parsed
 *   {"id": "w1", "tool_calls": [...], "output"?: "<text>"}             native calls, exactly as the server sent them
 *   {"id": "w1", "skipped": "<reason>"}                                skipped by policy (maxPromptTokens)
 *   {"id": "w1", "error": "<reason>"}                                  the generation failed
 *
 * Lines are appended as generations finish; replay takes the last line of an id. By default the file is emptied on
 * the first write of the process (a recording run replaces the recording); `append: true` keeps what is there.
 */
import { appendFile, mkdir, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { ToolCall } from '../calls/types.js'
import { checkOptionKeys, type OptionKeys } from '../calls/options.js'
import { resolveInput } from '../data/input-root.js'
import type { ModelOutput, ModelProvider, ProviderCall } from './types.js'

export interface RecordOptions {
  /** Keep the file's existing lines instead of starting it afresh. Default false. */
  append?: boolean
}

const RECORD_KEYS: OptionKeys<RecordOptions> = { append: true }

/** Wrap `provider` so each output (or failure) is also written to `path` as a replay line. */
export function record(provider: ModelProvider, path: string | URL, options: RecordOptions = {}): ModelProvider {
  const file = typeof path === 'string' ? path : fileURLToPath(path)
  checkOptionKeys(options, RECORD_KEYS, `record(${file})`)
  let started = false
  // Resolved at the first write: by then the test worker has adopted Vitest's root (data/input-root.ts).
  let target = file
  // Writes go one after another so lines never interleave.
  let queue: Promise<void> = Promise.resolve()

  const write = (line: Record<string, unknown>) => {
    queue = queue.then(async () => {
      if (!started) {
        started = true
        target = resolveInput(file)
        await mkdir(dirname(target), { recursive: true })
        if (!options.append) await writeFile(target, '')
      }
      await appendFile(target, JSON.stringify(line) + '\n')
    })
    return queue
  }

  const wrapper: ModelProvider = {
    id: provider.id,
    async generate(sample, opts) {
      let output: ModelOutput
      try {
        output = await provider.generate(sample, opts)
      } catch (err) {
        await write(withTrial({ id: sample.id, error: err instanceof Error ? err.message : String(err) }, sample.trial))
        throw err
      }
      await write(withTrial(replayLine(sample.id, output), sample.trial))
      return output
    },
    async close() {
      await queue
      await provider.close?.()
    },
  }
  if (provider.settings !== undefined) Object.assign(wrapper, { settings: provider.settings })
  if (provider.concurrency !== undefined) Object.assign(wrapper, { concurrency: provider.concurrency })
  // Not `resumable`: an output answered from the run journal would never reach the recording, which a run rewrites.
  if (provider.generationTimeoutMs !== undefined) Object.assign(wrapper, { generationTimeoutMs: provider.generationTimeoutMs })
  return wrapper
}

/** The replay line of one output. */
/** A repeated trial's line says which trial it is (replay matches it by this field). */
function withTrial(line: Record<string, unknown>, trial: number | undefined): Record<string, unknown> {
  return trial === undefined ? line : { ...line, trial }
}

export function replayLine(id: string, output: ModelOutput): Record<string, unknown> {
  if (output.skipped !== undefined) return { id, skipped: output.skipped }
  const line: Record<string, unknown> = { id }
  if (output.calls !== undefined) {
    line['tool_calls'] = output.calls.map(wireToolCall)
    if (output.text) line['output'] = output.text
  } else {
    line['output'] = output.text ?? ''
  }
  if (output.format !== undefined) line['format'] = output.format
  return line
}

/**
 * A call in OpenAI's wire shape. Calls that came from native `tool_calls` carry their wire object in `raw` and are
 * written back exactly (broken argument strings included, so replay scores them the same); others are rebuilt.
 */
function wireToolCall(call: ProviderCall): Record<string, unknown> {
  if (call.format === 'openai' && call.raw !== undefined) {
    try {
      const wire: unknown = JSON.parse(call.raw)
      if (wire !== null && typeof wire === 'object' && !Array.isArray(wire)) return wire as Record<string, unknown>
    } catch {
      // fall through: rebuild it
    }
  }
  const wire: Record<string, unknown> = {
    type: 'function',
    // Invalid arguments are written as an empty string, which replay decodes as invalid again.
    function: { name: call.name, arguments: call.argumentsValid ? JSON.stringify(call.arguments) : '' },
  }
  if (call.id !== undefined) wire['id'] = call.id
  return wire
}
