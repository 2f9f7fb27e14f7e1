// Tools from MCP servers (README, "Tools from MCP servers"; docs/MCP.md).
export { isMcpTools, mcpTools, type McpCallOutcome, type McpTool, type McpTools } from './tools.js'
export type { McpHttpServer, McpMode, McpServerSpec, McpStdioServer, McpToolsOptions } from './server.js'
export { MCP_MODE_ENV } from './server.js'
