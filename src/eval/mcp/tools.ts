/**
 * `mcpTools(server, options)`: the tools an MCP server ships, as an eval's tools. Given to describeEval's `tools`,
 * the server's tool list replaces each sample's `tools` (the JSON Schemas as the server gives them: `inputSchema`
 * becomes the definition's `parameters`) and, unless `execute: false`, the model's calls run against the server in
 * the agent loop. One connection serves the suite (started on first use, closed when the suite ends).
 *
 * Outcomes, by who failed: a result with `isError: true` and a JSON-RPC error are the tool's answer (a tool error the
 * model sees, as a throwing tool function's); a server that cannot start, exits, hangs past `timeoutMs`, or a call
 * the recording lacks, is a `ToolRuntimeError` (an errored sample with the reason).
 */
import type { ToolDefinition } from '../../calls/types.js'
import { ToolRuntimeError, unknownToolMessage, type AgentEnvironment } from '../environment.js'
import { liveWire, type McpAnswer, type McpWire } from './connection.js'
import { recordingWire, replayWire, requestLabel } from './recording.js'
import { describeServer, mcpPlan, type McpPlan, type McpServerSpec, type McpToolsOptions } from './server.js'

export type { McpToolsOptions }

/** A tool as the server lists it (`tools/list`), kept whole for the schema snapshot. */
export interface McpTool {
  name: string
  description?: string
  inputSchema: Record<string, unknown>
  [key: string]: unknown
}

/** What `mcpTools` returns: give it to describeEval's `tools`. */
export interface McpTools {
  readonly kind: 'mcp-tools'
  readonly name: string
  readonly mode: McpPlan['mode']
  /** Whether the model's calls run against the server (the agent loop) or the tools are only offered. */
  readonly execute: boolean
  /** The snapshot file (relative to the eval file; '' for the default name), or false. */
  readonly schemaSnapshot: string | false
  /** The server's tools as it lists them, every page (asked once; a failure is kept, so samples fail fast). */
  list(): Promise<McpTool[]>
  /** The tools as OpenAI-style tool definitions. */
  definitions(): Promise<ToolDefinition[]>
  /** Run one call; resolves to the result's content for the model, throws on a tool error. */
  call(name: string, args: Record<string, unknown>): Promise<McpCallOutcome>
  /** An agent-loop environment over this server (shared by the suite's samples: the server keeps any state). */
  environment(): Promise<AgentEnvironment>
  close(): Promise<void>
}

export interface McpCallOutcome {
  /** What the model gets: the text parts of the result joined, other parts as JSON. */
  content: string
  /** `structuredContent` when the server gives it, else the content. */
  value: unknown
}

// A server that pages forever is a broken server, not a long list.
const MAX_PAGES = 100

/** The tools served by the MCP server `server` (stdio: `{ command, args, env }`; streamable HTTP: `{ url }`). */
export function mcpTools(server: McpServerSpec, options: McpToolsOptions = {}): McpTools {
  const plan = mcpPlan(server, options)
  let wire: McpWire | undefined
  const wireOf = (): McpWire => {
    if (wire) return wire
    const recording = plan.recording
    if (plan.mode === 'replay' && recording !== undefined) wire = replayWire({ ...plan, recording })
    else if (plan.mode === 'record' && recording !== undefined) wire = recordingWire(liveWire(plan), { ...plan, recording })
    else wire = liveWire(plan)
    return wire
  }
  let listed: Promise<McpTool[]> | undefined

  const self: McpTools = {
    kind: 'mcp-tools',
    name: plan.name,
    mode: plan.mode,
    execute: plan.execute,
    schemaSnapshot: plan.schemaSnapshot,
    list: () => (listed ??= listAll(wireOf(), plan)),
    async definitions() {
      return (await self.list()).map(toolDefinition)
    },
    async call(name, args) {
      const params = { name, arguments: args }
      const answer = await wireOf().request('tools/call', params)
      return callOutcome(answer, requestLabel('tools/call', params))
    },
    async environment() {
      const tools = await self.definitions()
      const known = new Set(tools.map((t) => t.function.name))
      return {
        tools,
        async call(name, args) {
          // As for tool functions: a tool the server does not list is a tool error, and the server is not asked.
          if (!known.has(name)) throw new Error(unknownToolMessage(name, tools.map((t) => t.function.name)))
          const outcome = await self.call(name, args)
          // The model sees the result's text, as an MCP host gives it; structured content only when there is none.
          return outcome.content !== '' ? outcome.content : outcome.value
        },
      }
    },
    async close() {
      const open = wire
      wire = undefined
      listed = undefined
      await open?.close()
    },
  }
  return self
}

/** Whether a describeEval `tools` value is an `mcpTools(...)`. */
export function isMcpTools(value: unknown): value is McpTools {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'mcp-tools'
}

async function listAll(wire: McpWire, plan: McpPlan): Promise<McpTool[]> {
  const tools: McpTool[] = []
  let cursor: string | undefined
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await wire.request('tools/list', cursor === undefined ? {} : { cursor })
    if (answer.error) {
      throw new ToolRuntimeError(`${describeServer(plan)} refused tools/list: ${answer.error.message} (code ${answer.error.code})`, 'tools/list refused')
    }
    const result = answer.result
    if (!Array.isArray(result['tools'])) throw new ToolRuntimeError(`${describeServer(plan)}: tools/list gave no tools array`, 'tools/list malformed')
    for (const t of result['tools'] as McpTool[]) tools.push(t)
    const next = result['nextCursor']
    if (typeof next !== 'string' || next === '') return tools
    cursor = next
  }
  throw new ToolRuntimeError(`${describeServer(plan)}: tools/list still had more pages after ${MAX_PAGES}`, 'tools/list never ended')
}

/** An MCP tool as an OpenAI-style definition: its input schema unchanged as `parameters`. */
export function toolDefinition(tool: McpTool): ToolDefinition {
  const fn: ToolDefinition['function'] = { name: tool.name }
  if (typeof tool.description === 'string') fn.description = tool.description
  fn.parameters = (tool.inputSchema ?? { type: 'object' }) as ToolDefinition['function']['parameters']
  return { type: 'function', function: fn }
}

/** A call's answer as its outcome: a result, or a tool error (thrown) for `isError` results and JSON-RPC errors. */
export function callOutcome(answer: McpAnswer, label: string): McpCallOutcome {
  if (answer.error) throw new Error(`${label} failed: ${answer.error.message} (JSON-RPC error ${answer.error.code})`)
  const result = answer.result
  const content = contentText(result['content'])
  if (result['isError'] === true) throw new Error(content || `${label} returned an error without a message`)
  const structured = result['structuredContent']
  return { content, value: structured !== undefined && structured !== null ? structured : content }
}

/** Text parts as they are (joined by newlines); images, resources and other parts as their JSON. */
export function contentText(content: unknown): string {
  if (!Array.isArray(content)) return ''
  return content
    .map((part: unknown) => {
      const p = part as { type?: unknown; text?: unknown }
      return p?.type === 'text' && typeof p.text === 'string' ? p.text : JSON.stringify(part)
    })
    .join('\n')
}
