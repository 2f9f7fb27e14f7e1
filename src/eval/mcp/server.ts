/**
 * Which MCP server an eval talks to, and the options of `mcpTools`: checked once, when the eval file is loaded, so a
 * typo fails there and not as one errored sample per sample.
 *
 * A server's identity is its `name` (given, or taken from the script or URL): it keys the recording and names the
 * schema snapshot. It holds no port, no temporary path and no secret, so a recording made on one machine replays on
 * another.
 */
import { basename } from 'node:path'
import { checkOptionKeys, type OptionKeys } from '../../calls/options.js'
import { scrub } from '../../models/openai-compatible.js'

/** A server started as a child process, spoken to over its stdin and stdout. */
export interface McpStdioServer {
  command: string
  args?: string[]
  /** Variables for the server (added to a minimal inherited set: PATH, HOME, ...). Never recorded or reported. */
  env?: Record<string, string>
  cwd?: string
}

/** A server already running, spoken to over streamable HTTP. */
export interface McpHttpServer {
  url: string | URL
  /** Request headers (an `Authorization` token, say). Never recorded or reported. */
  headers?: Record<string, string>
}

export type McpServerSpec = McpStdioServer | McpHttpServer

/** Where tool lists and call results come from: the server, the server with every answer written down, or the file. */
export type McpMode = 'live' | 'record' | 'replay'

export interface McpToolsOptions {
  /** The server's identity in recordings and the schema snapshot's file name (default: from the script or URL). */
  name?: string
  /** A JSONL file of the server's answers: written in `record` mode, read in `replay` mode (the default with a file). */
  recording?: string
  /** Default: `TOOL_EVALS_MCP` from the environment, else `replay` with a `recording`, else `live`. */
  mode?: McpMode
  /** Run the model's calls against the server in the agent loop (default). `false`: offer the tools only (one generation). */
  execute?: boolean
  /** Milliseconds a request (list, call) may take; a slower one errors its sample. Default 30000. */
  timeoutMs?: number
  /** Milliseconds the server may take to start and answer `initialize`. Default 30000. */
  startTimeoutMs?: number
  /**
   * The largest answer read from the server, in bytes (default 10 MiB, the SDK's own limit over stdio): over HTTP a
   * larger response body or server-sent event, over stdio a larger message, errors its sample and says so.
   */
  maxResultBytes?: number
  /**
   * Keep the server's tool list in a snapshot file through Vitest's snapshot state (`-u` updates it), so a changed
   * tool shows as a diff: `true` (default; `<eval file>.<name>.tools.json` beside the eval file), a path relative
   * to the eval file, or `false`.
   */
  schemaSnapshot?: boolean | string
}

const STDIO_KEYS: OptionKeys<McpStdioServer> = { command: true, args: true, env: true, cwd: true }
const HTTP_KEYS: OptionKeys<McpHttpServer> = { url: true, headers: true }
const OPTION_KEYS: OptionKeys<McpToolsOptions> = {
  name: true, recording: true, mode: true, execute: true, timeoutMs: true, startTimeoutMs: true, schemaSnapshot: true, maxResultBytes: true,
}

export const MCP_MODE_ENV = 'TOOL_EVALS_MCP'
export const DEFAULT_MCP_TIMEOUT_MS = 30_000
export const DEFAULT_MCP_MAX_RESULT_BYTES = 10 * 1024 * 1024
const MAX_RESULT_BYTES_RANGE = [1024, 512 * 1024 * 1024] as const
const MODES: readonly McpMode[] = ['live', 'record', 'replay']

export interface McpPlan {
  server: McpServerSpec
  name: string
  mode: McpMode
  recording?: string
  execute: boolean
  timeoutMs: number
  startTimeoutMs: number
  maxResultBytes: number
  schemaSnapshot: string | false
  /** Values that must never reach a message: the server's env values and headers, a URL's credentials and query. */
  secrets: string[]
}

export function isStdio(server: McpServerSpec): server is McpStdioServer {
  return typeof (server as McpStdioServer).command === 'string'
}

