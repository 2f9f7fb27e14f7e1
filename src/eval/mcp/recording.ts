/**
 * Recorded MCP traffic: tool lists and call results, content-addressed as the generation cache is. An entry's key is
 * the sha256 of the server's identity (its name), the method and its parameters in canonical JSON, so a call made
 * twice is recorded once and the order samples ran in does not matter.
 *
 * The file is JSONL, one entry a line, sorted (method, tool, key) so a new recording's diff shows what changed:
 *
 *   {"key":"<sha256>","server":"weather","method":"tools/call","params":{"name":"get_weather","arguments":{...}},"result":{...},"sha256":"<sha256>"}
 *   {"key":"<sha256>","server":"weather","method":"tools/call","params":{...},"error":{"code":-32602,"message":"..."},"sha256":"<sha256>"}
 *
 * Each entry is bound to its request twice over: `key` must be the key of the entry's own server, method and params
 * (an edited request no longer matches it), and `sha256` is the hash of the whole entry, request and answer together
 * (an answer moved to another entry, or edited, no longer matches it). A key twice is refused. These are checksums, not
 * signatures: they catch hand edits, bad merges and swapped lines, not someone who recomputes the hashes.
 *
 * Only the server's answers are recorded (results, `isError` results, JSON-RPC errors); a server that died or hung
 * answered nothing, so a replay of that call errors its sample as a missing entry would.
 */
import { createHash } from 'node:crypto'
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { resolveInput } from '../../data/input-root.js'
import { stableJson } from '../../models/cache.js'
import { ToolRuntimeError } from '../environment.js'
import type { McpAnswer, McpMethod, McpWire } from './connection.js'
import { MCP_MODE_ENV, type McpPlan } from './server.js'

export interface Entry {
  key: string
  server: string
  method: McpMethod
  params: Record<string, unknown>
  result?: Record<string, unknown>
  error?: { code: number; message: string }
  /** The sha256 of the entry without this field (canonical JSON): binds the answer to the request. */
  sha256: string
}

/** The key of a request to a server: sha256 over its identity, the method and the canonical parameters. */
export function mcpKey(server: string, method: string, params: Record<string, unknown>): string {
  return createHash('sha256').update(stableJson({ v: 1, server, method, params })).digest('hex')
}

/** The hash of an entry's request and answer together (everything but `sha256` itself). */
export function entryHash(entry: Omit<Entry, 'sha256'> & { sha256?: unknown }): string {
  const { sha256: _, ...rest } = entry
  return createHash('sha256').update(stableJson({ v: 2, ...rest })).digest('hex')
}

/** A recording entry for an answer, hashed. */
export function recordEntry(server: string, method: McpMethod, params: Record<string, unknown>, answer: McpAnswer): Entry {
  const entry = { key: mcpKey(server, method, params), server, method, params, ...answer }
  return { ...entry, sha256: entryHash(entry) }
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

const RECORD_AGAIN = `record it again with ${MCP_MODE_ENV}=record`

/**
 * The entries of a recording by key, each checked against its request and its hash; a line that is not an entry, an
 * entry that does not match its key or hash, and a key seen twice are errors naming the file and line.
 */
export function parseRecording(text: string, file: string): Map<string, Entry> {
  const out = new Map<string, Entry>()
  const lineOf = new Map<string, number>()
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue
    const at = `${file}:${i + 1}`
    let entry: Entry
    try {
      entry = JSON.parse(line) as Entry
    } catch {
      throw new Error(`${at}: not JSON`)
    }
    if (typeof entry !== 'object' || entry === null || typeof entry.key !== 'string' || answerOf(entry) === undefined) {
      throw new Error(`${at}: not an MCP recording entry`)
    }
    if (typeof entry.server !== 'string' || typeof entry.method !== 'string' || typeof entry.params !== 'object' || entry.params === null) {
      throw new Error(`${at}: an MCP recording entry needs "server", "method" and "params"`)
    }
    if (entry.sha256 === undefined) {
      throw new Error(`${at}: the entry has no "sha256" (a recording made before answers were bound to their requests): ${RECORD_AGAIN}`)
    }
    if (mcpKey(entry.server, entry.method, entry.params) !== entry.key) {
      throw new Error(`${at}: "key" is not the key of the entry's server, method and params (was the request edited?): ${RECORD_AGAIN}`)
    }
    if (entryHash(entry) !== entry.sha256) {
      throw new Error(`${at}: "sha256" does not match the entry (was the answer edited or moved from another entry?): ${RECORD_AGAIN}`)
    }
    const first = lineOf.get(entry.key)
    if (first !== undefined) throw new Error(`${at}: the key ${entry.key.slice(0, 12)}… is also on line ${first}: a request has one answer`)
    lineOf.set(entry.key, i + 1)
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
        `MCP recording ${plan.recording} has no answer of server "${plan.name}" to ${label}: record it again with ${MCP_MODE_ENV}=record${otherServers(all, plan.name)}`,
        `not in the MCP recording: ${method === 'tools/call' ? `tools/call ${String(params['name'])}` : method}`,
      )
    },
    async close() {},
  }
}

/** When the recording answers for other server names only, says so: a default name that changed shows here. */
function otherServers(all: Map<string, Entry>, name: string): string {
  const names = new Set([...all.values()].map((e) => e.server))
  if (names.size === 0 || names.has(name)) return ''
  const list = [...names].slice(0, 3).map((n) => `"${n}"`).join(', ')
  return ` (it holds answers of server ${list} only: give mcpTools the option \`name\` it was recorded under, e.g. name: ${list.split(',')[0]!.replace(/"/g, "'")})`
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
        entries.set(key, recordEntry(plan.name, method, params, answer))
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
