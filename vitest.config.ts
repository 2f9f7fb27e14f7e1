// The example evals (`npm run evals`): each sample of fixtures/*.jsonl is a test case, scored against the outputs of
// the local fixture model (travel, and trip: an agent loop) or recorded outputs (weather, calendar, smoke); the plugin's reporter gates the
// run on the rates below, whatever `--reporter` the command line names, and registers the matchers. In this
// repository `vitest-tool-evals` resolves to the sources (no build needed); eval files import it exactly as a user's
// would.
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'
import { toolEvals } from './src/plugin.js'

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url))

export default defineConfig({
  resolve: {
    alias: [
      { find: /^vitest-tool-evals$/, replacement: src('index.ts') },
      { find: /^vitest-tool-evals\/setup$/, replacement: src('setup.ts') },
      { find: /^vitest-tool-evals\/matchers$/, replacement: src('matchers.ts') },
      { find: /^vitest-tool-evals\/bfcl$/, replacement: src('bfcl/index.ts') },
      { find: /^vitest-tool-evals\/scorers$/, replacement: src('scorers.ts') },
    ],
  },
  plugins: [
    toolEvals({
      thresholds: {
        has_call: 0.9,
        name_correct: 0.8,
        args_exact_match: 0.6,
        no_call_accuracy: 0.6,
        suites: {
          weather: { name_correct: 0.75 },
          calendar: { args_field_recall: 0.8 },
          travel: { has_call: 1, schema_overall: 0.6 },
          trip: { trajectory_match: 1, agent_completed: 1 },
          'mcp-trip': { trajectory_match: 1, agent_completed: 1 },
        },
        tools: { cancel_event: { args_exact_match: 0.9 } },
      },
      outputFile: 'tool-evals-report.json',
    }),
  ],
  test: {
    include: ['evals/**/*.eval.ts'],
  },
})