/** The checked plan of `mcpTools(server, options)`; throws with what is wrong. */
export function mcpPlan(server: McpServerSpec, options: McpToolsOptions = {}, env: NodeJS.ProcessEnv = process.env): McpPlan {
  const where = 'mcpTools'
  if (typeof server !== 'object' || server === null) throw new Error(`${where}: give { command, args?, env? } or { url }`)
  const stdio = isStdio(server)
  const url = (server as McpHttpServer).url
  // Neither `command` nor `url`: a misspelt one is named before the shape is.
  if (!stdio && url === undefined) checkOptionKeys(server, [...Object.keys(STDIO_KEYS), ...Object.keys(HTTP_KEYS)], `${where}: the server`)
  if (stdio === (url !== undefined)) throw new Error(`${where}: give either \`command\` (stdio) or \`url\` (streamable HTTP)`)
  checkOptionKeys(server, stdio ? STDIO_KEYS : HTTP_KEYS, `${where}: the server`)
  checkOptionKeys(options, OPTION_KEYS, where)
  let parsed: URL | undefined
  if (!stdio) {
    try {
      parsed = new URL(String(url))
    } catch {
      throw new Error(`${where}: \`url\` is not a URL`)
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error(`${where}: \`url\` must be http(s)`)
  }
  const fromEnv = env[MCP_MODE_ENV]
  if (fromEnv !== undefined && fromEnv !== '' && !MODES.includes(fromEnv as McpMode)) {
    throw new Error(`${where}: ${MCP_MODE_ENV}=${fromEnv} is not one of ${MODES.join(', ')}`)
  }
  const mode = options.mode ?? ((fromEnv || undefined) as McpMode | undefined) ?? (options.recording ? 'replay' : 'live')
  if (!MODES.includes(mode)) throw new Error(`${where}: \`mode\` must be one of ${MODES.join(', ')}`)
  if (mode !== 'live' && !options.recording) throw new Error(`${where}: mode \`${mode}\` needs a \`recording\` file`)
  const timeoutMs = options.timeoutMs ?? DEFAULT_MCP_TIMEOUT_MS
  const startTimeoutMs = options.startTimeoutMs ?? DEFAULT_MCP_TIMEOUT_MS
  for (const [key, ms] of [['timeoutMs', timeoutMs], ['startTimeoutMs', startTimeoutMs]] as const) {
    if (!Number.isFinite(ms) || ms <= 0) throw new Error(`${where}: \`${key}\` must be a positive number`)
  }
  const maxResultBytes = options.maxResultBytes ?? DEFAULT_MCP_MAX_RESULT_BYTES
  const [lo, hi] = MAX_RESULT_BYTES_RANGE
  if (!Number.isInteger(maxResultBytes) || maxResultBytes < lo || maxResultBytes > hi) {
    throw new Error(`${where}: \`maxResultBytes\` must be an integer from ${lo} to ${hi} (512 MiB), not ${String(maxResultBytes)}`)
  }
  const name = options.name ?? defaultName(server, parsed)
  if (!/^[\w.@-]+$/.test(name)) throw new Error(`${where}: \`name\` may hold letters, digits, '.', '_', '@' and '-' only (got "${name}")`)
  const snapshot = options.schemaSnapshot ?? true
  const plan: McpPlan = {
    server,
    name,
    mode,
    execute: options.execute ?? true,
    timeoutMs,
    startTimeoutMs,
    maxResultBytes,
    schemaSnapshot: snapshot === false ? false : snapshot === true ? '' : snapshot,
    secrets: secretsOf(server, parsed),
  }
  if (options.recording !== undefined) plan.recording = options.recording
  return plan
}

/**
 * `node servers/weather.mjs` → `weather`; `https://tools.example.com/mcp` → `tools.example.com-mcp`. The script is the
 * first argument that is a path or a script file (`node dist/index.js stdio` → `index`, `npx -y @acme/files /srv` →
 * `files`); without one, the last argument that is not a flag (`uvx mcp-server-time` → `mcp-server-time`); else the
 * command.
 */
function defaultName(server: McpServerSpec, url: URL | undefined): string {
  if (url) return slug(`${url.hostname}${url.pathname}`)
  const s = server as McpStdioServer
  const args = (s.args ?? []).filter((a) => typeof a === 'string' && a !== '' && !a.startsWith('-'))
  const script = args.find((a) => /[/\\]/.test(a) || SCRIPT.test(a)) ?? args.at(-1) ?? s.command
  return slug(basename(script.replace(/[/\\]+$/, '')).replace(/\.[^.]*$/, ''))
}
const SCRIPT = /\.(?:[cm]?[jt]s|py|rb|sh|php|pl|jar|exe)$/i

function slug(text: string): string {
  return text.replace(/[^\w.@-]+/g, '-').replace(/^-+|-+$/g, '') || 'mcp'
}

function secretsOf(server: McpServerSpec, url: URL | undefined): string[] {
  const out: string[] = []
  if (isStdio(server)) out.push(...Object.values(server.env ?? {}))
  else out.push(...Object.values(server.headers ?? {}))
  if (url) {
    if (url.username) out.push(url.username)
    if (url.password) out.push(url.password)
    if (url.search.length > 1) out.push(url.search.slice(1))
  }
  // Short values ("1", "true") are not secrets and would scrub ordinary words.
  return out.filter((v) => typeof v === 'string' && v.length >= 6)
}

/** `text` with every secret of the plan replaced (raw, escaped, encoded, as the endpoint provider scrubs keys). */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text
  for (const s of secrets) out = scrub(out, s)
  return out
}

/** How the server is named in messages: its name and where it is, without credentials or query. */
export function describeServer(plan: McpPlan): string {
  if (isStdio(plan.server)) return `MCP server "${plan.name}"`
  const url = new URL(String(plan.server.url))
  return `MCP server "${plan.name}" (${url.origin}${url.pathname})`
}
