import { defineConfig } from 'vitest/config'
import { fileURLToPath } from 'node:url'

const src = fileURLToPath(new URL('../src/', import.meta.url))

// Unit and integration tests of the library itself (`npm test`). The example evals have their own config at the
// repository root (`npm run evals`).
export default defineConfig({
  resolve: { alias: [{ find: /^vitest-tool-evals$/, replacement: `${src}index.ts` }] },
  test: {
    root: fileURLToPath(new URL('..', import.meta.url)),
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
})
