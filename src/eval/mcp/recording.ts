/**
 * Recorded MCP traffic: tool lists and call results, content-addressed as the generation cache is. An entry's key is
 * the sha256 of the server's identity (its name), the method and its parameters in canonical JSON, so a call made
 * twice is recorded once and the order samples ran in does not matter.
 *
 * The file is JSONL, one entry a line, sorted (method, tool, key) so a new recording's diff shows what changed:
 *
 *   {"key":"<sha256>","server":"weather","method":"tools/call","params":{"name":"get_weather","arguments":{...}},"result":{...}}
 *   {"key":"<sha256>","server":"weather","method":"tools/call","params":{...},"error":{"code":-32602,"message":"..."}}
 *
 * Only the server's answers are recorded (results, `isError` results, JSON-RPC errors); a server that died or hung
 * answered nothing, so a replay of that call errors its sample as a missing entry would.
 */
import { createHash } from 'node:crypto'
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { resolveInput } from '../../data/input-root.js'
import { stableJson } from '../../models/cache.js'
import { ToolRuntimeError } from '../agent.js'
import type { McpAnswer, McpMethod, McpWire } from './connection.js'
import { MCP_MODE_ENV, type McpPlan } from './server.js'

interface Entry {
  key: string
  server: string
  method: McpMethod
  params: Record<string, unknown>
  result?: Record<string, unknown>
  error?: { code: number; message: string }
}

/** The key of a request to a server: sha256 over its identity, the method and the canonical parameters. */
export function mcpKey(server: string, method: string, params: Record<string, unknown>): string {
  return createHash('sha256').update(stableJson({ v: 1, server, method, params })).digest('hex')
}

/** `get_weather({"city":"Paris"})` for a call, `tools/list` for a listing: how a request is named in errors. */
export function requestLabel(method: string, params: Record<string, unknown>): string {
  if (method !== 'tools/call') return Object.keys(params).length ? `${method} ${JSON.stringify(params)}` : method
  return `${String(params['name'])}(${JSON.stringify(params['arguments'] ?? {})})`
}

function answerOf(entry: Entry): McpAnswer | undefined {
  if (entry.error && typeof entry.error.code === 'number') return { error: entry.error }
  if (entry.result && typeof entry.result === 'object') return { result: entry.result }
  return undefined
}

/** The entries of a recording by key (a later line wins); a line that is not an entry is reported, not skipped. */
export function parseRecording(text: string, file: string): Map<string, Entry> {
  const out = new Map<string, Entry>()
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue
    let entry: Entry
    try {
      entry = JSON.parse(line) as Entry
    } catch {
      throw new Error(`${file}:${i + 1}: not JSON`)
    }
    if (typeof entry?.key !== 'string' || answerOf(entry) === undefined) throw new Error(`${file}:${i + 1}: not an MCP recording entry`)
    out.set(entry.key, entry)
  }
  return out
}

/** The recording's lines, sorted so reruns write the same file. */
export function composeRecording(entries: Iterable<Entry>): string {
  const sortKey = (e: Entry) => `${e.method}\u0000${String(e.params['name'] ?? '')}\u0000${e.key}`
  const sorted = [...entries].sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : 0))
  return sorted.map((e) => JSON.stringify(e)).join('\n') + (sorted.length ? '\n' : '')
}

/** Answers read from the recording; a request it lacks errors the sample and says how to record it. */
export function replayWire(plan: McpPlan & { recording: string }): McpWire {
  const file = resolveInput(plan.recording)
  let entries: Promise<Map<string, Entry>> | undefined
  const load = () =>
    (entries ??= readFile(file, 'utf8').then(
      (text) => parseRecording(text, plan.recording),
      (err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') {
          throw new ToolRuntimeError(`MCP recording not found: ${plan.recording} (record it with ${MCP_MODE_ENV}=record)`, `MCP recording not found: ${plan.recording}`)
        }
        throw err
      },
    ))
  return {
    async request(method, params) {
      let all: Map<string, Entry>
      try {
        all = await load()
      } catch (err) {
        if (err instanceof ToolRuntimeError) throw err
        throw new ToolRuntimeError(`MCP recording ${plan.recording} is unreadable: ${err instanceof Error ? err.message : String(err)}`)
      }
      const entry = all.get(mcpKey(plan.name, method, params))
      const answer = entry && answerOf(entry)
      if (answer) return answer
      const label = requestLabel(method, params)
      throw new ToolRuntimeError(
        `MCP recording ${plan.recording} has no answer of server "${plan.name}" to ${label}: record it again with ${MCP_MODE_ENV}=record`,
        `not in the MCP recording: ${method === 'tools/call' ? `tools/call ${String(params['name'])}` : method}`,
      )
    },
    async close() {},
  }
}

/**
 * `wire` with every answer also written to the recording. The file is started afresh by the first answer of the
 * process (a recording run replaces the recording) and rewritten whole, sorted, after each new entry.
 */
export function recordingWire(wire: McpWire, plan: McpPlan & { recording: string }): McpWire {
  const file = resolveInput(plan.recording)
  const entries = new Map<string, Entry>()
  let queue: Promise<void> = Promise.resolve()
  const save = () => {
    const content = composeRecording(entries.values())
    queue = queue.then(async () => {
      await mkdir(dirname(file), { recursive: true })
      // A temporary file renamed into place: a crash never leaves half a recording.
      const tmp = `${file}.${process.pid}.tmp`
      await writeFile(tmp, content)
      await rename(tmp, file)
    })
    return queue
  }
  return {
    async request(method, params) {
      const answer = await wire.request(method, params)
      const key = mcpKey(plan.name, method, params)
      if (!entries.has(key)) {
        entries.set(key, { key, server: plan.name, method, params, ...answer })
        await save()
      }
      return answer
    },
    async close() {
      await queue
      await wire.close()
    },
  }
}
