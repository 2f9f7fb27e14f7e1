import { defineConfig } from 'vitest/config'
import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'

const src = fileURLToPath(new URL('../src/', import.meta.url))

/**
 * Tests that run something real beside the test process (`vitest run` projects, the built CLI, `npm pack`, a
 * browser, MCP servers, the ONNX runtime, the TypeScript compiler over the docs) or drive a whole command end to end
 * against a server: they need `dist/` (built by `pretest`) or seconds each. Everything else is a unit test (`npm run test:unit`, fast feedback).
 */
const INTEGRATION = [
  'test/integration/**/*.test.ts',
]

// Unit and integration tests of the library itself (`npm test` runs both projects). The example evals have their
// own config at the repository root (`npm run evals`).
export default defineConfig({
  resolve: { alias: [{ find: /^vitest-tool-evals$/, replacement: `${src}index.ts` }] },
  test: {
    root: fileURLToPath(new URL('..', import.meta.url)),
    // Vitest's default is one worker less than the cores: one on a 2-core machine, where every file of both projects
    // then ran alone (an integration file mostly waits on its subprocesses, leaving a core idle).
    maxWorkers: Math.max(2, availableParallelism()),
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      // Threads start faster than forks, and files that share a worker share its loaded modules (no unit test
      // changes global state it does not restore): 40% less CPU time than a fresh module graph per file.
      { extends: true, test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: INTEGRATION, pool: 'threads', isolate: false } },
      // Subprocess tests wait on other processes: generous limits hold on a loaded 2-core machine.
      // Files that share a fork share its loaded modules too (each restores the folder and variables it changes).
      { extends: true, test: { name: 'integration', include: INTEGRATION, isolate: false, testTimeout: 180_000, hookTimeout: 300_000 } },
    ],
  },
})
