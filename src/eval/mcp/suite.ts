/**
 * How describeEval uses `mcpTools(...)`: the server's tools replace each sample's, a single-turn eval's samples error
 * when the server cannot list them, and the tool list is kept as a snapshot file through Vitest's snapshot state
 * (`toMatchFileSnapshot`: `-u` writes it, CI refuses a missing or changed one), so a renamed tool or a new required
 * parameter shows as a diff in the pull request.
 */
import { basename, dirname, isAbsolute, join } from 'node:path'
import type { ExpectStatic } from 'vitest'
import type { DataEntry } from '../../data/types.js'
import type { ModelProvider } from '../../models/types.js'
import type { McpTool, McpTools } from './tools.js'

/** The samples with the server's tools in place of their own; unchanged when the server cannot list them. */
export async function withServerTools(entries: DataEntry[], mcp: McpTools): Promise<DataEntry[]> {
  let tools
  try {
    tools = await mcp.definitions()
  } catch {
    // Each sample errors with the reason when it runs (see requireServerTools and the agent's environment).
    return entries
  }
  return entries.map((e) => (e.sample ? { ...e, sample: { ...e.sample, tools } } : e))
}

/** `provider` that first makes sure the server listed its tools: a single-turn sample must not run without them. */
export function requireServerTools(provider: ModelProvider, mcp: McpTools): ModelProvider {
  const wrapped: ModelProvider = {
    id: provider.id,
    async generate(sample, options) {
      await mcp.list()
      return provider.generate(sample, options)
    },
  }
  // As agentProvider does: the hints and identity go along; closing stays with describeEval (it closes the original).
  if (provider.settings !== undefined) Object.assign(wrapped, { settings: provider.settings })
  if (provider.concurrency !== undefined) Object.assign(wrapped, { concurrency: provider.concurrency })
  if (provider.inputFiles !== undefined) Object.assign(wrapped, { inputFiles: provider.inputFiles })
  return wrapped
}

/** `weather.eval.ts` and server `weather` → `weather.eval.weather.tools.json` beside the eval file. */
export function schemaSnapshotPath(evalFile: string, mcp: McpTools): string {
  if (mcp.schemaSnapshot === false) throw new Error('the schema snapshot is off')
  if (mcp.schemaSnapshot !== '') return isAbsolute(mcp.schemaSnapshot) ? mcp.schemaSnapshot : join(dirname(evalFile), mcp.schemaSnapshot)
  const base = basename(evalFile).replace(/\.(c|m)?[jt]sx?$/, '')
  return join(dirname(evalFile), `${base}.${mcp.name}.tools.json`)
}

/** The tool list as its snapshot file holds it: sorted by name, each tool whole as the server gave it. */
export function schemaSnapshotText(tools: readonly McpTool[]): string {
  const sorted = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  return `${JSON.stringify(sorted, null, 2)}\n`
}

/** The schema snapshot test's body: the server's current list against the stored file. */
export async function checkSchemaSnapshot(mcp: McpTools, evalFile: string, expect: ExpectStatic): Promise<void> {
  const tools = await mcp.list()
  await expect(schemaSnapshotText(tools), `the tools of MCP server "${mcp.name}" changed (run with -u to accept)`).toMatchFileSnapshot(
    schemaSnapshotPath(evalFile, mcp),
  )
}

/** The schema snapshot test's name. */
export function schemaTestName(mcp: McpTools): string {
  return `${mcp.name} tool schemas [mcp]`
}
