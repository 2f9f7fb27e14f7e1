// The trip agent of trip.eval.ts, with its tools served by an MCP server (fixtures/mcp/travel-server.mjs): the
// server's tool list replaces the sample's tools and the model's calls run against the server. `npm run evals`
// replays the server's answers from fixtures/travel.mcp.jsonl (no server started), and the test
// `travel-server tool schemas [mcp]` holds the tool list against mcp-trip.eval.travel-server.tools.json, so a changed
// tool shows as a diff. Record again against the real server with `TOOL_EVALS_MCP=record`.
import { expect } from 'vitest'
import { describeEval, local, mcpTools } from 'vitest-tool-evals'

describeEval('mcp-trip', {
  data: 'fixtures/mcp-trip.jsonl',
  model: local('./fixtures/models/scripted'),
  tools: mcpTools({ command: 'node', args: ['fixtures/mcp/travel-server.mjs'] }, { recording: 'fixtures/travel.mcp.jsonl' }),
  maxSteps: 4,
  assert(result) {
    expect(result.sample.tools?.map((t) => t.function.name)).toEqual(['find_airport', 'book_hotel'])
    expect(result).toHaveCalledToolsInOrder(['find_airport', { name: 'book_hotel', arguments: { near: 'LIS' } }])
    expect(result.trajectory?.answer).toBe('Booked: Hotel Aeroporto near LIS.')
  },
  // As in travel.eval.ts: the first step waits for the model to load.
  timeout: 60_000,
})
