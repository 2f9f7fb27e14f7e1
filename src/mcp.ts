// `vitest-tool-evals/mcp`: tools from MCP servers (README, "Tools from MCP servers"; docs/MCP.md). `mcpTools` is
// also on the root entry; this entry adds the types of servers, options, tools and results, and the mode variable.
export * from './eval/mcp/index.js'
